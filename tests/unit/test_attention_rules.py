"""What counts as "needs you", as a table: real team folders, a real
Tracker and History, the Attention feature's own derivation.

Counts, each with its action: a plan approval that really waits on the person
(PseudoClaude: answerPlan), a pane teammate's permission_request (the lead's terminal),
a text in the person's own inbox, a teammate's answer after the person wrote to it, a
live teammate whose inbox is unread past the stall time. Left out: idle pings, teams
whose lead is gone, ended teams. A Claude Code teammate's plan (its lead approves it by
itself) is information only: listed, not counted.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from support.entries import claude_entry
from support.world import write_json
from teaminbox.discovery import Settings
from teaminbox.history import History
from teaminbox.protocol import InitializationOptions
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.features.attention import Attention, load_dismissed
from teaminbox.server.features.permissions import Prompts
from teaminbox.tracker import Tracker

DEAD_PID = 2**22 + 4321  # no such process


def iso(ago: float = 0.0) -> str:
    t = datetime.fromtimestamp(time.time() - ago, tz=timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


OLD = 3600.0  # an hour ago: past the stall time (10 minutes)


def frame(kind: str, **fields: Any) -> str:
    return json.dumps({"type": kind, "timestamp": iso(), **fields})


def e(sender: str, text: str, ago: float = 1.0, read: bool = False, **extra: Any) -> dict[str, Any]:
    return claude_entry(sender, text, iso(ago), read=read, **extra)


def claude_team(root: Path, inboxes: dict[str, list[dict[str, Any]]], lead_pid: int | None) -> None:
    team = root / ".claude" / "teams" / "t"
    config: dict[str, Any] = {
        "name": "t",
        "leadAgentId": "team-lead@t",
        "leadSessionId": "sess-1",
        "members": [
            {"agentId": "team-lead@t", "name": "team-lead", "tmuxPaneId": "", "cwd": "/w"},
            {"agentId": "helper@t", "name": "helper", "tmuxPaneId": "in-process"},
        ],
    }
    if lead_pid is not None:
        config["leadProcess"] = {"pid": lead_pid}
    write_json(team / "config.json", config)
    for name in ("team-lead", "helper"):
        write_json(team / "inboxes" / f"{name}.json", inboxes.get(name, []))
    if "user" in inboxes:
        write_json(team / "inboxes" / "user.json", inboxes["user"])


def pseudo_team(root: Path, lead_msgs: list[dict[str, Any]]) -> None:
    team = root / ".PseudoClaude" / "teams" / "p"
    write_json(
        team / "config.json",
        {
            "name": "p",
            "sanitized_name": "p",
            "lead_agent_id": "lead-p",
            "members": [
                {"name": "lead", "agent_id": "lead-p", "agent_type": "lead"},
                {"name": "coder", "agent_id": "team-p-coder-1", "agent_type": "coder"},
            ],
        },
    )
    write_json(team / "inboxes" / "lead-p.json", {"messages": lead_msgs})
    write_json(team / "inboxes" / "team-p-coder-1.json", {"messages": []})


def pmsg(sender: str, kind: str, content: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "from": sender,
        "to": "lead-p",
        "type": kind,
        "content": content,
        "timestamp": iso(1.0),
        "read": True,  # taken in by the lead's runner: no stall
        **extra,
    }


def attention(server: Any, tracker: Tracker) -> Attention:
    """An Attention with its team hook in the tracker, as the core sets it."""
    ls = cast(TeamInboxServer, server)
    att = Attention(ls, Prompts(ls))
    tracker.team_hooks.append(att.decorate_team)
    return att


def items_of(home: Path) -> list[Any]:
    tracker = Tracker(
        Settings.build(
            [str(home / ".claude" / "teams"), str(home / ".PseudoClaude" / "teams")], defaults=False
        ),
        History(str(home / "history.db")),
    )
    server = SimpleNamespace(tracker=tracker, options=InitializationOptions(), closing=False)
    att = attention(server, tracker)
    changed, changes = tracker.scan()
    att.publish(changed, changes)
    res = att.result()
    assert res.count == len([i for i in res.items if not i.info])
    return res.items


def row(i: Any) -> tuple[Any, ...]:
    return (i.kind, i.team.split(":")[0], i.member, i.info, i.action)


ALIVE = None  # no leadProcess in the config: the lead is not known to be gone

CASES: dict[str, tuple[Any, set[tuple[Any, ...]]]] = {
    "a text in the person's own inbox": (
        lambda h: claude_team(h, {"user": [e("helper", "can I go on?")]}, ALIVE),
        {("unanswered", "claude", "helper", False, "reply")},
    ),
    "an idle ping in the person's own inbox": (
        lambda h: claude_team(
            h, {"user": [e("helper", frame("idle_notification", idleReason="available"))]}, ALIVE
        ),
        set(),
    ),
    "PseudoClaude's idle ping to the lead (the person)": (
        lambda h: pseudo_team(
            h,
            [
                pmsg(
                    "team-p-coder-1",
                    "text",
                    "done",
                    summary="member idle",
                    payload={
                        "member_name": "coder",
                        "task_id": "1",
                        "status": "completed",
                        "error": "",
                    },
                    read=False,
                )
            ],
        ),
        set(),
    ),
    "a Claude Code teammate's plan: the lead approves it itself": (
        lambda h: claude_team(
            h,
            {
                "team-lead": [
                    e(
                        "helper",
                        frame(
                            "plan_approval_request",
                            **{"from": "helper"},
                            planContent="# Plan",
                            requestId="plan_approval-1@helper@t",
                        ),
                        read=True,
                    )
                ]
            },
            ALIVE,
        ),
        {("plan", "claude", "helper", True, None)},
    ),
    "a PseudoClaude member's plan waits for the person (its lead)": (
        lambda h: pseudo_team(
            h,
            [pmsg("coder", "plan_approval_request", "1. do it", payload={"request_id": "plan-1"})],
        ),
        {("plan", "pseudoclaude", "coder", False, "answerPlan")},
    ),
    "a pane teammate's permission_request: the lead's terminal": (
        lambda h: claude_team(
            h,
            {
                "team-lead": [
                    e(
                        "helper",
                        frame(
                            "permission_request",
                            request_id="perm-1-abcdefg",
                            agent_id="helper@t",
                            tool_name="Bash",
                            description="touch x",
                            input={"command": "touch x"},
                        ),
                        read=True,
                    )
                ]
            },
            ALIVE,
        ),
        {("permission", "claude", "helper", False, "showTerminal")},
    ),
    "a live teammate's inbox unread past the stall time": (
        lambda h: claude_team(h, {"helper": [e("user", "wake up", ago=OLD)]}, ALIVE),
        {("stalled", "claude", "helper", False, "openInbox")},
    ),
    "a teammate's answer (to the lead) after the person wrote to it": (
        lambda h: claude_team(
            h,
            {
                "helper": [e("user", "what is 2+2?", ago=5.0, read=True)],
                "team-lead": [e("helper", "it is 4", ago=2.0, read=True)],
            },
            ALIVE,
        ),
        {("unanswered", "claude", "helper", False, "reply")},
    ),
    "a teammate's idle result after the person wrote to it": (
        lambda h: claude_team(
            h,
            {
                "helper": [e("user", "what is 2+2?", ago=5.0, read=True)],
                "team-lead": [
                    e(
                        "helper",
                        frame("idle_notification", idleReason="available", result="4"),
                        ago=2.0,
                        read=True,
                    )
                ],
            },
            ALIVE,
        ),
        {("unanswered", "claude", "helper", False, "reply")},
    ),
    "a teammate's message to the lead before the person wrote: no answer": (
        lambda h: claude_team(
            h,
            {
                "helper": [e("user", "what is 2+2?", ago=2.0, read=True)],
                "team-lead": [e("helper", "hello lead", ago=5.0, read=True)],
            },
            ALIVE,
        ),
        set(),
    ),
    "a team whose lead is gone: nothing": (
        lambda h: claude_team(
            h,
            {"user": [e("helper", "can I go on?")], "helper": [e("user", "wake up", ago=OLD)]},
            DEAD_PID,
        ),
        set(),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_what_needs_you(case: str, tmp_path: Path) -> None:
    make, want = CASES[case]
    make(tmp_path)
    got = {row(i) for i in items_of(tmp_path)}
    assert got == want


def test_the_answer_is_the_first_message_after_the_person_wrote(tmp_path: Path) -> None:
    claude_team(
        tmp_path,
        {
            "helper": [e("user", "what is 2+2?", ago=9.0, read=True)],
            "team-lead": [
                e("helper", "before you asked", ago=12.0, read=True),
                e("helper", "it is 4\nbecause", ago=6.0, read=True),
                e("helper", "now on to the tests", ago=3.0, read=True),
            ],
        },
        ALIVE,
    )
    [item] = items_of(tmp_path)
    assert item.summary == "helper answered you: it is 4"
    assert item.key.startswith("answer:claude:") and item.message_id


def test_an_ended_team_needs_nothing(tmp_path: Path) -> None:
    claude_team(tmp_path, {"user": [e("helper", "can I go on?")]}, ALIVE)
    tracker = Tracker(
        Settings.build([str(tmp_path / ".claude" / "teams")], defaults=False),
        History(str(tmp_path / "history.db")),
    )
    server = SimpleNamespace(tracker=tracker, options=InitializationOptions(), closing=False)
    att = attention(server, tracker)
    att.publish(*tracker.scan())
    assert [i.kind for i in att.result().items] == ["unanswered"]
    import shutil

    shutil.rmtree(tmp_path / ".claude" / "teams" / "t")  # Claude Code deletes it on exit
    att.publish(*tracker.scan())
    assert att.result().items == [] and att.result().count == 0


def test_dismissed_stays_dismissed_for_a_new_attention(tmp_path: Path) -> None:
    """The dismissal is in a file beside the history: a restarted sidecar keeps it."""
    claude_team(tmp_path, {"user": [e("helper", "can I go on?")]}, ALIVE)
    [item] = items_of(tmp_path)
    tracker = Tracker(
        Settings.build([str(tmp_path / ".claude" / "teams")], defaults=False),
        History(str(tmp_path / "history.db")),
    )
    server = SimpleNamespace(tracker=tracker, options=InitializationOptions(), closing=False)
    att = attention(server, tracker)
    att.publish(*tracker.scan())
    assert att.dismiss(item.key) is True
    assert att.dismiss(item.key) is False  # already
    assert att.result().items == []
    assert item.key in load_dismissed(str(tmp_path / "attention-dismissed.json"))
    assert items_of(tmp_path) == []  # a fresh tracker and Attention: still dismissed
    # a new message from helper is a new item
    inbox = tmp_path / ".claude" / "teams" / "t" / "inboxes" / "user.json"
    write_json(inbox, [*json.loads(inbox.read_bytes()), e("helper", "hello?")])
    assert [i.kind for i in items_of(tmp_path)] == ["unanswered"]


def test_a_dismissed_file_that_does_not_parse_is_no_keys(tmp_path: Path) -> None:
    bad = tmp_path / "attention-dismissed.json"
    bad.write_bytes(b"{not json")
    assert load_dismissed(str(bad)) == {}
    bad.write_bytes(b'{"dismissed": {"a": 1, "b": "x", "c": true}}')
    assert load_dismissed(str(bad)) == {"a": 1.0}
