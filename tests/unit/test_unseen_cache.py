"""The unread count of the person's own inbox (Tracker.unread) is kept between steps: the
seen sets are cached in History (seen_set) and each inbox's count in InboxState.unseen,
updated for an append. After every kind of change the answer must be the one a fresh
full computation gives (the file's rows against the seen table read anew), and the check
must catch a cache made stale on purpose."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from support.entries import claude_entry
from support.world import CLAUDE_TEAM, Teams, write_json
from teaminbox import inbox_state
from teaminbox.history import History
from teaminbox.rows import Rows
from teaminbox.tracker import Tracker


def entry(i: int, read: bool) -> dict[str, Any]:
    return claude_entry(
        "team-lead", f"note {i}", f"2026-02-09T17:{i // 60:02d}:{i % 60:02d}.000Z", read=read
    )


class World:
    def __init__(self, teams: Teams, tmp_path: Path) -> None:
        self.own = teams.cinbox("user")
        self.mate = teams.cinbox("researcher")
        self.entries = [entry(i, i % 3 == 0) for i in range(40)]
        write_json(self.own, self.entries)
        self.db = str(tmp_path / "history.db")
        self.tracker = Tracker(teams.settings, History(self.db))
        self.tracker.scan()
        self.tid = self.tracker.resolve(CLAUDE_TEAM)
        self.check()

    def ids(self) -> list[str]:
        return self.tracker.ids(self.tid, "user")

    def write(self) -> None:
        write_json(self.own, self.entries)

    def fresh(self) -> int:
        """From nothing cached: the rows' ids and flags, the seen table read anew."""
        with closing(sqlite3.connect(self.db)) as db:
            seen = {
                r[0]
                for r in db.execute(
                    "SELECT id FROM seen WHERE team=? AND inbox=?", (self.tid, "user")
                )
            }
        assert self.tracker.history.seen_ids(self.tid, "user") == seen
        rows = self.tracker.inboxes[(self.tid, "user")].rows
        return sum(
            1 for i, r in zip(rows.iter_ids(), rows.read, strict=True) if not r and i not in seen
        )

    def check(self) -> int:
        self.tracker.scan()
        got = self.tracker.unread()[self.tid]
        want = self.fresh()
        assert got == want
        assert self.tracker.unread()[self.tid] == want  # asked again: the kept answer
        return got


def test_every_kind_of_change(
    teams: Teams, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = World(teams, tmp_path)
    starts: list[int] = []
    count = inbox_state._count_unseen

    def spy(rows: Rows, seen: frozenset[str], start: int) -> int:
        starts.append(start)
        return count(rows, seen, start)

    monkeypatch.setattr(inbox_state, "_count_unseen", spy)
    ids = w.ids()
    unread = [i for i, e in zip(ids, w.entries, strict=True) if not e["read"]]
    assert w.check() == len(unread)

    # seen marked (this connection), then a teammate's inbox changes: the count stands
    w.tracker.history.mark_seen(w.tid, "user", unread[:5] + [ids[0]])
    assert w.check() == len(unread) - 5
    starts.clear()
    write_json(w.mate, [claude_entry("team-lead", "more", "2026-02-09T18:00:00.000Z")])
    assert w.check() == len(unread) - 5
    assert starts == []  # nothing counted again

    # an append, including an entry whose id is already seen (the same entry, back)
    back = w.entries[1]
    w.entries += [entry(100 + i, i == 0) for i in range(4)] + [dict(back)]
    w.write()
    starts.clear()
    w.check()
    assert starts and min(starts) == 40  # only the appended entries were counted
    assert w.ids()[-1] == unread[0]

    # read flags changed in place, on entries before the append point
    w.entries[4]["read"] = True
    w.entries[2]["read"] = True
    w.write()
    w.check()

    # a rewrite: entries pruned from the front, one changed, order kept
    w.entries = w.entries[7:]
    w.entries[3]["text"] = "edited"
    w.write()
    w.check()

    # a rewrite to fewer entries than were counted, and to none
    w.entries = w.entries[:3]
    w.write()
    w.check()
    w.entries = []
    w.write()
    assert w.check() == 0
    w.entries = [entry(200 + i, False) for i in range(6)]
    w.write()
    w.check()

    # seen unmarked: by this connection (any statement), then by another one
    w.tracker.history.mark_seen(w.tid, "user", w.ids())
    assert w.check() == 0
    w.tracker.history.db.execute("DELETE FROM seen WHERE id=?", (w.ids()[0],))
    w.tracker.history.db.commit()
    assert w.check() == 1
    with closing(sqlite3.connect(w.db)) as other, other:
        other.execute("DELETE FROM seen WHERE id=?", (w.ids()[1],))
    assert w.check() == 2
    # marked seen by another process (the CLI's own History)
    other_history = History(w.db)
    other_history.mark_seen(w.tid, "user", w.ids()[:1])
    other_history.close()
    assert w.check() == 1


def test_a_commit_elsewhere_keeps_the_count_when_seen_is_unchanged(
    teams: Teams, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = World(teams, tmp_path)
    w.tracker.history.mark_seen(w.tid, "user", w.ids()[:3])
    w.check()
    seen = w.tracker.history.seen_set(w.tid, "user")
    with closing(sqlite3.connect(w.db)) as other, other:  # another sidecar archiving
        other.execute("INSERT INTO inboxes(team, inbox) VALUES ('x', 'y')")
    assert w.tracker.history.seen_set(w.tid, "user") is seen
    w.check()


def test_a_stale_seen_cache_is_caught(
    teams: Teams, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the triggers' callback made a no-op: writes through this connection go unnoticed
    monkeypatch.setattr(History, "_seen_changed", lambda self: None)
    w = World(teams, tmp_path)
    w.tracker.history.mark_seen(w.tid, "user", w.ids())
    with pytest.raises(AssertionError):
        w.check()


def test_a_stale_count_is_caught(
    teams: Teams, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = World(teams, tmp_path)
    # rows taken for the ones counted whatever they hold: a rewrite goes unnoticed
    monkeypatch.setattr(Rows, "extends", lambda self, other: True)
    w.entries = w.entries[5:]
    w.write()
    with pytest.raises(AssertionError):
        w.check()


def test_a_count_changed_on_purpose_is_caught(teams: Teams, tmp_path: Path) -> None:
    w = World(teams, tmp_path)
    state = w.tracker.inboxes[(w.tid, "user")]
    memo = state._unseen
    assert memo is not None
    state._unseen = (memo[0], memo[1], memo[2] + 1)
    with pytest.raises(AssertionError):
        w.check()


def test_one_freshness_check_a_pass_over_every_team(teams: Teams, tmp_path: Path) -> None:
    """Tracker.unread asks SQLite whether the seen table changed once a pass, not once an
    inbox: with 200 teams a step made 200 calls, each giving up the GIL during a flood."""
    for n in range(20):
        write_json(teams.claude_root / f"t{n}" / "inboxes" / "user.json", [entry(n, False)])
        write_json(
            teams.claude_root / f"t{n}" / "config.json",
            {"name": f"t{n}", "leadAgentId": f"team-lead@t{n}", "members": []},
        )
    tracker = Tracker(teams.settings, History(str(tmp_path / "history.db")))
    tracker.scan()
    asked: list[str] = []
    tracker.history.db.set_trace_callback(asked.append)
    counts = tracker.unread()
    assert len(counts) > 20
    assert sum("data_version" in q for q in asked) == 1
    # ...and still sees a commit made elsewhere (another window marks a message seen)
    tid = tracker.resolve("t3")
    [msg_id] = tracker.ids(tid, "user")
    with closing(sqlite3.connect(str(tmp_path / "history.db"))) as other:
        other.execute("INSERT INTO seen(team, inbox, id) VALUES (?, ?, ?)", (tid, "user", msg_id))
        other.commit()
    assert tracker.unread()[tid] == counts[tid] - 1
