"""Writers SIGKILLed at random points: the inbox always parses and keeps every acknowledged send."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.node import PY_WRITER, parse_log
from support.world import Teams
from teaminbox import store
from teaminbox.errors import LockTimeout
from teaminbox.formats.claude import CLAUDE

ENTRY = {"from": "probe", "text": "probe", "timestamp": "t"}


def start_writer(teams: Teams, prefix: str, slow_commit: float = 0.0) -> subprocess.Popen[str]:
    cmd = [sys.executable, str(PY_WRITER), str(teams.home), "alpha", "researcher", "-1", prefix]
    if slow_commit:
        cmd += ["--slow-commit", str(slow_commit)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)


def read_until(proc: subprocess.Popen[str], deadline: float, want_acks: int) -> str:
    """Read the writer's stdout until it has acknowledged want_acks sends or the deadline."""
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    out = b""
    while time.monotonic() < deadline and out.count(b"ACK ") < want_acks:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out += chunk
    return out.decode()


def texts(path: Path) -> list[str]:
    return [e["text"] for e in json.loads(path.read_bytes())]


def test_sigkill_at_random_points(teams: Teams, record_property: Any) -> None:
    inbox = teams.cinbox("researcher")
    lock = str(inbox) + ".lock"
    rng = random.Random(1234)
    acked: list[str] = []
    stale_left = 0
    t_start = time.monotonic()
    kills = 40
    for k in range(kills):
        slow = 0.15 if k % 2 else 0.0  # every other writer lingers inside its lock
        proc = start_writer(teams, f"k{k}", slow)
        # wait for the first acknowledgement (proves any lock left before was handled) ...
        out = read_until(proc, time.monotonic() + 15, 1)
        assert "ACK" in out, f"kill {k}: writer made no progress: {out!r}"
        # ... then kill it at a random point
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(proc.pid, signal.SIGKILL)
        rest, _ = proc.communicate(timeout=10)
        full = out + rest
        log = parse_log(full[: full.rfind("\n") + 1])  # complete lines only
        assert not log["FAIL"], log["FAIL"]
        acked += log["ACK"]
        data = inbox.read_bytes()
        now = texts(inbox)  # always parses
        missing = [t for t in acked if now.count(t) != 1]
        assert not missing, f"after kill {k}: lost or duplicated {missing}"
        if os.path.isdir(lock):
            stale_left += 1
            # a fresh lock left by the dead writer is respected ...
            with pytest.raises(LockTimeout):
                store.append(CLAUDE, str(inbox), [ENTRY], timeout=0.2)
            assert inbox.read_bytes() == data
            # ... and once it is old, the next writer reclaims it (its ACK above, next round)
            old = time.time() - 20
            os.utime(lock, (old, old))
    elapsed = time.monotonic() - t_start
    print(
        f"{kills} kills, {len(acked)} acknowledged sends,"
        f" {stale_left} locks left behind, {elapsed:.1f} s"
    )
    record_property("kills_locks_left", stale_left)
    assert stale_left >= 3, "the slow-commit writers should have died holding the lock sometimes"
    assert elapsed < 60
    # a last writer after all that: the file still takes appends, and holds everything acknowledged
    proc = start_writer(teams, "final")
    out = read_until(proc, time.monotonic() + 15, 3)
    proc.kill()
    proc.wait()
    assert parse_log(out)["ACK"][:3] == ["final-0", "final-1", "final-2"]
    final = texts(inbox)
    assert all(final.count(t) == 1 for t in acked)
    assert len(set(final)) == len(final)


@pytest.mark.slow
def test_lock_of_killed_writer_reclaimed_after_10_s(teams: Teams) -> None:
    inbox = teams.cinbox("researcher")
    lock = str(inbox) + ".lock"
    proc = start_writer(teams, "victim", slow_commit=30)
    deadline = time.monotonic() + 10
    while not os.path.isdir(lock) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert os.path.isdir(lock)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    made = os.stat(lock).st_mtime
    before = inbox.read_bytes()
    nxt = start_writer(teams, "next")
    out = read_until(nxt, time.monotonic() + 5, 1)
    assert "ACK" not in out, "a fresh lock must be respected"
    assert inbox.read_bytes() == before
    out += read_until(nxt, time.monotonic() + 20, 1)
    acked_at = time.time()
    nxt.kill()
    nxt.wait()
    assert "ACK next-0" in out
    assert 10 <= acked_at - made < 15
    assert "next-0" in texts(inbox)
    assert not any(t.startswith("victim") for t in texts(inbox))
