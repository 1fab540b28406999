"""Claude Code's live session files and a transcript's unanswered calls (sessions.py,
transcripts.pending_calls): what a prompt open in the lead's terminal is read from."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from teaminbox import sessions
from teaminbox.transcripts import pending_calls, project_dir_name


def use(uid: str, cmd: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "timestamp": "2026-12-01T10:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": uid, "name": "Bash", "input": {"command": cmd}}],
        },
    }


def result(uid: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": uid}]},
    }


def lines(path: Path, rows: list[Any], tail: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in rows) + tail)


def test_pending_calls_are_the_ones_without_a_result(tmp_path: Path) -> None:
    t = tmp_path / "agent-a.jsonl"
    lines(t, [use("toolu_1", "ls"), result("toolu_1"), use("toolu_2", "touch x"), "not a row"])
    [c] = pending_calls(str(t))
    assert (c.tool_use_id, c.tool_name, c.input) == ("toolu_2", "Bash", {"command": "touch x"})
    assert c.timestamp is not None
    lines(t, [use("toolu_2", "touch x"), result("toolu_2")], tail=b'{"half a li')
    assert pending_calls(str(t)) == []
    assert pending_calls(str(tmp_path / "missing.jsonl")) == []


def test_only_the_tail_is_read_and_a_cut_line_skipped(tmp_path: Path) -> None:
    t = tmp_path / "agent-a.jsonl"
    filler = {"type": "user", "message": {"content": "x" * 5000}}
    lines(t, [use("toolu_old", "old"), filler, use("toolu_new", "new")])
    got = pending_calls(str(t), tail=len(json.dumps(use("toolu_new", "new"))) + 2000)
    assert [c.tool_use_id for c in got] == ["toolu_new"]


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "agent-f.jsonl"
    os.mkfifo(fifo)
    try:
        pending_calls(str(fifo))
    except OSError as err:
        assert "regular" in str(err)
    else:
        raise AssertionError("a FIFO was read")


def make_session(claude: Path, cwd: str, sid: str, status: str, waiting: str | None) -> None:
    body: dict[str, Any] = {"pid": 4242, "sessionId": sid, "cwd": cwd, "status": status}
    if waiting:
        body["waitingFor"] = waiting
    (claude / "sessions").mkdir(parents=True, exist_ok=True)
    (claude / "sessions" / "4242.json").write_text(json.dumps(body))
    (claude / "sessions" / "bad.json").write_text("{torn")


def test_a_waiting_session_names_the_teammate_and_the_command(tmp_path: Path) -> None:
    claude, cwd, sid = tmp_path / ".claude", "/w/proj", "aaaa-1111"
    make_session(claude, cwd, sid, "waiting", "permission prompt")
    folder = claude / "projects" / project_dir_name(cwd)
    lines(folder / f"{sid}.jsonl", [use("toolu_lead", "spawn"), result("toolu_lead")])
    sub = folder / sid / "subagents"
    lines(sub / "agent-x1.jsonl", [use("toolu_9", "touch /w/proj/x1\nrm -rf /")])
    (sub / "agent-x1.meta.json").write_text(json.dumps({"name": "helper", "teamName": "t"}))
    lines(sub / "agent-x2.jsonl", [use("toolu_8", "other team")])
    (sub / "agent-x2.meta.json").write_text(json.dumps({"name": "spy", "teamName": "other"}))
    live = sessions.live_sessions(str(claude))
    assert list(live) == [sid] and live[sid].waiting_for == "permission prompt"
    [p] = sessions.prompts([str(claude / "projects")], live[sid], cwd, {"t"})
    assert (p.member, p.tool_use_id, p.tool_name) == ("helper", "toolu_9", "Bash")
    assert p.detail == "touch /w/proj/x1 \u23ce rm -rf /"  # one line, shown, never run
    busy = sessions.LiveSession(4242, sid, "busy", None, cwd, None)
    assert sessions.prompts([str(claude / "projects")], busy, cwd, {"t"}) == []


def test_calls_cache_reads_again_when_the_file_changes(tmp_path: Path) -> None:
    t = tmp_path / "agent-a.jsonl"
    lines(t, [use("toolu_1", "ls")])
    cache = sessions.CallsCache()
    assert [c.tool_use_id for c in cache(str(t))] == ["toolu_1"]
    lines(t, [use("toolu_1", "ls"), result("toolu_1")])
    assert cache(str(t)) == []
