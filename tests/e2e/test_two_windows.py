"""Two editor windows: two real `teaminbox serve` processes sharing one history file, each
with roots of its own. A team outside one window's roots is not ended there, and nothing
another window shows live is forgotten; forgetting an ended team says first how much it
removes, and only that much. The team is the seed's file bus, driven by the seed's class."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from lsp_session import (
    REPO,
    SERVER,
    WAIT,
    call,
    call_error,
    make_recording_client,
    start,
    stop_server,
)
from pytest_lsp import LanguageClient

sys.path.insert(0, str(REPO / "tests" / "interop"))
from seed_filebus import FileMessageBus  # noqa: E402

LEAD, CODER = "team-lead@auth-refactor", "coder@auth-refactor"
CODER_INBOX = "coder_auth-refactor"
TEAM = "filebus:proj-a"


async def window(roots: list[str], history: Path) -> LanguageClient:
    client = make_recording_client()
    await client.start_io(*SERVER)
    await start(client, {"defaultRoots": False, "roots": roots, "historyPath": str(history)})
    return client


async def eventually(what: str, probe: Any, seconds: float = WAIT) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        got = await probe()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        await asyncio.sleep(0.1)


async def coder_messages(client: LanguageClient) -> list[str]:
    page = await call(
        client,
        "teamInbox/messages",
        {"team": TEAM, "inbox": CODER_INBOX, "includeArchived": True},
    )
    return sorted(m["text"] for m in page["messages"])


async def test_a_window_never_ends_or_forgets_a_team_live_in_another(tmp_path: Path) -> None:
    history = tmp_path / "shared" / "history.db"
    proj_a, proj_b = tmp_path / "proj-a", tmp_path / "proj-b"
    bus = FileMessageBus(str(proj_a / ".team"))
    FileMessageBus(str(proj_b / ".team")).send_message(LEAD, "user", "B's own team")
    bus.send_message(LEAD, CODER, "first: write src/auth/jwt.ts")
    a = await window([str(proj_a)], history)
    b: LanguageClient | None = None
    try:
        await eventually("A sees the first", lambda: coder_messages(a))
        assert bus.read_inbox(CODER)  # the coder's reader takes it: the history alone has it
        bus.send_message(LEAD, CODER, "second: add the tests")
        both = ["first: write src/auth/jwt.ts", "second: add the tests"]

        async def a_has_both() -> bool:
            return await coder_messages(a) == both

        await eventually("A archived the first and sees the second", a_has_both)

        b = await window([str(proj_b)], history)  # another workspace, the same history
        teams_b = (await call(b, "teamInbox/teams", {}))["teams"]
        assert [t["id"] for t in teams_b] == ["filebus:proj-b"]  # A's team: not ended here
        for params in ({"team": TEAM}, {"team": TEAM, "dryRun": True}, {"team": "proj-a"}):
            err = await call_error(b, "teamInbox/forgetTeam", params)
            assert "proj-a" in str(err)
        assert await coder_messages(a) == both  # the consumed one too
        [hit] = (await call(a, "teamInbox/search", {"query": "jwt"}))["messages"]
        assert hit["archived"] is True
        teams_a = (await call(a, "teamInbox/teams", {}))["teams"]
        assert [(t["id"], t["ended"]) for t in teams_a] == [(TEAM, False)]

        # Now it ends: its folder is deleted. A window that sees it gone says so; the other
        # window may forget it, after saying how much goes, and only that much.
        shutil.rmtree(proj_a / ".team")

        async def ended_in_a() -> bool:
            teams = (await call(a, "teamInbox/teams", {}))["teams"]
            return [(t["id"], t["ended"]) for t in teams] == [(TEAM, True)]

        await eventually("A sees its team end", ended_in_a)
        dry = await call(b, "teamInbox/forgetTeam", {"team": TEAM, "dryRun": True})
        assert (dry["team"], dry["messages"], dry["forgotten"]) == (TEAM, 2, 0)
        assert dry["inboxes"] >= 1
        assert await coder_messages(a) == both  # a dry run removes nothing
        err = await call_error(b, "teamInbox/forgetTeam", {"team": TEAM, "expect": 1})
        assert "2 archived messages, not the 1 confirmed" in str(err)
        assert await coder_messages(a) == both
        done = await call(b, "teamInbox/forgetTeam", {"team": TEAM, "expect": 2})
        assert (done["messages"], done["forgotten"]) == (2, 2)
        assert (await call(a, "teamInbox/search", {"query": "jwt"}))["messages"] == []
    finally:
        await stop_server(a)
        if b is not None:
            await stop_server(b)
