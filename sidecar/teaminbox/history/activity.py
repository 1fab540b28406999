"""What session transcripts said of a team (teaminbox.transcripts): its token use and
activity times, no words; dropped with the team."""

from __future__ import annotations

import time

from .store import Store, _key


class Activity(Store):
    def save_activity(self, team: str, body: bytes) -> None:
        """A team's derived activity (timestamps and token counts: no words); dropped
        with the team (forgetTeam, retention)."""
        now = time.time()
        self._write(
            lambda: self.db.execute(
                "INSERT INTO team_activity(team, body, updated) VALUES (?,?,?)"
                " ON CONFLICT(team) DO UPDATE SET body=excluded.body, updated=excluded.updated",
                (_key(team), body, now),
            )
        )

    def team_activity(self, team: str) -> bytes | None:
        row = self.db.execute(
            "SELECT body FROM team_activity WHERE team=?", (_key(team),)
        ).fetchone()
        return None if row is None else bytes(row[0])
