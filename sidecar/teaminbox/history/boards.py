"""Task boards: each team's last non-empty board (Claude Code empties a finished list, and
an ended team's tasks must stay readable); tasks.Boards writes them."""

from __future__ import annotations

import time

from .store import Store, _key


class TaskBoards(Store):
    def save_board(self, team: str, body: bytes) -> None:
        """Keep a team's board (a JSON array of Task); dropped with the team (forgetTeam,
        retention)."""
        now = time.time()
        self._write(
            lambda: self.db.execute(
                "INSERT INTO task_boards(team, body, saved_at) VALUES (?,?,?)"
                " ON CONFLICT(team) DO UPDATE SET body=excluded.body, saved_at=excluded.saved_at",
                (_key(team), body, now),
            )
        )

    def board(self, team: str) -> tuple[bytes, float] | None:
        """(body, saved_at) of a team's last non-empty board."""
        row = self.db.execute(
            "SELECT body, saved_at FROM task_boards WHERE team=?", (_key(team),)
        ).fetchone()
        return None if row is None else (bytes(row[0]), float(row[1]))
