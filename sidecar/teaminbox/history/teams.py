"""Teams: what each looked like last (so an ended one, its folder deleted, stays
readable), which have ended (only when their folder is gone), and forgetting one."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable

import orjson

from .store import Store, _key, _unkey, log


def _folder_of(body: bytes) -> str | None:
    """A saved team's folder (`Team.dir`) if it is still there. A folder that cannot be
    looked at (no permission, I/O) counts as there: ending a team is never a guess."""
    try:
        folder = orjson.loads(body).get("dir")
    except (orjson.JSONDecodeError, AttributeError):
        return None
    return _there(folder)


def _there(folder: object) -> str | None:
    if not isinstance(folder, str) or not folder:
        return None
    try:
        os.stat(folder)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError):
        return folder
    return folder


class Teams(Store):
    def save_team(self, team: str, body: bytes) -> None:
        now = time.time()
        self._write(
            lambda: self.db.execute(
                "INSERT INTO teams(id, body, first_seen, last_seen) VALUES (?,?,?,?)"
                " ON CONFLICT(id) DO UPDATE SET body=excluded.body, last_seen=excluded.last_seen,"
                " ended_at=NULL",
                (_key(team), body, now, now),
            )
        )

    def save_ended_team(self, team: str, body: bytes, started: float, ended: float) -> bool:
        """Keep a team the history never saw live (rebuilt from its session's transcripts)
        as ended; a team it holds is left as it is. True: saved."""
        saved: list[bool] = []

        def write() -> None:
            cur = self.db.execute(
                "INSERT INTO teams(id, body, first_seen, last_seen, ended_at) VALUES (?,?,?,?,?)"
                " ON CONFLICT(id) DO NOTHING",
                (_key(team), body, started, ended, ended),
            )
            saved[:] = [cur.rowcount == 1]

        return self._write(write) and saved == [True]

    def _gone(self, live: Iterable[str]) -> list[tuple[str | bytes, bytes, float]]:
        """The known teams not marked ended that are not live here AND whose folder is
        gone: (key, body, last seen) each. A team outside this window's roots may be live
        in another window sharing the history: its folder says so."""
        live_keys = {_key(t) for t in live}
        rows = self.db.execute("SELECT id, body, last_seen FROM teams WHERE ended_at IS NULL")
        return [(k, b, s) for k, b, s in rows if k not in live_keys and _folder_of(b) is None]

    def end_teams(self, live: Iterable[str]) -> list[str]:
        """Mark the teams `_gone` finds as ended, and their messages as gone (no file holds
        them now: a team that went while no sidecar ran left them as last seen); returns
        the newly ended."""
        gone = [k for k, _, _ in self._gone(live)]
        if gone:
            now = time.time()

            def write() -> None:
                self.db.executemany(
                    "UPDATE teams SET ended_at=? WHERE id=?", [(now, k) for k in gone]
                )
                self.db.executemany(
                    "UPDATE messages SET gone_at=? WHERE team=? AND gone_at IS NULL",
                    [(now, k) for k in gone],
                )

            self._write(write)
        return [_unkey(k) for k in gone]

    def _unmarked(self) -> list[tuple[str | bytes, bytes, float]]:
        """The teams `end_teams` would end, for a history read only (a command that only
        reads, no sidecar started since their folder went): ended since last seen, as a
        start would mark them. A history that is written marks them at its start."""
        return self._gone(()) if self.read_only else []

    def _revive(self) -> None:
        """Teams marked ended while their folder is still there (by a sidecar before this
        rule, in a window with other roots) have not ended: at each start, a stat each."""
        try:  # SQLite's JSON functions: no body parsed in Python
            rows = self.db.execute(
                "SELECT id, json_extract(CAST(body AS TEXT), '$.dir') FROM teams"
                " WHERE ended_at IS NOT NULL"
            ).fetchall()
        except sqlite3.OperationalError:  # an SQLite built without them
            rows = [
                (k, orjson.loads(b).get("dir"))
                for k, b in self.db.execute("SELECT id, body FROM teams WHERE ended_at IS NOT NULL")
            ]
        back = [(k,) for k, folder in rows if _there(folder) is not None]
        if back:
            self._write(
                lambda: self.db.executemany("UPDATE teams SET ended_at=NULL WHERE id=?", back)
            )
            log.info("history: %d teams whose folder is still there are no longer ended", len(back))

    def live_folder(self, team: str) -> str | None:
        """The team's folder as last seen, if it is still there (then the team has not ended,
        whatever one window's roots hold)."""
        row = self.db.execute("SELECT body FROM teams WHERE id=?", (_key(team),)).fetchone()
        return None if row is None else _folder_of(row[0])

    def ended_teams(self, limit: int = -1) -> list[tuple[bytes, float]]:
        """(body, ended_at) of ended teams, the most recently ended first."""
        rows = self.db.execute(
            "SELECT body, ended_at FROM teams WHERE ended_at IS NOT NULL"
            " ORDER BY ended_at DESC LIMIT ?",
            (limit,),
        )
        out = [(r[0], r[1]) for r in rows]
        unmarked = [(b, s) for _, b, s in self._unmarked()]
        if unmarked:
            out = sorted(out + unmarked, key=lambda r: r[1], reverse=True)
        return out[:limit] if limit >= 0 else out

    def ended_teams_named(self, name: str) -> list[tuple[bytes, float]]:
        """(body, ended_at) of the ended teams whose wire name (`Team.name`) is `name`:
        SQLite's JSON functions look, rather than every body parsed here."""
        try:
            rows = self.db.execute(
                "SELECT body, ended_at FROM teams WHERE ended_at IS NOT NULL"
                " AND json_extract(CAST(body AS TEXT), '$.name') = ? ORDER BY ended_at DESC",
                (name,),
            ).fetchall()
        except UnicodeEncodeError:  # a lone surrogate: no body (orjson's JSON) holds one
            return []
        except sqlite3.OperationalError:  # an SQLite built without JSON functions
            rows = [r for r in self.ended_teams() if orjson.loads(r[0]).get("name") == name]
        unmarked = [(b, s) for _, b, s in self._unmarked() if orjson.loads(b).get("name") == name]
        return [(r[0], r[1]) for r in rows] + unmarked

    def team_body(self, team: str) -> tuple[bytes, float | None] | None:
        """(body, ended_at) of a team as last seen (`ended_at` None: not ended)."""
        row = self.db.execute(
            "SELECT body, ended_at FROM teams WHERE id=?", (_key(team),)
        ).fetchone()
        if row is not None and row[1] is None:
            k = _key(team)
            return next(((b, s) for g, b, s in self._unmarked() if g == k), (row[0], None))
        return None if row is None else (row[0], row[1])

    def team_size(self, team: str) -> tuple[int, int]:
        """(messages, inboxes) the history holds of a team: what forget_team drops."""
        k = _key(team)
        n = self.db.execute("SELECT count(*) FROM messages WHERE team=?", (k,)).fetchone()[0]
        inboxes = self.db.execute(
            "SELECT count(*) FROM (SELECT inbox FROM messages WHERE team=?"
            " UNION SELECT inbox FROM inboxes WHERE team=?)",
            (k, k),
        ).fetchone()[0]
        return int(n), int(inboxes)

    def forget_team(self, team: str) -> int:
        """Drop a team and everything archived of it; returns the messages dropped. The
        caller checks that it ended (`live_folder`); the person's own request: a full disk
        is an error here, not a write that waits."""
        k = _key(team)
        with self._lock, self.db:
            n = self.db.execute("DELETE FROM messages WHERE team=?", (k,)).rowcount
            self.db.execute("DELETE FROM seen WHERE team=?", (k,))
            self.db.execute("DELETE FROM inboxes WHERE team=?", (k,))
            self.db.execute("DELETE FROM teams WHERE id=?", (k,))
            return n

    def prune_teams(self) -> int:
        """Forget teams ended longer than keep_days ago (0 keeps forever)."""
        if not self.keep_days:
            return 0
        cutoff = time.time() - self.keep_days * 86400
        rows = self.db.execute(
            "SELECT id, body FROM teams WHERE ended_at IS NOT NULL AND ended_at < ?", (cutoff,)
        ).fetchall()
        # a folder still there: ended by mistake (another window's roots), never forgotten
        old = [team for team, body in rows if _folder_of(body) is None]
        for team in old:
            self.forget_team(_unkey(team))
        return len(old)
