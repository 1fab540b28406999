"""A gap: what it says, when it is one, and how the history keeps it (and the note of until
when each inbox was read)."""

from __future__ import annotations

import time
from pathlib import Path

from teaminbox.formats import get
from teaminbox.gaps import GAP_SECONDS, gap_message, gap_text, unread_while
from teaminbox.history import History
from teaminbox.render import description, wire_converter
from teaminbox.server.tools import message_out

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
