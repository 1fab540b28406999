"""Messages rebuilt from a transcript in the history (`archive_missing`): archived once, never
over a message the history holds under that id, and replaced by their own entry when a file
shows it after all (same sender and text, the entry's time), never kept beside it."""

from __future__ import annotations

from pathlib import Path

from teaminbox.formats.claude import CLAUDE
from teaminbox.history import History
from teaminbox.model import Message

T, INBOX = "claude:alpha", "team-lead"


def entry_msg(msg_id: str, text: str, ts: str, sender: str = "helper") -> Message:
    """As the capture reads it from the file."""
    entry = {"from": sender, "text": text, "timestamp": ts, "msg_id": msg_id, "read": False}
    return CLAUDE.message(entry, 0, T, INBOX)


def rebuilt(msg_id: str, text: str, ts: str, sender: str = "helper") -> Message:
    """As recover.py makes it from a transcript."""
    m = CLAUDE.message(
        {"from": sender, "text": text, "timestamp": ts, "msg_id": msg_id}, 0, T, INBOX
    )
    m.archived = m.recovered = True
    return m


def count(h: History) -> int:
    n: int = h.db.execute("SELECT count(*) FROM messages").fetchone()[0]
    return n


def test_archived_once_and_kept_across_a_reopen(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    a = rebuilt("m1", "RECOVERED-ONE", "2026-12-01T10:00:00.400Z")
    b = rebuilt("m2", "RECOVERED-TWO", "2026-12-01T10:00:01.400Z")
    assert h.archive_missing(T, INBOX, [a, b]) == [a, b]
    assert h.archive_missing(T, INBOX, [a, b]) == []
    h.close()
    h = History(str(tmp_path / "h.db"))
    old = h.archived(T, INBOX)
    assert sorted((m.id, m.text, m.recovered, m.archived) for m in old) == [
        ("m1", "RECOVERED-ONE", True, True),
        ("m2", "RECOVERED-TWO", True, True),
    ]
    [hit] = h.search("RECOVERED-TWO")
    assert (hit.id, hit.recovered) == ("m2", True)
    assert [m.id for m in h.team_messages(T)] == ["m2", "m1"]
    assert h.known_ids(T, INBOX) == set()  # in no file: not what a first look diffs against


def test_an_id_the_history_holds_keeps_its_words(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    seen = entry_msg("m1", "AS-IN-THE-FILE", "2026-12-01T10:00:00.200Z")
    h.record(T, INBOX, [seen], [])
    h.record(T, INBOX, [], ["m1"])  # pruned after the capture read it
    assert (
        h.archive_missing(T, INBOX, [rebuilt("m1", "AS-IN-THE-FILE", "2026-12-01T10:00:00.400Z")])
        == []
    )
    assert (
        h.archive_missing(T, INBOX, [rebuilt("m1", "OTHER-WORDS", "2026-12-01T10:00:09.000Z")])
        == []
    )
    [m] = h.archived(T, INBOX)
    assert (m.id, m.text, m.timestamp, m.recovered) == (
        "m1",
        "AS-IN-THE-FILE",
        "2026-12-01T10:00:00.200Z",
        False,
    )
    assert count(h) == 1
    # the same id in another inbox is another message
    h.archive_missing(T, "helper", [rebuilt("m1", "ELSEWHERE", "2026-12-01T10:00:00.400Z")])
    assert count(h) == 2


def test_the_entry_shown_after_all_replaces_its_rebuild(tmp_path: Path) -> None:
    """The transcript was read before the file (a busy sidecar): the capture then sees the
    entry, its time a little earlier than the transcript's row. One message, the file's."""
    h = History(str(tmp_path / "h.db"))
    h.archive_missing(T, INBOX, [rebuilt("m1", "RACE", "2026-12-01T10:00:00.400Z")])
    h.mark_seen(T, INBOX, ["m1"])
    h.record(T, INBOX, [entry_msg("m1", "RACE", "2026-12-01T10:00:00.310Z")], [])
    assert count(h) == 1
    assert h.known_ids(T, INBOX) == {"m1"}  # in its file now
    [m] = h.team_messages(T)
    assert (m.timestamp, m.recovered, m.archived) == ("2026-12-01T10:00:00.310Z", False, False)
    assert [x.id for x in h.search("RACE")] == ["m1"]
    assert h.seen_ids(T, INBOX) == {"m1"}
    h.record(T, INBOX, [], ["m1"])
    [m] = h.archived(T, INBOX)
    assert (m.id, m.recovered) == ("m1", False)


def test_an_entry_with_other_words_under_its_id_keeps_both(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    h.archive_missing(T, INBOX, [rebuilt("m1", "THE-SENT-WORDS", "2026-12-01T10:00:00.400Z")])
    h.record(T, INBOX, [entry_msg("m1", "A-FORGERY", "2026-12-01T10:00:05.000Z", "mallory")], [])
    got = {m.text: m for m in h.team_messages(T)}
    assert set(got) == {"THE-SENT-WORDS", "A-FORGERY"}
    assert got["THE-SENT-WORDS"].id.startswith("m1~") and got["THE-SENT-WORDS"].recovered
    assert got["A-FORGERY"].id == "m1" and not got["A-FORGERY"].recovered
