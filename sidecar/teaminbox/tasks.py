"""Team task boards: the model and the operations every format shares.

Claude Code keeps one JSON file per task in `<config>/tasks/<team>/`, a sibling of
`teams/` that outlives the team folder; PseudoClaude keeps one `tasks.json` in the
team folder. A format's board (formats/tasks_claude.py, formats/tasks_pseudoclaude.py)
says where its files are, reads them into `Task`s and writes one task's status under
the peer's own lock. `Boards` holds every live team's board for the tracker (its one
thread), says which changed, and archives each team's last non-empty board in the
history, so an ended team's tasks stay readable.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import orjson

from .errors import TeamInboxError
from .model import Problem, Task, Team, converter

if TYPE_CHECKING:
    from .discovery import TeamDir
    from .history import History
    from .locks import PeerLock

log = logging.getLogger("teaminbox")

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
    from .formats import loads

    try:
        return loads(data, path)
    except TeamInboxError as err:
        raise CorruptTask(err.message, path=path) from None


def replace_file(path: str, data: bytes, lock: PeerLock) -> None:
    """Swap new bytes in under a lock we hold: a temp file beside it (a name no peer lists),
    fsynced, the lock checked to be ours and far from stale, renamed, the folder fsynced.
    The file keeps its mode."""
    from .locks import track_temp, untrack_temp
    from .store import _fsync_dir, _write_temp, temp_path

    tmp = temp_path(path)
    track_temp(tmp)
    try:
        try:
            mode: int | None = stat.S_IMODE(os.stat(path).st_mode) & 0o777
        except FileNotFoundError:
            mode = None
        _write_temp(tmp, data, mode)
        lock.check_lease()
        with lock.critical():
            lock.verify()
            os.replace(tmp, path)
        _fsync_dir(os.path.dirname(path) or ".")
    finally:
        untrack_temp(tmp)
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass


def check_status(board: TaskBoard, status: str, extra: Iterable[str] = ()) -> None:
    from .errors import InvalidParams

    if status not in board.statuses and status not in extra:
        known = ", ".join(s for s in STATUSES if s in board.statuses)
        raise InvalidParams(
            f"status {status!r} is not one {board.format} tasks take (statuses: {known})"
        )


# --- every live team's board, on the tracker's thread ------------------------------------


@attrs.define
class BoardState:
    team: str
    board: TaskBoard
    location: str
    sig: Sig | None = None
    read_once: bool = False
    tasks: list[Task] = attrs.Factory(list)
    problems: list[Problem] = attrs.Factory(list)


def _body(tasks: list[Task]) -> bytes:
    return orjson.dumps([converter.unstructure(t) for t in tasks])


class Boards:
    """The task boards of the live teams: read when their files change, archived when
    they hold something, the changed teams collected for the publishers (`take_changed`)."""

    def __init__(self, history: History) -> None:
        self.history = history
        self.states: dict[str, BoardState] = {}
        self.by_location: dict[str, str] = {}
        self.changed: set[str] = set()
        self._saved: dict[str, bytes] = {}
        self._start = True

    def sync(self, teams: Mapping[str, TeamDir], start: bool = True) -> None:
        """Follow the live teams (a scan): new boards read, gone ones dropped, all refreshed.

        A board first read after the start is news (a team that appeared, with tasks by
        the time it was seen); at the start it is only the baseline."""
        self._start = start
        for tid in list(self.states):
            if tid not in teams:
                gone = self.states.pop(tid)
                self.by_location.pop(gone.location, None)
                self._saved.pop(tid, None)
        for tid, t in teams.items():
            board: TaskBoard | None = t.fmt.tasks
            location = board.location(t.path, t.name) if board is not None else None
            state: BoardState | None = self.states.get(tid)
            if state is not None and (location is None or state.location != location):
                self.by_location.pop(state.location, None)
                del self.states[tid]
                state = None
            if board is None or location is None:
                continue
            if state is None:
                state = self.states[tid] = BoardState(tid, board, location)
                self.by_location[location] = tid
            self.refresh(state)

    def claims(self, path: str) -> bool:
        """Is a hinted path a board's (known or not)? Unknown ones are nobody's business:
        Claude Code's tasks/ also holds the lists of sessions without a team."""
        if path in self.by_location:
            return True
        boards = {id(s.board): s.board for s in self.states.values()}.values()
        from .formats import registry

        claimed, _ = board_hint(path, [*boards, *(f.tasks for f in registry().values())])
        return claimed

    def refresh_locations(self, locations: Iterable[str]) -> None:
        for loc in locations:
            tid = self.by_location.get(loc)
            if tid is not None:
                self.refresh(self.states[tid])

    def refresh(self, state: BoardState) -> bool:
        """Re-read a board whose files changed; True (and `changed`) when its tasks did."""
        try:
            sig = state.board.sig(state.location)
        except OSError as err:
            log.warning("task board %s: %s", state.location, err)
            return False
        if state.read_once and sig == state.sig:
            return False
        try:
            got = state.board.read(state.location, state.team) if sig is not None else BoardRead([])
        except (OSError, TeamInboxError) as err:
            problem = Problem(getattr(err, "code", "unreadable_tasks"), str(err), state.location)
            got = BoardRead(state.tasks, [problem])
        state.sig = sig
        before = [t.raw for t in state.tasks], state.problems
        first = not state.read_once
        state.read_once = True
        state.tasks, state.problems = got.tasks, got.problems
        if before == ([t.raw for t in got.tasks], got.problems):
            return False
        self._archive(state)
        news = not first or (not self._start and bool(got.tasks))
        if news:
            self.changed.add(state.team)
        return news

    def _archive(self, state: BoardState) -> None:
        if not state.tasks:
            return  # Claude Code empties a finished board: the last full one is kept
        body = _body(state.tasks)
        if self._saved.get(state.team) != body:
            self.history.save_board(state.team, body)
            self._saved[state.team] = body

    def take_changed(self) -> set[str]:
        changed, self.changed = self.changed, set()
        return changed

    def live(self, team: str) -> list[Task] | None:
        state = self.states.get(team)
        return None if state is None else list(state.tasks)

    def ended(self, team: Team) -> list[Task]:
        """An ended team's board: its files where they outlived it, else the archived one."""
        from .formats import get

        board = get(team.format).tasks if team.format else None
        location = board.location(team.dir, os.path.basename(team.dir)) if board else None
        if board is not None and location is not None:
            try:
                if board.sig(location) is not None:
                    found = board.read(location, team.id).tasks
                    if found:
                        return found
            except (OSError, TeamInboxError):
                pass
        return archived_board(self.history, team.id)


def archived_board(history: History, team: str) -> list[Task]:
    row = history.board(team)
    if row is None:
        return []
    tasks: list[Task] = [converter.structure(t, Task) for t in orjson.loads(row[0])]
    for t in tasks:
        t.archived = True
    return tasks
