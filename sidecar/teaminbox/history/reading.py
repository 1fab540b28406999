"""Until when the sidecar read each inbox whose reader takes messages away: what a start
compares with now to say how long nobody read it (gaps.py); dropped with the team. And the
gaps an inbox's record holds, for a view that reads the file and the gaps alone."""

from __future__ import annotations

from collections.abc import Iterable

import orjson

from ..model import Message
from .messages import message_of
from .store import Store, _key


class Reading(Store):
    def read_until(self, team: str, inbox: str) -> float | None:
        """When a sidecar on this history last noted it was reading the inbox (None: never)."""
        row = self.db.execute(
            "SELECT until FROM reading WHERE team=? AND inbox=?", (_key(team), _key(inbox))
        ).fetchone()
        return None if row is None else float(row[0])

    def reading(self, inboxes: Iterable[tuple[str, str]], until: float) -> None:
        """Note that these inboxes were read until `until` (never moved back: another
        sidecar on the same history may be ahead)."""
        rows = [(_key(t), _key(i), until) for t, i in inboxes]
        if not rows:
            return
        self._write(
            lambda: self.db.executemany(
                "INSERT INTO reading(team, inbox, until) VALUES (?,?,?)"
                " ON CONFLICT(team, inbox) DO UPDATE SET until=max(until, excluded.until)",
                rows,
            )
        )

    def gaps(self, team: str, inbox: str) -> list[tuple[float, float]]:
        """The gaps an inbox's record holds (start, end): another sidecar on this history may
        have said one already (two windows, one suspended machine)."""
        rows = self.db.execute(
            "SELECT body FROM messages WHERE team=? AND inbox=? AND id LIKE 'gap-%'",
            (_key(team), _key(inbox)),
        )
        out: list[tuple[float, float]] = []
        for (body,) in rows:
            try:
                gap = orjson.loads(body).get("gap")
                out.append((float(gap["start"]), float(gap["end"])))
            except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError, ValueError):
                continue  # a message whose id only looks like a gap's
        return out

    def gap_messages(self, team: str, inbox: str) -> list[Message]:
        """The gaps an inbox's record holds, as its archived rows, oldest first (`teaminbox
        read` puts them among the file's messages)."""
        rows = self.db.execute(
            "SELECT body, id FROM messages WHERE team=? AND inbox=? AND id LIKE 'gap-%'"
            " ORDER BY ts",
            (_key(team), _key(inbox)),
        )
        msgs = (message_of(body, self.path, archived=True, key=k) for body, k in rows)
        return [m for m in msgs if m.gap is not None]
