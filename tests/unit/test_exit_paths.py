"""The sidecar's ends: whichever way the event loop ends (`exit` without `shutdown`, the
client closing stdin), the core is halted before the loop closes; a stop that comes while
the start still runs leaves nothing behind it. Before, watchdog's thread went on after the
loop closed and died with "RuntimeError: Event loop is closed" on the next file event, and a
start that a stop overtook made the watch (and its threads) after the stop."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import threading
import time
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

import pytest

from support.lsp_wire import EXIT, INITIALIZED, frame, initialize
from support.world import make_team
from teaminbox.discovery import Settings
from teaminbox.mcpserver import Backend
from teaminbox.server import build
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.features.permissions import Permissions
from teaminbox.server.transport import start_io

WAIT = 60.0  # seconds: a deadline for a condition, never a pace


def opts(tmp_path: Path) -> dict[str, Any]:
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "tester"])
    return {
        "defaultRoots": False,
        "roots": [f"claude={root}"],
        "historyPath": str(tmp_path / "h.db"),
    }


def assert_halted(server: TeamInboxServer) -> None:
    watcher = server.watcher
    assert watcher is not None and watcher.observer.stopped_event.is_set()
    # the state thread takes no job after the history's close: a late one is cancelled
    with pytest.raises(CancelledError):
        server.state.submit(lambda: None).result(WAIT)


@pytest.mark.parametrize("end", ["exit", "stdin closed"])
def test_the_loop_ends_without_shutdown_and_the_core_is_halted_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, end: str
) -> None:
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO()))
    server = build()
    read, write = os.pipe()
    os.write(write, frame(initialize(1, opts(tmp_path), processId=None), INITIALIZED))

    def client() -> None:  # `exit` (or EOF) once the core watches
        deadline = time.monotonic() + WAIT
        while server.watcher is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if end == "exit":
            os.write(write, frame(EXIT))
        os.close(write)

    helper = threading.Thread(target=client)
    helper.start()
    with os.fdopen(read, "rb") as stdin:
        code = start_io(server, stdin)
    helper.join(WAIT)
    assert code == (1 if end == "exit" else 0)  # exit without shutdown: 1, as LSP says
    assert_halted(server)


async def test_a_stop_during_the_start_leaves_no_watch_behind(tmp_path: Path) -> None:
    server = build()
    server.configure(opts(tmp_path))
    gate = threading.Event()
    server.state.submit(gate.wait)  # the state thread busy: the start waits for it
    ready = asyncio.ensure_future(server.ensure_ready())
    await asyncio.sleep(0)  # the start has begun
    await server.stop()
    gate.set()
    await asyncio.wait([ready], timeout=WAIT)
    try:
        assert ready.done() and server.watcher is None and server.tracker is None
    finally:
        if server.watcher is not None:  # the old code's start went on after the stop
            server.watcher.stop()


async def test_the_mcp_server_stopped_while_it_starts_leaves_no_watch_behind(
    tmp_path: Path,
) -> None:
    o = opts(tmp_path)
    backend = Backend(Settings.build(o["roots"], defaults=False), o["historyPath"])
    gate = threading.Event()
    backend.server.state.submit(gate.wait)
    backend.start()
    await asyncio.sleep(0)
    await backend.stop()
    gate.set()
    assert backend._ready is not None
    await asyncio.wait([backend._ready], timeout=WAIT)
    starting = backend.server._starting
    if starting is not None:
        await asyncio.wait([starting], timeout=WAIT)
    try:
        assert backend.server.watcher is None and backend.server.tracker is None
    finally:
        if backend.server.watcher is not None:
            backend.server.watcher.stop()


async def test_a_hook_connected_as_the_server_stops_is_no_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The permission socket's handler waits on the state thread for a hook's request when
    the server stops: the stop cancels that job. Python 3.11's streams report a handler that
    ends cancelled as "Exception in callback" with a traceback; it ends on its own instead."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    monkeypatch.setenv("TEAMINBOX_RUNTIME_DIR", str(run))
    loop = asyncio.get_running_loop()
    reported: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _, context: reported.append(context))
    server = build()
    server.configure(opts(tmp_path))
    await server.ensure_ready()
    prompts = server.get_feature(Permissions).prompts
    deadline = loop.time() + WAIT
    while prompts.listening is None and loop.time() < deadline:
        await asyncio.sleep(0.01)
    assert prompts.listening is not None
    gate, asked = threading.Event(), asyncio.Event()
    in_state = server.in_state

    async def noting(fn: Any, background: bool = False) -> Any:
        asked.set()
        return await in_state(fn, background)

    server.in_state = noting  # type: ignore[method-assign]
    server.state.submit(gate.wait)  # the state thread busy: the claim waits behind it
    reader, writer = await asyncio.open_unix_connection(prompts.listening)
    writer.write(b'{"request": {"session_id": "s1"}, "wait": 30}\n')
    await writer.drain()
    await asyncio.wait_for(asked.wait(), WAIT)  # the handler waits for its claim
    stopped = asyncio.ensure_future(server.stop())
    gate.set()
    await asyncio.wait_for(stopped, WAIT)
    assert await asyncio.wait_for(reader.read(), WAIT) == b""  # closed, nothing claimed
    writer.close()

    def serving() -> bool:
        return any(
            getattr(t.get_coro(), "__qualname__", "") == "Prompts._serve"
            for t in asyncio.all_tasks()
        )

    deadline = loop.time() + WAIT
    while serving() and loop.time() < deadline:  # the handler's task ends
        await asyncio.sleep(0.01)
    await asyncio.sleep(0)  # its done callback runs
    assert not serving() and not reported, reported
