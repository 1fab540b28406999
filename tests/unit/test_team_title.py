"""What people call a team (`Team.title`): its chosen name; only a team named after its
session (`session-<hex>`) is shown by its label (project · start time)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import orjson

from support.world import claude_config, pseudo_config, write_json
from teaminbox.discovery import Settings, describe, find_teams, parse_root, roster
from teaminbox.model import Team, converter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interop"))
from seed_filebus import FileMessageBus  # noqa: E402

CREATED_MS = 1770765900000  # Tue 10 Feb 2026 23:25 UTC


def when(ms: int) -> str:
    return time.strftime("%a %d %b %H:%M", time.localtime(ms / 1000))


def claude_team(root: Path, name: str, cwd: str | None = "/work/app") -> Path:
    config = claude_config(name)
    config["createdAt"] = CREATED_MS
    config["members"][0]["cwd"] = cwd
    write_json(root / name / "config.json", config)
    write_json(root / name / "inboxes" / "team-lead.json", [])
    return root / name


def teams_in(root: Path, fmt: str | None = None) -> dict[str, Team]:
    spec = f"{fmt}={root}" if fmt else str(root)
    settings = Settings(roots=[parse_root(spec)])
    return {t.name: describe(roster(t, settings)) for t in find_teams(settings.roots)}


def test_a_named_claude_team_keeps_its_name_and_the_label_describes_it(tmp_path: Path) -> None:
    claude_team(tmp_path, "payments-refactor")
    t = teams_in(tmp_path, "claude")["payments-refactor"]
    assert t.title == "payments-refactor"
    assert t.label == f"app · {when(CREATED_MS)}"  # beside the name: where and when


def test_a_session_team_is_shown_by_its_label(tmp_path: Path) -> None:
    claude_team(tmp_path, "session-1a2b3c4d")
    t = teams_in(tmp_path, "claude")["session-1a2b3c4d"]
    assert t.title == t.label == f"app · {when(CREATED_MS)}"
    assert t.id == "claude:session-1a2b3c4d"


def test_a_session_team_with_nothing_to_label_it_keeps_its_name(tmp_path: Path) -> None:
    team = tmp_path / "session-00ff"
    config = claude_config("session-00ff")
    del config["createdAt"]
    config["members"][0]["cwd"] = None
    write_json(team / "config.json", config)
    t = teams_in(tmp_path, "claude")["session-00ff"]
    assert (t.title, t.label) == ("session-00ff", None)


def test_a_session_team_without_a_project_is_labelled_by_its_name_and_start(
    tmp_path: Path,
) -> None:
    claude_team(tmp_path, "session-1a2b3c4d", cwd=None)
    t = teams_in(tmp_path, "claude")["session-1a2b3c4d"]
    assert t.title == f"session-1a2b3c4d · {when(CREATED_MS)}"


def test_names_that_only_look_like_a_session_keep_their_name(tmp_path: Path) -> None:
    for name in ("session-notes", "my-session-1a2b", "session-", "Session-1A2B"):
        claude_team(tmp_path, name)
    got = {n: t.title for n, t in teams_in(tmp_path, "claude").items()}
    assert got == {n: n for n in ("session-notes", "my-session-1a2b", "session-", "Session-1A2B")}


def test_a_pseudoclaude_team_keeps_its_name(tmp_path: Path) -> None:
    config = pseudo_config("auth-rewrite")
    config["project_root"] = "/src/auth"
    write_json(tmp_path / "auth-rewrite" / "config.json", config)
    t = teams_in(tmp_path, "pseudoclaude")["auth-rewrite"]
    assert t.title == "auth-rewrite"
    assert t.label is not None and t.label.startswith("auth · ")


def test_a_pseudoclaude_team_called_session_hex_is_not_a_session_team(tmp_path: Path) -> None:
    """PseudoClaude makes no session teams: a person chose even this name."""
    write_json(tmp_path / "session-1a2b3c4d" / "config.json", pseudo_config("session-1a2b3c4d"))
    t = teams_in(tmp_path, "pseudoclaude")["session-1a2b3c4d"]
    assert t.title == "session-1a2b3c4d"


def test_a_file_bus_team_is_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    FileMessageBus(str(folder / ".team")).send_message("coder@proj", "user", "hi")
    t = teams_in(folder)["proj"]
    assert (t.format, t.title, t.label) == ("filebus", "proj", None)


def test_a_team_archived_before_titles_keeps_what_it_was_shown_as() -> None:
    """A history body saved by an older sidecar has no `title`."""
    old = {"id": "claude:session-1a2b3c4d", "format": "claude", "name": "session-1a2b3c4d"}
    old |= {"dir": "/t", "root": "/r", "label": "app · Tue 10 Feb 23:25"}
    assert converter.structure(old, Team).title == "app · Tue 10 Feb 23:25"
    assert converter.structure(old | {"label": None}, Team).title == "session-1a2b3c4d"
    body = orjson.loads(orjson.dumps(converter.unstructure(converter.structure(old, Team))))
    assert body["title"] == "app · Tue 10 Feb 23:25"
