"""The live teams' task boards, for the tracker.

Claude Code keeps one JSON file per task in `<config>/tasks/<team>/`, a sibling of
`teams/` that outlives the team folder; PseudoClaude keeps one `tasks.json` in the
team folder. A format's board (formats/tasks_base.py, formats/tasks_claude.py,
formats/tasks_pseudoclaude.py) says where its files are, reads them and writes a
status. `Boards` holds every live team's board for the tracker (its one thread), says
which changed, and archives each team's last non-empty board in the history, so an
ended team's tasks stay readable.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping

import attrs
import orjson

from .discovery import TeamDir
from .errors import TeamInboxError
from .formats import get, registry
from .formats.tasks_base import BoardRead, Sig, board_hint
from .formats.tasks_base import NoTaskBoard as NoTaskBoard  # server/features/tasks.py
from .formats.tasks_base import TaskBoard as TaskBoard  # server/features/tasks.py
from .history import History
from .model import Problem, Task, Team, converter

log = logging.getLogger("teaminbox")

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
