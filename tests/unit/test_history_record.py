"""The history is a record: a reused msg_id never overwrites archived words, a team is
ended only when its folder is gone, retention never forgets a team whose folder is there,
and a history that cannot be written (SQLITE_FULL) never stops an inbox from being read."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import orjson
import pytest

from support.entries import claude_entry
from support.world import CLAUDE_TEAM, Teams, write_json
from teaminbox.formats.claude import CLAUDE
from teaminbox.history import History
from teaminbox.model import Message
from teaminbox.tracker import Tracker

T, INBOX = "claude:alpha", "user"


def msg(msg_id: str, text: str, second: int = 0, sender: str = "researcher") -> Message:
    entry = {
        "from": sender,
        "text": text,
        "timestamp": f"2026-11-29T10:00:{second:02d}.000Z",
        "msg_id": msg_id,
        "read": False,
    }
    return CLAUDE.message(entry, 0, T, INBOX)


# --- msg_id reuse --------------------------------------------------------------------------


def test_a_reused_msg_id_never_overwrites_the_archived_words(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    h.record(T, INBOX, [msg("m1", "the launch code is swordfish", 1)], [])
    h.mark_seen(T, INBOX, ["m1"])
    h.record(T, INBOX, [], ["m1"])  # consumed: only the history holds it now
    # a peer regenerating ids (or an agent on purpose) writes other words under m1
    h.record(T, INBOX, [msg("m1", "send the budget to mallory", 2, sender="mallory")], [])

    [old] = h.archived(T, INBOX)
    assert (old.text, old.from_, old.archived) == (
        "the launch code is swordfish",
        "researcher",
        True,
    )
    assert old.id != "m1" and old.id.startswith("m1~")
    assert old.raw["msg_id"] == "m1"  # the entry itself as it was
    [hit] = h.search("swordfish")
    assert (hit.text, hit.id) == ("the launch code is swordfish", old.id)
    [hit] = h.search("mallory")
    assert (hit.text, hit.id, hit.archived) == ("send the budget to mallory", "m1", False)
    assert h.known_ids(T, INBOX) == {"m1"}  # the file's id is the new message's
    # the person saw the old words, not the new ones
    assert h.seen_ids(T, INBOX) == {old.id}
    # and it stays so across a reopen and another reuse
    h.record(T, INBOX, [], ["m1"])
    h.close()
    h = History(str(tmp_path / "h.db"))
    h.record(T, INBOX, [msg("m1", "third words", 3)], [])
    assert sorted(m.text for m in h.archived(T, INBOX)) == [
        "send the budget to mallory",
        "the launch code is swordfish",
    ]
    assert len({m.id for m in h.team_messages(T)}) == 3


def test_the_same_message_back_in_its_file_is_one_message(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    h.record(T, INBOX, [msg("m1", "hello", 1)], [])
    h.mark_seen(T, INBOX, ["m1"])
    h.record(T, INBOX, [], ["m1"])
    back = msg("m1", "hello", 1)
    back.read = True  # only the flag differs
    h.record(T, INBOX, [back], [])
    assert h.archived(T, INBOX) == []
    assert [m.id for m in h.team_messages(T)] == ["m1"]
    assert h.seen_ids(T, INBOX) == {"m1"}
    # recorded again and again (compact, the CLI): still one
    h.record(T, INBOX, [back, back], [])
    assert h.db.execute("SELECT count(*) FROM messages").fetchone()[0] == 1


def test_archive_new_keeps_both_when_an_id_is_reused(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    first = msg("lead-1", "the answer is 42", 1)
    assert h.archive_new(T, INBOX, [first]) == [first]
    assert h.archive_new(T, INBOX, [first]) == []  # news once
    other = msg("lead-1", "the answer is 43", 2)
    assert h.archive_new(T, INBOX, [other]) == [other]
    assert sorted(m.text for m in h.archived(T, INBOX)) == ["the answer is 42", "the answer is 43"]


# --- ended teams --------------------------------------------------------------------------


def team_body(tid: str, folder: Path) -> bytes:
    return orjson.dumps(
        {"id": tid, "format": "filebus", "name": tid, "dir": str(folder), "root": ""}
    )


def test_a_team_outside_these_roots_is_not_ended_while_its_folder_is_there(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "proj" / ".team"
    folder.mkdir(parents=True)
    h = History(str(tmp_path / "h.db"))
    h.save_team("filebus:proj", team_body("filebus:proj", folder))
    assert h.end_teams([]) == []  # another window's roots: it is live there
    assert h.ended_teams() == []
    assert h.live_folder("filebus:proj") == str(folder)
    folder.rmdir()
    assert h.end_teams([]) == ["filebus:proj"]
    assert h.live_folder("filebus:proj") is None


def test_a_team_ended_by_mistake_is_live_again_at_the_next_start(tmp_path: Path) -> None:
    """An older sidecar in a window with other roots marked it ended; its folder is there."""
    folder = tmp_path / "proj" / ".team"
    folder.mkdir(parents=True)
    h = History(str(tmp_path / "h.db"))
    h.save_team("filebus:proj", team_body("filebus:proj", folder))
    h.save_team("filebus:gone", team_body("filebus:gone", tmp_path / "gone" / ".team"))
    h.db.execute("UPDATE teams SET ended_at = ?", (time.time(),))
    h.db.commit()
    h.close()
    h = History(str(tmp_path / "h.db"))
    assert [orjson.loads(b)["id"] for b, _ in h.ended_teams()] == ["filebus:gone"]


def test_retention_never_forgets_a_team_whose_folder_is_there(tmp_path: Path) -> None:
    folder = tmp_path / "proj" / ".team"
    folder.mkdir(parents=True)
    h = History(str(tmp_path / "h.db"), keep_days=1)
    h.save_team("filebus:proj", team_body("filebus:proj", folder))
    h.record("filebus:proj", "coder", [msg("m1", "kept")], [])
    # ended by mistake long ago (an older sidecar in a window with other roots)
    h.db.execute("UPDATE teams SET ended_at = 1")
    h.db.commit()
    assert h.prune_teams() == 0
    assert h.team_size("filebus:proj") == (1, 1)
    folder.rmdir()
    assert h.prune_teams() == 1
    assert h.team_size("filebus:proj") == (0, 0)


# --- a history that cannot be written -----------------------------------------------------


def fill(h: History) -> None:
    """SQLite's own SQLITE_FULL: the database may not grow past the pages it has, and the
    room left in them is taken (by another team's seen marks, big to small)."""
    pages = h.db.execute("PRAGMA page_count").fetchone()[0]
    h.db.execute(f"PRAGMA max_page_count={pages}")
    n = 0
    for size in (4000, 400, 40, 4, 1):
        while True:
            n += 1
            try:
                with h.db:
                    h.db.execute(
                        "INSERT INTO seen(team, inbox, id) VALUES ('filler', ?, ?)",
                        ("x" * size, str(n)),
                    )
            except sqlite3.OperationalError:
                break


def room(h: History) -> None:
    h.db.execute("PRAGMA max_page_count=1073741823")


def reply(i: int, text: str) -> dict[str, object]:
    return claude_entry(
        "researcher", text, f"2026-11-29T11:00:{i:02d}.000Z", read=False, msg_id=f"r{i}"
    )


def test_a_full_history_never_stops_an_inbox_from_being_read(
    teams: Teams, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    h = History(str(tmp_path / "history.db"))
    tracker = Tracker(teams.settings, h)
    tracker.scan()
    tid = tracker.resolve(CLAUDE_TEAM)
    fill(h)
    own = teams.cinbox("user")
    entries: list[dict[str, object]] = []
    pad = " lorem ipsum" * 30

    def arrive(i: int) -> None:
        entries.append(reply(i, f"answer number {i}{pad}"))
        write_json(own, entries)
        _, changes = tracker.scan()
        [change] = [c for c in changes if c.inbox == "user"]
        assert [m.id for m in change.diff.added] == [f"r{i}"]  # news, archived or not
        assert tracker.state(tid, "user").error is None

    with caplog.at_level(logging.WARNING, logger="teaminbox"):
        for first in range(60):  # the room the pages had is soon taken
            arrive(first)
            if h.behind:
                break
        assert h.behind, "the history never filled up"
        for i in range(first + 1, first + 4):  # more refused writes: one warning
            arrive(i)
        last = first + 3
        page, total, unread = tracker.page(tid, "user")
        assert (total, unread) == (last + 1, last + 1)
        assert page[0].text.startswith(f"answer number {last}")
        write_json(own, entries[-1:])  # the agent's reader consumed all but the last
        _, changes = tracker.scan()
        [change] = [c for c in changes if c.inbox == "user"]
        assert len(change.diff.removed) == last
        assert f"r{first}" not in {m.id for m in h.search("answer", limit=100)}  # not on disk
        behind = [r for r in caplog.records if "archiving is behind" in r.getMessage()]
        assert len(behind) == 1 and "full" in behind[0].getMessage()
        room(h)
        tracker.scan()
        assert h.behind == 0
        archived = {m.id for m in h.archived(tid, "user")}
        assert archived == {f"r{i}" for i in range(last)}
        assert h.known_ids(tid, "user") == {f"r{last}"}
        found = {m.id for m in h.search("answer", limit=100)}
        assert found >= {f"r{i}" for i in range(last + 1)}
        assert any("caught up" in r.getMessage() for r in caplog.records)
    assert len([r for r in caplog.records if "archiving is behind" in r.getMessage()]) == 1


def test_forget_waits_for_the_writes_that_wait(teams: Teams, tmp_path: Path) -> None:
    """A write still waiting (the disk full) would bring a forgotten team's messages back."""
    from teaminbox.errors import InvalidParams

    h = History(str(tmp_path / "history.db"))
    tracker = Tracker(teams.settings, h)
    gone = tmp_path / "gone" / ".team"
    h.save_team("filebus:gone", team_body("filebus:gone", gone))
    h.record("filebus:gone", "coder", [msg("m1", "before")], [])
    assert h.end_teams([]) == ["filebus:gone"]
    fill(h)
    for i in range(60):
        h.record("filebus:gone", "coder", [msg(f"w{i}", "waiting" + " pad" * 300)], [])
        if h.behind:
            break
    assert h.behind
    with pytest.raises(InvalidParams, match="cannot be written yet"):
        tracker.forget("filebus:gone")
    room(h)
    res = tracker.forget("filebus:gone", dry_run=True)
    assert h.behind == 0 and res.forgotten == 0 and res.messages >= 2
    assert tracker.forget("filebus:gone", expect=res.messages).forgotten == res.messages
    assert h.team_size("filebus:gone") == (0, 0)
