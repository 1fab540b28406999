"""How the server schedules a flood's work: hints held while a flush runs
become one flush, requests' jobs go before the watch's on the state thread, and inotify's
queue overflow asks for a full rescan."""

from __future__ import annotations

import asyncio
import json
import struct
import threading
from collections.abc import Awaitable
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

import pytest

from support.entries import claude_entry
from support.world import CLAUDE_TEAM, make_teams, write_json
from teaminbox.history import History
from teaminbox.server import core
from teaminbox.tracker import Tracker
from teaminbox.watch import Debouncer, Hints, RootWatcher


async def test_hints_during_a_flush_wait_for_it_and_coalesce() -> None:
    calls: list[tuple[set[str], bool]] = []
    running = 0
    most = 0
    release = asyncio.Event()
    tasks: list[asyncio.Task[Any]] = []

    async def flush(paths: set[str], full: bool) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        calls.append((paths, full))
        await release.wait()
        running -= 1

    def spawn(coro: Awaitable[None]) -> None:
        tasks.append(asyncio.ensure_future(coro))

    d = Debouncer(flush, spawn)
    d.hint("inbox", "/a")
    await asyncio.sleep(0.01)  # the first flush runs (and waits)
    for path in ("/b", "/c", "/b", "/c"):
        d.hint("inbox", path)
        await asyncio.sleep(0.01)
    assert calls == [({"/a"}, False)]  # nothing more while it runs
    release.set()
    for _ in range(100):
        if len(calls) == 2 and running == 0:
            break
        await asyncio.sleep(0.01)
    assert calls == [({"/a"}, False), ({"/b", "/c"}, False)]
    assert most == 1
    d.hint("team", "/t")  # a team hint: a full flush
    await asyncio.sleep(0.05)
    assert calls[-1] == (set(), True)
    await asyncio.gather(*tasks)


def test_requests_jobs_go_before_the_watchs() -> None:
    state = core.StateThread()
    gate = threading.Event()
    order: list[str] = []
    first = state.submit(gate.wait, background=True)
    jobs = [
        state.submit(lambda: order.append("watch 1"), background=True),
        state.submit(lambda: order.append("watch 2"), background=True),
        state.submit(lambda: order.append("request 1")),
        state.submit(lambda: order.append("request 2")),
    ]
    gate.set()
    first.result(5)
    for job in jobs:
        job.result(5)
    assert order == ["request 1", "request 2", "watch 1", "watch 2"]


def test_closing_runs_the_last_job_next_and_no_other_after_it() -> None:
    """The history's close comes after the job running now and before any watch step
    queued behind it; nothing queued or submitted later runs on what it closed."""
    state = core.StateThread()
    started, gate = threading.Event(), threading.Event()
    order: list[str] = []
    running = state.submit(
        lambda: (started.set(), gate.wait(), order.append("running")), background=True
    )
    assert started.wait(30)
    queued = [
        state.submit(lambda: order.append("watch"), background=True),
        state.submit(lambda: order.append("request")),
    ]
    last = state.close(lambda: order.append("close"))
    gate.set()
    last.result(5)
    running.result(5)
    later = state.submit(lambda: order.append("later"))
    for job in [*queued, later]:
        with pytest.raises(CancelledError):
            job.result(5)
    assert order == ["running", "close"]


def test_a_jobs_error_is_its_callers_and_the_thread_goes_on() -> None:
    state = core.StateThread()

    def boom() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        state.submit(boom).result(5)
    assert state.submit(lambda: 42).result(5) == 42


def test_inotify_overflow_asks_for_a_full_rescan() -> None:
    inotify_c = pytest.importorskip("watchdog.observers.inotify_c")  # Linux only
    forwarded: list[tuple[str, str]] = []
    watcher = RootWatcher(Hints([], lambda kind, path: forwarded.append((kind, path))))
    try:
        # struct inotify_event {int wd; uint32 mask, cookie, len; char name[len]}
        overflow = struct.pack("iIII", -1, inotify_c.InotifyConstants.IN_Q_OVERFLOW, 0, 0)
        other = struct.pack("iIII", 1, inotify_c.InotifyConstants.IN_MODIFY, 0, 0)
        events = list(inotify_c.Inotify._parse_event_buffer(other + overflow))
        assert [wd for wd, *_ in events] == [1, -1]  # watchdog still gets every record
        assert forwarded == [("team", "")]
    finally:
        watcher.stop()
    list(inotify_c.Inotify._parse_event_buffer(overflow))
    assert forwarded == [("team", "")]  # a stopped watcher is told nothing


def test_the_tick_retries_failed_reads_and_leaves_the_rest_to_hints_and_scans(
    tmp_path: Path,
) -> None:
    """The tick reads again only the inboxes whose last read failed; a healthy inbox that
    changed with no hint waits for the next full scan (the server's safety net)."""
    teams = make_teams(tmp_path)
    tracker = Tracker(teams.settings, History(str(tmp_path / "history.db")))
    tracker.scan()
    tid = tracker.resolve(CLAUDE_TEAM)
    broken, healthy = teams.cinbox("researcher"), teams.cinbox("user")
    broken.unlink()
    broken.mkdir()  # a folder where the inbox file should be: its read fails
    tracker.refresh_paths({str(broken)})
    assert tracker.inboxes[(tid, "researcher")].error is not None
    broken.rmdir()
    write_json(broken, [claude_entry("team-lead", "back again", "2026-11-29T10:00:00.000Z")])
    before = json.loads(healthy.read_bytes())
    write_json(healthy, [*before, claude_entry("researcher", "no hint", "2026-11-29T10:01:00Z")])
    _, changes = tracker.tick()
    assert [(c.inbox, [m.text for m in c.diff.added]) for c in changes] == [
        ("researcher", ["back again"])
    ]
    assert tracker.inboxes[(tid, "researcher")].error is None
    _, changes = tracker.scan()
    assert [(c.inbox, [m.text for m in c.diff.added]) for c in changes] == [("user", ["no hint"])]
