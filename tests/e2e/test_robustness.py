"""Bad files, bad params and vanishing clients: errors with the right data.code, and the
server keeps serving (or ends when its client is gone)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import lsp_session
import pytest
from lsp_session import (
    SERVER,
    call,
    call_error,
    claude_inbox,
    close_stdin_and_wait,
    entry,
    error_code,
    make_client,
    make_home,
    node_append,
    options,
    rec,
    start,
    start_server,
    stop_server,
    write_json,
)
from pytest_lsp import LanguageClient

from support.lsp_wire import frame, initialize

CORRUPT = b'[\n  {"from": "researcher", "text": "cut off'


async def test_corrupt_inbox_is_an_error_on_that_member_only(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    user = claude_inbox(tmp_path, "alpha", "user")
    await start(client, options(tmp_path))
    r = rec(client)
    mark = r.mark()
    user.write_bytes(CORRUPT)
    await r.wait("teamInbox/teamsChanged", since=mark)
    teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    alpha = teams["claude:alpha"]
    bad = next(m for m in alpha["members"] if m["inbox"] == "user")
    assert bad["error"]["code"] == "corrupt_inbox"
    assert bad["error"]["path"] == str(user)
    good = next(m for m in alpha["members"] if m["inbox"] == "researcher")
    assert good.get("error") is None
    err = await call_error(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
    assert str(user) in err.message
    corrupt_code = error_code(err)
    # The rest keeps working.
    page = await call(client, "teamInbox/messages", {"team": "beta", "inbox": "coder"})
    assert page["messages"] == []
    res = await call(client, "teamInbox/send", {"team": "alpha", "to": "researcher", "text": "ok"})
    assert res["results"][0]["ok"] is True
    # A corrupt file removes nothing: the old message is still archived/known.
    assert (await call(client, "teamInbox/search", {"query": "news"}))["messages"]
    # Fixed: the error goes away.
    mark = r.mark()
    write_json(user, [entry("researcher", "old news", "2026-11-29T10:00:00.000Z", color="blue")])
    await r.wait("teamInbox/teamsChanged", since=mark)
    teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    fixed = next(m for m in teams["claude:alpha"]["members"] if m["inbox"] == "user")
    assert fixed.get("error") is None and fixed["total"] == 1
    await r.quiet(1.0)
    assert r.since("teamInbox/replied", mark) == []  # the same old message: not news
    # docs/protocol.md: messages on a corrupt inbox is data.code corrupt_inbox.
    assert corrupt_code == "corrupt_inbox"


async def test_corrupt_at_start_then_fixed_no_duplicate_replied(tmp_path: Path) -> None:
    """A message already notified (history knows it) must not be notified again when its
    inbox was corrupt at start-up and is then fixed."""
    make_home(tmp_path)
    user = claude_inbox(tmp_path, "alpha", "user")
    first = await start_server(tmp_path)
    try:
        mark = rec(first).mark()
        node_append(user, [entry("researcher", "told once", "2026-11-29T11:00:00.000Z")])
        await rec(first).wait(
            "teamInbox/replied", lambda p: p["message"]["text"] == "told once", since=mark
        )
    finally:
        await stop_server(first)
    good = user.read_bytes()
    user.write_bytes(CORRUPT)
    second = await start_server(tmp_path)
    try:
        r = rec(second)
        teams = (await call(second, "teamInbox/teams", {}))["teams"]
        alpha = next(t for t in teams if t["id"] == "claude:alpha")
        assert next(m for m in alpha["members"] if m["inbox"] == "user")["error"]
        mark = r.mark()
        tmp = user.with_name("user.json.tmp.fix")
        tmp.write_bytes(good)
        tmp.rename(user)
        await r.wait("teamInbox/teamsChanged", since=mark)
        await r.quiet(1.0)
        texts = [p["message"]["text"] for p in r.since("teamInbox/replied")]
        assert texts == [], f"replied again for messages notified before the restart: {texts}"
    finally:
        await stop_server(second)


BAD_CALLS: list[tuple[str, Any, str]] = [
    ("teamInbox/messages", [], "invalid_params"),
    ("teamInbox/messages", {"team": 5, "inbox": "user"}, "invalid_params"),
    ("teamInbox/messages", {"inbox": "user"}, "invalid_params"),
    ("teamInbox/messages", {"team": "alpha"}, "invalid_params"),
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "limit": "x"}, "invalid_params"),
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "limit": True}, "invalid_params"),
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "offset": -1}, "invalid_params"),
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "unreadOnly": 1}, "invalid_params"),
    ("teamInbox/messages", {"team": "nope", "inbox": "user"}, "unknown_team"),
    ("teamInbox/messages", {"team": "claude:nope", "inbox": "user"}, "unknown_team"),
    ("teamInbox/messages", {"team": "alpha", "inbox": "nobody"}, "unknown_inbox"),
    ("teamInbox/messages", {"team": "../etc", "inbox": "user"}, "invalid_name"),
    ("teamInbox/messages", {"team": "claude:..", "inbox": "user"}, "invalid_name"),
    ("teamInbox/messages", {"team": "alpha", "inbox": "../../x"}, "invalid_name"),
    ("teamInbox/messages", {"team": "alpha", "inbox": "a\x00b"}, "invalid_name"),
    ("teamInbox/messages", {"team": "a" * 300, "inbox": "user"}, "invalid_name"),
    ("teamInbox/send", {"team": "alpha", "to": "nobody", "text": "x"}, "unknown_recipient"),
    ("teamInbox/send", {"team": "alpha", "to": "../x", "text": "x"}, "invalid_name"),
    ("teamInbox/send", {"team": "../alpha", "to": "researcher", "text": "x"}, "invalid_name"),
    ("teamInbox/send", {"team": "nope", "to": "researcher", "text": "x"}, "unknown_team"),
    ("teamInbox/send", {"team": "alpha", "to": "researcher", "text": 5}, "invalid_params"),
    ("teamInbox/send", {"team": "alpha", "to": "researcher", "text": ""}, "invalid_params"),
    ("teamInbox/send", {"team": "alpha", "text": "x"}, "invalid_params"),
    (
        "teamInbox/send",
        {"team": "alpha", "to": "researcher", "text": "x", "color": "mauve"},
        "invalid_params",
    ),
    (
        "teamInbox/send",
        {"team": "alpha", "to": "researcher", "text": "x", "payload": [1]},
        "invalid_params",
    ),
    (
        "teamInbox/send",
        {"team": "alpha", "to": "researcher", "text": "x" * (1024 * 1024 + 1)},
        "too_large",
    ),
    ("teamInbox/markRead", {"team": "alpha", "inbox": "user"}, "invalid_params"),
    ("teamInbox/markRead", {"team": "alpha", "inbox": "user", "ids": [1]}, "invalid_params"),
    ("teamInbox/markRead", {"team": "alpha", "inbox": "user", "ids": "x"}, "invalid_params"),
    ("teamInbox/markRead", {"team": "alpha", "inbox": "..", "all": True}, "invalid_name"),
    ("teamInbox/markSeen", {"team": "alpha", "inbox": "user"}, "invalid_params"),
    ("teamInbox/markSeen", {"team": "nope", "inbox": "user", "all": True}, "unknown_team"),
    ("teamInbox/markSeen", {"team": "alpha", "inbox": "ghost", "all": True}, "unknown_inbox"),
    ("teamInbox/search", {}, "invalid_params"),
    ("teamInbox/search", {"query": 5}, "invalid_params"),
    ("teamInbox/search", {"query": "x", "limit": "x"}, "invalid_params"),
    ("teamInbox/search", {"query": "x", "team": "nope"}, "unknown_team"),
    ("teamInbox/compact", {}, "invalid_params"),
    ("teamInbox/compact", {"team": "nope"}, "unknown_team"),
    ("teamInbox/compact", {"team": "beta"}, "invalid_params"),  # PseudoClaude: never pruned
    ("teamInbox/inboxPath", {"team": "nope", "inbox": "user"}, "unknown_team"),
    ("teamInbox/inboxPath", {"team": "alpha", "inbox": "nobody"}, "unknown_inbox"),
    ("teamInbox/inboxPath", {"team": "alpha"}, "invalid_params"),
]


async def test_malformed_params_give_coded_errors(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    researcher = claude_inbox(tmp_path, "alpha", "researcher")
    before = researcher.read_bytes()
    await start(client, options(tmp_path))
    wrong = []
    for method, params, code in BAD_CALLS:
        err = await call_error(client, method, params)
        got = error_code(err)
        if got != code:
            wrong.append((method, params if len(repr(params)) < 200 else "...", code, got))
        elif code == "invalid_params":
            assert err.code == -32602, (method, params, err.code)
    assert wrong == [], wrong
    assert researcher.read_bytes() == before
    # Unknown method: a JSON-RPC error, not a crash.
    err = await call_error(client, "teamInbox/bogus", {})
    assert err.code == -32601
    # Still serving.
    teams = (await call(client, "teamInbox/teams", {}))["teams"]
    assert len(teams) == 2
    res = await call(client, "teamInbox/send", {"team": "alpha", "to": "researcher", "text": "ok"})
    assert res["results"][0]["ok"] is True


async def test_ambiguous_team_name(client: LanguageClient, tmp_path: Path) -> None:
    """`beta` is both a Claude and a PseudoClaude team: a bare `beta` is ambiguous_team
    for every method (docs/protocol.md, Errors)."""
    make_home(tmp_path)
    write_json(
        tmp_path / ".claude" / "teams" / "beta" / "config.json",
        {"name": "beta", "leadAgentId": "team-lead@beta", "members": []},
    )
    await start(client, options(tmp_path))
    teams = (await call(client, "teamInbox/teams", {}))["teams"]
    assert sorted(t["id"] for t in teams) == ["claude:alpha", "claude:beta", "pseudoclaude:beta"]
    codes = {}
    for method, params in [
        ("teamInbox/send", {"team": "beta", "to": "coder", "text": "x"}),
        ("teamInbox/inboxPath", {"team": "beta", "inbox": "coder"}),
        ("teamInbox/messages", {"team": "beta", "inbox": "coder"}),
        ("teamInbox/markSeen", {"team": "beta", "inbox": "coder", "all": True}),
        ("teamInbox/search", {"query": "x", "team": "beta"}),
    ]:
        codes[method] = error_code(await call_error(client, method, params))
    assert codes == dict.fromkeys(codes, "ambiguous_team"), codes
    # The full id works.
    page = await call(client, "teamInbox/messages", {"team": "pseudoclaude:beta", "inbox": "coder"})
    assert page["total"] == 0


async def test_exit_after_shutdown(tmp_path: Path) -> None:
    make_home(tmp_path)
    c = await start_server(tmp_path)
    server = c._server
    assert server is not None
    await stop_server(c)  # shutdown + exit: fails if the process does not end
    assert server.returncode == 0


@pytest.mark.parametrize("initialized", [True, False])
async def test_exits_when_stdin_closes(tmp_path: Path, initialized: bool) -> None:
    make_home(tmp_path)
    c = make_client()
    await c.start_io(*SERVER)
    server = c._server
    assert server is not None and server.stdin is not None
    if initialized:
        await start(c, options(tmp_path))
        await call(c, "teamInbox/teams", {})
    try:
        # a bound, not a speed: a server still importing on a loaded machine ends too
        await close_stdin_and_wait(server)
    finally:
        c._stop_event.set()


# argv: the initialize frame to send, then the server's command
CLIENT_SCRIPT = r"""
import subprocess, sys, time
server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
server.stdin.write(sys.argv[1].encode())
server.stdin.flush()
server.stdout.readline()
print(server.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


async def test_exits_when_client_is_killed(tmp_path: Path) -> None:
    make_home(tmp_path)
    home = str(tmp_path)
    opts = {
        "defaultRoots": False,
        "roots": ["claude=" + home + "/.claude/teams"],
        "historyPath": home + "/history.db",
    }
    parent = subprocess.Popen(
        [sys.executable, "-c", CLIENT_SCRIPT, frame(initialize(1, opts)).decode(), *SERVER],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    assert _alive(pid)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    gone = not _alive(pid)
    if not gone:
        os.kill(pid, signal.SIGKILL)
    assert gone, "the server outlived its client by more than 5 s"
