"""One description of a message: what `teaminbox read` prints is what the server sends.

Every frame kind of both formats (and words to a person) is written into a real inbox; the
CLI's `read` and the real server's `teamInbox/messages` (a page) and `didChange` (a delta)
must say each the same way, and say it as the table does. The extension shows only that
description (tests/extension checks a tree row against the CLI's line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lsp_session import call, make_home, options, rec, start, write_json
from pytest_lsp import LanguageClient

from support import cli

TS = "2026-11-29T10:{:02d}:00.000Z"
PC_TS = "2026-11-29T11:{:02d}:00.123456789Z"

# (the frame Claude Code serialises into `text`, or plain text; the kind and line it reads as)
CLAUDE: list[tuple[dict[str, Any] | str, str, str]] = [
    ("Found the bug in auth.ts\nDetails follow", "message", "Found the bug in auth.ts"),
    (
        {"type": "idle_notification", "from": "researcher", "idleReason": "available"},
        "idle",
        "idle",
    ),
    (
        {
            "type": "idle_notification",
            "from": "researcher",
            "idleReason": "available",
            "completedTaskId": "3",
            "completedStatus": "resolved",
            "result": "The fix is in auth.ts;\ntests pass.",
        },
        "idle",
        'idle (task #3 resolved): "The fix is in auth.ts; tests pass."',
    ),
    (
        {"type": "idle_notification", "idleReason": "failed", "failureReason": "out of tokens"},
        "idle",
        "idle (failed: out of tokens)",
    ),
    (
        {"type": "shutdown_request", "requestId": "shutdown-1@researcher", "reason": "done"},
        "shutdown_request",
        "shutdown request: done",
    ),
    (
        {"type": "shutdown_approved", "requestId": "shutdown-1@researcher"},
        "shutdown_approved",
        "shutdown approved",
    ),
    (
        {"type": "shutdown_rejected", "requestId": "r", "reason": "still testing"},
        "shutdown_rejected",
        "shutdown rejected: still testing",
    ),
    (
        {
            "type": "plan_approval_request",
            "requestId": "plan-1",
            "planFilePath": "/w/plans/auth.md",
            "planContent": "# Plan\n1. fix the token check\n2. test",
        },
        "plan_request",
        "plan approval request: /w/plans/auth.md",
    ),
    (
        {
            "type": "plan_approval_response",
            "requestId": "plan-1",
            "approved": False,
            "feedback": "split the migration",
        },
        "plan_response",
        "plan rejected: split the migration",
    ),
    (
        {
            "type": "task_assignment",
            "taskId": "3",
            "subject": "Fix the login bug",
            "assignedBy": "team-lead",
        },
        "task_assignment",
        "task #3 assigned by team-lead: Fix the login bug",
    ),
    (
        {"type": "task_completed", "taskId": "3", "taskSubject": "Fix login"},
        "task_completed",
        "task #3 completed: Fix login",
    ),
    (
        {"type": "teammate_terminated", "message": "coder has shut down"},
        "teammate_terminated",
        "teammate terminated: coder has shut down",
    ),
    (
        {
            "type": "permission_request",
            "request_id": "perm-1",
            "tool_name": "Bash",
            "description": "run the tests",
            "input": {"command": "npm test"},
        },
        "permission_request",
        "permission request: Bash: run the tests",
    ),
    (
        {"type": "permission_response", "request_id": "perm-1", "subtype": "success"},
        "permission_response",
        "permission granted",
    ),
    ({"type": "mode_set_request", "mode": "plan"}, "mode_request", "mode change request: plan"),
    ({"type": "team_permission_update"}, "permission_update", "team permission update"),
]

# (type, summary, content, payload as PseudoClaude's Go struct writes them; kind, line)
PSEUDO: list[tuple[str, str, str, dict[str, Any] | None, str, str]] = [
    ("text", "Status", "Auth is done\nmore", None, "message", "Status"),
    (
        "text",
        "member idle: failed",
        "",
        {"member_name": "coder", "task_id": "3", "status": "failed", "error": "disk full"},
        "idle",
        "idle (task #3 failed: disk full)",
    ),
    (
        "text",
        "member idle: completed",
        "jwt.ts written, tests pass",
        {"member_name": "coder", "task_id": "4", "status": "completed", "error": ""},
        "idle",
        'idle (task #4 completed): "jwt.ts written, tests pass"',
    ),
    (
        "shutdown_request",
        "",
        "please wrap up",
        None,
        "shutdown_request",
        "shutdown request: please wrap up",
    ),
    (
        "shutdown_response",
        "",
        "",
        {"approve": False, "reason": "busy"},
        "shutdown_rejected",
        "shutdown rejected: busy",
    ),
    ("plan_approval_response", "", "", {"approved": True}, "plan_response", "plan approved"),
    ("review_request", "", "look at PR 4", None, "frame", "review request: look at PR 4"),
]


def _claude_entries() -> list[dict[str, Any]]:
    out = []
    for i, (frame, _, _) in enumerate(CLAUDE):
        text = frame if isinstance(frame, str) else json.dumps({**frame, "timestamp": TS.format(i)})
        out.append({"from": "researcher", "text": text, "timestamp": TS.format(i), "read": False})
    return out


def _pseudo_entry(i: int, kind: str, summary: str, content: str, payload: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"from": "team-beta-coder-1", "to": "lead-beta", "type": kind}
    entry["summary"] = summary
    if content:
        entry["content"] = content
    if payload:
        entry["payload"] = payload
    entry.update(timestamp=PC_TS.format(i), read=False)
    return entry


def _printed(said: dict[str, Any]) -> list[str]:
    """How the CLI prints a description under a frame's header."""
    lines = [f"  {said['line']}"]
    for field in said["fields"]:
        head, *more = field["value"].split("\n")
        lines.append(f"    {field['label']}: {head}")
        lines += [f"      {line}" for line in more]
    return lines


def _cli_blocks(home: Path, team: str, inbox: str) -> dict[str, list[str]]:
    """`teaminbox read`'s lines under each message's header, by message id."""
    out = cli.run(*cli.scratch_roots(home), "read", team, inbox, home=home, check=True).stdout
    blocks = {}
    for block in out.split("\n\n")[:-1]:  # the last is the tally
        head, *body = block.split("\n")
        blocks[head.split()[0]] = body
    return blocks


def _setup(home: Path) -> None:
    make_home(home)
    write_json(home / ".claude" / "teams" / "alpha" / "inboxes" / "user.json", _claude_entries())
    entries = [_pseudo_entry(i, *row[:4]) for i, row in enumerate(PSEUDO)]
    write_json(
        home / ".PseudoClaude" / "teams" / "beta" / "inboxes" / "lead-beta.json",
        {"messages": entries},
    )


@pytest.mark.parametrize(
    ("team", "inbox", "table"),
    [("claude:alpha", "user", CLAUDE), ("pseudoclaude:beta", "lead", PSEUDO)],
    ids=["claude", "pseudoclaude"],
)
async def test_the_cli_prints_what_the_server_sends(
    client: LanguageClient, tmp_path: Path, team: str, inbox: str, table: list[Any]
) -> None:
    _setup(tmp_path)
    await start(client, options(tmp_path))
    page = await call(client, "teamInbox/messages", {"team": team, "inbox": inbox})
    sent = sorted(page["messages"], key=lambda m: m["timestamp"])  # file order
    assert [(m["description"]["kind"], m["description"]["line"]) for m in sent] == [
        (row[-2], row[-1]) for row in table
    ]
    printed = _cli_blocks(tmp_path, team, inbox)
    for m in sent:
        said = m["description"]
        if said["kind"] == "message":  # words: the CLI prints them as written
            assert said["fields"] == [] and said["task"] is None
            assert said["line"] in (m["summary"], m["text"].split("\n")[0])
            continue
        assert printed[m["id"]] == _printed(said), m["id"]


async def test_a_frame_s_fields_are_in_words(client: LanguageClient, tmp_path: Path) -> None:
    _setup(tmp_path)
    await start(client, options(tmp_path))
    page = await call(client, "teamInbox/messages", {"team": "claude:alpha", "inbox": "user"})
    by_kind = {m["description"]["kind"]: m["description"] for m in page["messages"]}
    assert by_kind["permission_request"]["fields"] == [
        {"label": "request id", "value": "perm-1"},
        {"label": "tool name", "value": "Bash"},
        {"label": "description", "value": "run the tests"},
        {"label": "input", "value": '{"command":"npm test"}'},
    ]
    plan = {f["label"]: f["value"] for f in by_kind["plan_request"]["fields"]}
    assert plan["plan content"] == "# Plan\n1. fix the token check\n2. test"
    assert plan["request id"] == "plan-1" and "timestamp" not in plan and "type" not in plan
    assert by_kind["task_assignment"]["task"] == "3"


async def test_a_delta_carries_the_description_the_cli_prints(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A PseudoClaude idle frame arriving while the server runs: `didChange` says it as `read`
    does (the tree used to read only `idle` here)."""
    _setup(tmp_path)
    path = tmp_path / ".PseudoClaude" / "teams" / "beta" / "inboxes" / "lead-beta.json"
    await start(client, options(tmp_path))
    mark = rec(client).mark()
    doc = json.loads(path.read_text())
    payload = {"member_name": "coder", "task_id": "9", "status": "failed", "error": "disk full"}
    doc["messages"].append(_pseudo_entry(59, "text", "member idle: failed", "", payload))
    write_json(path, doc)
    change = await rec(client).wait(
        "teamInbox/didChange", lambda p: p["team"] == "pseudoclaude:beta" and p["added"], mark
    )
    (added,) = change["added"]
    assert added["description"]["line"] == "idle (task #9 failed: disk full)"
    assert _cli_blocks(tmp_path, "pseudoclaude:beta", "lead")[added["id"]] == _printed(
        added["description"]
    )
