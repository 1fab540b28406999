"""The two peer lock protocols on `<inbox>.json.lock`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from teaminbox import store
from teaminbox.errors import LockLost, LockTimeout
from teaminbox.formats import get
from teaminbox.formats.claude import CLAUDE
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.locks import DEFAULT_TIMEOUT, DirLock, ExclFileLock

ENTRY = {"from": "a", "text": "t", "timestamp": "2026-01-01T00:00:00Z"}
RFC3339_NANO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$")


def backdate(path: str, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_claude_lock_is_a_directory_removed_on_release(tmp_path: Path) -> None:
    inbox = str(tmp_path / "x.json")
    lock = CLAUDE.lock(inbox, DEFAULT_TIMEOUT)
    assert isinstance(lock, DirLock)
    with lock:
        assert os.path.isdir(inbox + ".lock")
        assert os.listdir(inbox + ".lock") == []
    assert not os.path.exists(inbox + ".lock")


def test_pseudoclaude_lock_is_an_excl_file_with_rfc3339_nanos(tmp_path: Path) -> None:
    inbox = str(tmp_path / "x.json")
    lock = PSEUDOCLAUDE.lock(inbox, DEFAULT_TIMEOUT)
    assert isinstance(lock, ExclFileLock)
    with lock:
        assert os.path.isfile(inbox + ".lock")
        assert RFC3339_NANO.match(Path(inbox + ".lock").read_text())
        assert os.stat(inbox + ".lock").st_mode & 0o777 == 0o600
    assert not os.path.exists(inbox + ".lock")


HOLDER = """
import os, sys, time
path, kind = sys.argv[1], sys.argv[2]
if kind == "dir":
    os.mkdir(path)
else:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, b"2026-01-01T00:00:00.000000000Z")
    os.close(fd)
print("held", flush=True)
sys.stdin.readline()
if kind == "dir":
    os.rmdir(path)
else:
    os.unlink(path)
print("released", flush=True)
"""


@pytest.mark.parametrize(
    ("fmt", "kind"),
    [(CLAUDE, "dir"), (CLAUDE, "file"), (PSEUDOCLAUDE, "file"), (PSEUDOCLAUDE, "dir")],
)
def test_fresh_lock_of_another_process_is_respected(tmp_path: Path, fmt: object, kind: str) -> None:
    """Either kind of lock at the path blocks either protocol; the writer waits for it."""
    inbox = tmp_path / "x.json"
    data = json.dumps([ENTRY] if fmt is CLAUDE else {"messages": [ENTRY]}, indent=2).encode()
    inbox.write_bytes(data)
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(inbox) + ".lock", kind],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().strip() == "held"
        t0 = time.monotonic()
        with pytest.raises(LockTimeout) as info:
            store.append(fmt, str(inbox), [ENTRY], timeout=0.4)  # type: ignore[arg-type]
        assert time.monotonic() - t0 >= 0.4
        assert info.value.path == str(inbox) + ".lock"
        assert inbox.read_bytes() == data
        assert (os.path.isdir if kind == "dir" else os.path.isfile)(str(inbox) + ".lock")

        # The writer waits and then succeeds once the holder lets go.
        def let_go() -> None:
            time.sleep(0.5)
            proc.stdin.write("\n")  # type: ignore[union-attr]
            proc.stdin.flush()  # type: ignore[union-attr]

        threading.Thread(target=let_go).start()
        t0 = time.monotonic()
        store.append(fmt, str(inbox), [ENTRY], timeout=10)  # type: ignore[arg-type]
        assert time.monotonic() - t0 >= 0.45
        assert proc.stdout.readline().strip() == "released"
        n = json.loads(inbox.read_bytes())
        assert len(n if fmt is CLAUDE else n["messages"]) == 2
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("kind", ["dir", "file"])
@pytest.mark.parametrize("fmt", ["claude", "pseudoclaude"])
def test_stale_lock_is_reclaimed(tmp_path: Path, fmt: str, kind: str) -> None:
    inbox = str(tmp_path / "x.json")
    path = inbox + ".lock"
    if kind == "dir":
        os.mkdir(path)
    else:
        Path(path).write_text("2020-01-01T00:00:00.000000000Z")
    backdate(path, 11)
    t0 = time.monotonic()
    with get(fmt).lock(inbox, 30):
        assert (os.path.isdir if fmt == "claude" else os.path.isfile)(path)
        assert time.time() - os.stat(path).st_mtime < 10  # its own, just made
    assert time.monotonic() - t0 < 10  # at once, not after the timeout's wait
    assert not os.path.exists(path)


def test_lock_9_seconds_old_is_not_stale(tmp_path: Path) -> None:
    inbox = str(tmp_path / "x.json")
    os.mkdir(inbox + ".lock")
    backdate(inbox + ".lock", 9)
    with pytest.raises(LockTimeout):
        DirLock(inbox, timeout=0.3).acquire()
    assert os.path.isdir(inbox + ".lock")


def test_non_empty_lock_dir_is_not_removed(tmp_path: Path) -> None:
    inbox = str(tmp_path / "x.json")
    os.mkdir(inbox + ".lock")
    Path(inbox + ".lock", "inside").write_text("x")
    backdate(inbox + ".lock", 60)
    with pytest.raises(LockTimeout):
        DirLock(inbox, timeout=0.3).acquire()
    assert Path(inbox + ".lock", "inside").read_text() == "x"


@pytest.mark.parametrize("cls", [DirLock, ExclFileLock])
def test_verify_detects_a_replaced_lock(tmp_path: Path, cls: type[DirLock]) -> None:
    inbox = str(tmp_path / "x.json")
    lock = cls(inbox, timeout=1).acquire()
    lock.verify()  # still ours
    backdate(lock.path, 30)  # we stalled; a peer sees it stale
    peer = cls(inbox, timeout=1).acquire()  # ... reclaims it and takes its own
    with pytest.raises(LockLost):
        lock.verify()
    lock.release()  # must not remove the peer's lock
    assert os.path.exists(lock.path)
    peer.verify()
    peer.release()
    assert not os.path.exists(lock.path)


def test_verify_after_removal(tmp_path: Path) -> None:
    lock = DirLock(str(tmp_path / "x.json"), timeout=1).acquire()
    os.rmdir(lock.path)
    with pytest.raises(LockLost):
        lock.verify()
    lock.release()


@pytest.mark.slow
def test_long_hold_keeps_mtime_fresh(tmp_path: Path) -> None:
    """A holder refreshes its lock, so its age never approaches the 10 s stale limit."""
    inbox = str(tmp_path / "x.json")
    lock = DirLock(inbox, timeout=1).acquire()
    try:
        created = os.stat(lock.path).st_mtime
        max_age = 0.0
        deadline = time.monotonic() + 7.5
        while time.monotonic() < deadline:
            max_age = max(max_age, time.time() - os.stat(lock.path).st_mtime)
            time.sleep(0.1)
        assert os.stat(lock.path).st_mtime > created + 3  # it was touched
        assert max_age < 8  # refreshed at 4 s; slack for a loaded machine, short of stale (10 s)
        lock.verify()  # the refresh is ours: still valid
        # a peer with a short patience still finds it taken
        with pytest.raises(LockTimeout):
            DirLock(inbox, timeout=0.3).acquire()
    finally:
        lock.release()
    assert not os.path.exists(inbox + ".lock")
