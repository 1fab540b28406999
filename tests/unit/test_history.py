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
