"""PseudoClaude's task board: `<team>/tasks.json`, `{"tasks": [...]}`.

As its Go store writes it (internal/team/teamtask): a task is `{id ("task_<12 hex>"),
title, description?, assignee?, status (todo | in_progress | done | blocked),
created_at, updated_at, blocked_by?, blocks?}`; every change locks `tasks.json.lock`
(O_EXCL, the same lock as its inboxes), reads the whole file, changes it and writes
`.tmp-*.json` + rename (json.MarshalIndent, two spaces, a trailing newline).
"""

from __future__ import annotations

import os
from typing import Any

from ..fileio import lock_path, read_regular
from ..jsonio import dumps_indented
from ..locks import ExclFileLock
from ..model import Problem, Task
from ..safeio import refuse_links
from ..timestamps import now_rfc3339_nano
from .tasks_base import (
    MAX_TASK_BYTES,
    BoardRead,
    CorruptTask,
    Sig,
    UnknownTask,
    check_status,
    load_doc,
    opt_str,
    replace_file,
    strs,
    text,
)

FILE = "tasks.json"
# The wire's statuses and PseudoClaude's own spellings of them.
TO_FILE = {
    "pending": "todo",
    "in_progress": "in_progress",
    "completed": "done",
    "blocked": "blocked",
}
FROM_FILE = {v: k for k, v in TO_FILE.items()}


def task_of(doc: dict[str, Any], team: str) -> Task:
    status = doc.get("status")
    raw_status = status if isinstance(status, str) and status else "todo"
    return Task(
        id=str(doc.get("id", "")),
        team=team,
        format="pseudoclaude",
        subject=text(doc.get("title")),
        description=text(doc.get("description")),
        status=FROM_FILE.get(raw_status, raw_status),
        owner=opt_str(doc.get("assignee")),
        blocks=strs(doc.get("blocks")),
        blocked_by=strs(doc.get("blocked_by")),
        created_at=opt_str(doc.get("created_at")),
        updated_at=opt_str(doc.get("updated_at")),
        raw=doc,
    )


def _tasks(doc: Any, path: str) -> list[Any]:
    if not isinstance(doc, dict):
        raise CorruptTask(f'{path}: top level is not an object {{"tasks": [...]}}', path=path)
    tasks = doc.get("tasks")
    if tasks is None:  # Go writes a nil slice as null
        doc["tasks"] = tasks = []
    if not isinstance(tasks, list):
        raise CorruptTask(f"{path}: 'tasks' is not an array", path=path)
    return tasks


class PseudoClaudeTasks:
    format = "pseudoclaude"
    statuses = frozenset(TO_FILE)
    empty_note = ""

    def location(self, team_path: str, team_name: str) -> str | None:
        return os.path.join(team_path, FILE)

    def watch_folders(self, root_path: str) -> list[str]:
        return []  # inside the team folder, which is watched already

    def hint(self, path: str) -> tuple[bool, str | None]:
        name = os.path.basename(path)
        if name not in (FILE, FILE + ".lock"):
            return False, None
        if os.path.basename(os.path.dirname(path)) == "inboxes":
            return False, None  # an inbox named tasks (an agent id could be anything)
        return True, path if name == FILE else None

    def sig(self, location: str) -> Sig | None:
        try:
            st = os.stat(location)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def read(self, location: str, team: str) -> BoardRead:
        data = read_regular(location, limit=MAX_TASK_BYTES)
        if data is None:
            return BoardRead([])
        tasks: list[Task] = []
        problems: list[Problem] = []
        for i, t in enumerate(_tasks(load_doc(data, location), location)):
            if isinstance(t, dict) and isinstance(t.get("id"), str) and t["id"]:
                tasks.append(task_of(t, team))
            else:
                problems.append(
                    Problem("invalid_task", f"{location}: task {i} has no string id", location)
                )
        return BoardRead(tasks, problems)

    def set_status(self, location: str, task_id: str, status: str, timeout: float) -> Task:
        check_status(self, status, FROM_FILE)
        raw_status = TO_FILE.get(status, status)
        # No link at the team's folder, tasks.json or its lock.
        refuse_links(os.path.dirname(location), location, lock_path(location))
        if not os.path.isfile(location):
            raise UnknownTask(f"no task {task_id!r}: {location} does not exist", path=location)
        with ExclFileLock(location, timeout) as lock:
            data = read_regular(location, limit=MAX_TASK_BYTES)
            if data is None:
                raise UnknownTask(f"no task {task_id!r}: {location} is gone", path=location)
            doc = load_doc(data, location)
            tasks = _tasks(doc, location)
            found = [t for t in tasks if isinstance(t, dict) and t.get("id") == task_id]
            if not found:
                raise UnknownTask(f"no task {task_id!r} in {location}", path=location)
            task = found[0]
            if task.get("status") != raw_status:
                task["status"] = raw_status
                task["updated_at"] = now_rfc3339_nano()  # as the Go store's Update does
                replace_file(location, dumps_indented(doc) + b"\n", lock)
        return task_of(task, "")


PSEUDOCLAUDE_TASKS = PseudoClaudeTasks()
