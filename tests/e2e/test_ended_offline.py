"""A team whose folder was deleted while no sidecar ran is ended, its whole record readable:
to the read-only CLI (`teaminbox teams`, `read`, `tasks`: nothing written, the history the
same bytes after) and to the next sidecar that starts (the team ended, every message it
held archived: those its file held when last seen too). Real processes: the server, the
CLI in a subprocess, a real team folder made and deleted while nothing runs."""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import call, claude_inbox, entry, make_home, write_json

from support import cli
from support.sidecar_process import query

TEAM = "claude:alpha"
KEPT, PRUNED = "still in the file when last seen", "pruned while the sidecar ran"


async def until(check: Callable[[], Awaitable[Any]], what: str) -> Any:
    deadline = time.monotonic() + lsp_session.WAIT
    while not (value := await check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)
    return value


def teaminbox(home: Path, *args: str) -> Any:
    out = cli.run(*cli.scratch_roots(home), *args, "--json", "--history", str(home / "history.db"))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def held(page: dict[str, Any]) -> list[tuple[str, bool]]:
    return sorted((m["text"], m["archived"]) for m in page["messages"])


WHOLE = sorted([(KEPT, True), (PRUNED, True)])


async def test_a_team_gone_while_no_sidecar_ran_is_ended_and_read_whole(tmp_path: Path) -> None:
    make_home(tmp_path)
    user = claude_inbox(tmp_path, "alpha", "user")
    write_json(
        user,
        [entry("researcher", PRUNED, "2026-11-29T10:00:00.000Z", read=True)]
        + [entry("researcher", KEPT, "2026-11-29T10:05:00.000Z")],
    )
    db = tmp_path / "history.db"
    server = await lsp_session.start_server(tmp_path)
    try:  # Claude Code prunes a delivered entry: the history keeps it as gone
        write_json(user, [entry("researcher", KEPT, "2026-11-29T10:05:00.000Z")])

        async def pruned() -> bool:
            q = "SELECT text FROM messages WHERE team=? AND gone_at IS NOT NULL"
            return query(db, q, TEAM) == [(PRUNED,)]

        await until(pruned, "the pruned entry archived")
    finally:
        await lsp_session.stop_server(server)
    shutil.rmtree(tmp_path / ".claude" / "teams" / "alpha")  # nothing runs
    before = digest(db)

    listed = {t["id"]: t for t in teaminbox(tmp_path, "teams")["teams"]}
    assert listed[TEAM]["ended"] is True and listed["pseudoclaude:beta"]["ended"] is False
    read = teaminbox(tmp_path, "read", "alpha", "user")
    assert read["ended"] is True and held(read) == WHOLE
    assert teaminbox(tmp_path, "tasks", "alpha") == {"team": TEAM, "tasks": []}
    assert digest(db) == before  # the CLI only reads

    server = await lsp_session.start_server(tmp_path)
    try:
        teams = (await call(server, "teamInbox/teams", {}))["teams"]
        assert [t["ended"] for t in teams if t["id"] == TEAM] == [True]
        page = await call(server, "teamInbox/messages", {"team": TEAM, "inbox": "user"})
        assert held(page) == WHOLE
        convo = await call(server, "teamInbox/conversation", {"team": TEAM})
        assert held(convo) == WHOLE
    finally:
        await lsp_session.stop_server(server)
    assert query(db, "SELECT count(*) FROM messages WHERE team=? AND gone_at IS NULL", TEAM) == [
        (0,)
    ]
    assert held(teaminbox(tmp_path, "read", "claude:alpha", "user")) == WHOLE
