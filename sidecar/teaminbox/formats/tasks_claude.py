"""Claude Code's task board: `<config>/tasks/<team>/<id>.json`, one file per task.

Observed with the real CLI (2.1.197, 2.1.332; docs/on-disk-formats.md 1a): a task is
`{id, subject, description, activeForm?, status, blocks, blockedBy, owner?, metadata?}`
written with JSON.stringify(task, null, 2) (no trailing newline), beside `.highwatermark`
and an empty `.lock`. Creating a task locks the list (`.lock`, proper-lockfile: a
`.lock.lock` directory) and writes its file in place (so a reader may find it empty for
a moment); updating one locks `<id>.json.lock` (a directory) and renames a temp file over
it. A finished list is emptied by its lead (the files are deleted, `.highwatermark`
stays), and the folder outlives the team's.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any

from ..fileio import lock_path, read_regular
from ..jsonio import dumps_indented
from ..locks import DirLock
from ..model import Problem, Task
from ..safeio import refuse_links
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

STATUSES = frozenset({"pending", "in_progress", "completed"})  # Claude Code's own schema
LIST_LOCK = ".lock"
WRITE_GRACE = 2.0  # seconds a task file that does not parse yet may still be filling
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def sanitize(name: str) -> str:
    """How Claude Code names a list's folder and a task's file."""
    return _UNSAFE.sub("-", name)


def _is_task_file(name: str) -> bool:
    return name.endswith(".json") and not name.startswith(".")


def _order(t: Task) -> tuple[int, int, str]:
    # isdigit() is true of "²" too, which int() refuses, as it does 5,000 digits
    numeric = t.id.isascii() and t.id.isdigit() and len(t.id) <= 18
    return (0, int(t.id), "") if numeric else (1, 0, t.id)


def task_of(doc: dict[str, Any], stem: str, team: str) -> Task:
    status = doc.get("status")
    return Task(
        id=opt_str(doc.get("id")) or stem,
        team=team,
        format="claude",
        subject=text(doc.get("subject")),
        description=text(doc.get("description")),
        status=status if isinstance(status, str) and status else "pending",
        owner=opt_str(doc.get("owner")),
        active_form=opt_str(doc.get("activeForm")),
        blocks=strs(doc.get("blocks")),
        blocked_by=strs(doc.get("blockedBy")),
        raw=doc,
    )


class ClaudeTasks:
    format = "claude"
    statuses = STATUSES
    empty_note = (
        "Claude Code may have its task tools off: Opus 5 turns them off unless"
        " CLAUDE_CODE_ENABLE_TODO_TOOLS=1 is set for the lead."
    )

    def location(self, team_path: str, team_name: str) -> str | None:
        teams = os.path.dirname(team_path)
        if os.path.basename(teams) != "teams":
            return None  # not a Claude config folder's teams/: no sibling tasks/ to trust
        return os.path.join(os.path.dirname(teams), "tasks", sanitize(team_name))

    def watch_folders(self, root_path: str) -> list[str]:
        if os.path.basename(root_path.rstrip(os.sep)) != "teams":
            return []
        return [os.path.join(os.path.dirname(root_path.rstrip(os.sep)), "tasks")]

    def hint(self, path: str) -> tuple[bool, str | None]:
        if _in_tasks(path):  # <config>/tasks/<team>: the board's folder itself
            return True, path
        parent = os.path.dirname(path)
        if _in_tasks(parent):  # a file in a board's folder: a task, else a lock or temp file
            return True, parent if _is_task_file(os.path.basename(path)) else None
        return False, None

    def sig(self, location: str) -> Sig | None:
        try:
            names = sorted(n for n in os.listdir(location) if _is_task_file(n))
        except (FileNotFoundError, NotADirectoryError):
            return None
        out: list[Any] = []
        for name in names:
            try:
                st = os.stat(os.path.join(location, name))
            except FileNotFoundError:
                continue
            out.append((name, st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(out)

    def read(self, location: str, team: str) -> BoardRead:
        tasks: list[Task] = []
        problems: list[Problem] = []
        try:
            names = sorted(n for n in os.listdir(location) if _is_task_file(n))
        except (FileNotFoundError, NotADirectoryError):
            return BoardRead([])
        for name in names:
            path = os.path.join(location, name)
            try:
                data = read_regular(path, limit=MAX_TASK_BYTES)
                if data is None:
                    continue  # deleted meanwhile
                doc = load_doc(data, path)
                if not isinstance(doc, dict):
                    raise CorruptTask(f"{path}: a task is an object", path=path)
            except CorruptTask as err:
                if _young(path):
                    continue  # being written: Claude Code creates a task file in place
                problems.append(Problem(err.code, err.message, path))
                continue
            except Exception as err:  # one bad file is that file's problem
                problems.append(Problem(getattr(err, "code", "unreadable_task"), str(err), path))
                continue
            tasks.append(task_of(doc, name[:-5], team))
        tasks.sort(key=_order)
        return BoardRead(tasks, problems)

    def set_status(self, location: str, task_id: str, status: str, timeout: float) -> Task:
        check_status(self, status)
        if not task_id or sanitize(task_id) != task_id:
            raise UnknownTask(f"no task {task_id!r} in {location}")
        path = os.path.join(location, task_id + ".json")
        # The list's lock too, where the list has one: Claude Code deletes a finished
        # list's files under it (not under the task's), and must not lose that race to us.
        list_lock = os.path.join(location, LIST_LOCK)
        # No link at tasks/<team>, the task, the list's lock or either lock directory.
        refuse_links(location, path, lock_path(path), list_lock, lock_path(list_lock))
        if not os.path.isfile(path):
            raise UnknownTask(f"no task {task_id!r} in {location}", path=path)
        outer = DirLock(list_lock, timeout) if os.path.isfile(list_lock) else None
        if outer is not None:
            outer.acquire()
        try:
            with DirLock(path, timeout) as lock:
                data = read_regular(path, limit=MAX_TASK_BYTES)
                if data is None:
                    raise UnknownTask(f"task {task_id!r} was deleted", path=path)
                doc = load_doc(data, path)
                if not isinstance(doc, dict):
                    raise CorruptTask(f"{path}: a task is an object", path=path)
                if doc.get("status") != status:
                    doc["status"] = status
                    replace_file(path, dumps_indented(doc), lock)
        finally:
            if outer is not None:
                outer.release()
        return task_of(doc, task_id, "")


def _young(path: str) -> bool:
    """Written in the last WRITE_GRACE seconds (a file created in place, still filling)."""
    try:
        return time.time() - os.stat(path).st_mtime < WRITE_GRACE
    except OSError:
        return True


def _in_tasks(folder: str) -> bool:
    """`<config>/tasks/<team>`: a folder in a `tasks` folder that is not a team of teams/."""
    up = os.path.dirname(folder)
    return os.path.basename(up) == "tasks" and os.path.basename(os.path.dirname(up)) != "teams"


CLAUDE_TASKS = ClaudeTasks()
