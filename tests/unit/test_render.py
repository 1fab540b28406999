"""render: every frame as one readable line and as labelled fields, whichever format wrote it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from teaminbox.formats.claude import CLAUDE
from teaminbox.formats.filebus import FILEBUS
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.model import Draft, Message
from teaminbox.render import (
    FIELD_MAX,
    LINE_MAX,
    describe_message,
    description,
    frame_fields,
    one_line,
    plural,
)
from teaminbox.render import wire_converter as converter

TS = "2026-11-29T10:00:00.000Z"


def claude(frame: dict[str, Any] | str, **extra: Any) -> Message:
    text = frame if isinstance(frame, str) else json.dumps(frame)
    entry = {"from": "researcher", "text": text, "timestamp": TS, "read": False, **extra}
    return CLAUDE.message(entry, 0, "claude:alpha", "team-lead")


def pseudo(kind: str, content: str = "", summary: str = "", **payload: Any) -> Message:
    entry: dict[str, Any] = {"from": "team-beta-coder-1", "to": "lead-beta", "type": kind}
    entry["summary"] = summary
    if content:
        entry["content"] = content
    if payload:
        entry["payload"] = payload
    entry.update(timestamp="2026-11-29T10:00:00.123456789Z", read=False)
    return PSEUDOCLAUDE.message(entry, 0, "pseudoclaude:beta", "lead-beta")


CLAUDE_FRAMES = [
    (
        {"type": "idle_notification", "from": "researcher", "timestamp": TS},
        "idle",
    ),
    (
        {
            "type": "idle_notification",
            "from": "researcher",
            "timestamp": TS,
            "idleReason": "available",
            "completedTaskId": "3",
            "completedStatus": "resolved",
            "result": "The fix is in auth.ts;\ntests pass.",
        },
        'idle (task #3 resolved): "The fix is in auth.ts; tests pass."',
    ),
    (
        {
            "type": "idle_notification",
            "from": "researcher",
            "timestamp": TS,
            "idleReason": "failed",
            "failureReason": "out of tokens",
        },
        "idle (failed: out of tokens)",
    ),
    (
        {
            "type": "idle_notification",
            "from": "researcher",
            "timestamp": TS,
            "idleReason": "interrupted",
            "summary": "stopped by the lead",
        },
        "idle (interrupted): stopped by the lead",
    ),
    (
        {
            "type": "shutdown_request",
            "requestId": "shutdown-1770477661492@researcher",
            "from": "team-lead",
            "reason": "work is done",
            "timestamp": TS,
        },
        "shutdown request: work is done",
    ),
    (
        {"type": "shutdown_approved", "requestId": "r", "from": "researcher", "timestamp": TS},
        "shutdown approved",
    ),
    (
        {
            "type": "shutdown_rejected",
            "requestId": "r",
            "from": "researcher",
            "reason": "still testing",
            "timestamp": TS,
        },
        "shutdown rejected: still testing",
    ),
    (
        {
            "type": "plan_approval_request",
            "from": "researcher",
            "timestamp": TS,
            "planFilePath": "/w/plans/auth.md",
            "planContent": "# Plan\n1. fix",
            "requestId": "p1",
        },
        "plan approval request: /w/plans/auth.md",
    ),
    (
        {"type": "plan_approval_response", "requestId": "p1", "approved": True, "timestamp": TS},
        "plan approved",
    ),
    (
        {
            "type": "plan_approval_response",
            "requestId": "p1",
            "approved": False,
            "feedback": "split the migration",
            "timestamp": TS,
        },
        "plan rejected: split the migration",
    ),
    (
        {
            "type": "task_assignment",
            "taskId": "3",
            "subject": "Fix the login bug",
            "description": "long text",
            "assignedBy": "team-lead",
            "timestamp": TS,
        },
        "task #3 assigned by team-lead: Fix the login bug",
    ),
    (
        {"type": "task_completed", "from": "coder", "taskId": "3", "taskSubject": "Fix login"},
        "task #3 completed: Fix login",
    ),
    ({"type": "teammate_terminated", "message": "coder has shut down"}, None),
    (
        {
            "type": "permission_request",
            "request_id": "q",
            "agent_id": "coder@alpha",
            "tool_name": "Bash",
            "tool_use_id": "t",
            "description": "run the tests",
            "input": {"command": "npm test"},
            "permission_suggestions": [],
        },
        "permission request: Bash: run the tests",
    ),
    ({"type": "permission_response", "request_id": "q", "subtype": "success"}, None),
    (
        {"type": "permission_response", "request_id": "q", "subtype": "error", "error": "no"},
        "permission error: no",
    ),
    ({"type": "mode_set_request", "mode": "plan", "from": "team-lead"}, None),
    ({"type": "team_permission_update", "from": "team-lead"}, None),
    ({"type": "sandbox_permission_request", "host": "example.org"}, None),
]


@pytest.mark.parametrize(("frame", "line"), CLAUDE_FRAMES)
def test_claude_frames_read_as_one_line(frame: dict[str, Any], line: str | None) -> None:
    msg = claude(frame)
    assert msg.structured is not None, "a known frame"
    got = describe_message(msg)
    assert "\n" not in got and "{" not in got and got
    if line is not None:
        assert got == line
    assert not got.startswith(frame["type"]), "in words, not the type's spelling"


def test_the_other_claude_frames_in_words() -> None:
    said = {f["type"]: describe_message(claude(f)) for f, line in CLAUDE_FRAMES if line is None}
    assert said == {
        "teammate_terminated": "teammate terminated: coder has shut down",
        "permission_response": "permission granted",
        "mode_set_request": "mode change request: plan",
        "team_permission_update": "team permission update",
        "sandbox_permission_request": "sandbox permission request: example.org",
    }


def test_pseudoclaude_frames_read_as_one_line() -> None:
    assert describe_message(pseudo("shutdown_request", reason="done")) == "shutdown request: done"
    assert (
        describe_message(pseudo("shutdown_request", "please wrap up")) == "shutdown request:"
        " please wrap up"
    )
    assert describe_message(pseudo("shutdown_response", approve=True)) == "shutdown approved"
    assert (
        describe_message(pseudo("shutdown_response", approve=False, reason="busy"))
        == "shutdown rejected: busy"
    )
    assert (
        describe_message(pseudo("plan_approval_response", approved=False, feedback="smaller"))
        == "plan rejected: smaller"
    )
    assert describe_message(pseudo("plan_approval_response", approved=True)) == "plan approved"
    # as our own sender writes a payload-only frame: the content restates it, the payload says it
    sent = PSEUDOCLAUDE.new_entry(
        Draft(
            sender="lead",
            recipient="x",
            text="",
            type="plan_approval_response",
            payload={"approved": False, "feedback": "smaller steps"},
        )
    )
    msg = PSEUDOCLAUDE.message(sent, 0, "pseudoclaude:beta", "x")
    assert describe_message(msg) == "plan rejected: smaller steps"


def test_pseudoclaude_idle_notification_quotes_the_result() -> None:
    msg = pseudo(
        "text",
        "jwt.ts written, tests pass",
        "member idle: completed",
        member_name="coder",
        task_id="t-1",
        status="completed",
        error="",
    )
    assert msg.type == "idle_notification"
    assert describe_message(msg) == 'idle (task #t-1 completed): "jwt.ts written, tests pass"'
    failed = pseudo(
        "text",
        "",
        "member idle: failed",
        member_name="coder",
        task_id=7,
        status="failed",
        error="build broke",
    )
    assert describe_message(failed) == "idle (task #7 failed: build broke)"


def test_unknown_types_and_plain_messages() -> None:
    assert (
        describe_message(pseudo("review_request", "look at PR 4")) == "review request: look at PR 4"
    )
    plain = claude("first line\nsecond line")
    assert plain.structured is None and describe_message(plain) == "first line"
    assert describe_message(claude("body", summary="Bug found")) == "Bug found"
    assert describe_message(claude("")) == "(empty)"
    # JSON that is no known frame stays text
    assert describe_message(claude('{"type": "mine", "x": 1}')) == '{"type": "mine", "x": 1}'
    bus = FILEBUS.message(
        {"msg_id": "m_1", "sender": "a@b", "content": "hi\nthere", "timestamp": 1.0}, 0, "t", "u"
    )
    assert describe_message(bus) == "hi"
    assert describe_message(claude("x" * 300), width=40).endswith("…")
    assert len(describe_message(claude("x" * 300), width=40)) == 40


def test_frame_fields() -> None:
    msg = claude(
        {
            "type": "idle_notification",
            "from": "researcher",
            "timestamp": TS,
            "idleReason": "available",
            "completedTaskId": "3",
            "result": "done",
            "nothing": None,
        }
    )
    assert frame_fields(msg) == [
        ("idle reason", "available"),
        ("completed task id", "3"),
        ("result", "done"),
    ]
    req = claude(
        {
            "type": "permission_request",
            "request_id": "q",
            "tool_name": "Bash",
            "input": {"command": "ls"},
        }
    )
    assert frame_fields(req) == [
        ("request id", "q"),
        ("tool name", "Bash"),
        ("input", '{"command":"ls"}'),
    ]
    assert frame_fields(pseudo("shutdown_response", approve=True, reason="ok")) == [
        ("approve", "yes"),
        ("reason", "ok"),
    ]
    assert frame_fields(claude("plain")) == []


def test_plural_and_one_line() -> None:
    assert plural(1, "message") == "1 message" and plural(0, "message") == "0 messages"
    assert plural(1, "entry", "entries") == "1 entry" and plural(2, "entry", "entries") == (
        "2 entries"
    )
    assert plural(1, "inbox", "inboxes") == "1 inbox"
    assert one_line("  a\n\n b\tc ") == "a b c"


def test_a_description_is_the_line_and_fields_in_one() -> None:
    idle = pseudo(
        "text",
        "",
        "member idle: failed",
        member_name="c",
        task_id=3,
        status="failed",
        error="disk full",
    )
    said = description(idle)
    assert (said.kind, said.line, said.task) == ("idle", "idle (task #3 failed: disk full)", "3")
    assert [(f.label, f.value) for f in said.fields] == frame_fields(idle)
    done = pseudo(
        "text",
        "jwt ok",
        "member idle: completed",
        member_name="c",
        task_id=4,
        status="completed",
        error="",
    )
    assert ("result", "jwt ok") in frame_fields(done), "PseudoClaude's result is its content"
    plain = description(claude("hello\nworld", summary="Hi"))
    assert (plain.kind, plain.line, plain.fields, plain.task) == ("message", "Hi", [], None)
    # one kind whichever format wrote it
    assert description(pseudo("shutdown_response", approve=True)).kind == "shutdown_approved"
    assert description(claude({"type": "shutdown_approved", "requestId": "r"})).kind == (
        "shutdown_approved"
    )
    assert description(pseudo("review_request", "look")).kind == "frame"


def test_a_description_stays_compact() -> None:
    long = claude({"type": "plan_approval_request", "planContent": "x" * 10_000, "requestId": "p"})
    said = description(long)
    assert len(said.line) <= LINE_MAX
    (content,) = [f.value for f in said.fields if f.label == "plan content"]
    assert len(content) == FIELD_MAX and content.endswith("…")
    assert len(description(claude("y" * 5000)).line) == LINE_MAX


def test_every_message_leaves_with_its_description() -> None:
    msg = claude({"type": "task_completed", "taskId": "3", "taskSubject": "Fix login"})
    out = converter.unstructure(msg)
    assert out["description"] == {
        "kind": "task_completed",
        "line": "task #3 completed: Fix login",
        "fields": [
            {"label": "task id", "value": "3"},
            {"label": "task subject", "value": "Fix login"},
        ],
        "task": "3",
    }
    # as it came back (the history, MCP): the description it carried is kept, not remade
    again = converter.structure(out, type(msg))
    assert converter.unstructure(again)["description"] == out["description"]
    assert again == msg, "the description is a view: it does not make two messages differ"
