"""How far the spool (teaminbox/spool.py) was taken in: a byte offset for each spool
file, by the file's id, so a later start reads only what is new. And what says whether the
spool kept a team's sends over a time nobody read its inboxes (server/features/gaps.py):
when the record hook was first and last seen recording each session's sends, and the times
a spool file went (dropped past the spool's cap) before it was known to be read to its end.
A file the sidecar deletes itself, read through, is forgotten first (`forget_spool_files`):
no loss."""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping

from .store import Store

KEEP_LOSSES = 100  # the newest losses kept: an older one is older than any read-until note


class SpoolRead(Store):
    def spool_offsets(self) -> dict[str, int]:
        rows = self.db.execute("SELECT file, offset FROM spool_read")
        return {str(f): int(o) for f, o in rows}

    def save_spool_offsets(self, offsets: Mapping[str, int]) -> None:
        """The offsets of the files there now; a file gone (capped away) is forgotten, and
        the time since it was last read is kept as a loss (what it held after that may
        never have been read)."""
        now = time.time()
        rows = [(f, o, now) for f, o in offsets.items()]

        def write() -> None:
            gone = [
                (float(at), now)
                for f, at in self.db.execute("SELECT file, updated FROM spool_read")
                if f not in offsets
            ]
            if gone:
                self.db.executemany("INSERT INTO spool_losses(start, end) VALUES (?,?)", gone)
                self.db.execute(
                    "DELETE FROM spool_losses WHERE rowid NOT IN"
                    " (SELECT rowid FROM spool_losses ORDER BY end DESC LIMIT ?)",
                    (KEEP_LOSSES,),
                )
            self.db.execute("DELETE FROM spool_read")
            self.db.executemany(
                "INSERT INTO spool_read(file, offset, updated) VALUES (?,?,?)", rows
            )

        self._write(write)

    def forget_spool_files(self, files: Collection[str]) -> None:
        """These files are read through and about to be deleted: their going is no loss."""
        rows = [(f,) for f in files]
        if rows:
            self._write(lambda: self.db.executemany("DELETE FROM spool_read WHERE file=?", rows))

    def saw_spooled(self, sessions: Mapping[str, tuple[float, float]]) -> None:
        """The record hook recorded sends of these sessions between (first, last)."""
        rows = [(s, a, b) for s, (a, b) in sessions.items()]
        if not rows:
            return
        self._write(
            lambda: self.db.executemany(
                "INSERT INTO spool_sessions(session, first, last) VALUES (?,?,?)"
                " ON CONFLICT(session) DO UPDATE SET first=min(first, excluded.first),"
                " last=max(last, excluded.last)",
                rows,
            )
        )

    def spooled_since(self, session: str) -> float | None:
        """When the record hook was first seen recording a send of the session (None:
        never)."""
        row = self.db.execute(
            "SELECT first FROM spool_sessions WHERE session=?", (session,)
        ).fetchone()
        return None if row is None else float(row[0])

    def spool_lost(self, start: float, end: float, present: Collection[str]) -> bool:
        """Could the spool have lost a send made between `start` and `end`: a file went
        before it was read to its end, then (a loss kept) or now (a file whose offset is
        kept is no longer among those `present`)?"""
        kept = self.db.execute(
            "SELECT 1 FROM spool_losses WHERE start <= ? AND end >= ? LIMIT 1", (end, start)
        ).fetchone()
        if kept is not None:
            return True
        rows = self.db.execute("SELECT file, updated FROM spool_read").fetchall()
        return any(f not in present and float(at) <= end for f, at in rows)
