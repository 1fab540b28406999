"""Task boards: a team's tasks (live or ended), one task's status set under the peer's
lock, and `teamInbox/tasksChanged` whenever a board's files change (tasks.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from ...discovery import Roster
from ...errors import TeamEnded
from ...locks import DEFAULT_TIMEOUT
from ...model import Task
from ...protocol import (
    SetTaskStatusParams,
    TaskResult,
    TasksChangedParams,
    TasksResult,
    TeamParams,
)
from ...tasks import NoTaskBoard, TaskBoard
from ...tracker import Change, Tracker
from ..feature import Feature, Outgoing

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer


def _named(tasks: list[Task], r: Roster | None) -> list[Task]:
    """Owners as member names (PseudoClaude may assign by agent id)."""
    if r is None:
        return tasks
    return [attrs.evolve(t, owner=r.name_of(t.owner)) if t.owner else t for t in tasks]


def team_tasks(tracker: Tracker, team: str) -> tuple[str, list[Task]]:
    """(team id, its tasks): a live team's board as its files say, an ended team's
    from its files where they outlived it, else the board the history archived last.
    A team whose format keeps no board (filebus) has none: []."""
    t = tracker.find(team)
    if t.ended:
        return t.id, tracker.boards.ended(t)
    return t.id, _named(tracker.boards.live(t.id) or [], tracker.rosters.get(t.id))


def board_of(tracker: Tracker, team: str) -> tuple[str, TaskBoard, str, Roster]:
    t = tracker.find(team)
    if t.ended:
        raise TeamEnded(f"team {t.id} has ended: its tasks are archived, read-only")
    state = tracker.boards.states.get(t.id)
    if state is None:
        raise NoTaskBoard(f"team {t.id} has no task board Team Inbox knows of")
    return t.id, state.board, state.location, tracker.rosters[t.id]


class Tasks(Feature):
    """`teamInbox/tasksChanged` for each board the step re-read; the boards' requests."""

    server: TeamInboxServer

    name = "tasks"

    def register(self) -> None:
        self.request("teamInbox/tasks", self.tasks)
        self.request("teamInbox/setTaskStatus", self.set_task_status)

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        tracker = self.tracker
        out: Outgoing = []
        for tid in sorted(tracker.boards.take_changed()):
            if tid in tracker.rosters:
                _, tasks = team_tasks(tracker, tid)
                out.append(("teamInbox/tasksChanged", TasksChangedParams(tid, tasks)))
        return out

    async def tasks(self, p: TeamParams) -> TasksResult:
        tracker = self.tracker
        tid, found = await self.server.in_state(lambda: team_tasks(tracker, p.team))
        return TasksResult(tid, found)

    async def set_task_status(self, p: SetTaskStatusParams) -> TaskResult:
        ls, tracker = self.server, self.tracker
        tid, board, location, r = await ls.in_state(lambda: board_of(tracker, p.team))
        task = await ls.in_pool(  # waits on the peer's lock: never on the state thread
            lambda: board.set_status(location, p.id, p.status, DEFAULT_TIMEOUT)
        )
        await ls.refresh({location})  # tasksChanged goes out with the board re-read
        [task] = _named([attrs.evolve(task, team=tid)], r)
        return TaskResult(task)
