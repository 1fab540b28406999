"""tracker.py: the in-memory inbox model, on real files in a temporary HOME (the `teams` world:
a Claude Code team `alpha` and a PseudoClaude team `beta`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from support.entries import at, claude_entry
from support.world import CLAUDE_TEAM, Teams, claude_config, write_json
from teaminbox.history import History
from teaminbox.tracker import Change, Tracker

ALPHA = f"claude:{CLAUDE_TEAM}"


@pytest.fixture
def tracker(teams: Teams, tmp_path: Path) -> Tracker:
    t = Tracker(teams.settings, History(str(tmp_path / "history.db")))
    t.scan()
    return t


def by_inbox(changes: list[Change]) -> dict[tuple[str, str], Change]:
    return {(c.team, c.inbox): c for c in changes}


def test_the_first_scan_looks_at_every_members_inbox_once(teams: Teams, tmp_path: Path) -> None:
    t = Tracker(teams.settings, History(str(tmp_path / "history.db")))
    changed, changes = t.scan()
    assert not changed  # no client can have listed teams before the first scan
    seen = by_inbox(changes)
    assert {i for t, i in seen if t == ALPHA} == {"team-lead", "researcher", "coder", "user"}
    assert all(c.initial and not c.known_before for c in changes)  # a baseline: no alerts
    assert (seen[ALPHA, "team-lead"].total, seen[ALPHA, "team-lead"].unread) == (2, 1)
    assert [x.id for x in t.team_list()] == [ALPHA, "pseudoclaude:beta"]
    # the same files again: nothing changed
    assert t.scan() == (False, [])


def test_a_scan_finds_a_new_team_and_its_inboxes(teams: Teams, tracker: Tracker) -> None:
    lead_inbox = teams.claude_root / "gamma" / "inboxes" / "team-lead.json"
    write_json(teams.claude_root / "gamma" / "config.json", claude_config("gamma"))
    write_json(lead_inbox, [claude_entry("researcher", "gamma is up", at(1), read=False)])
    changed, changes = tracker.scan()
    assert changed
    assert "claude:gamma" in [x.id for x in tracker.team_list()]
    lead = by_inbox(changes)["claude:gamma", "team-lead"]
    # a first look is a baseline (no alerts for what was there), counted all the same
    assert lead.initial and not lead.known_before
    assert (lead.total, lead.unread) == (1, 1)
    assert len(tracker.ids("claude:gamma", "team-lead")) == 1
    # from then on, what is appended is news
    write_json(
        lead_inbox,
        [*json.loads(lead_inbox.read_bytes()), claude_entry("coder", "me too", at(2), read=False)],
    )
    [change] = tracker.refresh_paths({str(lead_inbox)})[1]
    assert [m.text for m in change.diff.added] == ["me too"] and not change.initial


def test_a_refresh_of_the_path_yields_the_appended_message(teams: Teams, tracker: Tracker) -> None:
    path = teams.cinbox("researcher")
    entries = json.loads(path.read_bytes())
    write_json(path, [*entries, claude_entry("team-lead", "and the tests too", at(5), read=False)])
    changed, changes = tracker.refresh_paths({str(path)})
    assert not changed
    [change] = changes
    assert (change.team, change.inbox, change.initial) == (ALPHA, "researcher", False)
    assert [(m.from_, m.text, m.read) for m in change.diff.added] == [
        ("team-lead", "and the tests too", False)
    ]
    assert change.diff.removed == [] and change.diff.updated == []
    assert (change.total, change.unread) == (2, 2)
    # the same bytes again: no change
    assert tracker.refresh_paths({str(path)}) == (False, [])


def test_a_prune_is_removed_and_a_read_flag_is_updated(teams: Teams, tracker: Tracker) -> None:
    path = teams.cinbox("team-lead")
    _, second = json.loads(path.read_bytes())
    before = tracker.ids(ALPHA, "team-lead")
    # the first delivered and pruned, the second marked unread again
    write_json(path, [{**second, "read": False}])
    [change] = tracker.refresh_paths({str(path)})[1]
    assert change.diff.removed == [before[0]]
    assert [(m.text, m.read) for m in change.diff.updated] == [(second["text"], False)]
    assert change.diff.added == []
    assert (change.total, change.unread) == (1, 1)
    assert tracker.ids(ALPHA, "team-lead") == before[1:]


def test_unread_is_the_persons_own_inbox_less_what_they_saw(teams: Teams, tracker: Tracker) -> None:
    assert tracker.unread()[ALPHA] == 0
    write_json(
        teams.cinbox("user"),
        [
            claude_entry("researcher", "one", at(1), read=False),
            claude_entry("coder", "two", at(2), read=False),
            claude_entry("coder", "three", at(3), read=True),
        ],
    )
    # a teammate's inbox does not count: only the person's own
    write_json(teams.cinbox("coder"), [claude_entry("user", "to coder", at(4), read=False)])
    tracker.refresh_paths({str(teams.cinbox("user")), str(teams.cinbox("coder"))})
    assert tracker.unread()[ALPHA] == 2
    one = tracker.ids(ALPHA, "user")[0]
    tracker.history.mark_seen(ALPHA, "user", [one])
    assert tracker.unread()[ALPHA] == 1


def test_a_member_who_left_keeps_the_inbox_till_its_file_goes(
    teams: Teams, tracker: Tracker
) -> None:
    ids = tracker.ids(ALPHA, "researcher")
    assert ids
    config = claude_config(CLAUDE_TEAM)
    config["members"] = [m for m in config["members"] if m["name"] != "researcher"]
    write_json(teams.claude_dir / "config.json", config)
    changed, _ = tracker.scan()
    assert changed  # no inbox changed, but the client must show the member as gone
    left = {m.name: m.left for m in tracker.roster(ALPHA).members}
    assert left["researcher"] and not left["team-lead"]
    assert tracker.ids(ALPHA, "researcher") == ids  # the file stays behind: so do its messages
    teams.cinbox("researcher").unlink()
    changed, changes = tracker.scan()
    assert changed
    gone = by_inbox(changes)[ALPHA, "researcher"]
    assert gone.diff.removed == ids and (gone.total, gone.unread) == (0, 0)
    assert "researcher" not in [m.name for m in tracker.roster(ALPHA).members]


def test_a_removed_team_is_listed_as_ended(teams: Teams, tracker: Tracker) -> None:
    shutil.rmtree(teams.pseudo_dir)
    changed, _ = tracker.scan()
    assert changed
    assert [x.id for x in tracker.team_list(include_ended=False)] == [ALPHA]
    ended = {x.id: x.ended for x in tracker.team_list()}
    assert ended == {ALPHA: False, "pseudoclaude:beta": True}


def test_a_path_no_inbox_has_yet_makes_a_full_scan(teams: Teams, tracker: Tracker) -> None:
    # coder had no inbox file: its first message makes the file, which the scan then reads
    path = teams.cinbox("coder")
    write_json(path, [claude_entry("user", "please review", at(9), read=False)])
    unknown = teams.claude_dir / "inboxes" / "newcomer.json"
    write_json(unknown, [])
    _, changes = tracker.refresh_paths({str(path), str(unknown)})
    coder = by_inbox(changes)[ALPHA, "coder"]
    assert [m.text for m in coder.diff.added] == ["please review"]


def test_one_seen_rule_on_every_path(teams: Teams, tracker: Tracker) -> None:
    """A message is dressed the same whichever way it is asked for: an inbox's page, the
    team's conversation, an ended team's page. Seen: marked seen here, or read in the
    person's own inbox; a teammate reading its own inbox is not the person seeing it."""
    write_json(
        teams.cinbox("user"),
        [
            claude_entry("researcher", "to you, read", at(1), read=True),
            claude_entry("researcher", "to you, unread", at(2), read=False),
        ],
    )
    write_json(
        teams.cinbox("coder"),
        [
            claude_entry("team-lead", "coder read it", at(3), read=True),
            claude_entry("team-lead", "the person saw it", at(4), read=False),
            claude_entry("user", "the person wrote it", at(5), read=False),
        ],
    )
    tracker.refresh_paths({str(teams.cinbox("user")), str(teams.cinbox("coder"))})
    saw = tracker.ids(ALPHA, "coder")[-2]
    tracker.history.mark_seen(ALPHA, "coder", [saw])
    want = {
        "to you, read": True,
        "to you, unread": False,
        "coder read it": False,
        "the person saw it": True,
        "the person wrote it": True,  # never "not seen yet" for the person's own words
    }

    def dressed(msgs: list[Any]) -> dict[str, tuple[bool, str | None]]:
        return {m.text: (m.seen, m.from_name) for m in msgs if m.text in want}

    pages = [*tracker.page(ALPHA, "user")[0], *tracker.page(ALPHA, "coder")[0]]
    sender = {"you": "researcher", "wrote": "user"}
    expect = {
        t: (s, next((v for k, v in sender.items() if k in t), "team-lead")) for t, s in want.items()
    }
    assert dressed(pages) == expect
    assert dressed(tracker.conversation(ALPHA)) == expect
    # the team ends: its pages come from the history, dressed by the same rule
    shutil.rmtree(teams.claude_dir)
    tracker.scan()
    ended = [*tracker.page(ALPHA, "user")[0], *tracker.page(ALPHA, "coder")[0]]
    assert dressed(ended) == expect
    assert dressed(tracker.conversation(ALPHA)) == expect
