"""The recorded sessions (recorded/<version>/) other suites replay offline: well formed,
small, and consistent with what the live tests assert. No Claude Code needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .install import VERSIONS
from .recording import FAKE_CWD, load_timeline, replay

RECORDED = Path(__file__).resolve().parent / "recorded"


@pytest.fixture(params=VERSIONS)
def src(request: pytest.FixtureRequest) -> Path:
    path = RECORDED / str(request.param)
    assert (path / "timeline.json").is_file(), f"{path} is missing: re-record (see README.md)"
    return path


def test_small(src: Path) -> None:
    size = sum(f.stat().st_size for f in src.rglob("*") if f.is_file())
    assert size < 200_000, size


def test_session_facts(src: Path) -> None:
    facts = json.loads((src / "session.json").read_text())
    assert facts["claudeCodeVersion"] == src.name
    assert facts["cwd"] == FAKE_CWD
    assert facts["exit"] == {"how": "/exit", "code": 0}
    team = facts["team"]
    config = json.loads((src / "home/.claude/teams" / team / "config.json").read_text())
    assert config["leadSessionId"] == facts["leadSessionId"]
    assert {m["name"] for m in config["members"]} == {"team-lead", "helper"}
    assert len(facts["entries"]) == 12
    sid = facts["leadSessionId"]
    rows = (src / "home/.claude/projects/-home-dev-project" / f"{sid}.jsonl").read_text()
    for line in rows.splitlines():
        row = json.loads(line)
        assert row["type"] in ("user", "assistant") and row["cwd"] == FAKE_CWD


def test_timeline_holds_every_entry(src: Path) -> None:
    facts = json.loads((src / "session.json").read_text())
    steps = load_timeline(src)
    assert [s["t"] for s in steps] == sorted(s["t"] for s in steps)
    seen = []
    for s in steps:
        if "/inboxes/" in s["path"] and s["data"]:
            seen += json.loads(s["data"])
    for e in facts["entries"]:
        assert e["entry"] in seen, e
    assert steps[-1].get("dir") or any(s.get("dir") for s in steps)


def test_replay_ends_like_the_session(src: Path, tmp_path: Path) -> None:
    facts = json.loads((src / "session.json").read_text())
    replay(src, tmp_path)
    team = facts["team"]
    assert not (tmp_path / "teams" / team).exists()  # deleted on exit
    assert (tmp_path / "tasks" / team / ".highwatermark").read_text() == "1"
    assert not (tmp_path / "tasks" / team / "1.json").exists()  # the completed list reset
