"""Helpers for end-to-end tests of the real `teaminbox serve` subprocess."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import register_lsp_features

from support.entries import claude_entry
from support.lsp_wire import SERVER as SERVER  # re-exported: the e2e suites import it from here
from teaminbox.server.lsp import plain_converter


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=plain_converter)
    register_lsp_features(client)
    return client


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.setup")
    tmp.write_text(json.dumps(value, indent=2))
    tmp.rename(path)


def make_home(home: Path) -> None:
    """A Claude team `alpha` and a PseudoClaude team `beta`, a few messages each."""
    claude = home / ".claude" / "teams" / "alpha"
    write_json(
        claude / "config.json",
        {
            "name": "alpha",
            "leadAgentId": "team-lead@alpha",
            "leadSessionId": "s1",
            "createdAt": 1770000000000,
            "members": [
                {"agentId": "team-lead@alpha", "name": "team-lead", "agentType": "team-lead"},
                {
                    "agentId": "researcher@alpha",
                    "name": "researcher",
                    "color": "blue",
                    "agentType": "general-purpose",
                    "isActive": True,
                    "futureKey": 1,
                },
            ],
        },
    )
    write_json(
        claude / "inboxes" / "user.json",
        [
            {
                "from": "researcher",
                "text": "old news",
                "timestamp": "2026-11-29T10:00:00.000Z",
                "read": False,
                "color": "blue",
            }
        ],
    )
    write_json(claude / "inboxes" / "researcher.json", [])
    pc = home / ".PseudoClaude" / "teams" / "beta"
    write_json(
        pc / "config.json",
        {
            "name": "beta",
            "sanitized_name": "beta",
            "lead_agent_id": "lead-beta",
            "members": [
                {"name": "lead", "agent_id": "lead-beta"},
                {"name": "coder", "agent_id": "team-beta-coder-1"},
            ],
        },
    )
    write_json(pc / "inboxes" / "team-beta-coder-1.json", {"messages": []})


def options(home: Path, **extra: Any) -> dict[str, Any]:
    """Point the server at a scratch HOME's roots and history, not the real ones."""
    return {
        "defaultRoots": False,
        "roots": [
            f"claude={home / '.claude' / 'teams'}",
            f"pseudoclaude={home / '.PseudoClaude' / 'teams'}",
        ],
        "historyPath": str(home / "history.db"),
        **extra,
    }


async def start(client: LanguageClient, init: dict[str, Any]) -> None:
    await client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), initialization_options=init)
    )
    # The first scan runs after `initialized`; any request waits for it. Without this, a
    # file written right after start may be taken in as the baseline (no notifications).
    await asyncio.wait_for(call(client, "teamInbox/teams", {}), WAIT)


async def call(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async(method, params)


# --- shared by the e2e suites below (test_methods, test_notifications, test_robustness) ---


REPO = Path(__file__).resolve().parents[2]
NODE_DIR = REPO / "tests" / "interop"  # the one Node package: proper-lockfile@4.1.2
NODE_WRITER = NODE_DIR / "node" / "claude_peer.js"
NOTIFICATIONS = (
    "teamInbox/didChange",
    "teamInbox/teamsChanged",
    "teamInbox/unread",
    "teamInbox/replied",
    "teamInbox/tasksChanged",
    "teamInbox/memberState",
    "teamInbox/attentionChanged",
    "teamInbox/permissionRequested",
)
WAIT = 60.0  # seconds before a missing notification fails the test (never hangs)


class Recorder:
    """Every teamInbox/* notification, in order; wait for one AFTER a mark.

    Unlike `wait_for_notification_async` this cannot miss a notification that
    arrives before the wait starts: take `mark()` before the action, then
    `await wait(method, pred, since=mark)`.
    """

    def __init__(self) -> None:
        self.items: list[tuple[str, Any, float]] = []

    def install(self, client: LanguageClient) -> None:
        for method in NOTIFICATIONS:

            def on(ls: Any, params: Any, method: str = method) -> None:
                self.items.append((method, params, time.monotonic()))

            client.feature(method)(on)

    def mark(self) -> int:
        return len(self.items)

    def since(self, method: str, mark: int = 0) -> list[Any]:
        return [p for m, p, _ in self.items[mark:] if m == method]

    async def wait(
        self,
        method: str,
        pred: Callable[[Any], bool] = lambda p: True,
        since: int = 0,
        timeout: float = WAIT,
    ) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            for m, p, _ in self.items[since:]:
                if m == method and pred(p):
                    return p
            if time.monotonic() > deadline:
                seen = [(m, p) for m, p, _ in self.items[since:]]
                raise AssertionError(f"no {method} matching within {timeout} s; got {seen!r}")
            await asyncio.sleep(0.01)

    async def quiet(self, seconds: float) -> None:
        """Let notifications in flight arrive (for asserting that one does NOT come)."""
        await asyncio.sleep(seconds)


def make_recording_client() -> LanguageClient:
    client = make_client()
    rec = Recorder()
    rec.install(client)
    client.rec = rec  # type: ignore[attr-defined]
    return client


def rec(client: LanguageClient) -> Recorder:
    return client.rec  # type: ignore[attr-defined,no-any-return]


async def start_server(home: Path, **extra: Any) -> LanguageClient:
    """A server started by hand (for restarts); stop it with stop_server."""
    client = make_recording_client()
    await client.start_io(*SERVER)
    await start(client, options(home, **extra))
    return client


async def stop_server(client: LanguageClient) -> None:
    await finish(client)
    await asyncio.wait_for(client.stop(), 15)


async def call_error(client: LanguageClient, method: str, params: Any) -> JsonRpcException:
    """The JSON-RPC error a call answers with (fails if it succeeds)."""
    try:
        result = await asyncio.wait_for(call(client, method, params), WAIT)
    except JsonRpcException as err:
        return err
    raise AssertionError(f"{method} {params!r} succeeded: {result!r}")


def error_code(err: JsonRpcException) -> str | None:
    data = err.data
    if isinstance(data, dict):
        return data.get("code")
    return getattr(data, "code", None)


def entry(sender: str, text: str, ts: str, read: bool = False, **extra: Any) -> dict[str, Any]:
    """A Claude inbox entry as Claude Code writes it (unread unless told)."""
    return claude_entry(sender, text, ts, read=read, **extra)


def claude_inbox(home: Path, team: str, inbox: str) -> Path:
    return home / ".claude" / "teams" / team / "inboxes" / f"{inbox}.json"


def py_append(path: Path, entries: list[dict[str, Any]], fmt: str = "claude") -> None:
    """This project's writer (`teaminbox.store.append`) in another process."""
    code = (
        "import json, sys; from teaminbox.formats import get; from teaminbox.store import append;"
        " append(get(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]))"
    )
    subprocess.run(
        [sys.executable, "-c", code, fmt, str(path), json.dumps(entries)],
        check=True,
        timeout=30,
    )


def ensure_node_modules() -> None:
    if not (NODE_DIR / "node_modules" / "proper-lockfile").is_dir():
        npm = shutil.which("npm")
        assert npm, "npm is needed for the Node writer (npm ci --prefix tests/interop)"
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR)],
            check=True,
            timeout=300,
        )


def node(*args: str) -> dict[str, Any]:
    """Claude Code's writer: proper-lockfile with its exact options, stringify, tmp + rename."""
    ensure_node_modules()
    out = subprocess.run(
        ["node", str(NODE_WRITER), *args],
        check=True,
        capture_output=True,
        text=True,
        timeout=30,
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def node_append(path: Path, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return node("append", str(path), json.dumps(entries))


def node_prune(path: Path, texts: list[str] | None = None) -> dict[str, Any]:
    return node("prune", str(path), *([json.dumps(texts)] if texts is not None else []))


def server_env() -> dict[str, str]:
    return dict(os.environ)


async def close_stdin_and_wait(server: asyncio.subprocess.Process, seconds: float = 20) -> None:
    """Close the server's stdin (its client is gone); it must exit within `seconds`."""
    if server.stdin is not None:
        server.stdin.close()
    try:
        await asyncio.wait_for(server.wait(), seconds)
    except asyncio.TimeoutError:
        server.kill()
        await server.wait()
        raise AssertionError(
            f"the server kept running {seconds:.0f} s after its stdin closed"
        ) from None


# tests/e2e/conftest.py makes this the `client` fixture of every module here.
@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, client_factory=make_recording_client),
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    await finish(lsp_client)


async def finish(client: LanguageClient) -> None:
    """shutdown + exit; the server must then end (pytest-lsp's stop() waits for it)."""
    server = client._server
    try:
        await asyncio.wait_for(client.shutdown_session(), 15)
    finally:
        if server is not None and server.returncode is None:
            # No session (or a broken one): close its stdin, then make sure it ends.
            await close_stdin_and_wait(server)
