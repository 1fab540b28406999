"""Task boards: Claude Code's tasks/<team>/<id>.json and PseudoClaude's tasks.json, read,
written under the peers' own locks, watched, archived for ended teams, and the CLI."""

from __future__ import annotations

import json
import os
import shutil
import stat
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from support.world import CODER_ID, Teams, write_json
from teaminbox.discovery import Root, find_teams, watch_plan
from teaminbox.errors import InvalidParams, LockTimeout
from teaminbox.formats import registry
from teaminbox.formats.tasks_base import CorruptTask, UnknownTask
from teaminbox.formats.tasks_claude import CLAUDE_TASKS
from teaminbox.formats.tasks_pseudoclaude import PSEUDOCLAUDE_TASKS
from teaminbox.history import History
from teaminbox.locks import DirLock, ExclFileLock
from teaminbox.model import Team
from teaminbox.tasks import Boards, archived_board
from teaminbox.watch import classify


def stringify(value: Any) -> bytes:
    """JSON.stringify(value, null, 2), as Claude Code writes a task."""
    return json.dumps(value, indent=2, ensure_ascii=False).encode()


def claude_task(n: int, **extra: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "id": str(n),
        "subject": f"Task {n}",
        "description": f"do thing {n}",
        "activeForm": f"Doing {n}",
        "status": "pending",
        "blocks": [],
        "blockedBy": [],
    }
    task.update(extra)
    return task


def claude_board(teams: Teams, *tasks: dict[str, Any]) -> Path:
    folder = teams.home / ".claude" / "tasks" / "alpha"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".lock").write_bytes(b"")
    (folder / ".highwatermark").write_text(str(len(tasks)))
    for t in tasks:
        (folder / f"{t['id']}.json").write_bytes(stringify(t))
    return folder


def pc_task(tid: str, **extra: Any) -> dict[str, Any]:
    task: dict[str, Any] = {
        "id": tid,
        "title": f"title of {tid}",
        "description": "go",
        "assignee": "coder",
        "status": "todo",
        "created_at": "2026-11-29T10:00:00.123456789+01:00",
        "updated_at": "2026-11-29T10:00:00.123456789+01:00",
    }
    task.update(extra)
    return task


def pc_board(teams: Teams, *tasks: dict[str, Any]) -> Path:
    path = teams.pseudo_dir / "tasks.json"
    path.write_bytes(json.dumps({"tasks": list(tasks)}, indent=2).encode() + b"\n")
    path.chmod(0o600)
    return path


def leftovers(folder: Path) -> list[str]:
    names = [n for n in os.listdir(folder) if n != ".lock"]  # Claude's empty list anchor
    return sorted(n for n in names if "tmp" in n or n.endswith(".lock"))


# --- Claude Code's board --------------------------------------------------------------------


def test_claude_location_and_read(teams: Teams) -> None:
    folder = claude_board(
        teams,
        claude_task(2, owner="researcher", blockedBy=["1"], metadata={"k": 1}),
        claude_task(10),
        claude_task(1, status="completed"),
    )
    assert CLAUDE_TASKS.location(str(teams.claude_dir), "alpha") == str(folder)
    (folder / "3.json").write_bytes(b"{not json")
    os.utime(folder / "3.json", (time.time() - 60, time.time() - 60))
    (folder / "4.json").write_bytes(b"")  # Claude Code creating a task in place: not yet
    (folder / "1.json.tmp.123.abcdef").write_bytes(b"{}")  # its temp file: not a task
    got = CLAUDE_TASKS.read(str(folder), "claude:alpha")
    assert [t.id for t in got.tasks] == ["1", "2", "10"]  # numeric order, as TaskList
    one, two, _ = got.tasks
    assert (one.status, one.subject, one.owner) == ("completed", "Task 1", None)
    assert two.owner == "researcher" and two.blocked_by == ["1"] and two.active_form == "Doing 2"
    assert two.raw["metadata"] == {"k": 1} and two.team == "claude:alpha"
    [problem] = got.problems
    assert problem.code == "corrupt_task" and problem.path == str(folder / "3.json")


def test_claude_location_needs_a_teams_folder(tmp_path: Path) -> None:
    assert CLAUDE_TASKS.location(str(tmp_path / "ws" / "myteam"), "myteam") is None
    assert CLAUDE_TASKS.location("/x/.claude/teams/a b", "a b") == "/x/.claude/tasks/a-b"


def test_claude_set_status_is_byte_exact_and_keeps_unknown_keys(teams: Teams) -> None:
    task = claude_task(1, owner="coder", future={"nested": [1, 2.5, None], "é": "ü"})
    folder = claude_board(teams, task)
    path = folder / "1.json"
    path.chmod(0o640)
    written = CLAUDE_TASKS.set_status(str(folder), "1", "in_progress", 5)
    assert written.status == "in_progress" and written.owner == "coder"
    want = dict(task, status="in_progress")
    assert path.read_bytes() == stringify(want)  # key order kept, no trailing newline
    assert list(json.loads(path.read_bytes())) == list(task)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert leftovers(folder) == []  # no temp file, both locks released
    # same status again: nothing written
    before = path.stat()
    CLAUDE_TASKS.set_status(str(folder), "1", "in_progress", 5)
    after = path.stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_claude_set_status_refusals(teams: Teams) -> None:
    folder = claude_board(teams, claude_task(1))
    with pytest.raises(InvalidParams, match="blocked"):
        CLAUDE_TASKS.set_status(str(folder), "1", "blocked", 5)  # Claude Code's zod would drop it
    for bad in ("7", "../1", "1.json", ""):
        with pytest.raises(UnknownTask):
            CLAUDE_TASKS.set_status(str(folder), bad, "completed", 5)
    (folder / "2.json").write_bytes(b"[1, 2]")
    with pytest.raises(CorruptTask):
        CLAUDE_TASKS.set_status(str(folder), "2", "completed", 5)
    assert (folder / "2.json").read_bytes() == b"[1, 2]"


def test_claude_set_status_waits_for_the_task_lock_and_the_list_lock(teams: Teams) -> None:
    folder = claude_board(teams, claude_task(1))
    path = folder / "1.json"
    for lock_of in (path, folder / ".lock"):  # <n>.json.lock, then .lock.lock
        held = DirLock(str(lock_of), 5).acquire()
        assert os.path.isdir(str(lock_of) + ".lock")
        timer = threading.Timer(0.3, held.release)
        timer.start()
        t0 = time.monotonic()
        CLAUDE_TASKS.set_status(str(folder), "1", "completed", 5)
        assert time.monotonic() - t0 >= 0.25
        timer.join()
        assert json.loads(path.read_bytes())["status"] == "completed"
        CLAUDE_TASKS.set_status(str(folder), "1", "pending", 5)
    held = DirLock(str(path), 5).acquire()
    try:
        with pytest.raises(LockTimeout):
            CLAUDE_TASKS.set_status(str(folder), "1", "completed", 0.3)
    finally:
        held.release()
    assert json.loads(path.read_bytes())["status"] == "pending"
    assert leftovers(folder) == []


# --- PseudoClaude's board ---------------------------------------------------------------------


def test_pseudoclaude_read_normalizes_statuses(teams: Teams) -> None:
    path = pc_board(
        teams,
        pc_task("task_a"),
        pc_task("task_b", status="done", blocked_by=["task_a"]),
        pc_task("task_c", status="blocked", assignee=CODER_ID),
        pc_task("task_d", status="in_progress"),
        {"title": "no id"},
    )
    assert PSEUDOCLAUDE_TASKS.location(str(teams.pseudo_dir), "beta") == str(path)
    got = PSEUDOCLAUDE_TASKS.read(str(path), "pseudoclaude:beta")
    assert [(t.id, t.status) for t in got.tasks] == [
        ("task_a", "pending"),
        ("task_b", "completed"),
        ("task_c", "blocked"),
        ("task_d", "in_progress"),
    ]
    a, b, c, _ = got.tasks
    assert a.subject == "title of task_a" and a.owner == "coder" and a.created_at
    assert b.blocked_by == ["task_a"] and c.owner == CODER_ID
    assert [p.code for p in got.problems] == ["invalid_task"]
    path.write_bytes(b'{"tasks": null}\n')  # Go's nil slice
    assert PSEUDOCLAUDE_TASKS.read(str(path), "x").tasks == []


def test_pseudoclaude_set_status_maps_spellings(teams: Teams) -> None:
    path = pc_board(teams, pc_task("task_a", future_key=[1]), pc_task("task_b"))
    task = PSEUDOCLAUDE_TASKS.set_status(str(path), "task_a", "completed", 5)
    assert task.status == "completed" and task.raw["status"] == "done"
    doc = json.loads(path.read_bytes())
    a, b = doc["tasks"]
    assert a["status"] == "done" and a["future_key"] == [1]
    assert a["updated_at"] != a["created_at"] and a["updated_at"].endswith("Z")
    assert b == pc_task("task_b")
    assert path.read_bytes().endswith(b"}\n")  # MarshalIndent + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    PSEUDOCLAUDE_TASKS.set_status(str(path), "task_b", "blocked", 5)
    PSEUDOCLAUDE_TASKS.set_status(str(path), "task_a", "todo", 5)  # its own spelling too
    assert [t["status"] for t in json.loads(path.read_bytes())["tasks"]] == ["todo", "blocked"]
    with pytest.raises(UnknownTask):
        PSEUDOCLAUDE_TASKS.set_status(str(path), "task_zz", "completed", 5)
    with pytest.raises(InvalidParams):
        PSEUDOCLAUDE_TASKS.set_status(str(path), "task_a", "finished", 5)
    assert leftovers(teams.pseudo_dir) == []


def test_pseudoclaude_set_status_respects_its_lock(teams: Teams) -> None:
    path = pc_board(teams, pc_task("task_a"))
    held = ExclFileLock(str(path), 5).acquire()
    assert os.path.isfile(str(path) + ".lock")
    try:
        with pytest.raises(LockTimeout):
            PSEUDOCLAUDE_TASKS.set_status(str(path), "task_a", "completed", 0.3)
    finally:
        held.release()
    assert json.loads(path.read_bytes())["tasks"][0]["status"] == "todo"


# --- watching -------------------------------------------------------------------------------


def test_hints_route_task_files_not_inboxes(tmp_path: Path) -> None:
    formats = list(registry().values())
    c = tmp_path / ".claude"
    board = str(c / "tasks" / "session-1")
    assert classify(f"{board}/1.json", formats) == ("tasks", board)
    assert classify(board, formats) == ("tasks", board)  # the folder made or deleted
    for quiet in (".lock", ".highwatermark", "1.json.lock", ".lock.lock", "1.json.tmp.9.ab12cd34"):
        assert classify(f"{board}/{quiet}", formats) is None, quiet
    inbox = str(c / "teams" / "tasks" / "inboxes" / "helper.json")  # a team named tasks
    assert classify(inbox, formats) == ("inbox", inbox)
    assert classify(str(c / "teams" / "tasks" / "config.json"), formats)[0] == "team"
    pc = str(tmp_path / ".PseudoClaude" / "teams" / "beta")
    assert classify(f"{pc}/tasks.json", formats) == ("tasks", f"{pc}/tasks.json")
    assert classify(f"{pc}/tasks.json.lock", formats) is None
    assert classify(f"{pc}/.tmp-123.json", formats) is None
    assert classify(f"{pc}/inboxes/tasks.json", formats) == ("inbox", f"{pc}/inboxes/tasks.json")


def test_watch_plan_has_claude_tasks_folder(teams: Teams) -> None:
    plan = watch_plan([Root(str(teams.claude_root), "claude"), Root(str(teams.pseudo_root))])
    assert (str(teams.home / ".claude" / "tasks"), True) in plan
    assert (str(teams.claude_root), True) in plan


# --- Boards: the tracker's view, archived for ended teams -----------------------------------


def test_boards_follow_changes_and_archive_the_last_full_board(
    teams: Teams, tmp_path: Path
) -> None:
    history = History(str(tmp_path / "h.db"))
    live = {t.id: t for t in find_teams([Root(str(teams.claude_root), "claude")])}
    history.save_team("claude:alpha", b"{}")
    boards = Boards(history)
    folder = claude_board(teams, claude_task(1))
    boards.sync(live)
    assert boards.take_changed() == set()  # a first look at the start is no news
    later = Boards(history)  # a team first seen after the start: its board is news
    later.sync(live, start=False)
    assert later.take_changed() == {"claude:alpha"}
    assert [t.id for t in boards.live("claude:alpha") or []] == ["1"]
    assert boards.claims(str(folder)) and boards.claims(str(folder.parent / "other-session"))
    assert not boards.claims(str(teams.cinbox("researcher")))
    (folder / "2.json").write_bytes(stringify(claude_task(2)))
    boards.refresh_locations([str(folder)])
    assert boards.take_changed() == {"claude:alpha"}
    boards.refresh_locations([str(folder)])
    assert boards.take_changed() == set()  # nothing new
    CLAUDE_TASKS.set_status(str(folder), "2", "completed", 5)
    CLAUDE_TASKS.set_status(str(folder), "1", "completed", 5)
    boards.refresh_locations([str(folder)])
    assert boards.take_changed() == {"claude:alpha"}
    # Claude Code empties a finished list: the live board is empty, the archive is not
    for n in ("1", "2"):
        (folder / f"{n}.json").unlink()
    boards.refresh_locations([str(folder)])
    assert boards.take_changed() == {"claude:alpha"} and boards.live("claude:alpha") == []
    kept = archived_board(history, "claude:alpha")
    assert [(t.id, t.status, t.archived) for t in kept] == [
        ("1", "completed", True),
        ("2", "completed", True),
    ]
    ended = Team(
        id="claude:alpha", format="claude", name="alpha", dir=str(teams.claude_dir), root=""
    )
    assert [t.id for t in boards.ended(ended)] == ["1", "2"]
    (folder / "3.json").write_bytes(stringify(claude_task(3)))  # files that outlived the team
    assert [(t.id, t.archived) for t in boards.ended(ended)] == [("3", False)]
    boards.sync({})
    assert boards.live("claude:alpha") is None
    history.forget_team("claude:alpha")  # the board goes with its team
    assert archived_board(history, "claude:alpha") == []
    history.close()


# --- the CLI ----------------------------------------------------------------------------------


def test_cli_tasks(teams: Teams) -> None:
    claude_board(teams, claude_task(1, owner="researcher"), claude_task(2, blockedBy=["1"]))
    res = teams.cli("tasks", "alpha")
    assert res.returncode == 0, res.stderr
    assert "claude:alpha: 2 tasks" in res.stdout
    assert "#1  pending      Task 1  (researcher)" in res.stdout
    assert "blocked by: #1" in res.stdout
    res = teams.cli("tasks", "alpha", "--set", "2", "in_progress", "--json")
    assert res.returncode == 0, res.stderr
    assert orjson.loads(res.stdout)["task"]["status"] == "in_progress"
    out = orjson.loads(teams.cli("tasks", "claude:alpha", "--json").stdout)
    assert out["team"] == "claude:alpha"
    assert [(t["id"], t["status"]) for t in out["tasks"]] == [
        ("1", "pending"),
        ("2", "in_progress"),
    ]
    res = teams.cli("tasks", "alpha", "--set", "2", "blocked")
    assert res.returncode == 1 and "not one claude tasks take" in res.stderr
    write_json(teams.pseudo_dir / "tasks.json", {"tasks": [pc_task("task_x", assignee=CODER_ID)]})
    res = teams.cli("tasks", "beta", "--set", "task_x", "done")
    assert res.returncode == 0 and "completed" in res.stdout, res.stderr
    out = orjson.loads(teams.cli("tasks", "beta", "--json").stdout)
    assert out["tasks"][0]["owner"] == "coder"  # the agent id, as its member's name
    res = teams.cli("tasks", "nosuchteam")
    assert res.returncode == 1 and "unknown team" in res.stderr


def test_cli_tasks_of_an_ended_team(teams: Teams, tmp_path: Path) -> None:
    """The team folder is gone: the board its history archived (the files were emptied)."""
    db = str(tmp_path / "h.db")
    history = History(db)
    history.save_team(
        "claude:alpha",
        orjson.dumps(
            {
                "id": "claude:alpha",
                "format": "claude",
                "name": "alpha",
                "dir": str(teams.claude_dir),
                "root": "",
            }
        ),
    )
    boards = Boards(history)
    folder = claude_board(teams, claude_task(1, status="completed", owner="researcher"))
    boards.sync({t.id: t for t in find_teams([Root(str(teams.claude_root), "claude")])})
    (folder / "1.json").unlink()
    shutil.rmtree(teams.claude_dir)  # ended: its folder is gone (not just outside the roots)
    history.end_teams([])
    history.close()
    res = teams.cli("tasks", "alpha", "--history", db)
    assert res.returncode == 0, res.stderr
    assert "claude:alpha (ended: its last board): 1 task" in res.stdout
    assert "#1  completed    Task 1  (researcher)" in res.stdout
    out = orjson.loads(teams.cli("tasks", "claude:alpha", "--history", db, "--json").stdout)
    assert [(t["id"], t["archived"]) for t in out["tasks"]] == [("1", True)]
    res = teams.cli("tasks", "alpha", "--set", "1", "pending", "--history", db)
    assert res.returncode == 1 and "unknown team" in res.stderr
