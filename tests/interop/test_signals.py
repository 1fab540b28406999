"""SIGTERM and SIGHUP inside the locked section release the lock (SIGINT always did).

A writer is paused holding the lock (SIGSTOP via TEAMINBOX_TEST_PAUSE_AT), gets
the signal, and is resumed so it handles it. Then the lock path must be gone,
no temp file left, and Claude Code's own writer (proper-lockfile, which gives
up after about a second) or PseudoClaude's must get the lock at once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from support.lsp_wire import INITIALIZED, frame, initialize, request, serve
from support.node import NODE_DIR, node_exe, parse_log
from support.processes import wait_stopped
from support.world import CODER_ID, Teams
from teaminbox import fileio

# Pause points for code that predates the hook in store/commit.py: wrap PeerLock.acquire and
# os.rename. Then either the CLI (argv) or, with SERVER=1, an asyncio loop that sends
# from a worker thread, as the JSON-RPC server does.
PRELUDE = """
import os, signal, sys
point = os.environ.get("TEAMINBOX_TEST_PAUSE_AT")
if os.environ.get("THEIR_HANDLER"):
    def theirs(signum, frame):
        print("their handler", flush=True)
        sys.exit(7)
    signal.signal(signal.SIGTERM, theirs)
from teaminbox import fileio, locks, store
def stop():
    os.kill(os.getpid(), signal.SIGSTOP)
try:  # the hook: store/commit.py, or store.py before the package
    from teaminbox.store.commit import pause_point as hooked
except ImportError:
    hooked = getattr(store, "_pause_point", None)
if not hooked and point:
    real_rename, real_acquire = os.rename, locks.PeerLock.acquire
    def rename(src, dst, *a, **k):
        if str(src).endswith(fileio.TEMP_SUFFIX) and point == "before_rename":
            stop()
        return real_rename(src, dst, *a, **k)
    def acquire(self):
        lock = real_acquire(self)
        if point == "in_lock":
            stop()
        return lock
    os.rename = rename
    locks.PeerLock.acquire = acquire
if os.environ.get("SERVER"):
    import asyncio
    from concurrent.futures import ThreadPoolExecutor
    from teaminbox.formats import get
    async def main():
        pool = ThreadPoolExecutor(2)
        entry = {"from": "user", "text": "ours-1", "timestamp": "2026-01-01T00:00:00Z"}
        fmt = get(sys.argv[1])
        await asyncio.get_running_loop().run_in_executor(
            pool, lambda: store.append(fmt, sys.argv[2], [entry]))
        print("sent", flush=True)
        await asyncio.sleep(3600)
    asyncio.run(main())
else:
    from teaminbox.cli import main
    sys.exit(main(sys.argv[1:]))
"""


def default_signals() -> None:
    """The child's dispositions are set, not inherited: a run under nohup or `&` ignores these."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)


def start(teams: Teams, point: str, *args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", PRELUDE, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=teams.env(TEAMINBOX_TEST_PAUSE_AT=point, **env),
        preexec_fn=default_signals,
    )


def deliver(proc: subprocess.Popen[str], sig: int) -> tuple[str, str]:
    """Send `sig` to the stopped writer, then let it run and handle it."""
    os.kill(proc.pid, sig)
    os.kill(proc.pid, signal.SIGCONT)
    try:
        return proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the writer did not end: {out} {err}")


def temps(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(fileio.TEMP_SUFFIX)]


def peer_gets_the_lock_at_once(script: str, inbox: Path, *extra: str) -> None:
    """A lock left behind makes the peer give up (GAVEUP) after its ~1 s of retries: an ACK
    with no give-up is the proof, not the wall clock (node's own start is most of that)."""
    proc = subprocess.run(
        [node_exe(), str(NODE_DIR / script), str(inbox), "1", "peer", *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    log = parse_log(proc.stdout)
    assert log["ACK"] == ["peer-0"] and not log["GAVEUP"], proc.stdout


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("point", ["in_lock", "before_rename"])
def test_cli_releases_the_claude_lock(teams: Teams, sig: int, point: str) -> None:
    inbox = teams.cinbox("researcher")
    lock = Path(str(inbox) + ".lock")
    before = inbox.read_bytes()
    proc = start(teams, point, "send", "alpha", "researcher", "ours-1")
    wait_stopped(proc)
    assert lock.is_dir()
    deliver(proc, sig)
    assert proc.returncode == -sig  # it still dies of the signal
    assert not os.path.lexists(lock)
    assert temps(inbox.parent) == []
    assert inbox.read_bytes() == before  # the rename never happened
    peer_gets_the_lock_at_once("claude_writer.js", inbox)
    texts = [e["text"] for e in json.loads(inbox.read_bytes())]
    assert texts.count("peer-0") == 1 and "ours-1" not in texts


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_cli_releases_the_pseudoclaude_lock(teams: Teams, sig: int) -> None:
    inbox = teams.pinbox(CODER_ID)
    lock = Path(str(inbox) + ".lock")
    proc = start(teams, "in_lock", "send", "beta", "coder", "ours-1")
    wait_stopped(proc)
    assert lock.is_file()
    deliver(proc, sig)
    assert proc.returncode == -sig
    assert not os.path.lexists(lock) and temps(inbox.parent) == []
    peer_gets_the_lock_at_once("pseudo_writer.js", inbox, CODER_ID)


@pytest.mark.parametrize("point", ["in_lock", "before_rename"])
def test_server_worker_thread_lock_released(teams: Teams, point: str) -> None:
    """The lock is held by a worker thread; the handler runs on the main thread (its
    event loop). At before_rename the worker is inside the commit: the handler waits
    for the rename (the message is then in the file) before it removes the lock."""
    inbox = teams.cinbox("researcher")
    lock = Path(str(inbox) + ".lock")
    proc = start(teams, point, "claude", str(inbox), SERVER="1")
    wait_stopped(proc)
    assert lock.is_dir()
    deliver(proc, signal.SIGTERM)
    assert proc.returncode == -signal.SIGTERM
    assert not os.path.lexists(lock) and temps(inbox.parent) == []
    texts = [e["text"] for e in json.loads(inbox.read_bytes())]  # always parses
    # in_lock: the worker may finish its write before the main thread gets to run the
    # handler; either way once, or not at all.
    assert texts.count("ours-1") in ((1,) if point == "before_rename" else (0, 1))
    peer_gets_the_lock_at_once("claude_writer.js", inbox)


def test_an_earlier_handler_still_runs(teams: Teams) -> None:
    inbox = teams.cinbox("researcher")
    proc = start(teams, "in_lock", "send", "alpha", "researcher", "x", THEIR_HANDLER="1")
    wait_stopped(proc)
    out, _ = deliver(proc, signal.SIGTERM)
    assert proc.returncode == 7 and "their handler" in out
    assert not os.path.lexists(str(inbox) + ".lock")


def test_sigint_still_releases(teams: Teams) -> None:
    inbox = teams.cinbox("researcher")
    proc = start(teams, "in_lock", "send", "alpha", "researcher", "x")
    wait_stopped(proc)
    deliver(proc, signal.SIGINT)
    assert proc.returncode == 130
    assert not os.path.lexists(str(inbox) + ".lock") and temps(inbox.parent) == []


def test_ignored_sighup_stays_ignored(teams: Teams) -> None:
    """nohup: the parent asked for SIGHUP to be ignored; the write goes on."""
    inbox = teams.cinbox("researcher")
    proc = subprocess.Popen(
        [sys.executable, "-c", PRELUDE, "send", "alpha", "researcher", "ours-1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=teams.env(TEAMINBOX_TEST_PAUSE_AT="in_lock"),
        preexec_fn=lambda: (default_signals(), signal.signal(signal.SIGHUP, signal.SIG_IGN)),
    )
    wait_stopped(proc)
    _, err = deliver(proc, signal.SIGHUP)
    assert proc.returncode == 0, err
    assert [e["text"] for e in json.loads(inbox.read_bytes())][-1] == "ours-1"


def test_the_real_server_releases_on_sigterm(teams: Teams) -> None:
    """`teaminbox serve`: the send runs in a worker thread of the JSON-RPC server."""
    inbox = teams.cinbox("researcher")
    lock = Path(str(inbox) + ".lock")
    init = {
        "defaultRoots": False,
        "roots": [f"claude={teams.claude_root}", f"pseudoclaude={teams.pseudo_root}"],
        "historyPath": str(teams.home / "history.db"),
    }
    proc = serve(
        teams.env(TEAMINBOX_TEST_PAUSE_AT="in_lock"),
        stdout=subprocess.DEVNULL,
        preexec_fn=default_signals,
    )
    assert proc.stdin is not None
    send = {"team": "alpha", "to": "researcher", "text": "ours-1"}
    proc.stdin.write(frame(initialize(1, init), INITIALIZED, request(2, "teamInbox/send", send)))
    proc.stdin.flush()
    wait_stopped(proc)  # type: ignore[arg-type]
    assert lock.is_dir()
    os.kill(proc.pid, signal.SIGTERM)
    os.kill(proc.pid, signal.SIGCONT)
    try:
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGTERM
    assert not os.path.lexists(lock) and temps(inbox.parent) == []
    json.loads(inbox.read_bytes())
    peer_gets_the_lock_at_once("claude_writer.js", inbox)
