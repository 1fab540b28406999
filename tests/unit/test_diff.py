"""diff.py: what changed in an inbox between two looks (pure: no files)."""

from __future__ import annotations

from teaminbox.diff import UNKNOWN, InboxDiff, compare, gone
from teaminbox.model import Message


def message(mid: str, read: bool = False) -> Message:
    return Message(
        id=mid,
        team="claude:alpha",
        inbox="user",
        format="claude",
        from_="researcher",
        to="user",
        type="message",
        text=f"text of {mid}",
        timestamp="2026-11-29T10:00:00.000Z",
        read=read,
    )


def ids(msgs: list[Message]) -> list[str]:
    return [m.id for m in msgs]


def test_an_appended_tail_is_all_new() -> None:
    added, updated = compare(None, [message("a"), message("b", read=True)])
    assert ids(added) == ["a", "b"]
    assert updated == []


def test_appended_entries_are_added_and_known_ones_are_not() -> None:
    before = {"a": False, "b": True}
    added, updated = compare(before, [message("a"), message("b", read=True), message("c")])
    assert ids(added) == ["c"]
    assert updated == []


def test_a_read_flag_that_flipped_is_an_update_either_way() -> None:
    before = {"a": False, "b": True, "c": False}
    now = [message("a", read=True), message("b", read=False), message("c", read=False)]
    added, updated = compare(before, now)
    assert added == []
    assert [(m.id, m.read) for m in updated] == [("a", True), ("b", False)]


def test_a_read_flag_the_earlier_look_did_not_know_is_no_update() -> None:
    # ids known from the history only: their read flag then is UNKNOWN
    added, updated = compare({"a": UNKNOWN, "b": UNKNOWN}, [message("a", read=True), message("b")])
    assert added == [] and updated == []


def test_removed_entries_are_the_known_ids_absent_now_in_their_order() -> None:
    before = {"a": False, "b": True, "c": False, "d": False}
    assert gone(before, ["b", "d", "e"]) == ["a", "c"]
    assert gone(before, ["a", "b", "c", "d"]) == []
    assert gone({}, ["a"]) == []  # nothing was known: nothing can be gone


def test_a_diff_is_true_only_when_something_changed() -> None:
    assert not InboxDiff()
    assert InboxDiff(removed=["a"])
    assert InboxDiff(added=[message("a")])
    assert InboxDiff(updated=[message("a", read=True)])
