"""The record hook's spool counts as keeping a Claude team's sends over a time nobody read
its inboxes only when it did: the hook recorded a send of the team's lead session by the
time the reading stopped, and no spool file went unread meanwhile. Else the gap is said.
Real parts: the hook's own writer (`spool.record_line`, `spool.append`), the intake's step
(`SpoolIntake.take`), the gaps feature's steps on a real tracker and history (no server
loop: a namespace stands for the server, whose loop these steps do not use)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar, cast

import pytest

from support.world import write_json
from teaminbox import spool
from teaminbox.discovery import Settings
from teaminbox.history import History
from teaminbox.protocol import InitializationOptions
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.features.gaps import Gaps
from teaminbox.server.features.spool import SpoolIntake
from teaminbox.tracker import Tracker

TEAM = "rec"
TID = f"claude:{TEAM}"
SID = "5e1d0000-0000-4000-8000-0000000000c1"
KEY = (TID, "team-lead")
T = TypeVar("T")


async def at_once(fn: Callable[[], T]) -> T:
    """The server's `in_state` and `in_pool`, on this thread."""
    return fn()


class World:
    def __init__(self, base: Path) -> None:
        teams = base / ".claude" / "teams"
        self.inbox = teams / TEAM / "inboxes" / "team-lead.json"
        write_json(
            teams / TEAM / "config.json",
            {
                "name": TEAM,
                "leadAgentId": f"team-lead@{TEAM}",
                "leadSessionId": SID,
                "members": [
                    {"agentId": f"team-lead@{TEAM}", "name": "team-lead"},
                    {"agentId": f"helper@{TEAM}", "name": "helper", "color": "blue"},
                ],
            },
        )
        write_json(self.inbox, [])
        write_json(self.inbox.with_name("helper.json"), [])
        self.spool = str(base / "spool")
        self.tracker = Tracker(
            Settings.build([str(teams)], defaults=False), History(str(base / "h.db"))
        )
        self.tracker.scan()
        server = cast(
            TeamInboxServer,
            SimpleNamespace(
                tracker=self.tracker,
                options=InitializationOptions(),
                in_state=at_once,
                in_pool=at_once,
            ),
        )
        self.gaps = Gaps(server)
        self.intake = SpoolIntake(server)
        self.offsets: dict[str, int] = {}
        assert KEY in self.gaps.at_risk(self.tracker, time.time())  # no transcripts here

    def hook(self, at: float, text: str, session: str = SID) -> None:
        """The record hook run by Claude Code for one of helper's sends, at `at`."""
        raw = json.dumps(
            {
                "session_id": session,
                "hook_event_name": "PostToolUse",
                "tool_name": "SendMessage",
                "agent_type": "helper",
                "tool_input": {"to": "team-lead", "message": text, "summary": text},
                "tool_response": {"success": True, "msg_id": f"id-{text}"},
            }
        ).encode()
        line = spool.record_line(raw, now=at)
        assert line is not None
        spool.append(line, self.spool)

    def take_in(self) -> None:
        got = spool.read(self.spool, self.offsets)
        self.intake.take(self.tracker, got)
        self.offsets = dict(got.offsets)
        asyncio.run(self.intake._release(self.tracker))  # the files read through go

    def rotated(self) -> list[str]:
        return [n for n in os.listdir(self.spool) if spool.is_rotated(n)]

    def unread_since(self, until: float, changed: float) -> None:
        self.tracker.history.reading([KEY], until)
        os.utime(self.inbox, (changed, changed))

    def gap_at_start(self) -> bool:
        _, changes = self.gaps._at_start(self.tracker)
        return any(m.gap is not None for c in changes for m in c.diff.added)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setenv("TEAMINBOX_SPOOL_DIR", str(tmp_path / "spool"))
    return World(tmp_path)


def test_no_hook_the_gap_is_said(world: World) -> None:
    now = time.time()
    world.unread_since(now - 60, now - 30)
    assert world.gap_at_start()


def test_the_hook_recording_the_team_before_the_stop_keeps_its_sends(world: World) -> None:
    now = time.time()
    world.hook(now - 120, "before")
    world.take_in()
    assert world.tracker.history.spooled_since(SID) == pytest.approx(now - 120)
    world.hook(now - 40, "during")  # written and pruned while nobody read
    world.unread_since(now - 60, now - 30)
    assert not world.gap_at_start()
    world.take_in()  # the intake, as after the start: the send is in the record
    held = world.tracker.history.archived(*KEY)
    assert sorted(m.text for m in held) == ["before", "during"]


def test_the_hook_first_seen_after_the_stop_or_for_another_session_keeps_the_gap(
    world: World,
) -> None:
    now = time.time()
    world.hook(now - 120, "elsewhere", session="5e1d0000-0000-4000-8000-0000000000ff")
    world.hook(now - 40, "first")  # installed while nobody read: what came before it?
    world.take_in()
    world.unread_since(now - 60, now - 30)
    assert world.gap_at_start()


def test_a_spool_file_gone_unread_keeps_the_gap(world: World) -> None:
    now = time.time()
    world.hook(now - 120, "before")
    world.take_in()
    shutil.rmtree(world.spool)  # rotated away (twice) while nobody read: its sends lost
    world.hook(now - 20, "after")
    world.unread_since(now - 60, now - 30)
    assert world.gap_at_start()  # the start's check: a kept offset's file is gone


def _records(world: World) -> None:
    """The hook goes on recording: the stall lost nothing."""


def _a_file_unread(world: World) -> None:
    world.tracker.history.save_spool_offsets({})  # a file went before it was read through


def _a_loss_kept(world: World) -> None:
    shutil.rmtree(world.spool)
    world.hook(time.time(), "after")
    world.take_in()  # the file it read is gone: forgotten, the time since kept as a loss


@pytest.mark.parametrize(
    ("meanwhile", "gap"), [(_records, False), (_a_file_unread, True), (_a_loss_kept, True)]
)
def test_a_stall_says_a_gap_unless_the_hook_kept_the_sends(
    world: World, meanwhile: Callable[[World], None], gap: bool
) -> None:
    world.hook(time.time() - 5, "before")
    world.take_in()
    world.gaps._at_start(world.tracker)  # no earlier note: nothing to say; noted now
    meanwhile(world)
    # a stall around the last note of reading (another sidecar noted none since), the
    # inbox changed during it
    start = world.gaps.noted - 1
    os.utime(world.inbox, (start + 0.5, start + 0.5))
    _, changes = world.gaps._stalled(start, world.gaps.noted + 2, world.tracker)
    assert any(m.gap is not None for c in changes for m in c.diff.added) is gap


def test_a_spool_that_cannot_be_read_keeps_the_gap(world: World) -> None:
    now = time.time()
    world.hook(now - 120, "before")
    world.take_in()
    current = Path(world.spool) / spool.CURRENT
    current.chmod(0)  # root reads it anyway: then a folder in its place
    if os.access(current, os.R_OK):
        current.chmod(0o600)
        shutil.rmtree(world.spool)
        Path(world.spool).mkdir()
        (Path(world.spool) / spool.CURRENT).mkdir()
    world.unread_since(now - 60, now - 30)
    assert world.gap_at_start()


def lost_any(world: World) -> bool:
    present = spool.read(world.spool, {}, budget=0).offsets
    return world.tracker.history.spool_lost(0, time.time() + 60, present)


def sends_while_nobody_reads(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> tuple[float, list[str]]:
    """One send taken in, then 100 more in 4 KB files while nobody reads (many rotations)."""
    now = time.time()
    world.hook(now - 120, "before")
    world.take_in()
    monkeypatch.setattr(spool, "MAX_FILE", 4096)
    sends = [f"during-{i}" for i in range(100)]
    for text in sends:
        world.hook(now - 40, text)
    return now, sends


def test_rotations_while_nobody_reads_keep_every_send_and_say_no_gap(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    now, sends = sends_while_nobody_reads(world, monkeypatch)  # under the cap
    rotations = len(world.rotated())
    world.unread_since(now - 60, now - 30)
    assert not world.gap_at_start()
    assert 3 <= rotations <= spool.MAX_KEPT
    world.take_in()
    held = world.tracker.history.archived(*KEY)
    assert sorted(m.text for m in held) == sorted(["before", *sends])
    assert world.rotated() == []  # read through, deleted: not a loss
    assert not lost_any(world)


def test_the_cap_dropping_an_unread_file_says_the_gap(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "MAX_KEPT", 2)
    now, sends = sends_while_nobody_reads(world, monkeypatch)
    assert len(world.rotated()) == 2
    world.unread_since(now - 60, now - 30)
    assert world.gap_at_start()  # the file read before the stop is gone: its sends too
    world.take_in()
    texts: list[Any] = sorted(m.text for m in world.tracker.history.archived(*KEY))
    kept = [t for t in sends if t in texts]
    assert "during-0" not in kept and kept == sends[len(sends) - len(kept) :]  # the newest
    assert lost_any(world)  # the loss kept
