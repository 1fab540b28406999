"""The lease: a writer paused with the lock held must not lose a peer's message, nor
report a failure for a message that is in the file.

A writer is paused (SIGSTOP, via the TEAMINBOX_TEST_PAUSE_AT hook in store/commit.py) at
a point of its commit; its lock is backdated as if the pause had lasted 11 s;
a peer (Claude Code's own proper-lockfile writer in Node, PseudoClaude's
protocol in Node, or a Python peer holding the lock) breaks the now-stale lock
and writes; then the writer is resumed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.entries import claude_entry
from support.processes import wait_stopped
from support.world import CODER_ID, Teams
from teaminbox import store
from teaminbox.errors import LockLost
from teaminbox.formats.claude import CLAUDE
from teaminbox.locks import DirLock, PeerLock
from teaminbox.store import commit
from teaminbox.store.merge import merge_entries

NODE_DIR = Path(__file__).resolve().parent.parent / "interop" / "node"

# The CLI, with the pause points. Before store.py had the hook the same points were
# reached by wrapping os.rename and PeerLock.acquire (kept: it runs the old code too).
WRITER = """
import os, signal, sys
from teaminbox import fileio, locks, store
point = os.environ.get("TEAMINBOX_TEST_PAUSE_AT")
def stop():
    os.kill(os.getpid(), signal.SIGSTOP)
try:  # the hook: store/commit.py, or store.py before the package
    from teaminbox.store.commit import pause_point as hooked
except ImportError:
    hooked = getattr(store, "_pause_point", None)
if not hooked and point:
    real_rename, real_acquire = os.rename, locks.PeerLock.acquire
    def rename(src, dst, *a, **k):
        if not str(src).endswith(fileio.TEMP_SUFFIX):
            return real_rename(src, dst, *a, **k)
        if point == "before_rename":
            stop()
        real_rename(src, dst, *a, **k)
        if point == "after_rename":
            stop()
    def acquire(self):
        lock = real_acquire(self)
        if point == "in_lock":
            stop()
        return lock
    os.rename = rename
    locks.PeerLock.acquire = acquire
from teaminbox.cli import main
sys.exit(main(sys.argv[1:]))
"""


def start_writer(teams: Teams, point: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=teams.env(TEAMINBOX_TEST_PAUSE_AT=point),
    )


def resume(proc: subprocess.Popen[str]) -> tuple[str, str]:
    os.kill(proc.pid, signal.SIGCONT)
    return proc.communicate(timeout=60)


def backdate(path: str | Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def node() -> str:
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node is not on PATH: these tests run Claude Code's own lock library")
    if not (NODE_DIR.parent / "node_modules" / "proper-lockfile").is_dir():
        pytest.fail("run `npm ci --prefix tests/interop` first (proper-lockfile)")
    return exe


def node_writer(script: str, *args: str) -> str:
    proc = subprocess.run(
        [node(), str(NODE_DIR / script), *args], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def texts(path: Path) -> list[str]:
    doc = json.loads(path.read_bytes())
    if isinstance(doc, list):
        return [e["text"] for e in doc]
    return [e.get("content", "") for e in doc["messages"]]


# ------------------------------------------------------------------ paused writers, real peers


def test_peer_write_during_a_pause_before_rename_is_kept(teams: Teams) -> None:
    """Claude Code breaks the lock of a writer paused after its checks and appends;
    the writer's rename then displaced that append (lost, before the exchange)."""
    inbox = teams.cinbox("researcher")
    lock = str(inbox) + ".lock"
    proc = start_writer(teams, "before_rename", "send", "alpha", "researcher", "ours-1")
    wait_stopped(proc)
    assert os.path.isdir(lock)
    backdate(lock, 11)  # as if the pause had lasted 11 s
    assert node_writer("claude_writer.js", str(inbox), "1", "peer").startswith("ACK peer-0")
    out, err = resume(proc)
    assert proc.returncode == 0, err
    assert "sent to researcher" in out
    got = texts(inbox)
    assert got.count("ours-1") == 1 and got.count("peer-0") == 1, got
    assert not os.path.exists(lock)


def test_pseudoclaude_peer_write_during_a_pause_is_kept(teams: Teams) -> None:
    inbox = teams.pinbox(CODER_ID)
    lock = str(inbox) + ".lock"
    proc = start_writer(teams, "before_rename", "send", "beta", "coder", "ours-1")
    wait_stopped(proc)
    assert os.path.isfile(lock)
    backdate(lock, 11)
    out = node_writer("pseudo_writer.js", str(inbox), "1", "peer", CODER_ID)
    assert out.startswith("ACK peer-0")
    out, err = resume(proc)
    assert proc.returncode == 0, err
    got = texts(inbox)
    assert got.count("ours-1") == 1 and got.count("peer-0") == 1, got


def test_paused_just_after_rename_reports_written_once(teams: Teams) -> None:
    """The message is in the file; a peer wrote on top of it meanwhile. The sender used
    to exit 1 (WriteNotVerified), and a retry sent it twice."""
    inbox = teams.cinbox("researcher")
    lock = str(inbox) + ".lock"
    proc = start_writer(teams, "after_rename", "send", "alpha", "researcher", "ours-1")
    wait_stopped(proc)
    assert "ours-1" in texts(inbox)
    backdate(lock, 11)
    assert node_writer("claude_writer.js", str(inbox), "1", "peer").startswith("ACK peer-0")
    out, err = resume(proc)
    assert proc.returncode == 0, err
    got = texts(inbox)
    assert got.count("ours-1") == 1 and got.count("peer-0") == 1, got


def test_peer_that_broke_the_lock_and_writes_after_our_rename(teams: Teams) -> None:
    """The peer read the file before our rename and renames its copy after it: our
    message vanished from the file while we reported it sent."""
    inbox = teams.cinbox("researcher")
    lock = str(inbox) + ".lock"
    proc = start_writer(teams, "before_rename", "send", "alpha", "researcher", "ours-1")
    wait_stopped(proc)
    backdate(lock, 11)
    peer = DirLock(str(inbox), timeout=2).acquire()  # breaks the stale lock
    try:
        base = json.loads(inbox.read_bytes())
        os.kill(proc.pid, signal.SIGCONT)
        time.sleep(1.0)  # the writer renames, then finds the lock is not its own
        assert proc.poll() is None, "the writer must wait for the peer's lock"
        peer_entry = {"from": "peer", "text": "peer-0", "timestamp": "2026-01-01T00:00:00Z"}
        tmp = str(inbox) + ".tmp.peer"
        Path(tmp).write_text(json.dumps(base + [peer_entry], indent=2))
        os.rename(tmp, inbox)
    finally:
        peer.release()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    got = texts(inbox)
    assert got.count("ours-1") == 1 and got.count("peer-0") == 1, got


def test_rewrite_keeps_a_peer_append_made_during_a_pause(teams: Teams) -> None:
    """mark-read rewrites the whole file: the same window, the same repair."""
    inbox = teams.cinbox("user")
    inbox.write_text(
        json.dumps([{"from": "a", "text": "t0", "timestamp": "t", "read": False}], indent=2)
    )
    lock = str(inbox) + ".lock"
    proc = start_writer(teams, "before_rename", "mark-read", "alpha", "user", "--all")
    wait_stopped(proc)
    backdate(lock, 11)
    assert node_writer("claude_writer.js", str(inbox), "1", "peer").startswith("ACK peer-0")
    out, err = resume(proc)
    assert proc.returncode == 0, err
    doc = json.loads(inbox.read_bytes())
    assert [(e["text"], e["read"]) for e in doc] == [("t0", True), ("peer-0", False)]


# ------------------------------------------------------------------ the pieces


def test_lease_near_stale_is_given_up(tmp_path: Path) -> None:
    lock = DirLock(str(tmp_path / "x.json"), timeout=1).acquire()
    try:
        backdate(lock.path, 8)  # unrefreshed for 8 s: a peer may break it at 10
        with pytest.raises(LockLost) as info:
            lock.check_lease()
        assert "paused" in info.value.message
        backdate(lock.path, 2)
        lock.check_lease()  # refreshed: a full lease ahead of the commit
        assert time.time() - os.stat(lock.path).st_mtime < 1
        lock.verify()
    finally:
        lock.release()


def test_refresh_never_touches_a_peers_lock(tmp_path: Path) -> None:
    """Paused between its check and its touch, a holder whose lock a peer broke and
    re-made must not refresh (and so adopt) the peer's lock."""
    lock = DirLock(str(tmp_path / "x.json"), timeout=1).acquire()
    try:
        os.rmdir(lock.path)  # the peer breaks it ...
        os.mkdir(lock.path)  # ... and makes its own, at once
        backdate(lock.path, 5)
        peer_mtime = os.stat(lock.path).st_mtime
        lock._mutex.acquire()  # as if the check had passed just before the peer acted
        try:
            assert lock._fd is not None
            os.utime(lock._fd)  # what refresh() touches: our own (now orphaned) inode
        finally:
            lock._mutex.release()
        assert os.stat(lock.path).st_mtime == peer_mtime
        assert not lock.is_mine()
        with pytest.raises(LockLost):
            lock.check_lease()
    finally:
        lock.release()
    assert os.path.isdir(lock.path)  # the peer's lock stays


def e(text: str, read: bool = False) -> dict[str, Any]:
    return claude_entry("a", text, "t", read=read)


def test_merge_entries() -> None:
    base = [e("a"), e("b"), e("c")]
    theirs = [e("a"), e("b", read=True), e("d")]  # c delivered and pruned, b marked, d added
    ours = [e("a"), e("b"), e("c"), e("ours")]
    merged = merge_entries(base, theirs, ours)
    assert merged == [e("a"), e("b", read=True), e("ours"), e("d")]
    assert merge_entries(base, base, ours) is None
    assert merge_entries(base, theirs, merged) is None  # idempotent
    # our own change to an entry wins over theirs
    assert merge_entries(base, theirs, [e("a", read=True), e("b"), e("c")]) == [
        e("a", read=True),
        e("b", read=True),
        e("d"),
    ]
    # duplicates count by occurrence
    assert merge_entries([e("x")], [e("x"), e("x")], [e("x")]) == [e("x"), e("x")]


def test_exchange_reports_a_displaced_write(tmp_path: Path) -> None:
    """The commit itself: a file swapped in after the check is caught, not overwritten."""
    p = tmp_path / "x.json"
    p.write_bytes(CLAUDE.serialize([e("a")]))
    fd = os.open(p, os.O_RDONLY)
    try:
        base = commit.file_id(os.fstat(fd))
        peer = tmp_path / "peer"
        peer.write_bytes(CLAUDE.serialize([e("a"), e("peer")]))
        os.rename(peer, p)  # a peer's write between our check and our rename
        tmp = tmp_path / ".x.json.1.00000000.teaminbox-tmp"
        tmp.write_bytes(CLAUDE.serialize([e("a"), e("ours")]))
        report = commit.CommitReport()
        commit._swap(str(tmp), str(p), base, report)
    finally:
        os.close(fd)
    if commit._renameat2 is None:
        pytest.skip("no renameat2 here: the plain-rename fallback is tested below")
    assert report.displaced is not None and b"peer" in report.displaced
    # a new inbox (no base) that appeared meanwhile is not replaced either
    tmp.write_bytes(CLAUDE.serialize([e("ours")]))
    with pytest.raises(commit.Changed):
        commit._swap(str(tmp), str(p), None, commit.CommitReport())
    assert b"ours" in p.read_bytes()  # the exchange put ours there before; untouched now


def test_fallback_without_renameat2_refuses_a_changed_inbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(commit, "_renameat2", None)
    p = tmp_path / "x.json"
    p.write_bytes(CLAUDE.serialize([e("a")]))
    store.append(CLAUDE, str(p), [e("b")])
    assert texts(p) == ["a", "b"]
    p2 = tmp_path / "y.json"
    store.append(CLAUDE, str(p2), [e("new")])  # no file yet: link(2) refuses to replace
    assert texts(p2) == ["new"]
    tmp = tmp_path / ".x.json.1.00000001.teaminbox-tmp"
    tmp.write_bytes(CLAUDE.serialize([e("ours")]))
    with pytest.raises(commit.Changed):
        commit._swap(str(tmp), str(p2), None, commit.CommitReport())  # appeared meanwhile
    base = commit.file_id(os.stat(p))
    (tmp_path / "peer").write_bytes(CLAUDE.serialize([e("peer")]))
    os.rename(tmp_path / "peer", p)
    with pytest.raises(commit.Changed):
        commit._swap(str(tmp), str(p), base, commit.CommitReport())
    assert texts(p) == ["peer"]


# ------------------------------------------------------------------ figures


def test_window_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record_property: Any
) -> None:
    """How long the checks leave before the rename, and the rename before the re-check.

    Printed for docs/lease-window.md (pytest -s); the bounds are loose.
    """
    stamps: dict[str, float] = {}
    real_check, real_swap, real_mine = PeerLock.check_lease, commit._swap, PeerLock.is_mine
    gaps: dict[str, list[float]] = {"check_to_swap": [], "swap": [], "swap_to_recheck": []}

    def check_lease(self: PeerLock) -> None:
        real_check(self)
        stamps["checked"] = time.perf_counter()

    def swap(*a: Any) -> None:
        stamps["swap_start"] = time.perf_counter()
        real_swap(*a)
        stamps["swap_end"] = time.perf_counter()

    def is_mine(self: PeerLock) -> bool:
        if "swap_end" in stamps:
            end = stamps.pop("swap_end")
            gaps["swap_to_recheck"].append(time.perf_counter() - end)
            gaps["swap"].append(end - stamps["swap_start"])
            gaps["check_to_swap"].append(stamps["swap_start"] - stamps["checked"])
        return real_mine(self)

    monkeypatch.setattr(PeerLock, "check_lease", check_lease)
    monkeypatch.setattr(commit, "_swap", swap)
    monkeypatch.setattr(PeerLock, "is_mine", is_mine)
    out = {}
    for label, fn in (("exchange", commit._renameat2), ("plain rename", None)):
        monkeypatch.setattr(commit, "_renameat2", fn)
        for g in gaps.values():
            g.clear()
        p = tmp_path / f"{label.replace(' ', '_')}.json"
        p.write_bytes(CLAUDE.serialize([e(f"seed {i}" * 20) for i in range(200)]))
        for i in range(300):
            store.append(CLAUDE, str(p), [e(f"m{i}")])
        for name, values in gaps.items():
            values.sort()
            med, p99 = values[len(values) // 2], values[int(len(values) * 0.99)]
            out[f"{label} {name}"] = (med * 1e6, p99 * 1e6)
    for name, (med, p99) in out.items():
        print(f"{name:32} median {med:8.1f} us  p99 {p99:8.1f} us")
        record_property(name, f"{med:.1f}/{p99:.1f} us")
    assert out["exchange check_to_swap"][0] < 2000
