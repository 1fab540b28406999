"""Claude Code sessions looked at for a team that lived while no sidecar ran: each lead
transcript's path with what its files looked like then (`sig`), so a later start reads
only the sessions that changed."""

from __future__ import annotations

import time

from .store import Store, _key, _unkey


class Scans(Store):
    def session_scans(self) -> dict[str, str]:
        """Lead transcript path -> the signature its session had when last looked at."""
        rows = self.db.execute("SELECT path, sig FROM session_scans")
        return {_unkey(path): str(sig) for path, sig in rows}

    def save_scan(self, path: str, sig: str, team: str | None) -> None:
        """A session looked at: `team` the id it was rebuilt or known as (None: no team)."""
        now = time.time()
        self._write(
            lambda: self.db.execute(
                "INSERT INTO session_scans(path, sig, team, scanned_at) VALUES (?,?,?,?)"
                " ON CONFLICT(path) DO UPDATE SET sig=excluded.sig, team=excluded.team,"
                " scanned_at=excluded.scanned_at",
                (_key(path), sig, None if team is None else _key(team), now),
            )
        )
