"""What other writers leave behind: a link at a lock's path, a lock that vanishes as it is
looked at, the temp files of killed writers. No lock spins; no dead writer's temp file
stays past the next write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.hostile import GOOD, dump, within
from support.world import Teams
from teaminbox import fileio, locks, store
from teaminbox.errors import LockTimeout
from teaminbox.formats.claude import CLAUDE
from teaminbox.locks import DirLock, ExclFileLock, track_temp
from teaminbox.store.temps import dead_temp_files

SPIN = """
import os, sys, time
from teaminbox.locks import DirLock, ExclFileLock
from teaminbox.errors import LockTimeout
cls = DirLock if sys.argv[2] == "dir" else ExclFileLock
t0, c0 = time.monotonic(), time.process_time()
try:
    cls(sys.argv[1], timeout=0.5).acquire()
    print("ACQUIRED")
except LockTimeout as err:
    took, cpu = time.monotonic() - t0, time.process_time() - c0
    print("TIMEOUT", round(took, 3), round(cpu, 3), err.message)
"""


@pytest.mark.parametrize("kind", ["dir", "file"])
@pytest.mark.parametrize("target", ["dangling", "old_dir", "old_file"])
def test_symlink_at_lock_path_times_out_quietly(tmp_path: Path, kind: str, target: str) -> None:
    inbox = tmp_path / "x.json"
    lock = Path(str(inbox) + ".lock")
    dest = tmp_path / "elsewhere"
    if target == "old_dir":
        dest.mkdir()
    elif target == "old_file":
        dest.write_text("keep me")
    if target != "dangling":
        os.utime(dest, (time.time() - 60, time.time() - 60))
    os.symlink(dest, lock)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", SPIN, str(inbox), kind],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("acquire went on past its 0.5 s timeout")
    assert proc.returncode == 0, proc.stderr
    word, elapsed, cpu, *message = proc.stdout.split(" ")
    assert word == "TIMEOUT"
    # gave up at its timeout, not for ever (the wall clock's bound is a loaded machine's); a
    # spin would show as CPU time, which a busy machine only lowers
    assert 0.5 <= float(elapsed) < 10
    assert float(cpu) < 0.15, f"busy loop: {cpu} s of CPU in {elapsed} s"
    assert "symbolic link" in " ".join(message)
    assert os.path.islink(lock)  # never removed: nobody knows whose it is
    assert dest.exists() == (target != "dangling")


@pytest.mark.parametrize("cls", [DirLock, ExclFileLock])
def test_vanishing_lock_never_spins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cls: type[DirLock]
) -> None:
    """mkdir says EEXIST, lstat says ENOENT, forever (a racing peer, or a broken FS)."""
    inbox = str(tmp_path / "x.json")

    def exists(self: object) -> None:
        raise FileExistsError(17, "File exists")

    monkeypatch.setattr(cls, "_create", exists)
    t0, c0 = time.monotonic(), time.process_time()
    with pytest.raises(LockTimeout):
        within(30, lambda: cls(inbox, timeout=0.5).acquire(), lambda: None)
    assert time.monotonic() - t0 < 10  # its timeout, not for ever (a spin: the CPU time below)
    assert time.process_time() - c0 < 0.3


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def backdate(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_dead_temp_files_are_removed_on_next_write(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(dump([GOOD]))
    gone = dead_pid()
    dead = [tmp_path / f".x.json.{gone}.{i:08x}{fileio.TEMP_SUFFIX}" for i in range(10)]
    for d in dead:
        d.write_bytes(b"x" * 100_000)
        backdate(d, 120)
    young = tmp_path / f".x.json.{gone}.deadbeef{fileio.TEMP_SUFFIX}"
    young.write_bytes(b"y")  # a dead writer, but just now: left for a later write
    mine = tmp_path / f".x.json.{os.getpid()}.0badf00d{fileio.TEMP_SUFFIX}"
    mine.write_bytes(b"z")  # this process is writing it
    backdate(mine, 120)
    other = tmp_path / f".y.json.{gone}.00000001{fileio.TEMP_SUFFIX}"
    other.write_bytes(b"o")  # another inbox's: reported, left to that inbox's next write
    backdate(other, 120)
    track_temp(str(mine))
    try:
        listed = dead_temp_files(str(tmp_path))
        assert listed == sorted(str(d) for d in [*dead, other])
        store.append(CLAUDE, str(p), [GOOD])
        left = sorted(x.name for x in tmp_path.iterdir())
        assert left == sorted(["x.json", young.name, mine.name, other.name])
    finally:
        locks._refresher.temps.discard(str(mine))  # forgotten, the file left
    assert dead_temp_files(str(tmp_path)) == sorted([str(mine), str(other)])


def test_temp_of_a_live_writer_is_kept(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.2)
        t = tmp_path / f".x.json.{sleeper.pid}.00000003{fileio.TEMP_SUFFIX}"
        t.write_bytes(b"z")
        assert dead_temp_files(str(tmp_path), min_age=0) == []
    finally:
        sleeper.kill()
        sleeper.wait()
    assert dead_temp_files(str(tmp_path), min_age=0) == [str(t)]


def test_dead_temp_of_a_reused_pid(tmp_path: Path) -> None:
    """A pid alive again since the file was written belongs to another process now."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.2)
        t = tmp_path / f".x.json.{sleeper.pid}.00000002{fileio.TEMP_SUFFIX}"
        t.write_bytes(b"z")
        backdate(t, 3600)  # written an hour before that process started
        assert dead_temp_files(str(tmp_path)) == [str(t)]
    finally:
        sleeper.kill()
        sleeper.wait()


def test_killed_sends_leave_no_temp_copies_behind(teams: Teams) -> None:
    """Writers killed while holding their temp file; the next send cleans up."""
    inbox = teams.cinbox("researcher")
    writer = Path(__file__).resolve().parent.parent / "interop" / "py_writer.py"
    for k in range(3):
        proc = subprocess.Popen(
            [
                sys.executable,
                str(writer),
                str(teams.home),
                "alpha",
                "researcher",
                "-1",
                f"k{k}",
                "--slow-commit",
                "5",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(
            x.name.endswith(fileio.TEMP_SUFFIX) and f".{proc.pid}." in x.name
            for x in inbox.parent.iterdir()
        ):
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    temps = [x for x in inbox.parent.iterdir() if x.name.endswith(fileio.TEMP_SUFFIX)]
    assert len(temps) == 3
    for t in temps:
        backdate(t, 120)
    lock = Path(str(inbox) + ".lock")
    if lock.exists():
        backdate(lock, 60)
    store.append(CLAUDE, str(inbox), [GOOD], timeout=5)
    assert not [x for x in inbox.parent.iterdir() if x.name.endswith(fileio.TEMP_SUFFIX)]
