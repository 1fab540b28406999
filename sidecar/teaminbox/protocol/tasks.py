"""Task boards: a team's tasks, one task's status set (features/tasks.py)."""

from __future__ import annotations

import attrs

from ..model import Task
from .base import Method, Notification, nonempty


@attrs.define
class TeamParams:
    team: str = attrs.field(validator=nonempty)


@attrs.define
class TasksResult:
    team: str
    tasks: list[Task]


@attrs.define
class SetTaskStatusParams:
    team: str = attrs.field(validator=nonempty)
    id: str = attrs.field(validator=nonempty)
    # pending | in_progress | completed; PseudoClaude also blocked (and its own todo / done)
    status: str = attrs.field(validator=nonempty)


@attrs.define
class TaskResult:
    task: Task


@attrs.define
class TasksChangedParams:
    team: str
    tasks: list[Task]


METHODS = (
    Method("teamInbox/tasks", TeamParams, TasksResult, "a team's task board (live or ended)"),
    Method(
        "teamInbox/setTaskStatus",
        SetTaskStatusParams,
        TaskResult,
        "change one task's status, under the peer's own lock",
    ),
)

NOTIFICATIONS = (
    Notification("teamInbox/tasksChanged", TasksChangedParams, "a team's task board changed"),
)
