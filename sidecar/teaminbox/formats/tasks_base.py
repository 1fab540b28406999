"""What every task board provides, and the operations the formats' boards share.

A format's board (tasks_claude.py, tasks_pseudoclaude.py) says where its files
are, reads them into `Task`s and writes one task's status under the peer's own
lock. tasks.py holds the live teams' boards for the tracker.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from typing import Any, Protocol

import attrs

from ..errors import InvalidParams, TeamInboxError
from ..fileio import fsync_dir, temp_path
from ..jsonio import loads
from ..locks import PeerLock, drop_temp, track_temp, write_tracked_temp
from ..model import Problem, Task

# How the wire spells a status; each format maps its own spellings onto these.
STATUSES = ("pending", "in_progress", "completed", "blocked")
MAX_TASK_BYTES = 4 * 1024 * 1024
Sig = tuple[Any, ...]


class UnknownTask(TeamInboxError):
    """No task with that id on the team's board (deleted meanwhile, or mistyped)."""

    code = "unknown_task"


class NoTaskBoard(TeamInboxError):
    """The team's format keeps no task board (filebus), or Team Inbox cannot tell where."""

    code = "no_task_board"


class CorruptTask(TeamInboxError):
    """A task file that does not parse: never overwritten."""

    code = "corrupt_task"


@attrs.define
class BoardRead:
    tasks: list[Task]
    problems: list[Problem] = attrs.Factory(list)


class TaskBoard(Protocol):
    """What a format says about its task board."""

    format: str
    statuses: frozenset[str]  # the wire statuses its peers accept
    empty_note: str  # why its board may be empty, for a person ("": nothing to say)

    def location(self, team_path: str, team_name: str) -> str | None:
        """The board's folder or file (it may not exist yet); None: no board."""
        ...

    def watch_folders(self, root_path: str) -> list[str]:
        """Folders outside the team roots to watch for a root of this format's teams."""
        ...

    def hint(self, path: str) -> tuple[bool, str | None]:
        """(claimed, location) for a changed path: the board it touches, None for the
        board's own lock and temp files; claimed False: not a board's path at all."""
        ...

    def sig(self, location: str) -> Sig | None: ...

    def read(self, location: str, team: str) -> BoardRead: ...

    def set_status(self, location: str, task_id: str, status: str, timeout: float) -> Task:
        """Write one task's status under the peer's lock; returns the task as written."""
        ...


def board_hint(path: str, boards: Iterable[TaskBoard | None]) -> tuple[bool, str | None]:
    """The first board that claims a changed path (watch.classify asks before the inboxes)."""
    for board in boards:
        if board is not None:
            claimed, location = board.hint(path)
            if claimed:
                return True, location
    return False, None


def opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def strs(value: Any) -> list[str]:
    """A list of ids as written (numbers too: Go or a hand-edited file may write them)."""
    if not isinstance(value, list):
        return []
    return [str(v) for v in value if isinstance(v, (str, int)) and not isinstance(v, bool)]


def load_doc(data: bytes, path: str) -> Any:
    try:
        return loads(data, path)
    except TeamInboxError as err:
        raise CorruptTask(err.message, path=path) from None


def replace_file(path: str, data: bytes, lock: PeerLock) -> None:
    """Swap new bytes in under a lock we hold: a temp file beside it (a name no peer lists),
    fsynced, the lock checked to be ours and far from stale, renamed, the folder fsynced.
    The file keeps its mode."""
    tmp = temp_path(path)
    track_temp(tmp)
    try:
        try:
            mode: int | None = stat.S_IMODE(os.stat(path).st_mode) & 0o777
        except FileNotFoundError:
            mode = None
        write_tracked_temp(tmp, data, mode)
        lock.check_lease()
        with lock.critical():
            lock.verify()
            os.replace(tmp, path)
        fsync_dir(os.path.dirname(path) or ".")
    finally:
        drop_temp(tmp)


def board_statuses(board: TaskBoard | None) -> list[str]:
    """The wire statuses a board takes, in the wire's order (none without a board)."""
    return [s for s in STATUSES if board is not None and s in board.statuses]


def check_status(board: TaskBoard, status: str, extra: Iterable[str] = ()) -> None:
    if status not in board.statuses and status not in extra:
        known = ", ".join(board_statuses(board))
        raise InvalidParams(
            f"status {status!r} is not one {board.format} tasks take (statuses: {known})"
        )
