"""What a transcript's SendMessage calls wrote (teaminbox.transcript_sends, fed by
transcripts.Stats): rows in Claude Code 2.1.332's shape (docs/on-disk-formats.md 1c), the
refused, structured and hostile ones, and the two recorded real sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from teaminbox import transcript_sends as ts
from teaminbox.server.features.activity.recover import recipient
from teaminbox.timestamps import epoch
from teaminbox.transcript_sends import Sent
from teaminbox.transcripts import Session, Stats

RECORDED = Path(__file__).resolve().parents[1] / "interop" / "claude_code" / "recorded"
AGENT = "ahelper-0123456789abcdef"
SID = "7a1c0de5-0000-4000-8000-000000000001"


def line(row: dict[str, Any]) -> bytes:
    return json.dumps(row, separators=(",", ":")).encode()


def base(kind: str, uuid: str, ts: str, agent: str | None = AGENT) -> dict[str, Any]:
    row: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": agent is not None,
        "type": kind,
        "uuid": uuid,
        "timestamp": ts,
        "sessionId": SID,
        "version": "2.1.332",
    }
    if agent:
        row["agentId"] = agent
    return row


def call_row(tid: str, to: str, message: Any, summary: str | None = None, **kw: Any) -> Any:
    """The assistant row of a SendMessage call, as 2.1.332 writes its input."""
    inp: dict[str, Any] = {"to": to, "message": message}
    if summary is not None:
        inp["summary"] = summary
    inp.update(
        {"type": "message", "recipient": to, "recipient_kind": "name", "content": str(message)}
    )
    row = base("assistant", f"a-{tid}", kw.pop("ts", "2026-12-01T10:00:00.100Z"), **kw)
    row["message"] = {
        "id": f"msg_{tid}",
        "model": "claude-sonnet-4-5-20250929",
        "role": "assistant",
        "content": [{"type": "tool_use", "id": tid, "name": "SendMessage", "input": inp}],
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return row


def result_row(
    tid: str,
    result: dict[str, Any],
    ts: str = "2026-12-01T10:00:00.400Z",
    whole: bool = True,
    **kw: Any,
) -> Any:
    """The user row holding its result: the block's text, and (`whole`) `toolUseResult`."""
    row = base("user", f"u-{tid}", ts, **kw)
    row["message"] = {
        "role": "user",
        "content": [
            {
                "tool_use_id": tid,
                "type": "tool_result",
                "content": [{"type": "text", "text": json.dumps(result, separators=(",", ":"))}],
            }
        ],
    }
    if whole:
        row["toolUseResult"] = result
    return row


def sent(msg_id: str, to: str, text: str, summary: str = "s", sender: str = "helper") -> Any:
    return {
        "success": True,
        "message": f"Message sent to {to}'s inbox",
        "msg_id": msg_id,
        "routing": {
            "sender": sender,
            "senderColor": "blue",
            "target": f"@{to}",
            "targetColor": "red",
            "summary": summary,
            "content": text[:50],
        },
    }


def feed(stats: Stats, *rows: Any) -> None:
    stats.feed([r if isinstance(r, bytes) else line(r) for r in rows])


def test_a_send_is_the_entry_it_wrote() -> None:
    s = Stats()
    long = "LONG-" + "x" * 200  # routing.content is cut to 50: the text is the call's
    feed(
        s,
        call_row("toolu_1", "team-lead", long, "first"),
        result_row("toolu_1", sent("m-1", "team-lead", long, "first")),
    )
    assert s.sends.take() == [
        Sent("m-1", "team-lead", long, "first", "2026-12-01T10:00:00.400Z", "helper", "blue")
    ]
    assert s.sends.take() == []
    got = Sent("m-1", "team-lead", "t", None, "2026-12-01T10:00:00.400Z", None, None)
    assert got.entry("team-lead") == {
        "from": "team-lead",
        "text": "t",
        "timestamp": "2026-12-01T10:00:00.400Z",
        "msg_id": "m-1",
    }


def test_the_blocks_text_serves_without_tool_use_result_and_a_reminder_after_it() -> None:
    s = Stats()
    res = result_row("toolu_2", sent("m-2", "team-lead", "HI"), whole=False)
    text = res["message"]["content"][0]["content"][0]
    text["text"] += "\n<system-reminder>\nsomething\n</system-reminder>"
    feed(s, call_row("toolu_2", "team-lead", "HI", "hi"), res)
    [got] = s.sends.take()
    assert (got.msg_id, got.text, got.summary, got.sender) == ("m-2", "HI", "s", "helper")
    # a toolUseResult that is no object: the block's text is read instead
    res = result_row("toolu_3", sent("m-3", "team-lead", "HO")) | {"toolUseResult": "text"}
    feed(s, call_row("toolu_3", "team-lead", "HO"), res)
    assert [x.msg_id for x in s.sends.take()] == ["m-3"]


def test_eight_calls_in_one_turn_and_results_in_a_later_read() -> None:
    s = Stats()
    calls = [call_row(f"toolu_{i}", "team-lead", f"BURST-{i}", f"b{i}") for i in range(8)]
    feed(s, *calls)
    assert s.sends.take() == []  # no result yet: nothing was written as far as it says
    feed(
        s, *[result_row(f"toolu_{i}", sent(f"m-{i}", "team-lead", f"BURST-{i}")) for i in range(8)]
    )
    assert [(x.msg_id, x.text) for x in s.sends.take()] == [
        (f"m-{i}", f"BURST-{i}") for i in range(8)
    ]


def test_refused_structured_failed_and_hostile_sends_wrote_nothing() -> None:
    s = Stats()
    refusal = {"success": False, "message": "No agent named 'user' is reachable."}
    broadcast = base("user", "u-b", "2026-12-01T10:00:01.000Z")
    broadcast["message"] = {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_b",
                "is_error": True,
                "content": '<tool_use_error>broadcast (to: "*") is no longer supported'
                " \u2014 send a message per recipient</tool_use_error>",
            }
        ],
    }
    shutdown = {"type": "shutdown_response", "request_id": "shutdown-1@helper", "approve": True}
    feed(
        s,
        call_row("toolu_u", "user", "HI-USER"),
        result_row("toolu_u", refusal),
        call_row("toolu_b", "*", "HI-ALL"),
        broadcast,
        call_row("toolu_s", "team-lead", shutdown),  # a structured message: its own frame
        result_row("toolu_s", {"success": True, "message": "ok", "request_id": "x"}),
        call_row("toolu_n", "team-lead", "NO-ID"),
        result_row("toolu_n", {"success": True, "message": "ok", "msg_id": 5}),
        call_row("toolu_h", "team-lead", "HUGE-ID"),
        result_row("toolu_h", {"success": True, "msg_id": "x" * 300}),
        call_row("toolu_z", "team-lead", "NUL-ID"),
        result_row("toolu_z", {"success": True, "msg_id": "a\u0000b"}),
        result_row("toolu_nobody", sent("m-x", "team-lead", "NO-CALL")),  # a result alone
    )
    assert s.sends.take() == []
    # a truncated row and one that is no JSON are skipped; the next send still counts
    good_call = line(call_row("toolu_g", "team-lead", "AFTER", "after"))
    good_result = line(result_row("toolu_g", sent("m-g", "team-lead", "AFTER", "after")))
    feed(s, good_call[:40], b'{"type":"user","msg_id":', b"[1,2]", good_call, good_result)
    assert [x.text for x in s.sends.take()] == ["AFTER"]


def test_the_calls_waiting_for_a_result_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ts, "MAX_PENDING", 4)
    s = Stats()
    feed(s, *[call_row(f"toolu_{i}", "team-lead", f"T{i}") for i in range(10)])
    assert list(s.sends.calls) == [f"toolu_{i}" for i in range(6, 10)]
    feed(s, result_row("toolu_0", sent("m-0", "team-lead", "T0")))
    assert s.sends.take() == []  # forgotten: no body to archive it with


def test_the_session_names_each_files_sender(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-dev-app"
    sub = project / SID / "subagents"
    sub.mkdir(parents=True)
    lead_rows = [
        call_row("toolu_l", "helper", "FROM-LEAD", "to helper", agent=None),
        result_row("toolu_l", {"success": True, "msg_id": "m-l"}, agent=None),  # no routing
    ]
    (project / f"{SID}.jsonl").write_bytes(b"".join(line(r) + b"\n" for r in lead_rows))
    helper = sub / f"agent-{AGENT}.jsonl"
    result = sent("m-h", "team-lead", "FROM-HELPER")
    del result["routing"]["sender"]
    helper.write_bytes(
        line(call_row("toolu_h", "team-lead", "FROM-HELPER"))
        + b"\n"
        + line(result_row("toolu_h", result))
        + b"\n"
    )
    # a teammate of another team the session had: not this team's messages
    other = sub / "agent-aold-1.jsonl"
    other.write_bytes(
        line(call_row("toolu_o", "team-lead", "OTHER-TEAM"))
        + b"\n"
        + line(result_row("toolu_o", sent("m-o", "team-lead", "OTHER-TEAM", sender="old")))
        + b"\n"
    )
    (sub / "agent-aold-1.meta.json").write_text(json.dumps({"name": "old", "teamName": "gone"}))
    s = Session([str(tmp_path / "projects")], SID, "/home/dev/app", "boss", "user", ["session-1"])
    s.poll(1 << 20)
    # helper's file waits for its meta.json to say whose it is
    assert [(x.msg_id, x.sender) for x in s.take_sends()] == [("m-l", "boss")]
    (sub / f"agent-{AGENT}.meta.json").write_text(
        json.dumps({"name": "helper", "teamName": "session-1", "taskKind": "in_process_teammate"})
    )
    s.poll(1 << 20)
    assert [(x.msg_id, x.sender, x.summary) for x in s.take_sends()] == [("m-h", "helper", "s")]
    assert s.take_sends() == []


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_recorded_sessions_name_every_entry_the_teammate_wrote(version: str) -> None:
    """The recorded transcripts (their rows trimmed: no toolUseResult) against every inbox
    entry recorded: each send is the entry helper wrote, by msg_id, word for word."""
    home = RECORDED / version / "home" / ".claude"
    facts = json.loads((RECORDED / version / "session.json").read_text())
    s = Session(
        [str(home / "projects")],
        facts["leadSessionId"],
        facts["cwd"],
        "team-lead",
        "user",
        [facts["team"]],
    )
    while s.poll(1 << 20):
        pass
    got = {x.msg_id: x for x in s.take_sends()}
    entries = {
        e["entry"]["msg_id"]: e
        for e in facts["entries"]
        if e["entry"].get("from") == "helper" and not e["entry"]["text"].startswith("{")
    }
    assert sorted(got) == sorted(entries) and len(got) == 2
    for msg_id, x in got.items():
        e = entries[msg_id]
        assert (x.to, x.sender) == (e["inbox"], e["entry"]["from"])
        assert (x.text, x.summary, x.color) == (
            e["entry"]["text"],
            e["entry"]["summary"],
            e["entry"]["color"],
        )
        # the result row comes after the write: its time is the entry's or a little later
        assert 0 <= ts_ms(x.timestamp) - ts_ms(e["entry"]["timestamp"]) < 5000


def ts_ms(stamp: str) -> float:
    t = epoch(stamp)
    assert t is not None
    return t * 1000


def test_the_recipient_inbox_of_an_ended_team_is_a_name_claude_code_could_write() -> None:
    assert recipient(None, "team-lead") == "team-lead"
    assert recipient(None, "helper_2") == "helper_2"
    for bad in ("*", "../x", "a/b", "", "two words", "x" * 200):
        assert recipient(None, bad) is None, bad
