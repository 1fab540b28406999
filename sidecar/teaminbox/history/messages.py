"""Messages: every message the sidecar has seen, kept after its file lost it (`archived`),
its words never overwritten by a message that reuses its id; a team's conversation; the
messages pruned once they are older than the history keeps."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable
from typing import Any

import orjson

from ..jsonio import MAX_DEPTH, dumps_any, loads
from ..model import Message, converter
from ..timestamps import epoch
from .store import Store, _key, _text, _unkey, log


def _body(msg: Message) -> bytes:
    """The message as JSON (its free-form dicts as they are: model.converter)."""
    data = converter.unstructure(msg)
    data.pop("archived", None)
    data.pop("seen", None)
    data.pop("description", None)  # a view of it, made again as it leaves (render.py)
    return dumps_any(data)


def _recovered(body: bytes) -> bool:
    """A row `archive_missing` rebuilt from a transcript (`recovered`), not read from a file."""
    if b'"recovered":true' not in body:
        return False
    try:
        return orjson.loads(body).get("recovered") is True
    except (orjson.JSONDecodeError, AttributeError):
        return False


TWIN = 5.0  # seconds a turn's time may be before its entry's (see _drop_twin)


def _row(team_k: str | bytes, inbox_k: str | bytes, m: Message, now: float) -> tuple[Any, ...]:
    """A message's columns: team, inbox, id, ts, sender, summary, text, body, first_seen."""
    return (
        team_k,
        inbox_k,
        _key(m.id),
        _text(m.timestamp),
        _text(m.from_),
        _text(m.summary),
        _text(m.text),
        _body(m),
        now,
    )


def message_of(body: bytes, path: str, archived: bool, key: str | bytes | None = None) -> Message:
    """A message as archived (its body), `archived` or not; `path` names the history in an error."""
    try:
        data: dict[str, Any] = orjson.loads(body)
    except (orjson.JSONDecodeError, RecursionError):  # lone surrogates, deep entries
        data = loads(body, path, max_depth=MAX_DEPTH + 8)  # the entry, wrapped
    msg = converter.structure(data, Message)
    msg.archived = archived
    if key is not None:  # a message whose id a later one reused: its own (_insert)
        msg.id = _unkey(key)
    return msg


class Messages(Store):
    def known_inbox(self, team: str, inbox: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM inboxes WHERE team=? AND inbox=?", (_key(team), _key(inbox))
        ).fetchone()
        return row is not None

    def known_ids(self, team: str, inbox: str) -> set[str]:
        rows = self.db.execute(
            "SELECT id FROM messages WHERE team=? AND inbox=? AND gone_at IS NULL",
            (_key(team), _key(inbox)),
        )
        return {_unkey(r[0]) for r in rows}

    def all_ids(self, team: str, inbox: str) -> set[str]:
        """Every id the archive holds for an inbox, delivered ones included."""
        rows = self.db.execute(
            "SELECT id FROM messages WHERE team=? AND inbox=?", (_key(team), _key(inbox))
        )
        return {_unkey(r[0]) for r in rows}

    def _insert(
        self, team_k: str | bytes, inbox_k: str | bytes, row: tuple[Any, ...], gone_at: float | None
    ) -> bool:
        """Insert one message's row; True if it is new to the archive. An id the archive
        holds with other words (a peer regenerating ids, an agent reusing one on purpose)
        never overwrites them: the archived one keeps its words (and the seen mark) under
        an id of its own, `<id>~<n>`, and the new one is archived beside it. A message
        rebuilt from a transcript (`archive_missing`) gives way to its entry, same sender and
        text, when a file shows it after all."""
        id_k = row[2]
        old = self.db.execute(
            "SELECT rowid, ts, sender, summary, text, gone_at, body FROM messages"
            " WHERE team=? AND inbox=? AND id=?",
            (team_k, inbox_k, id_k),
        ).fetchone()
        if old is not None and (old[2], old[4]) == (row[4], row[6]) and _recovered(old[6]):
            # rebuilt from a transcript (its time is the transcript's): the entry replaces it
            self.db.execute("DELETE FROM messages WHERE rowid=?", (old[0],))
            old = None
        if old is None:
            self._drop_twin(team_k, inbox_k, row)
            self.db.execute(
                "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
                " first_seen, gone_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (*row, gone_at),
            )
            return True
        if tuple(old[1:5]) == row[3:7]:  # the same message, back in a file
            if gone_at is None and old[5] is not None:
                self.db.execute("UPDATE messages SET gone_at=NULL WHERE rowid=?", (old[0],))
            return False
        alias = self._alias(team_k, inbox_k, _unkey(id_k), old[0])
        now = row[8]
        self.db.execute(
            "UPDATE messages SET id=?, gone_at=coalesce(gone_at, ?) WHERE rowid=?",
            (alias, now, old[0]),
        )
        self.db.execute(
            "UPDATE OR REPLACE seen SET id=? WHERE team=? AND inbox=? AND id=?",
            (alias, team_k, inbox_k, id_k),
        )
        self.db.execute(
            "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
            " first_seen, gone_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (*row, gone_at),
        )
        log.info(
            "history: %s reused in %s; the archived message is kept as %s", id_k, inbox_k, alias
        )
        return True

    def _rebuilt(self, team_k: str | bytes, inbox_k: str | bytes) -> bool:
        """Whether the inbox holds a message rebuilt from the lead's transcript (`tm-`)."""
        return (
            self.db.execute(
                "SELECT 1 FROM messages WHERE team=? AND inbox=? AND id >= 'tm-' AND id < 'tm.'"
                " LIMIT 1",
                (team_k, inbox_k),
            ).fetchone()
            is not None
        )

    def _drop_twin(self, team_k: str | bytes, inbox_k: str | bytes, row: tuple[Any, ...]) -> None:
        """A message rebuilt from the lead's transcript (`tm-`: the turn that handed it over,
        no id) gives way to the same message under its own id, same sender and text, when
        the file or its sender's transcript shows it after all (the turn came after it)."""
        if not isinstance(row[2], str) or row[2].startswith("tm-"):
            return
        twins = self.db.execute(
            "SELECT rowid, ts FROM messages WHERE team=? AND inbox=? AND id >= 'tm-'"
            " AND id < 'tm.' AND sender=? AND text=?",
            (team_k, inbox_k, row[4], row[6]),
        ).fetchall()
        t = epoch(row[3]) if twins else None
        for rowid, ts in twins:
            turn = epoch(ts)
            if t is not None and turn is not None and turn >= t - TWIN:
                self.db.execute("DELETE FROM messages WHERE rowid=?", (rowid,))
                log.info("history: %s given way to the entry it rebuilt", row[2])

    def _alias(
        self, team_k: str | bytes, inbox_k: str | bytes, msg_id: str, rowid: int
    ) -> str | bytes:
        """An id no message of the inbox has: `<id>~<rowid>`, `~` added while one does."""
        alias = f"{msg_id}~{rowid}"
        for _ in range(100):
            k = _key(alias)
            taken = self.db.execute(
                "SELECT 1 FROM messages WHERE team=? AND inbox=? AND id=?", (team_k, inbox_k, k)
            ).fetchone()
            if taken is None:
                return k
            alias += "~"
        raise sqlite3.IntegrityError(f"no free id for {msg_id!r}")

    def record(
        self, team: str, inbox: str, added: Iterable[Message], removed: Iterable[str]
    ) -> None:
        """Archive new messages; mark vanished ones as gone (kept, now `archived`). When the
        history cannot be written this waits in memory (`catch_up`) and returns."""
        now = time.time()
        team_k, inbox_k = _key(team), _key(inbox)
        msgs = self._room(list(added))
        gone = [(now, team_k, inbox_k, _key(i)) for i in removed]

        def write() -> None:
            self.db.execute(
                "INSERT OR IGNORE INTO inboxes(team, inbox) VALUES (?, ?)", (team_k, inbox_k)
            )
            rows = [_row(team_k, inbox_k, m, now) for m in msgs]
            if rows and self._rebuilt(team_k, inbox_k):
                for row in rows:
                    self._drop_twin(team_k, inbox_k, row)
            cur = self.db.executemany(
                "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
                " first_seen) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(team, inbox, id) DO NOTHING",
                rows,
            )
            if cur.rowcount != len(rows):  # ids the archive held already: one at a time
                for row in rows:
                    self._insert(team_k, inbox_k, row, None)
            self.db.executemany(
                "UPDATE messages SET gone_at=? WHERE team=? AND inbox=? AND id=?", gone
            )

        self._write(write, len(msgs))

    def archived(
        self, team: str, inbox: str, newest: int | None = None, *, ended: bool = False
    ) -> list[Message]:
        """An inbox's archived messages; with `newest`, only that many, newest first (a page
        of an inbox whose 1,500 delivered messages took 0.2 s to parse whole). `ended`: the
        team ended, so every message held (one that went while no sidecar ran, read only,
        keeps those its file held as last seen)."""
        if newest is None:
            rows = self.db.execute(
                "SELECT body, id FROM messages WHERE team=? AND inbox=?"
                " AND (gone_at IS NOT NULL OR ?)",
                (_key(team), _key(inbox), ended),
            )
        else:
            rows = self.db.execute(
                "SELECT body, id FROM messages WHERE team=? AND inbox=?"
                " AND (gone_at IS NOT NULL OR ?) ORDER BY ts DESC LIMIT ?",
                (_key(team), _key(inbox), ended, newest),
            )
        return [message_of(r[0], self.path, archived=True, key=r[1]) for r in rows]

    def archive_new(self, team: str, inbox: str, added: Iterable[Message]) -> list[Message]:
        """Archive messages that are in no file (`archived` from the start); returns those
        the history did not hold yet, so each is news once, across restarts."""
        now = time.time()
        team_k, inbox_k = _key(team), _key(inbox)
        msgs = list(added)
        rows = [_row(team_k, inbox_k, m, now) for m in msgs]
        inserted: list[Message] = []
        fresh: list[Message] = []

        def write() -> None:
            inserted[:] = [
                m
                for m, row in zip(msgs, rows, strict=True)
                if self._insert(team_k, inbox_k, row, now)
            ]

        if self._write(write, len(msgs)):
            return inserted
        # waiting: news is what neither the history nor the writes waiting hold
        for m, row in zip(msgs, rows, strict=True):
            key = (team_k, inbox_k, row[2])
            if key not in self._behind_new and not self._holds(team_k, inbox_k, row):
                self._behind_new.add(key)
                fresh.append(m)
        return fresh

    def archive_missing(self, team: str, inbox: str, added: Iterable[Message]) -> list[Message]:
        """Archive messages known from elsewhere than their file (a transcript), each only
        when the inbox's history holds no message of its id: one it holds keeps its words.
        Returns those archived ([] while the history cannot be written)."""
        now = time.time()
        team_k, inbox_k = _key(team), _key(inbox)
        rows = [(m, _row(team_k, inbox_k, m, now)) for m in added]
        inserted: list[Message] = []

        def write() -> None:
            inserted.clear()
            for m, row in rows:
                self._drop_twin(team_k, inbox_k, row)
                cur = self.db.execute(
                    "INSERT INTO messages(team, inbox, id, ts, sender, summary, text, body,"
                    " first_seen, gone_at) VALUES (?,?,?,?,?,?,?,?,?,?)"
                    " ON CONFLICT(team, inbox, id) DO NOTHING",
                    (*row, now),
                )
                if cur.rowcount == 1:
                    inserted.append(m)

        return inserted if self._write(write, len(rows)) else []

    def held_between(
        self, team: str, inbox: str, lo: str, hi: str
    ) -> list[tuple[str, str, str | None, str, str]]:
        """An inbox's messages with a time from `lo` to `hi` (ISO text, as Claude Code
        writes it): (id, sender, summary, text, ts) each."""
        rows = self.db.execute(
            "SELECT id, sender, summary, text, ts FROM messages"
            " WHERE team=? AND ts BETWEEN ? AND ? AND inbox=?",
            (_key(team), lo, hi, _key(inbox)),
        )
        return [(_unkey(i), s or "", m, t or "", ts or "") for i, s, m, t, ts in rows]

    def _holds(self, team_k: str | bytes, inbox_k: str | bytes, row: tuple[Any, ...]) -> bool:
        old = self.db.execute(
            "SELECT ts, sender, summary, text FROM messages WHERE team=? AND inbox=? AND id=?",
            (team_k, inbox_k, row[2]),
        ).fetchone()
        return old is not None and tuple(old) == row[3:7]

    def team_messages(self, team: str, offset: int = 0, limit: int = 200) -> list[Message]:
        """Every archived or live message of a team, newest first (the conversation)."""
        rows = self.db.execute(
            "SELECT body, gone_at IS NOT NULL, id FROM messages WHERE team=?"
            " ORDER BY ts DESC LIMIT ? OFFSET ?",
            (_key(team), limit, offset),
        )
        return [message_of(b, self.path, bool(a), k) for b, a, k in rows]

    def prune_messages(self, cutoff: float) -> int:
        """Forget archived messages gone from their files before `cutoff`; how many."""
        with self._lock, self.db:
            cur = self.db.execute(
                "DELETE FROM messages WHERE gone_at IS NOT NULL AND gone_at < ?", (cutoff,)
            )
            return cur.rowcount
