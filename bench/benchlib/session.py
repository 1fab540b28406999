"""The real `python -m teaminbox serve` under a pygls client, as the extension drives it, and a
bare watchdog callback beside it; a process's memory from /proc."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from pygls.lsp.client import LanguageClient
from watchdog.events import FileSystemEvent, FileSystemEventHandler

from teaminbox.server.lsp import plain_converter

SERVER = [sys.executable, "-m", "teaminbox", "serve"]


def vm(pid: int, key: str) -> float:
    """VmHWM / VmRSS of a process, MB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


class Session:
    """A pygls client on the real server; records didChange arrival times."""

    def __init__(self) -> None:
        self.client = LanguageClient("bench", "0", converter_factory=plain_converter)
        self.changes: list[tuple[float, dict[str, Any]]] = []
        self.event = asyncio.Event()

        @self.client.feature("teamInbox/didChange")
        def on_change(ls: Any, params: Any) -> None:
            self.changes.append((time.perf_counter(), params))
            self.event.set()

        self.teams_changed = asyncio.Event()

        @self.client.feature("teamInbox/teamsChanged")
        def on_teams(ls: Any, params: Any) -> None:
            self.teams_changed.set()

        for other in (  # and the newer ones, so that pygls does not log each as unknown
            "teamInbox/unread",
            "teamInbox/replied",
            "teamInbox/memberState",
            "teamInbox/attentionChanged",
        ):
            self.client.feature(other)(lambda ls, params: None)

    async def start(self, root: Path, history: Path) -> float:
        t0 = time.perf_counter()
        await self.client.start_io(*SERVER)
        self._drain = asyncio.ensure_future(self._read_stderr())
        from lsprotocol import types

        await self.client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(),
                initialization_options={
                    "defaultRoots": False,
                    "roots": [f"claude={root}"],
                    "historyPath": str(history),
                },
            )
        )
        # spawn -> `initialize` answered: the interpreter's start and imports, before any
        # setting is read (the part of first_teams_ms no option of ours can change)
        self.initialize_ms = (time.perf_counter() - t0) * 1000
        self.client.initialized(types.InitializedParams())
        await self.call("teamInbox/teams", {})
        self.first_teams_ms = (time.perf_counter() - t0) * 1000
        # Since e9f1a64 a first load over 8 MiB goes on after the first answer (the member
        # shows `loading`): `start` is spawn -> every inbox loaded, as it was before. Asked
        # again on each `teamsChanged`, as the extension does: polling `teams` every 20 ms
        # made the server list its teams 50 times a second while it loaded (~0.3 s of 1.9).
        while True:
            self.teams_changed.clear()
            teams = (await self.call("teamInbox/teams", {}))["teams"]
            if not any(
                (m.get("error") or {}).get("code") == "loading" for t in teams for m in t["members"]
            ):
                break
            try:
                await asyncio.wait_for(self.teams_changed.wait(), 1.0)
            except TimeoutError:
                pass  # asked again anyway
        return (time.perf_counter() - t0) * 1000

    async def _read_stderr(self) -> None:
        """pygls pipes the server's stderr and never reads it: a full pipe would block it."""
        server = self.client._server
        assert server is not None and server.stderr is not None
        while await server.stderr.read(65536):
            pass

    @property
    def pid(self) -> int:
        assert self.client._server is not None
        return self.client._server.pid

    async def call(self, method: str, params: Any) -> Any:
        return await asyncio.wait_for(self.client.protocol.send_request_async(method, params), 120)

    async def wait_change(self, inbox: str, text: str, since: int, timeout: float = 5) -> float:
        deadline = time.perf_counter() + timeout
        while True:
            for t, p in self.changes[since:]:
                if p["inbox"] == inbox and any(m["text"] == text for m in p["added"]):
                    return t
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"no didChange for {inbox} within {timeout} s")
            self.event.clear()
            try:
                await asyncio.wait_for(self.event.wait(), left)
            except asyncio.TimeoutError:
                pass

    async def stop(self) -> None:
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 30)
            self.client.exit(None)
            await asyncio.wait_for(self.client.stop(), 30)
        except Exception:  # noqa: BLE001 - never leave a server behind
            if self.client._server and self.client._server.returncode is None:
                self.client._server.kill()


class BareWatch(FileSystemEventHandler):
    """watchdog in this process: time of the first event naming the watched path."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.target: str | None = None
        self.hit: float | None = None

    def arm(self, path: Path) -> None:
        with self.lock:
            self.target, self.hit = str(path), None

    def on_any_event(self, event: FileSystemEvent) -> None:
        t = time.perf_counter()
        paths = (os.fsdecode(event.src_path), os.fsdecode(getattr(event, "dest_path", "") or ""))
        with self.lock:
            if self.hit is None and self.target in paths:
                self.hit = t


def widen_start(s: Session, env: dict[str, str] | None = None, **options: Any) -> dict[str, float]:
    """Before s.start: spawn the server with `env` and add `options` to its
    initializationOptions. The dict returned gets the perf_counter of the spawn and of
    `initialize` sent and answered."""
    client = s.client
    start_io, initialize = client.start_io, client.initialize_async
    marks: dict[str, float] = {}

    async def spawn(*cmd: str) -> None:
        marks["spawn"] = time.perf_counter()
        await start_io(*cmd, env=env)

    async def init(params: Any) -> Any:
        params.initialization_options.update(options)
        marks["initialize"] = time.perf_counter()
        res = await initialize(params)
        marks["initialized"] = time.perf_counter()
        return res

    client.start_io = spawn  # type: ignore[method-assign]
    client.initialize_async = init  # type: ignore[method-assign]
    return marks


def listen(s: Session, method: str, handler: Any = None) -> None:
    """Handle a notification in place of Session's own handler (or none: ignore it)."""
    s.client.protocol.fm.features.pop(method, None)
    s.client.feature(method)(handler or (lambda ls, params: None))
