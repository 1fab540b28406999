"""The SQLite archive: pruned messages stay, seen state, FTS search, retention."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from teaminbox.formats.claude import CLAUDE
from teaminbox.history import History
from teaminbox.model import Message


def msg(i: int, text: str) -> Message:
    entry = {
        "from": "researcher",
        "text": text,
        "timestamp": f"2026-11-29T10:00:{i:02d}.000Z",
        "msg_id": f"m{i}",
        "read": i % 2 == 0,
    }
    return CLAUDE.message(entry, i, "claude:alpha", "user")


def test_gone_messages_are_archived_and_come_back(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    assert not h.known_inbox("claude:alpha", "user")
    h.record("claude:alpha", "user", [msg(1, "one"), msg(2, "two")], [])
    assert h.known_inbox("claude:alpha", "user")
    assert h.known_ids("claude:alpha", "user") == {"m1", "m2"}
    h.record("claude:alpha", "user", [], ["m1"])
    assert h.known_ids("claude:alpha", "user") == {"m2"}
    old = h.archived("claude:alpha", "user")
    assert [(m.id, m.text, m.from_, m.archived) for m in old] == [("m1", "one", "researcher", True)]
    assert old[0].raw["msg_id"] == "m1"
    h.record("claude:alpha", "user", [msg(1, "one")], [])  # reappears in the file
    assert h.archived("claude:alpha", "user") == []


def test_seen_state_is_per_inbox(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    assert h.mark_seen("claude:alpha", "researcher", ["a", "b"]) == 2
    assert h.mark_seen("claude:alpha", "researcher", ["a"]) == 0
    assert h.seen_ids("claude:alpha", "researcher") == {"a", "b"}
    assert h.seen_ids("claude:alpha", "user") == set()


@pytest.mark.parametrize("query", ["cookie", "auth.ts", '"unbalanced', "a AND", "NEAR(", "*"])
def test_search_never_raises_and_finds_words(tmp_path: Path, query: str) -> None:
    h = History(str(tmp_path / "h.db"))
    h.record("claude:alpha", "user", [msg(1, "the session cookie in auth.ts"), msg(2, "other")], [])
    found = h.search(query)
    if query in ("cookie", "auth.ts"):
        assert [m.id for m in found] == ["m1"]
    assert h.search("cookie", team="claude:beta") == []


def test_retention_forgets_only_old_archived_messages(tmp_path: Path) -> None:
    path = str(tmp_path / "h.db")
    h = History(path, keep_days=1)
    h.record("claude:alpha", "user", [msg(1, "old"), msg(2, "kept in file"), msg(3, "new")], [])
    h.record("claude:alpha", "user", [], ["m1", "m3"])
    h.db.execute("UPDATE messages SET gone_at = ? WHERE id = 'm1'", (time.time() - 3 * 86400,))
    h.db.commit()
    assert h.prune() == 1
    assert [m.id for m in h.archived("claude:alpha", "user")] == ["m3"]
    assert h.known_ids("claude:alpha", "user") == {"m2"}
    assert h.search("old") == []  # gone from the full-text index too
    forever = History(path, keep_days=0)
    assert forever.prune() == 0


def note(team: str, i: int, text: str) -> Message:
    entry = {
        "from": "helper",
        "text": text,
        "timestamp": f"2026-11-29T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
        "msg_id": f"{team}-{i}",
        "read": False,
    }
    return CLAUDE.message(entry, i, team, "team-lead")


def test_search_gives_the_newest_matches_and_keeps_to_a_team(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    for t in range(3):  # teams one after another, as session teams come and go
        team = f"claude:s{t}"
        h.record(
            team, "team-lead", [note(team, t * 1000 + i, f"tests pass {i}") for i in range(40)], []
        )
    found = h.search("tests pass", limit=10)
    assert [m.id for m in found] == [f"claude:s2-{2000 + i}" for i in range(39, 29, -1)]
    mid = h.search("pass", team="claude:s1", limit=5)
    assert [m.id for m in mid] == [f"claude:s1-{1000 + i}" for i in range(39, 34, -1)]
    assert [m.id for m in h.search('"pass 7"', team="claude:s0")] == ["claude:s0-7"]
    assert h.search("pass", team="claude:none") == []


def test_ended_teams_by_name_and_newest_archived(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    for name in ("alpha", "beta"):
        h.save_team(f"claude:{name}", f'{{"id":"claude:{name}","name":"{name}"}}'.encode())
    h.save_team("pseudoclaude:x", b'{"id":"pseudoclaude:x","name":"alpha"}')
    assert h.ended_teams_named("alpha") == []  # live
    h.end_teams(["claude:beta"])
    assert sorted(b for b, _ in h.ended_teams_named("alpha")) == [
        b'{"id":"claude:alpha","name":"alpha"}',
        b'{"id":"pseudoclaude:x","name":"alpha"}',
    ]
    assert h.ended_teams_named("beta") == [] and h.ended_teams_named("\ud800") == []
    msgs = [note("claude:alpha", i, f"m{i}") for i in (5, 1, 9, 3)]
    h.record("claude:alpha", "team-lead", msgs, [m.id for m in msgs])
    newest = h.archived("claude:alpha", "team-lead", newest=2)
    assert [m.text for m in newest] == ["m9", "m5"] and all(m.archived for m in newest)
    assert len(h.archived("claude:alpha", "team-lead")) == 4


def test_big_history_is_checked_after_opening(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over CHECK_AT_OPEN_BYTES the quick_check runs on a thread: damage it finds is moved
    aside at the next start."""
    import threading

    from teaminbox.history import store

    path = tmp_path / "history.db"
    h = History(str(path))
    many = [note("claude:t", i, "x" * 500) for i in range(300)]
    h.record("claude:t", "team-lead", many, [])
    h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    leaves = [
        n
        for (n,) in h.db.execute(
            "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf'"
        )
    ]
    h.close()
    data = bytearray(path.read_bytes())
    for n in leaves[2:5]:  # trash some of the table's pages: opening reads none of them
        data[4096 * (n - 1) : 4096 * n] = b"\xff" * 4096
    path.write_bytes(bytes(data))
    monkeypatch.setattr(store, "CHECK_AT_OPEN_BYTES", 0)
    opened = History(str(path))  # at once: the check has not run yet
    for t in threading.enumerate():
        if t.name == "teaminbox-history-check":
            t.join(10)
    opened.close()
    assert not [x for x in tmp_path.iterdir() if ".corrupt-" in x.name]
    assert (tmp_path / "history.db.damaged").exists()
    again = History(str(path))
    assert again.known_ids("claude:t", "team-lead") == set()
    again.close()
    assert [x for x in tmp_path.iterdir() if ".corrupt-" in x.name]
    assert not (tmp_path / "history.db.damaged").exists()
