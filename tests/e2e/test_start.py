"""The fast start: `python -m teaminbox serve` skips the CLI's imports,
answers the first messages before pygls is imported (server/router.py) and reuses attrs'
and cattrs' generated code. Its first answers are the ones the CLI's path gives and the
ones pygls gives when it serves from the first message (same teams, same states), from
bytecode and from source, and it serves everything after them."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from lsp_session import make_home, options, write_json

from support.lsp_wire import (
    EXIT,
    INITIALIZED,
    SERVE,
    SERVER,
    Messages,
    frame,
    initialize,
    request,
    serve,
)

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar"
FAST = SERVE
CLI = ["-c", "import sys; from teaminbox.cli import main; sys.exit(main(['serve']))"]
# pygls from the first message on, as before the router: the reference for the early answers
PYGLS = [
    "-c",
    "import sys; from teaminbox.server import router, serve_main, transport\n"
    "class Eager(router.Router):\n"
    "    def __init__(self, core):\n"
    "        super().__init__(core)\n"
    "        self.load_now()\n"
    "transport.Router = Eager\n"
    "sys.exit(serve_main())",
]


class Server:
    """The real server over its pipes, asked as the extension asks."""

    def __init__(self, args: Sequence[str], env: dict[str, str]) -> None:
        self.proc = serve(env, args)
        assert self.proc.stdout is not None
        self.messages = Messages(self.proc.stdout)
        self.ids = itertools.count(1)

    def send(self, obj: Any) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(obj))
        self.proc.stdin.flush()

    def ask(self, msg: dict[str, Any]) -> Any:
        """Send a request, and its result once it comes (the messages before it pass)."""
        self.send(msg)
        answer = self.messages.response(msg["id"], timeout=60)
        assert "result" in answer, answer
        return answer["result"]

    def request(self, method: str, params: Any = None) -> Any:
        return self.ask(request(next(self.ids), method) | {"params": params})  # None goes as null

    def start(self, init: dict[str, Any]) -> Any:
        """initialize (at once, as the extension sends it), initialized, the first teams."""
        self.ask(initialize(next(self.ids), init, processId=None, rootUri=None))
        self.send(INITIALIZED)
        return self.request("teamInbox/teams", {})

    def stop(self) -> int:
        try:
            self.request("shutdown")
            self.send(EXIT)
            return self.proc.wait(20)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def env(pycache: Path | None) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("TEAMINBOX_")}
    e["PYTHONPATH"] = str(SIDECAR)
    e.pop("PYTHONPYCACHEPREFIX", None)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    if pycache is None:
        e["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        e["PYTHONPYCACHEPREFIX"] = str(pycache)
    return e


def home_with_states(home: Path) -> None:
    """lsp_session's teams, and a lead that has answered and one who waits unread."""
    make_home(home)
    inboxes = home / ".claude" / "teams" / "alpha" / "inboxes"
    write_json(
        inboxes / "team-lead.json",
        [
            {
                "from": "researcher",
                "text": "the parser is done",
                "timestamp": "2026-11-29T10:05:00.000Z",
                "read": False,
            },
            {
                "from": "researcher",
                "text": json.dumps({"type": "idle_notification", "from": "researcher"}),
                "timestamp": "2026-11-29T10:06:00.000Z",
                "read": False,
            },
        ],
    )


def first_answers(args: Sequence[str], pycache: Path | None, home: Path, run: str) -> list[Any]:
    server = Server(args, env(pycache))
    try:
        init = options(home, historyPath=str(home / f"history-{run}.db"))
        teams = server.start(init)
        after = [
            server.request("teamInbox/messages", {"team": "claude:alpha", "inbox": "user"}),
            server.request("teamInbox/attention", {}),
            server.request("teamInbox/teams", {"includeEnded": True}),
        ]
    finally:
        assert server.stop() == 0
    for result in after:
        for m in result.get("messages", []):
            m.pop("receivedAt", None)  # when this server first saw it
    return [teams, *after]


@pytest.mark.parametrize("mode", ["bytecode", "source"])
def test_the_first_answer_is_the_cli_paths_and_everything_after_it(
    tmp_path: Path, mode: str
) -> None:
    home = tmp_path / "home"
    home_with_states(home)
    pycache = tmp_path / "pyc" if mode == "bytecode" else None
    if pycache is not None:  # a first start fills the bytecode folder, as the extension's does
        first_answers(FAST, pycache, home, "warm")
        assert list((pycache / "teaminbox").glob("attrs-code.*.marshal"))
    fast = first_answers(FAST, pycache, home, "fast")
    cli = first_answers(CLI, None, home, "cli")
    pygls = first_answers(PYGLS, None, home, "pygls")
    assert json.dumps(fast, sort_keys=True) == json.dumps(cli, sort_keys=True)
    assert json.dumps(fast, sort_keys=True) == json.dumps(pygls, sort_keys=True)
    states = {m["name"]: (m.get("state") or {}).get("kind") for m in fast[0]["teams"][0]["members"]}
    assert any(states.values()), states  # the answer carries states to compare


def test_serve_with_the_stdio_flag_and_a_closed_stdin(tmp_path: Path) -> None:
    for args in (FAST, [*FAST, "--stdio"]):  # vscode-languageclient appends --stdio
        out = subprocess.run(
            [sys.executable, *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            env=env(tmp_path / "pyc"),
            timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert "sidecar, json:" in out.stderr


def test_other_commands_still_go_through_the_cli(tmp_path: Path) -> None:
    out = subprocess.run(
        [*SERVER, "--token-file", "x"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env(tmp_path / "pyc"),
        timeout=60,
    )
    assert out.returncode == 2 and "--token-file is for --tcp" in out.stderr
