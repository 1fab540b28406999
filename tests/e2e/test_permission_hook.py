"""The PermissionRequest hook and the real sidecar: `python -m teaminbox.hook run` (the
command `teaminbox hook install` writes) hands a request to a running `teaminbox serve`
over its socket, and prints what the person answered there; nothing at all when no
sidecar claims it, nobody answers, or the item is dismissed. And a dismissed attention
item stays dismissed across a server restart.

Claude Code itself is in tests/interop/claude_code/test_permissions_real.py; here the
hook's stdin is the request as Claude Code 2.1.332 sends it (on-disk-formats.md, 1b).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from lsp_session import (
    call,
    call_error,
    error_code,
    make_home,
    rec,
    start_server,
    stop_server,
)

SESSION = "s1"  # make_home's alpha: leadSessionId
PATIENCE = 120.0  # seconds: a loaded machine may take long; nothing here waits on a timer


def request(session: str = SESSION, **extra: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "/nowhere/lead.jsonl",
        "cwd": "/w",
        "permission_mode": "default",
        "agent_id": "researcher@alpha",
        "agent_type": "researcher",
        "hook_event_name": "PermissionRequest",
        "tool_name": "Bash",
        "tool_input": {"command": "touch /w/x1", "description": "make x1"},
        "permission_suggestions": [
            {
                "type": "addRules",
                "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}],
                "behavior": "allow",
                "destination": "localSettings",
            },
            {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
        ],
        **extra,
    }


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "run"
    d.mkdir(mode=0o700)
    monkeypatch.setenv("TEAMINBOX_RUNTIME_DIR", str(d))  # the server and the hook inherit it
    return d


async def hook(req: dict[str, Any], wait: float) -> asyncio.subprocess.Process:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "teaminbox.hook",
        "run",
        "--wait",
        str(wait),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(req).encode())
    proc.stdin.close()
    return proc


async def printed(proc: asyncio.subprocess.Process, timeout: float = PATIENCE) -> Any:
    out, err = await asyncio.wait_for(proc.communicate(), timeout)
    assert proc.returncode == 0, err
    return json.loads(out) if out.strip() else None


async def asked(client: Any, n: int = 1) -> list[Any]:
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    while loop.time() < end:
        got = (await call(client, "teamInbox/permissionRequests", {}))["requests"]
        if len(got) >= n:
            return list(got)
        await asyncio.sleep(0.05)
    raise AssertionError("the hook's request never reached the sidecar")


async def none_open(client: Any) -> None:
    """Until the sidecar lists no open request (the hook closed its connection)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + PATIENCE
    while loop.time() < end:
        if not (await call(client, "teamInbox/permissionRequests", {}))["requests"]:
            return
        await asyncio.sleep(0.05)


def decision(out: Any) -> Any:
    assert out["hookSpecificOutput"]["hookEventName"] == "PermissionRequest", out
    return out["hookSpecificOutput"]["decision"]


async def test_allow_allow_for_the_session_and_deny(tmp_path: Path, runtime: Path) -> None:
    make_home(tmp_path)
    client = await start_server(tmp_path)
    try:
        [sock] = [p for p in runtime.iterdir() if p.name.endswith(".sock")]
        assert stat.S_IMODE(sock.stat().st_mode) == 0o600
        assert stat.S_IMODE(runtime.stat().st_mode) == 0o700

        mark = rec(client).mark()
        proc = await hook(request(), 30)
        [p] = await asked(client)
        assert (p["team"], p["member"], p["toolName"], p["detail"]) == (
            "claude:alpha",
            "researcher",
            "Bash",
            "touch /w/x1",
        )
        assert p["toolInput"] == {"command": "touch /w/x1", "description": "make x1"}
        told = await rec(client).wait("teamInbox/permissionRequested", since=mark)
        assert told["id"] == p["id"]
        got = await rec(client).wait(
            "teamInbox/attentionChanged",
            lambda q: any(i["kind"] == "permission" for i in q["items"]),
            since=mark,
        )
        [item] = [i for i in got["items"] if i["kind"] == "permission"]
        assert (item["action"], item["requestId"], item["member"], item["info"]) == (
            "answerPermission",
            p["id"],
            "researcher",
            False,
        )
        assert item["summary"] == "researcher asks to run touch /w/x1"
        assert item["inbox"] == p["inbox"] == "researcher"
        res = await call(client, "teamInbox/answerPermission", {"id": p["id"], "behavior": "allow"})
        assert res == {"id": p["id"], "behavior": "allow", "delivered": True}
        assert decision(await printed(proc)) == {"behavior": "allow"}
        # answered: gone from the list, and from what needs the person
        assert (await call(client, "teamInbox/permissionRequests", {}))["requests"] == []
        err = await call_error(
            client, "teamInbox/answerPermission", {"id": p["id"], "behavior": "allow"}
        )
        assert error_code(err) == "unknown_permission"

        proc = await hook(request(), 30)
        [p] = await asked(client)
        await call(
            client, "teamInbox/answerPermission", {"id": p["id"], "behavior": "allowSession"}
        )
        assert decision(await printed(proc)) == {
            "behavior": "allow",
            "updatedPermissions": [
                {
                    "type": "addRules",
                    "rules": [{"toolName": "Bash", "ruleContent": "touch:*"}],
                    "behavior": "allow",
                    "destination": "session",
                }
            ],
        }

        proc = await hook(request(), 30)
        [p] = await asked(client)
        err = await call_error(
            client, "teamInbox/answerPermission", {"id": p["id"], "behavior": "maybe"}
        )
        assert error_code(err) == "invalid_params"
        await call(
            client,
            "teamInbox/answerPermission",
            {"id": p["id"], "behavior": "deny", "message": "not x1"},
        )
        assert decision(await printed(proc)) == {"behavior": "deny", "message": "not x1"}

        # a Write of a big file: the whole request gets through (not cut at some line limit)
        big = request(
            tool_name="Write", tool_input={"file_path": "/w/big.txt", "content": "x" * 3_000_000}
        )
        proc = await hook(big, 30)
        [p] = await asked(client)
        assert (p["toolName"], p["detail"], len(p["toolInput"]["content"])) == (
            "Write",
            "/w/big.txt",
            3_000_000,
        )
        # too long for a prompt: allowed only once the whole of it was shown
        assert p["whole"] is False
        err = await call_error(
            client, "teamInbox/answerPermission", {"id": p["id"], "behavior": "allow"}
        )
        assert error_code(err) == "not_shown"
        shown = await call(client, "teamInbox/permissionText", {"id": p["id"]})
        assert shown["shown"] is True and "x" * 3_000_000 in shown["text"]
        await call(client, "teamInbox/answerPermission", {"id": p["id"], "behavior": "allow"})
        assert decision(await printed(proc)) == {"behavior": "allow"}
    finally:
        await stop_server(client)
    assert not any(p.name.endswith(".sock") for p in runtime.iterdir())  # removed on exit


async def test_no_answer_no_sidecar_and_dismissed_print_nothing(
    tmp_path: Path, runtime: Path
) -> None:
    # no sidecar at all
    assert await printed(await hook(request(), 30)) is None
    make_home(tmp_path)
    client = await start_server(tmp_path)
    try:
        # a session no team of this sidecar has: not claimed, not waited for
        assert await printed(await hook(request(session="other"), 600), timeout=300) is None
        assert (await call(client, "teamInbox/permissionRequests", {}))["requests"] == []
        # nobody answers within the hook's wait
        proc = await hook(request(), 1.5)
        await asked(client)
        assert await printed(proc) is None
        await none_open(client)
        assert (await call(client, "teamInbox/permissionRequests", {}))["requests"] == []
        # the person dismisses it: back to Claude Code's own prompt
        proc = await hook(request(), 30)
        [p] = await asked(client)
        got = await call(client, "teamInbox/dismissAttention", {"key": f"permission:{p['id']}"})
        assert got == {"dismissed": True}
        assert await printed(proc) is None
        # bad input to the hook: nothing printed, exit 0
        bad = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "teaminbox.hook",
            "run",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(bad.communicate(b"{not json"), 30)
        assert (bad.returncode, out) == (0, b"")
    finally:
        await stop_server(client)


async def test_a_dismissed_item_stays_dismissed_after_a_restart(
    tmp_path: Path, runtime: Path
) -> None:
    make_home(tmp_path)  # alpha's user.json: "old news" from researcher, unanswered
    client = await start_server(tmp_path)
    try:
        [item] = (await call(client, "teamInbox/attention", {}))["items"]
        assert (item["kind"], item["member"], item["action"]) == (
            "unanswered",
            "researcher",
            "reply",
        )
        assert item["key"]
        mark = rec(client).mark()
        assert await call(client, "teamInbox/dismissAttention", {"key": item["key"]}) == {
            "dismissed": True
        }
        await rec(client).wait("teamInbox/attentionChanged", lambda q: q["count"] == 0, since=mark)
    finally:
        await stop_server(client)
    assert os.path.exists(tmp_path / "attention-dismissed.json")  # beside history.db
    client = await start_server(tmp_path)
    try:
        got = await call(client, "teamInbox/attention", {})
        assert got == {"items": [], "count": 0}
        err = await call_error(client, "teamInbox/dismissAttention", {"key": ""})
        assert error_code(err) == "invalid_params"
    finally:
        await stop_server(client)


async def test_two_windows_both_ask_and_the_first_answer_wins(
    tmp_path: Path, runtime: Path
) -> None:
    """Every sidecar that watches the team shows the request (two VS Code windows, say);
    the first answer is what the hook prints, and the other window's prompt goes."""
    make_home(tmp_path)
    first = await start_server(tmp_path)
    second = await start_server(tmp_path, historyPath=str(tmp_path / "history2.db"))
    try:
        proc = await hook(request(), 30)
        [a] = await asked(first)
        [b] = await asked(second)
        assert a["detail"] == b["detail"] == "touch /w/x1"
        await call(second, "teamInbox/answerPermission", {"id": b["id"], "behavior": "deny"})
        assert decision(await printed(proc))["behavior"] == "deny"
        await none_open(first)
        assert (await call(first, "teamInbox/permissionRequests", {}))["requests"] == []
    finally:
        await stop_server(first)
        await stop_server(second)
