"""member_state.py: what a member is doing, from the team's messages (pure functions)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest

from teaminbox.formats.claude import CLAUDE
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.member_state import Facts, derive, events, pending
from teaminbox.model import Activity, MemberState, Message
from teaminbox.timestamps import epoch

T0 = 1_796_000_000.0  # epoch seconds; every time below is T0 + n
STALL = 600.0


def iso(n: float) -> str:
    when = datetime.fromtimestamp(T0 + n, tz=timezone.utc)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Team:
    """A Claude team's messages, written as Claude Code writes them."""

    def __init__(self) -> None:
        self.msgs: list[Message] = []

    def say(self, n: float, sender: str, to: str, text: str, **frame: Any) -> Message:
        body = json.dumps({"type": frame.pop("type"), **frame}) if "type" in frame else text
        entry = {"from": sender, "text": body, "timestamp": iso(n), "read": False}
        entry["msg_id"] = f"m{len(self.msgs)}"
        msg = CLAUDE.message(entry, len(self.msgs), "claude:t", to)
        self.msgs.append(msg)
        return msg

    def idle(self, n: float, sender: str, **extra: Any) -> Message:
        frame = {"from": sender, "timestamp": iso(n), "idleReason": "available", **extra}
        return self.say(n, sender, "team-lead", "", type="idle_notification", **frame)

    def state(self, name: str, now: float, **facts: Any) -> MemberState:
        evs = events(self.msgs, lambda s: s)
        reqs = pending(evs, lambda inbox: inbox)
        f = Facts(name=name, inbox=facts.pop("inbox", name), **facts)
        return derive(f, evs, reqs, T0 + now, STALL)


def test_epoch_reads_both_peers_times() -> None:
    assert epoch("2026-11-30T10:00:00.500Z") == pytest.approx(
        datetime(2026, 11, 30, 10, 0, 0, 500000, tzinfo=timezone.utc).timestamp()
    )
    assert epoch("2026-11-30T11:00:00.123456789+01:00") == pytest.approx(
        datetime(2026, 11, 30, 10, 0, 0, 123457, tzinfo=timezone.utc).timestamp(), abs=1e-6
    )
    assert epoch("2026-11-30T10:00:00Z") == epoch("2026-11-30T10:00:00+0000")
    assert epoch("yesterday") is None and epoch("") is None


def test_a_teammate_works_then_idles_with_its_last_words() -> None:
    t = Team()
    assert t.state("helper", 1) == MemberState("working", None)  # spawned, nothing said yet
    assert t.state("helper", 1, is_active=False).kind == "idle"
    t.say(10, "helper", "team-lead", "HELLO")
    assert t.state("helper", 11) == MemberState("working", T0 + 10)
    t.idle(12, "helper", summary="[to user] reply", result="Found the bug in auth.ts")
    assert t.state("helper", 13) == MemberState("idle", T0 + 12, "Found the bug in auth.ts")
    t.idle(20, "helper", summary="[to user] reply")  # 2.1.197: no result, its summary
    assert t.state("helper", 21).detail == "[to user] reply"
    t.idle(30, "helper", idleReason="failed", failureReason="provider 529")
    assert t.state("helper", 31).detail == "provider 529"


def test_a_delivered_message_wakes_it_an_undelivered_old_one_stalls_it() -> None:
    t = Team()
    t.idle(10, "helper")
    got = t.say(20, "user", "helper", "please report")
    # taken in (pruned from the file): working since then
    assert t.state("helper", 21) == MemberState("working", T0 + 20)
    # still in the file, but young: about to be taken in
    waiting = frozenset({got.id})
    facts: dict[str, Any] = {"undelivered": waiting, "oldest_undelivered": T0 + 20}
    assert t.state("helper", 30, **facts).kind == "working"
    # still in the file past the stall time: its runner is not taking it in
    stalled = t.state("helper", 20 + STALL + 1, **facts)
    assert stalled == MemberState("stalled", T0 + 20, "1 message waiting unread")
    # a member that works stays working, whatever its inbox holds
    t.say(25, "helper", "team-lead", "on it")
    assert t.state("helper", 20 + STALL + 1, **facts).kind == "working"


def test_waiting_on_a_plan_or_a_permission_until_answered() -> None:
    t = Team()
    t.say(
        5,
        "helper",
        "team-lead",
        "",
        type="plan_approval_request",
        **{
            "from": "helper",
            "timestamp": iso(5),
            "planFilePath": "/p.md",
            "planContent": "# Plan",
            "requestId": "plan_approval-1@helper",
        },
    )
    assert t.state("helper", 6) == MemberState("waiting", T0 + 5, "plan approval")
    t.say(
        7,
        "team-lead",
        "helper",
        "",
        type="plan_approval_response",
        requestId="other",
        approved=True,
    )
    assert t.state("helper", 8).kind == "waiting"  # another request's answer
    t.say(
        9,
        "team-lead",
        "helper",
        "",
        type="plan_approval_response",
        requestId="plan_approval-1@helper",
        approved=True,
        timestamp=iso(9),
    )
    assert t.state("helper", 10) == MemberState("working", T0 + 5)  # since it asked
    t.say(
        11,
        "helper",
        "team-lead",
        "",
        type="permission_request",
        request_id="perm-1",
        agent_id="helper",
        tool_name="Bash",
        tool_use_id="x",
        description="rm -rf build",
        input={},
        permission_suggestions=[],
    )
    st = t.state("helper", 12)
    assert st == MemberState("waiting", T0 + 11, "permission to use Bash: rm -rf build")
    [req] = pending(events(t.msgs, lambda s: s), lambda i: i)
    assert (req.kind, req.member, req.request_id, req.tool_name) == (
        "permission",
        "helper",
        "perm-1",
        "Bash",
    )
    t.say(
        13,
        "team-lead",
        "helper",
        "",
        type="permission_response",
        request_id="perm-1",
        subtype="success",
    )
    assert t.state("helper", 14).kind == "working"
    assert pending(events(t.msgs, lambda s: s), lambda i: i) == []


def test_gone_after_a_shutdown_or_leaving() -> None:
    t = Team()
    t.say(
        5,
        "team-lead",
        "helper",
        "",
        type="shutdown_request",
        requestId="shutdown-1@helper",
        **{"from": "team-lead"},
        reason="done",
        timestamp=iso(5),
    )
    t.say(
        6,
        "helper",
        "team-lead",
        "",
        type="shutdown_approved",
        requestId="shutdown-1@helper",
        **{"from": "helper"},
        timestamp=iso(6),
    )
    assert t.state("helper", 7) == MemberState("gone", T0 + 6, "shut down")
    assert t.state("helper", 7, left=True) == MemberState("gone", T0 + 6, "left the team")
    t.say(8, "helper", "team-lead", "back again")  # the same name spawned anew
    assert t.state("helper", 9).kind == "working"


def test_the_lead_never_idles_by_itself() -> None:
    t = Team()
    lead: dict[str, Any] = {"lead": True, "idles": False, "inbox": "team-lead"}
    assert t.state("team-lead", 1, **lead).kind == "idle"
    t.say(10, "helper", "team-lead", "HELLO")
    assert t.state("team-lead", 11, **lead) == MemberState("working", T0 + 10)
    quiet = t.state("team-lead", 10 + STALL + 1, **lead)
    assert quiet == MemberState("idle", T0 + 10, None)
    busy = Activity(last_active=T0 + 700, last_words="Reviewing", working=True)
    assert t.state("team-lead", 10 + STALL + 1, activity=busy, **lead).kind == "working"
    still = Activity(last_active=T0 + 650, last_words="All done.", working=False)
    assert t.state("team-lead", 10 + STALL + 1, activity=still, **lead).detail == "All done."
    assert t.state("team-lead", 11, lead_alive=False, **lead) == MemberState(
        "gone", None, "its process has ended"
    )


def test_pseudoclaude_idle_note_and_plan_without_ids() -> None:
    names = {"team-beta-coder-1": "coder", "lead-beta": "lead", "lead": "lead", "coder": "coder"}
    msgs: list[Message] = []

    def put(n: float, entry: dict[str, Any], inbox: str) -> None:
        entry.setdefault("timestamp", f"2026-11-30T10:00:{int(n):02d}.123456789+00:00")
        msgs.append(PSEUDOCLAUDE.message(entry, len(msgs), "pseudoclaude:beta", inbox))

    put(
        1,
        {
            "from": "lead",
            "to": "team-beta-coder-1",
            "type": "text",
            "summary": "go",
            "content": "write jwt.ts",
        },
        "team-beta-coder-1",
    )
    put(
        5,
        {
            "from": "team-beta-coder-1",
            "to": "lead-beta",
            "type": "text",
            "summary": "member idle: completed",
            "content": "All 12 tests pass",
            "payload": {"member_name": "coder", "task_id": "x", "status": "completed", "error": ""},
        },
        "lead-beta",
    )
    put(
        7,
        {
            "from": "coder",
            "to": "lead-beta",
            "type": "plan_approval_request",
            "summary": "plan",
            "content": "1. do it",
        },
        "lead-beta",
    )

    def state(now: float) -> MemberState:
        evs = events(msgs, lambda s: names.get(s, s))
        reqs = pending(evs, lambda i: names.get(i, i))
        base = epoch("2026-11-30T10:00:00Z") or 0.0
        f = Facts(name="coder", inbox="team-beta-coder-1")
        return derive(f, evs, reqs, base + now, STALL)

    assert state(8).kind == "waiting"
    put(
        9,
        {
            "from": "lead",
            "to": "team-beta-coder-1",
            "type": "plan_approval_response",
            "summary": "Plan approved",
            "content": "Plan approved",
            "payload": {"approved": True},
        },
        "team-beta-coder-1",
    )
    assert state(10).kind == "working"
    msgs.pop(), msgs.pop()
    st = state(6)
    assert st.kind == "idle" and st.detail == "All 12 tests pass"
