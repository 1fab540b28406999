"""The person's "seen" state: ids marked seen per inbox, never written into an agent's file;
the sets cached until this connection or another one writes to them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

from .store import Store, _key, _unkey

SeenKey = tuple[str | bytes, str | bytes]  # (team, inbox) as stored (_key)


class Seen(Store):
    _seen_gen = 0  # writes to `seen` through this connection (`_prepare`'s triggers)
    _seen_cache: dict[SeenKey, frozenset[str]]  # as of `_seen_token`
    _seen_stale: dict[SeenKey, frozenset[str]]  # from before it: read again
    _seen_token: tuple[int, int] | None

    def _prepare(self, db: sqlite3.Connection) -> None:
        super()._prepare(db)
        # Every write to `seen` through this connection, whatever statement makes it,
        # moves `_seen_gen` (temp triggers: this connection's only); other
        # connections' commits move `PRAGMA data_version`. Together they say when
        # the cached seen sets (`seen_set`) must be read again.
        db.create_function("teaminbox_seen_changed", 0, self._seen_changed)
        for op in ("INSERT", "UPDATE", "DELETE"):
            db.execute(
                f"CREATE TEMP TRIGGER IF NOT EXISTS seen_{op.lower()} AFTER {op} ON main.seen"
                " BEGIN SELECT teaminbox_seen_changed(); END"
            )
        self._seen_cache = {}
        self._seen_stale = {}
        self._seen_token = None

    def _seen_changed(self) -> None:
        self._seen_gen += 1

    def mark_seen(self, team: str, inbox: str, ids: Iterable[str]) -> int:
        with self._lock, self.db:
            before = self.db.total_changes
            self.db.executemany(
                "INSERT OR IGNORE INTO seen(team, inbox, id) VALUES (?,?,?)",
                [(_key(team), _key(inbox), _key(i)) for i in ids],
            )
            return self.db.total_changes - before

    def seen_ids(self, team: str, inbox: str) -> set[str]:
        """The ids marked seen in an inbox (a copy the caller may change)."""
        return set(self.seen_set(team, inbox))

    def seen_set(self, team: str, inbox: str, *, checked: bool = False) -> frozenset[str]:
        """The ids marked seen in an inbox, the same object for as long as they stay the
        same (Tracker.unread keys its counts on it). Read from the table again after any
        write to it here or any commit elsewhere: 10,000 seen ids took 4 ms to read, each
        publisher step, when nothing had changed. `checked`: the caller ran check_seen
        for this pass over many inboxes."""
        if not checked:
            self.check_seen()
        key = (_key(team), _key(inbox))
        found = self._seen_cache.get(key)
        if found is None:
            found = self._read_seen(key)
            stale = self._seen_stale.pop(key, None)
            if stale == found:  # the same object: counts keyed on it still hold
                found = stale
            self._seen_cache[key] = found
        return found

    def check_seen(self) -> None:
        """Forget the cached seen sets if the table may have changed. Once per pass: a
        `PRAGMA` per inbox gave up the GIL 200 times a step during a flood."""
        token = (self._seen_gen, self.db.execute("PRAGMA data_version").fetchone()[0])
        if token != self._seen_token:
            self._seen_token = token
            self._seen_stale.update(self._seen_cache)
            self._seen_cache = {}

    def _read_seen(self, key: SeenKey) -> frozenset[str]:
        rows = self.db.execute("SELECT id FROM seen WHERE team=? AND inbox=?", key)
        return frozenset(_unkey(r[0]) for r in rows)
