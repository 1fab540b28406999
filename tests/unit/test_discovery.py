"""Roots, team ids, members joined with inbox files, phantoms, broken configs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support.world import CODER_ID, LEAD_ID, TESTER_ID, Teams, claude_config, make_teams, write_json
from teaminbox.discovery import (
    Root,
    Settings,
    default_roots,
    describe,
    find_teams,
    resolve_team,
    roster,
)
from teaminbox.errors import AmbiguousTeam, InvalidName, UnknownRecipient, UnknownTeam


def test_default_roots_from_home(home: Path) -> None:
    assert default_roots() == [
        Root(str(home / ".claude" / "teams"), "claude"),
        Root(str(home / ".PseudoClaude" / "teams"), "pseudoclaude"),
    ]


def test_default_roots_honour_claude_config_dir(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = tmp_path / "cfg"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(cfg))
    roots = default_roots()
    assert roots[0] == Root(str(cfg / "teams"), "claude")
    assert roots[1] == Root(str(home / ".PseudoClaude" / "teams"), "pseudoclaude")
    write_json(cfg / "teams" / "gamma" / "config.json", claude_config("gamma"))
    make_teams(home)
    ids = [t.id for t in find_teams(Settings().roots)]
    assert "claude:gamma" in ids and "claude:alpha" not in ids
    assert "pseudoclaude:beta" in ids


def test_team_ids_and_resolution(teams: Teams) -> None:
    roots = teams.settings.roots
    assert sorted(t.id for t in find_teams(roots)) == ["claude:alpha", "pseudoclaude:beta"]
    assert resolve_team(roots, "alpha").id == "claude:alpha"
    assert resolve_team(roots, "pseudoclaude:beta").id == "pseudoclaude:beta"
    with pytest.raises(UnknownTeam):
        resolve_team(roots, "gamma")
    with pytest.raises(UnknownTeam):
        resolve_team(roots, "claude:beta")


def test_bare_name_ambiguous_when_in_both_roots(teams: Teams) -> None:
    write_json(teams.claude_root / "beta" / "config.json", claude_config("beta"))
    roots = teams.settings.roots
    with pytest.raises(AmbiguousTeam) as info:
        resolve_team(roots, "beta")
    assert "claude:beta" in info.value.message and "pseudoclaude:beta" in info.value.message
    assert resolve_team(roots, "claude:beta").format == "claude"
    assert resolve_team(roots, "pseudoclaude:beta").format == "pseudoclaude"


@pytest.mark.parametrize("bad", ["../x", "a/b", "a\\b", "..", "x\x00y", "n" * 256, "claude:../x"])
def test_bad_team_names_rejected(teams: Teams, bad: str) -> None:
    with pytest.raises(InvalidName):
        resolve_team(teams.settings.roots, bad)


def test_claude_members_joined_with_inbox_files(teams: Teams) -> None:
    write_json(teams.cinbox("ghost"), [])  # nobody in config: a departed teammate's leftover
    t = describe(roster(resolve_team(teams.settings.roots, "alpha"), teams.settings), counts=True)
    by = {m.inbox: m for m in t.members}
    assert set(by) == {"team-lead", "researcher", "coder", "user", "ghost"}
    assert t.lead == "team-lead" and by["team-lead"].lead
    assert t.identity == "user" and t.own_inbox == "user"
    assert by["user"].owned and not by["user"].phantom
    assert by["ghost"].left and not by["ghost"].phantom and not by["researcher"].left
    assert by["team-lead"].total == 2 and by["team-lead"].unread == 1
    assert by["researcher"].agent_id == "researcher@alpha"
    assert by["researcher"].color == "blue" and by["researcher"].is_active is True
    assert by["coder"].is_active is False and by["coder"].total == 0
    assert t.description == "the alpha team" and t.error is None


def test_claude_user_json_never_phantom(teams: Teams) -> None:
    r = roster(resolve_team(teams.settings.roots, "alpha"), teams.settings)
    assert not r.member("user").phantom  # type: ignore[union-attr]
    # even when user.json is missing it is listed as the person's own inbox
    os.unlink(teams.cinbox("user"))
    r = roster(resolve_team(teams.settings.roots, "alpha"), teams.settings)
    assert r.member("user").owned  # type: ignore[union-attr]


def test_pseudoclaude_members_by_agent_id(teams: Teams) -> None:
    write_json(teams.pinbox("team-beta-ghost-1"), {"messages": []})
    # PseudoClaude's temp files are not inboxes
    write_json(teams.pseudo_dir / "inboxes" / ".tmp-123456.json", {"messages": []})
    t = describe(roster(resolve_team(teams.settings.roots, "beta"), teams.settings), counts=True)
    by = {m.inbox: m for m in t.members}
    assert set(by) == {LEAD_ID, CODER_ID, TESTER_ID, "team-beta-ghost-1"}
    assert by[CODER_ID].name == "coder" and by[CODER_ID].total == 1 and by[CODER_ID].unread == 1
    assert t.lead == "lead" and t.identity == "lead" and t.own_inbox == LEAD_ID
    assert by[LEAD_ID].owned and by[LEAD_ID].lead
    assert by["team-beta-ghost-1"].phantom
    assert by[TESTER_ID].is_active is False and by[CODER_ID].is_active is True


def test_pseudoclaude_absent_is_active_means_active(teams: Teams) -> None:
    r = roster(resolve_team(teams.settings.roots, "beta"), teams.settings)
    assert r.member(LEAD_ID).is_active is True  # type: ignore[union-attr]


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", None])
def test_team_with_bad_config_still_lists_inboxes(teams: Teams, content: bytes | None) -> None:
    cfg = teams.claude_dir / "config.json"
    if content is None:
        cfg.unlink()
    else:
        cfg.write_bytes(content)
    found = {t.id: t for t in find_teams(teams.settings.roots)}
    t = describe(roster(found["claude:alpha"], teams.settings), counts=True)
    assert t.error is not None and t.error.path == str(cfg)
    assert t.error.code in ("corrupt_config", "missing_config")
    by = {m.inbox: m for m in t.members}
    assert {"team-lead", "researcher", "user"} <= set(by)
    assert by["team-lead"].total == 2
    assert not any(m.phantom for m in t.members)  # without a config, nothing is known phantom


def test_unreadable_config_still_lists_inboxes(teams: Teams) -> None:
    if os.geteuid() == 0:
        # root reads anything: make it a directory instead, which open() refuses
        cfg = teams.claude_dir / "config.json"
        cfg.unlink()
        cfg.mkdir()
    else:
        (teams.claude_dir / "config.json").chmod(0)
    t = describe(roster(resolve_team(teams.settings.roots, "alpha"), teams.settings), counts=True)
    assert t.error is not None and t.error.code in ("unreadable_config", "not_regular_file")
    assert {"team-lead", "researcher", "user"} <= {m.inbox for m in t.members}


def test_corrupt_inbox_is_a_member_error_not_fatal(teams: Teams) -> None:
    teams.cinbox("researcher").write_bytes(b"[{")
    write_json(
        teams.cinbox("team-lead"),
        [{"from": "a", "text": "x", "timestamp": "t"}, {"from": "a"}],
    )
    t = describe(roster(resolve_team(teams.settings.roots, "alpha"), teams.settings), counts=True)
    by = {m.inbox: m for m in t.members}
    assert by["researcher"].error is not None
    assert by["researcher"].error.code == "corrupt_inbox"
    assert by["researcher"].error.path == str(teams.cinbox("researcher"))
    assert by["team-lead"].error is not None and by["team-lead"].error.code == "invalid_entries"
    assert by["team-lead"].total == 1
    assert by["user"].error is None


def test_recipient_resolution(teams: Teams) -> None:
    r = roster(resolve_team(teams.settings.roots, "alpha"), teams.settings)
    assert [m.name for m in r.resolve_recipients("researcher")] == ["researcher"]
    assert [m.name for m in r.resolve_recipients("coder@alpha")] == ["coder"]
    everyone = sorted(m.name for m in r.resolve_recipients("*"))
    assert everyone == ["coder", "researcher", "team-lead"]
    assert r.resolve_recipients("broadcast") == r.resolve_recipients("*")
    with pytest.raises(UnknownRecipient):
        r.resolve_recipients("user")  # Claude's user.json is the person's, not a member
    p = roster(resolve_team(teams.settings.roots, "beta"), teams.settings)
    assert sorted(m.name for m in p.resolve_recipients("*")) == ["coder", "tester"]
    assert [m.inbox for m in p.resolve_recipients("coder")] == [CODER_ID]
    assert [m.inbox for m in p.resolve_recipients(TESTER_ID)] == [TESTER_ID]


def test_a_team_says_its_boards_columns_and_why_an_empty_one_may_be_empty(teams: Teams) -> None:
    """The views draw the board the format has (Claude Code's schema has no `blocked`) and
    say why an empty one may be empty: the format's word, never a branch on its name."""
    claude = describe(roster(resolve_team(teams.settings.roots, "alpha"), teams.settings))
    pseudo = describe(roster(resolve_team(teams.settings.roots, "beta"), teams.settings))
    assert claude.task_statuses == ["pending", "in_progress", "completed"]
    assert "CLAUDE_CODE_ENABLE_TODO_TOOLS=1" in claude.tasks_note
    assert pseudo.task_statuses == ["pending", "in_progress", "completed", "blocked"]
    assert pseudo.tasks_note == ""
