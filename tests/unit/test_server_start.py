"""A start that fails is its callers' error, and the next request starts again: before,
the first failure left every later request waiting on a start that never came."""

from __future__ import annotations

import asyncio
from pathlib import Path

from teaminbox.server.core import TeamInboxServer


async def test_a_failed_start_is_an_error_and_the_next_call_starts_again(tmp_path: Path) -> None:
    server = TeamInboxServer()
    server.configure({"defaultRoots": False, "roots": [], "historyPath": str(tmp_path / "h.db")})
    real = TeamInboxServer.start
    calls = 0

    async def start(self: TeamInboxServer) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            await asyncio.sleep(0.05)  # two callers wait on the same start
            raise OSError(28, "inotify watch limit reached")
        await real(self)

    server.start = start.__get__(server)  # type: ignore[method-assign]
    first = await asyncio.gather(
        server.ensure_ready(), server.ensure_ready(), return_exceptions=True
    )
    assert [type(e) for e in first] == [OSError, OSError] and calls == 1
    tracker = await asyncio.wait_for(server.ensure_ready(), 30)  # no wait for ever
    assert tracker is server.tracker and calls == 2
    assert await server.ensure_ready() is tracker and calls == 2  # started once
    await server.stop()
