"""`teaminbox mcp` never claims a teammate's permission prompt: nobody could answer it
there, and the hook would hold Claude Code's own prompt back for its whole wait. The real
hook command (`python -m teaminbox.hook run`, Claude Code 2.1.332's stdin) runs beside a
`teaminbox mcp` whose roots hold the live team of that session: it finds no sidecar to ask
and returns at once, printing nothing (Claude Code then asks in the terminal)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from test_mcp import call, served
from test_permission_hook import request, runtime

from support.world import Teams

HOOK_WAIT = 600  # seconds the hook would wait for an answer from a sidecar that claimed it
RETURNED = 60.0  # a hook that asked nobody is back long before this, even on a busy machine


async def test_the_hook_beside_an_mcp_server_returns_at_once_with_nothing(
    teams: Teams, runtime: Path
) -> None:
    session = json.loads((teams.claude_dir / "config.json").read_text())["leadSessionId"]
    async with served(teams, history=teams.home / "h.db") as s:
        listed = {t["id"] for t in (await call(s, "list_teams"))["teams"]}
        assert "claude:alpha" in listed  # started, and watching the session's live team
        hook = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "teaminbox.hook", "run", "--wait", str(HOOK_WAIT)),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=teams.env(TEAMINBOX_RUNTIME_DIR=str(runtime)),
        )
        try:
            payload = json.dumps(request(session=session)).encode()
            out, err = await asyncio.wait_for(hook.communicate(payload), RETURNED)
        finally:
            if hook.returncode is None:
                hook.kill()
                await hook.wait()
        assert (hook.returncode, out) == (0, b""), err
        assert not [p.name for p in runtime.iterdir() if p.name.endswith(".sock")]
        # and the server goes on answering, attention included
        assert "items" in await call(s, "needs_attention")
