"""The REAL `teaminbox serve` over stdio, driven synchronously from a session fixture.

It reuses the e2e suite's pytest-lsp client (tests/e2e/lsp_session.py: the recording
client, `start`, `call`, `stop_server`) on an asyncio loop in its own thread, so the
scripted Claude Code session can run in the test's thread meanwhile.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")
E2E = Path(__file__).resolve().parents[2] / "e2e"
CALL_TIMEOUT = 20.0


def lsp_session() -> ModuleType:
    """tests/e2e/lsp_session.py, imported as the e2e tests import it (`lsp_session`)."""
    if str(E2E) not in sys.path:
        sys.path.insert(0, str(E2E))
    return importlib.import_module("lsp_session")


class Sidecar:
    """`teaminbox serve` watching only a scratch ~/.claude/teams, its history beside it."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.ls = lsp_session()
        self.client: Any = None
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True, name="lsp")
        self.options = {
            "defaultRoots": False,
            "roots": [f"claude={home / '.claude' / 'teams'}"],
            "historyPath": str(home / "teaminbox-history.db"),
        }

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = CALL_TIMEOUT) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self) -> Sidecar:
        self.thread.start()

        async def go() -> Any:
            client = self.ls.make_recording_client()
            await client.start_io(*self.ls.SERVER)
            await self.ls.start(client, self.options)
            return client

        self.client = self.run(go(), 60)
        return self

    def call(self, method: str, params: dict[str, Any], timeout: float = CALL_TIMEOUT) -> Any:
        return self.run(self.ls.call(self.client, method, params), timeout)

    def call_error(self, method: str, params: dict[str, Any]) -> str | None:
        """The error code a call answers with (fails if it succeeds)."""
        err = self.run(self.ls.call_error(self.client, method, params))
        return self.ls.error_code(err)  # type: ignore[no-any-return]

    def notifications(self, method: str) -> list[Any]:
        return list(self.ls.rec(self.client).since(method)) if self.client else []

    def send(self, team: str, to: str, text: str, summary: str) -> Any:
        """teamInbox/send as the person; raises unless every recipient reports ok."""
        res = self.call(
            "teamInbox/send",
            {"team": f"claude:{team}", "to": to, "text": text, "summary": summary},
        )
        results = res.get("results") if isinstance(res, dict) else None
        if not results or not all(r.get("ok") for r in results):
            raise AssertionError(f"teamInbox/send to {to} did not succeed: {res!r}")
        return res

    def stop(self) -> None:
        try:
            if self.client is not None:
                self.run(self.ls.stop_server(self.client), 30)
        except Exception:
            server = getattr(self.client, "_server", None)
            if server is not None and server.returncode is None:
                server.kill()  # asyncio.subprocess.Process: only the server we started
            raise
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            if not self.loop.is_running():
                self.loop.close()


# Scenario texts looked up with teamInbox/search (each one is in exactly one message).
SEARCHED = (
    "HELLO-FROM-HELPER",
    "HELPER-ANSWER-PERSON-2",
    "PERSON-TO-LEAD-1",
    "PERSON-TO-HELPER-1",
    "PERSON-TASKS",
    "PERSON-SHUTDOWN",
)
# ... and texts only a pending feature serves (the lead's answer, from its transcript)
SEARCHED_PENDING = ("LEAD-ANSWER-PERSON-1",)


@dataclass
class ServerView:
    """What the server answered during (and right after) the session."""

    error: str | None = None  # the server could not be started or queried
    team_id: str = ""
    teams: Any = None  # teamInbox/teams just before /exit
    messages: dict[str, Any] = field(default_factory=dict)  # inbox -> teamInbox/messages
    search: dict[str, Any] = field(default_factory=dict)  # text -> teamInbox/search
    teams_after_exit: Any = None
    messages_after_exit: dict[str, Any] = field(default_factory=dict)  # inbox -> result|error
    notifications: dict[str, list[Any]] = field(default_factory=dict)


def snapshot(sidecar: Sidecar, team: str, view: ServerView) -> None:
    """The server's history of `team` while it still exists (before /exit)."""
    view.team_id = f"claude:{team}"
    view.teams = sidecar.call("teamInbox/teams", {})
    mine = [t for t in view.teams.get("teams", []) if t.get("id") == view.team_id]
    if not mine:
        raise AssertionError(f"teamInbox/teams has no {view.team_id}: {view.teams!r}")
    for member in mine[0].get("members", []):
        inbox = member["inbox"]
        view.messages[inbox] = sidecar.call(
            "teamInbox/messages",
            {"team": view.team_id, "inbox": inbox, "includeArchived": True, "limit": 1000},
        )
    for text in SEARCHED + SEARCHED_PENDING:
        view.search[text] = sidecar.call(
            "teamInbox/search", {"query": f'"{text}"', "team": view.team_id, "limit": 50}
        )


def after_exit(sidecar: Sidecar, view: ServerView, inboxes: list[str]) -> None:
    """What the server says once Claude Code deleted the team folder (for pending tests)."""
    view.teams_after_exit = sidecar.call("teamInbox/teams", {})
    for inbox in inboxes:
        try:
            view.messages_after_exit[inbox] = sidecar.call(
                "teamInbox/messages",
                {"team": view.team_id, "inbox": inbox, "includeArchived": True, "limit": 1000},
            )
        except Exception as exc:  # today: unknown_team once the folder is gone
            view.messages_after_exit[inbox] = {"error": repr(exc)}
