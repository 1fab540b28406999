"""A gap: what it says, when it is one, and how the history keeps it (and the note of until
when each inbox was read)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from teaminbox.discovery import Settings
from teaminbox.formats import get
from teaminbox.gaps import GAP_SECONDS, gap_message, gap_text, unread_while
from teaminbox.history import History
from teaminbox.protocol import InitializationOptions
from teaminbox.render import description, wire_converter
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.features.gaps import Gaps
from teaminbox.server.tools import message_out
from teaminbox.tracker import Tracker

T0 = time.mktime((2026, 12, 7, 14, 2, 10, 0, 0, -1))  # local time, as the text says it


def test_the_text_says_when_in_local_time() -> None:
    assert gap_text(T0, T0 + 2) == (
        "Team Inbox was not reading from 14:02:10 to 14:02:12; messages may be missing"
    )
    # across midnight, each end with its date
    late = time.mktime((2026, 12, 7, 23, 59, 0, 0, 0, -1))
    assert gap_text(late, late + 120) == (
        "Team Inbox was not reading from 2026-12-07 23:59:00 to 2026-12-08 00:01:00;"
        " messages may be missing"
    )


def test_a_gap_only_where_a_message_could_have_come_and_gone() -> None:
    assert unread_while(T0, T0 + 2, T0 + 1)  # long enough, the inbox changed meanwhile
    assert not unread_while(T0, T0 + 2, T0 - 5)  # untouched since before: nothing came
    assert not unread_while(T0, T0 + 2, None)  # no inbox there
    assert not unread_while(T0, T0 + GAP_SECONDS / 2, T0 + 0.1)  # as long as a pass takes


def test_the_history_keeps_a_gap_once_and_every_view_says_it(tmp_path: Path) -> None:
    h = History(str(tmp_path / "history.db"))
    gap = gap_message("filebus:bus", "worker", "filebus", T0, T0 + 2)
    assert [m.id for m in h.archive_missing("filebus:bus", "worker", [gap])] == [gap.id]
    assert h.archive_missing("filebus:bus", "worker", [gap]) == []  # never twice
    (kept,) = h.archived("filebus:bus", "worker")
    assert kept.gap is not None and (kept.gap.start, kept.gap.end) == (T0, T0 + 2)
    assert kept.read and kept.archived and not kept.recovered
    assert description(kept).line == gap_text(T0, T0 + 2)
    assert [m.id for m in h.team_messages("filebus:bus")] == [gap.id]
    out = message_out(wire_converter.unstructure(kept), {})
    assert out["text"] == gap_text(T0, T0 + 2) and set(out["gap"]) == {"from", "to"}
    assert out["gap"]["from"] < out["gap"]["to"] and out["gap"]["to"].endswith("Z")
    h.close()


def test_reading_is_noted_and_never_moves_back(tmp_path: Path) -> None:
    h = History(str(tmp_path / "history.db"))
    assert h.read_until("claude:t", "team-lead") is None
    h.reading([("claude:t", "team-lead"), ("claude:t", "helper")], 100.0)
    h.reading([("claude:t", "team-lead")], 50.0)  # another sidecar, behind: kept at 100
    assert h.read_until("claude:t", "team-lead") == 100.0
    h.reading([("claude:t", "helper")], 200.0)
    assert h.read_until("claude:t", "helper") == 200.0
    h.close()


def test_which_formats_take_messages_away() -> None:
    assert get("claude").takes_away and get("filebus").takes_away
    assert not get("pseudoclaude").takes_away  # it marks read and keeps every entry


# --- finding them: the feature's steps on a real tracker over a file bus (no server loop)

BUS_CODER = "coder@auth-refactor"
BUS_INBOX = "coder_auth-refactor"


def bus_world(tmp_path: Path) -> tuple[Tracker, Gaps, tuple[str, str], Path]:
    project = tmp_path / "auth-refactor"
    folder = project / ".team" / "inbox" / BUS_INBOX
    folder.mkdir(parents=True)
    (project / ".team" / "inbox" / "lead_auth-refactor").mkdir()
    tracker = Tracker(
        Settings.build([str(project)], defaults=False), History(str(tmp_path / "h.db"))
    )
    tracker.scan()
    server = cast(
        TeamInboxServer, SimpleNamespace(tracker=tracker, options=InitializationOptions())
    )
    (tid,) = tracker.rosters
    return tracker, Gaps(server), (tid, BUS_INBOX), folder


def touch(folder: Path, at: float) -> None:
    os.utime(folder, (at, at))


def test_a_start_after_a_change_unread_shows_a_gap_and_one_with_no_note_none(
    tmp_path: Path,
) -> None:
    tracker, gaps, key, _ = bus_world(tmp_path / "first")
    now = time.time()
    assert gaps._at_start(tracker) == (False, [])  # never read before: nothing to say
    assert (tracker.history.read_until(*key) or 0) >= now  # noted from now on

    tracker, gaps, key, folder = bus_world(tmp_path / "untouched")
    tracker.history.reading([key], now - 60)  # a sidecar read it until a minute ago
    touch(folder, now - 90)  # and nothing came or went since
    assert gaps._at_start(tracker) == (False, [])

    tracker, gaps, key, folder = bus_world(tmp_path / "changed")
    tracker.history.reading([key], now - 60)
    touch(folder, now - 30)  # changed while nobody read
    _, (change,) = gaps._at_start(tracker)
    (gap,) = change.diff.added
    assert gap.gap is not None and gap.gap.start == now - 60 and gap.gap.end >= now


def test_a_stall_shows_a_gap_only_where_the_inbox_changed_and_nobody_else_read(
    tmp_path: Path,
) -> None:
    tracker, gaps, key, folder = bus_world(tmp_path)
    gaps._at_start(tracker)
    start, end = gaps.noted + 0.1, gaps.noted + 3
    touch(folder, start - 10)  # untouched during the stall: nothing came or went
    assert gaps._stalled(start, end, tracker) == (False, [])
    tracker.history.reading([key], start + 1)  # another sidecar noted reading it meanwhile
    touch(folder, start + 1)
    assert gaps._stalled(start, end, tracker) == (False, [])
    touch(folder, start + 6)
    _, (change,) = gaps._stalled(start + 5, end + 5, tracker)  # changed, nobody read
    assert [m.text for m in change.diff.added] == [gap_text(start + 5, end + 5)]
    assert gaps._stalled(start + 5, end + 5, tracker) == (False, [])  # once
    # another sidecar on this history, stalled with this one, says the same time once
    assert gaps._stalled(start + 4.5, end + 4.8, tracker) == (False, [])
    assert tracker.history.gaps(*key) == [(start + 5, end + 5)]
