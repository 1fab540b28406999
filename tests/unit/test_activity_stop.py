"""A transcript pass whose timer was set before the server stopped does not run after the
stop: it would read and merge into a history already closed (CI saw its traceback in
test_tcp_guard's shutdown)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from teaminbox.server import build
from teaminbox.server.features.activity.feature import Transcripts


async def test_a_pass_timed_before_the_stop_does_not_run_after_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = build()
    server.configure({"defaultRoots": False, "roots": [], "historyPath": str(tmp_path / "h.db")})
    await server.ensure_ready()
    follower = server.get_feature(Transcripts).follower
    await server.stop()
    follower.everything = True  # as if work were waiting when the timer fires
    before = set(server._tasks)
    with caplog.at_level(logging.ERROR, logger="teaminbox"):
        follower._fire()  # the timer set before the stop
        assert set(server._tasks) == before  # no pass spawned
        # and a pass already under way ends: the closed state thread takes none of its
        # steps (they would find the history closed), and it says nothing
        with pytest.raises(asyncio.CancelledError):
            await follower._pass()
    assert not [r for r in caplog.records if "transcripts failed" in r.getMessage()]
