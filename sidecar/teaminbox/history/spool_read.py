"""How far the spool (teaminbox/spool.py) was taken in: a byte offset for each spool
file, by the file's id, so a later start reads only what is new."""

from __future__ import annotations

import time
from collections.abc import Mapping

from .store import Store


class SpoolRead(Store):
    def spool_offsets(self) -> dict[str, int]:
        rows = self.db.execute("SELECT file, offset FROM spool_read")
        return {str(f): int(o) for f, o in rows}

    def save_spool_offsets(self, offsets: Mapping[str, int]) -> None:
        """The offsets of the files there now; a file gone (rotated away) is forgotten."""
        now = time.time()
        rows = [(f, o, now) for f, o in offsets.items()]

        def write() -> None:
            self.db.execute("DELETE FROM spool_read")
            self.db.executemany(
                "INSERT INTO spool_read(file, offset, updated) VALUES (?,?,?)", rows
            )

        self._write(write)
