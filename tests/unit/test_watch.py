"""watch.py: which paths are news (classify, each format's), the Debouncer's coalescing, and a
RootWatcher on a real folder delivering a hint for a real write."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from support.entries import claude_entry
from support.world import CODER_ID, Teams, write_json
from teaminbox.discovery import find_teams, parse_root
from teaminbox.watch import Debouncer, Hints, RootWatcher, classify


def formats_of(teams: Teams, bus: Path) -> dict[str, Any]:
    """Each format as the teams found on disk carry it: Claude Code, PseudoClaude, the file bus."""
    roots = [*teams.settings.roots, parse_root(str(bus))]
    return {t.fmt.name: t.fmt for t in find_teams(roots)}


def make_bus(home: Path) -> Path:
    """A workspace whose `.team/` is a file bus: one folder a member, one file a message."""
    folder = home / "work" / "proj"
    (folder / ".team" / "inbox" / "coder_proj").mkdir(parents=True)
    (folder / ".team" / "inbox" / "lead_proj").mkdir(parents=True)
    return folder


def test_classify_says_what_each_formats_paths_are(teams: Teams) -> None:
    bus = make_bus(teams.home)
    formats = formats_of(teams, bus)
    assert set(formats) == {"claude", "pseudoclaude", "filebus"}
    every = list(formats.values())
    claude_inbox = str(teams.cinbox("user"))
    pseudo_inbox = str(teams.pinbox(CODER_ID))
    bus_folder = str(bus / ".team" / "inbox" / "coder_proj")
    cases = {
        # an inbox file: re-read that inbox
        claude_inbox: ("inbox", claude_inbox),
        pseudo_inbox: ("inbox", pseudo_inbox),
        # a file bus message: its member's folder is the inbox
        os.path.join(bus_folder, "1770000000-abc.json"): ("inbox", bus_folder),
        # a config: the team (a rescan)
        str(teams.claude_dir / "config.json"): ("team", str(teams.claude_dir / "config.json")),
        str(teams.pseudo_dir / "config.json"): ("team", str(teams.pseudo_dir / "config.json")),
        # locks and writes in flight are never news by themselves
        claude_inbox + ".lock": None,
        claude_inbox + ".tmp.1234.5678": None,
        str(teams.pseudo_dir / "inboxes" / ".tmp-123.json"): None,
        os.path.join(bus_folder, ".1770000000-abc.json.tmp"): None,
        claude_inbox.replace("user.json", "user.json.corrupt-1770000000"): None,
    }
    for path, want in cases.items():
        assert classify(path, every) == want, path
    # one format alone: its own temp names, the others' paths as it sees them
    assert classify(claude_inbox, [formats["claude"]]) == ("inbox", claude_inbox)
    assert classify(pseudo_inbox, [formats["pseudoclaude"]]) == ("inbox", pseudo_inbox)


async def test_the_debouncer_coalesces_hints_into_one_flush_at_a_time() -> None:
    flushes: list[tuple[set[str], bool]] = []
    release = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []

    async def flush(paths: set[str], full: bool) -> None:
        flushes.append((paths, full))
        if len(flushes) == 1:
            await release.wait()  # the first flush runs long: what comes meanwhile waits

    def spawn(aw: Awaitable[None]) -> None:
        tasks.append(asyncio.ensure_future(aw))

    d = Debouncer(flush, spawn)
    for p in ("/t/a.json", "/t/b.json", "/t/a.json"):
        d.hint("inbox", p)
    assert flushes == []  # on the loop's next turn, not at once
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert flushes == [({"/t/a.json", "/t/b.json"}, False)]
    # while it runs: a burst, a duplicate and a rescan become one more flush, after it
    for p in ("/t/c.json", "/t/c.json", "/t/a.json"):
        d.hint("inbox", p)
    d.hint("team", "")
    for _ in range(5):
        await asyncio.sleep(0)
    assert len(flushes) == 1
    release.set()
    for _ in range(20):
        await asyncio.sleep(0)
        if len(flushes) == 2 and all(t.done() for t in tasks):
            break
    assert flushes[1] == ({"/t/c.json", "/t/a.json"}, True)
    assert len(flushes) == 2 and len(tasks) == 2


def wait_for(cond: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return False


def test_a_root_watcher_hints_a_real_write_and_not_its_temp_file(teams: Teams) -> None:
    formats = list(formats_of(teams, make_bus(teams.home)).values())
    got: list[tuple[str, str]] = []
    lock = threading.Lock()

    def forward(kind: str, path: str) -> None:  # watchdog's thread
        with lock:
            got.append((kind, path))

    watcher = RootWatcher(Hints(formats, forward))
    try:
        watcher.ensure([(str(teams.claude_root), True)])
        inbox = teams.cinbox("researcher")
        # as Claude Code writes: a temp file beside the inbox, then a rename over it
        tmp = inbox.with_name(inbox.name + ".tmp.42.1770000000")
        write_json(tmp, [claude_entry("team-lead", "hello over inotify", read=False)])
        os.replace(tmp, inbox)
        assert wait_for(lambda: ("inbox", str(inbox)) in got), got
        config = teams.claude_dir / "config.json"
        config.write_bytes(config.read_bytes())
        assert wait_for(lambda: ("team", str(config)) in got), got
        with lock:
            assert not [p for _, p in got if ".tmp." in p], got
    finally:
        watcher.stop()


async def test_watch_folder_hands_wanted_paths_to_the_loop(tmp_path: Path) -> None:
    loop = asyncio.get_running_loop()
    seen: list[tuple[str, bool]] = []
    arrived = asyncio.Event()

    def on_path(path: str) -> None:  # on the loop, never on watchdog's thread
        seen.append((path, asyncio.get_running_loop() is loop))
        arrived.set()

    watcher = RootWatcher(Hints([], lambda kind, path: None))
    try:
        assert watcher.watch_folder(str(tmp_path), on_path, lambda p: p.endswith(".jsonl"))
        assert not watcher.watch_folder(str(tmp_path / "absent"), on_path, lambda p: True)
        (tmp_path / "ignored.txt").write_text("x")
        (tmp_path / "session.jsonl").write_text("{}\n")
        await asyncio.wait_for(arrived.wait(), 10)
        assert (str(tmp_path / "session.jsonl"), True) in seen
        assert all(p.endswith(".jsonl") for p, _ in seen)
        watcher.unwatch_folder(str(tmp_path))
        assert str(tmp_path) not in watcher.taps
    finally:
        watcher.stop()


def test_renames_are_not_held_and_watchdog_is_not_patched(tmp_path: Path) -> None:
    """The watcher's inotify buffer delivers a rename's unpaired half at once, through a
    subclass of watchdog's emitter: watchdog's own classes keep their behaviour."""
    from watchdog.observers import inotify_buffer  # Linux, where the tests run

    watcher = RootWatcher(Hints([], lambda kind, path: None))
    try:
        watcher.ensure([(str(tmp_path), False)])
        [emitter] = list(watcher.observer.emitters)
        buffer = emitter._inotify  # type: ignore[attr-defined]
        assert isinstance(buffer, inotify_buffer.InotifyBuffer) and buffer.delay == 0.0
        assert inotify_buffer.InotifyBuffer.delay == 0.5  # watchdog's own, untouched
    finally:
        watcher.stop()
