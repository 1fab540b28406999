"""The SQLite archive of every message the sidecar has seen, and the person's "seen" state.

Claude Code prunes delivered entries from the files; the archive keeps them
readable (`archived: true`). Marking another agent's inbox seen is recorded
here and never touches the agent's file. Full-text search runs on FTS5.

One job a module: store.py owns the connection (opening, checks, writes that wait, read-only
connections); messages.py, seen.py, search.py, teams.py, activity.py, boards.py and scans.py
each keep one kind of record; reading.py, until when each inbox was read. `History` is all of
them, on one connection.
"""

from __future__ import annotations

import sqlite3
import time

from .activity import Activity
from .boards import TaskBoards
from .messages import Messages
from .reading import Reading
from .scans import Scans
from .search import (
    MAX_QUERY_CHARS,
    MAX_QUERY_PREFIXES,
    MAX_QUERY_TERMS,
    MIN_PREFIX_CHARS,
    Search,
    check_query,
)
from .seen import Seen
from .spool_read import SpoolRead
from .store import NotAHistory, _transient, default_path, log
from .teams import Teams

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_QUERY_PREFIXES",
    "MAX_QUERY_TERMS",
    "MIN_PREFIX_CHARS",
    "History",
    "NotAHistory",
    "check_query",
    "default_path",
]


class History(Messages, Seen, Search, Teams, Activity, TaskBoards, Scans, SpoolRead, Reading):
    """The history: one connection (`db`), used from one thread at a time (the server's
    state thread); a search reads through read-only connections of its own, from any thread."""

    def _upkeep(self) -> None:
        self._revive()
        self.prune()

    def prune(self) -> int:
        """Forget archived messages older than keep_days, and teams ended that long ago
        (0 keeps forever)."""
        if not self.keep_days:
            return 0
        cutoff = time.time() - self.keep_days * 86400
        try:
            return self.prune_messages(cutoff) + self.prune_teams()
        except sqlite3.OperationalError as err:  # the disk full, locked: the next prune
            if not _transient(err):
                raise
            log.warning("history %s: pruning failed (%s); tried again later", self.path, err)
            return 0
