"""Finding the sessions that had a team (transcripts.discover): by their teammates' meta
files, a session unchanged since last looked at skipped, hostile files never a hang."""

from __future__ import annotations

import json
import os
from pathlib import Path

from teaminbox.transcripts.discover import find_sessions, head, sig_of

SID = "0ff1c0de-0000-4000-8000-000000000001"


def session(projects: Path, sid: str = SID, team: str | None = "session-0ff1c0de") -> Path:
    project = projects / "-home-dev-app"
    project.mkdir(parents=True, exist_ok=True)
    lead = project / f"{sid}.jsonl"
    rows = [
        {"type": "user", "cwd": "/home/dev/app", "timestamp": "2026-12-01T10:00:00.000Z"},
        {"type": "assistant", "timestamp": "2026-12-01T10:00:01.000Z"},
    ]
    lead.write_text("".join(json.dumps(r) + "\n" for r in rows))
    sub = project / sid / "subagents"
    sub.mkdir(parents=True)
    if team is not None:
        meta = {"name": "helper", "teamName": team, "agentType": "general-purpose", "color": "blue"}
        (sub / "agent-a1.meta.json").write_text(json.dumps(meta))
        (sub / "agent-a1.jsonl").write_text("")
    (sub / "agent-a2.meta.json").write_text(json.dumps({"agentType": "Explore"}))  # no team
    (sub / "agent-a2.jsonl").write_text("")
    return lead


def test_a_session_with_teammates_is_found_with_its_team_and_members(tmp_path: Path) -> None:
    lead = session(tmp_path)
    plain = session(tmp_path, "11110000-0000-4000-8000-000000000001", team=None)
    found = {f.lead_path: f for f in find_sessions([str(tmp_path)], {})}
    assert set(found) == {str(lead), str(plain)}
    f = found[str(lead)]
    assert (f.session_id, f.team, f.members) == (
        SID,
        "session-0ff1c0de",
        (("helper", "general-purpose", "blue"),),
    )
    assert found[str(plain)].team is None
    assert head(str(lead)) == ("/home/dev/app", "2026-12-01T10:00:00.000Z")


def test_an_unchanged_session_is_skipped_and_a_grown_one_found_again(tmp_path: Path) -> None:
    lead = session(tmp_path)
    [f] = find_sessions([str(tmp_path)], {})
    assert find_sessions([str(tmp_path)], {f.lead_path: f.sig}) == []
    with open(lead, "a") as out:
        out.write(json.dumps({"type": "assistant"}) + "\n")
    [again] = find_sessions([str(tmp_path)], {f.lead_path: f.sig})
    assert again.sig != f.sig and again.sig == sig_of(str(lead), SID)


def test_hostile_meta_files_are_no_team_and_no_hang(tmp_path: Path) -> None:
    lead = session(tmp_path, team="../../etc")  # not a name Claude Code writes
    sub = lead.parent / SID / "subagents"
    os.mkfifo(sub / "agent-a3.meta.json")  # a FIFO: never opened
    (sub / "agent-a3.jsonl").write_text("")
    (sub / "agent-a4.meta.json").write_text("[" * 100_000)  # deeply nested, not an object
    (sub / "agent-a4.jsonl").write_text("")
    (sub / "agent-a5.meta.json").write_bytes(b"{" + b" " * (2 * 1024 * 1024) + b"}")  # huge
    (sub / "agent-a5.jsonl").write_text("")
    [f] = find_sessions([str(tmp_path)], {})
    assert f.team is None
    fifo_lead = tmp_path / "-x" / "22220000-0000-4000-8000-000000000001.jsonl"
    fifo_lead.parent.mkdir()
    os.mkfifo(fifo_lead)
    assert head(str(fifo_lead)) == (None, None)
