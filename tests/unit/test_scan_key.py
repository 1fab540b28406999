"""A rescan skips re-listing teams while what they were read from is unchanged
(Tracker._inputs_key), and still sees every new, removed or changed team."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support.world import make_team
from teaminbox import discovery, tracker
from teaminbox.discovery import Root, Settings
from teaminbox.history import History
from teaminbox.tracker import Tracker

LONG_AGO = 1_000_000_000 * 1_000_000_000  # 2001: any change made now has another mtime


def count_find_teams(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How often the tracker lists the teams from here on (calls[0])."""
    calls = [0]
    real = tracker.find_teams

    def counted(roots: Any) -> Any:
        calls[0] += 1
        return real(roots)

    monkeypatch.setattr(tracker, "find_teams", counted)
    return calls


def backdate(root: Path) -> None:
    """Every stat long in the past, as a tree untouched for a while looks."""
    for path in [root, *root.rglob("*")]:
        os.utime(path, ns=(LONG_AGO, LONG_AGO))


@pytest.fixture
def setup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Tracker, Path, Callable[[], int]]:
    # ctime cannot be set back: the clock test is left to test_a_recent_change_is_never_skipped
    monkeypatch.setattr(discovery, "RACY_NS", -(10**20))
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "researcher"])
    backdate(root)
    t = Tracker(Settings(roots=[Root(str(root), "claude")]), History(str(tmp_path / "history.db")))
    calls = count_find_teams(monkeypatch)
    t.scan()
    t.scan()  # the key now covers the teams the scan found
    return t, root, lambda: calls[0]


def members(t: Tracker, team: str) -> list[str]:
    return [m.name for m in t.rosters[team].members]


def test_an_unchanged_tree_is_not_listed_again(
    setup: tuple[Tracker, Path, Callable[[], int]],
) -> None:
    t, root, calls = setup
    before = calls()
    for _ in range(3):
        assert t.scan() == (False, [])
    assert calls() == before
    (root / "alpha" / "inboxes" / "researcher.json").write_text(
        json.dumps([{"from": "team-lead", "text": "hi", "timestamp": "2026-11-29T10:00:00.000Z"}])
    )
    changed, changes = t.scan()  # an inbox's change is still read: its own stat
    assert [c.inbox for c in changes] == ["researcher"] and calls() == before


def test_a_new_team_is_seen(setup: tuple[Tracker, Path, Callable[[], int]]) -> None:
    t, root, _ = setup
    make_team(root, "beta", ["team-lead"])
    changed, _ = t.scan()
    assert changed and set(t.rosters) == {"claude:alpha", "claude:beta"}


def test_a_removed_team_is_seen(setup: tuple[Tracker, Path, Callable[[], int]]) -> None:
    t, root, _ = setup
    shutil.rmtree(root / "alpha")
    changed, _ = t.scan()
    assert changed and not t.rosters


def test_a_config_changed_in_place_is_seen(
    setup: tuple[Tracker, Path, Callable[[], int]],
) -> None:
    t, root, _ = setup
    cfg = root / "alpha" / "config.json"
    config = json.loads(cfg.read_text())
    config["members"].append({"agentId": "tester@alpha", "name": "tester"})
    with open(cfg, "r+") as f:  # Claude Code writes config.json in place
        f.write(json.dumps(config))
    t.scan()
    assert "tester" in members(t, "claude:alpha")


def test_a_new_inbox_file_is_seen(setup: tuple[Tracker, Path, Callable[[], int]]) -> None:
    t, root, _ = setup
    (root / "alpha" / "inboxes" / "stray.json").write_text("[]")
    changed, _ = t.scan()
    assert changed and "stray" in members(t, "claude:alpha")


def test_a_stale_key_would_hide_a_new_team(
    setup: tuple[Tracker, Path, Callable[[], int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the tests above rely on: with a key that misses the change, the team is missed."""
    t, root, _ = setup
    stale = t._scan_key
    monkeypatch.setattr(t, "_inputs_key", lambda: stale)
    make_team(root, "beta", ["team-lead"])
    t.scan()
    assert set(t.rosters) == {"claude:alpha"}


def test_a_recent_change_is_never_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Within a clock tick a folder can change twice and keep its mtime: a tree changed in the
    last RACY_NS is listed on every scan."""
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead"])
    t = Tracker(Settings(roots=[Root(str(root), "claude")]), History(str(tmp_path / "history.db")))
    calls = count_find_teams(monkeypatch)
    for _ in range(3):
        t.scan()
    assert calls[0] == 3


def test_a_new_filebus_agent_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discovery, "RACY_NS", -(10**20))
    project = tmp_path / "project"
    (project / ".team" / "inbox" / "user").mkdir(parents=True)
    (project / ".team" / "inbox" / "coder").mkdir()
    backdate(project)
    t = Tracker(
        Settings(roots=[Root(str(project), "filebus")]), History(str(tmp_path / "history.db"))
    )
    t.scan()
    t.scan()
    (project / ".team" / "inbox" / "tester").mkdir()
    t.scan()
    assert "tester" in members(t, "filebus:project")


def test_a_team_made_while_the_scan_reads_is_seen_by_the_next(
    setup: tuple[Tracker, Path, Callable[[], int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team folder made after find_teams listed the root but before the scan ended (its
    rosters read on a loaded machine, longer than RACY_NS): the scan its event asks for
    lists it. Keyed after the read, that scan took the root's new stat as already read."""
    t, root, _ = setup
    real = tracker.find_teams

    def listing_then_a_new_team(roots: Any) -> Any:
        found = real(roots)
        if not (root / "beta").exists():
            make_team(root, "beta", ["team-lead"])
        return found

    (root / "alpha" / "config.json").write_text(
        json.dumps({"name": "alpha", "members": [{"name": "team-lead"}, {"name": "tester"}]})
    )
    monkeypatch.setattr(tracker, "find_teams", listing_then_a_new_team)
    t.scan()
    assert set(t.rosters) == {"claude:alpha"}  # listed before beta was made
    t.scan()  # the scan beta's folder event asks for
    assert set(t.rosters) == {"claude:alpha", "claude:beta"}


def test_a_new_team_is_keyed_after_one_more_listing(
    setup: tuple[Tracker, Path, Callable[[], int]],
) -> None:
    t, root, calls = setup
    make_team(root, "beta", ["team-lead"])
    before = calls()
    t.scan()
    t.scan()  # the key before the first read lacked beta's folder: listed once more
    t.scan()
    t.scan()
    assert calls() == before + 2 and set(t.rosters) == {"claude:alpha", "claude:beta"}
