"""PseudoClaude's task board against its own kind of writer: tests/interop/go's `pcmail
tasks` (its Task struct and store: O_EXCL lock on tasks.json.lock, decode the whole file,
MarshalIndent, .tmp-*.json + rename), racing our setTaskStatus (ExclFileLock, the same
path). Nothing either side writes may be lost, and Go must decode every file we leave."""

from __future__ import annotations

import json
import random
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from test_pseudoclaude_go import go, pcmail  # noqa: F401  (the Go program, built once)

from support.world import Teams
from teaminbox.formats.tasks_pseudoclaude import PSEUDOCLAUDE_TASKS

STATUSES = ("completed", "in_progress", "blocked", "pending")
FILE_STATUS = {"completed": "done", "in_progress": "in_progress", "blocked": "blocked"}
FILE_STATUS["pending"] = "todo"


def go_tasks(pcmail: Path, *args: str) -> str:  # noqa: F811
    return go(pcmail, "tasks", *args)


def listed(pcmail: Path, path: Path) -> list[dict[str, Any]]:  # noqa: F811
    tasks: list[dict[str, Any]] = json.loads(go_tasks(pcmail, "list", "-file", str(path)))
    return tasks


def created(out: str) -> list[str]:
    return [line.split()[1] for line in out.splitlines() if line.startswith("CREATED ")]


def test_go_reads_what_we_write(teams: Teams, pcmail: Path) -> None:  # noqa: F811
    path = teams.pseudo_dir / "tasks.json"
    ids = created(go_tasks(pcmail, "create", "-file", str(path), "-n", "4", "-assignee", "coder"))
    go_tasks(pcmail, "update", "-file", str(path), "-id", ids[0], "-description", "from Go")
    before = {t["id"]: t for t in listed(pcmail, path)}
    for tid, status in zip(ids, STATUSES, strict=True):
        task = PSEUDOCLAUDE_TASKS.set_status(str(path), tid, status, 5)
        assert task.status == status and task.subject == before[tid]["title"]
    after = {t["id"]: t for t in listed(pcmail, path)}  # Go decodes our file
    for tid, status in zip(ids, STATUSES, strict=True):
        t, b = after[tid], before[tid]
        assert t["status"] == FILE_STATUS[status]
        assert {k: v for k, v in t.items() if k not in ("status", "updated_at")} == {
            k: v for k, v in b.items() if k not in ("status", "updated_at")
        }
        assert t["updated_at"] > b["updated_at"] or t["updated_at"][:19] >= b["updated_at"][:19]
    assert after[ids[0]]["description"] == "from Go"
    # Go's next write of our file keeps our statuses (and is a file we read back)
    go_tasks(pcmail, "update", "-file", str(path), "-id", ids[1], "-description", "again")
    got = PSEUDOCLAUDE_TASKS.read(str(path), "pseudoclaude:beta")
    assert [t.status for t in got.tasks] == list(STATUSES) and got.problems == []
    assert not [p.name for p in path.parent.iterdir() if p.name.startswith(".tmp-")]
    assert not (path.parent / "tasks.json.lock").exists()


def test_racing_go_loses_nothing(teams: Teams, pcmail: Path) -> None:  # noqa: F811
    path = teams.pseudo_dir / "tasks.json"
    seed = created(go_tasks(pcmail, "create", "-file", str(path), "-n", "5"))
    ours: dict[str, str] = {}
    stop = threading.Event()
    errors: list[BaseException] = []
    writes = [0]

    def racer() -> None:
        rnd = random.Random(7)
        try:
            while not stop.is_set():
                tid, status = rnd.choice(seed), rnd.choice(STATUSES)
                PSEUDOCLAUDE_TASKS.set_status(str(path), tid, status, 30)
                ours[tid] = status
                writes[0] += 1
                time.sleep(rnd.uniform(0.005, 0.03))  # a busy person, far busier than one
        except BaseException as err:  # reported below
            errors.append(err)

    thread = threading.Thread(target=racer)
    thread.start()
    t0 = time.monotonic()
    try:
        res = subprocess.run(
            [
                str(pcmail),
                "tasks",
                "loop",
                "-file",
                str(path),
                "-n",
                "120",
                "-prefix",
                "race",
                "-pause",
                "5ms",
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        stop.set()
        thread.join(60)
    took = time.monotonic() - t0
    assert res.returncode == 0, res.stderr
    assert not errors, errors
    lines = res.stdout.splitlines()
    gaveup = [line for line in lines if line.startswith("GAVEUP")]
    made = created(res.stdout)
    updates: dict[str, str] = {}
    for line in lines:
        if line.startswith("UPD "):
            _, tid, value = line.split()
            updates[tid] = value
    print(
        f"race: Go {len(made)} creates + {len(updates)} tasks updated, ours {writes[0]} status"
        f" writes, {len(gaveup)} Go give-ups, {took:.1f} s"
    )
    # a race at all (how many of ours fit in Go's loop is the machine's: 19 to 35 seen)
    assert writes[0] >= 10, f"only {writes[0]} of our writes raced Go's loop"
    final = {t["id"]: t for t in listed(pcmail, path)}
    # every task Go created is there, each with Go's last description, ours with our status
    assert set(made) | set(seed) == set(final), "a task Go created was lost"
    for tid, value in updates.items():
        assert final[tid].get("description") == value, (tid, value, final[tid])
    for tid, status in ours.items():
        assert final[tid]["status"] == FILE_STATUS[status], (tid, status, final[tid])
    # A Go give-up is reported by Go (its write did not happen and it says so): how many there
    # are measures how busy the machine was, not a loss, so only what is lost is asserted above.
    assert not (path.parent / "tasks.json.lock").exists()
