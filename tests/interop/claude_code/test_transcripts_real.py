"""The REAL `teaminbox serve` reading a real Claude Code session's transcripts.

The `cc` fixture's server ran through the whole scripted session with the default
`readTranscripts: true`. The person wrote to the lead three times (PERSON-TO-LEAD-1,
PERSON-TASKS, PERSON-SHUTDOWN); Claude Code put each in the lead's transcript as a
`<teammate-message teammate_id="user">` row (2.1.197: sometimes in one row with helper's
idle notification; 2.1.332: with `verified="false"`), and the lead's next assistant text
answered it (LEAD-ANSWER-PERSON-1, LEAD-TASK-ASSIGNED, LEAD-SHUTDOWN-SENT). After the
session, a second server is started on the same history: the team folder is gone by then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from . import scenario as sc
from .conftest import CcRun
from .sidecar_client import Sidecar

ANSWERS = (sc.LEAD_ANSWER, sc.LEAD_TASK_ASSIGNED, sc.LEAD_SHUTDOWN_SENT)


def lead_rows(cc: CcRun) -> list[dict[str, Any]]:
    return cc.transcript_rows(f"{cc.project_dir()}/{cc.lead_session_id()}.jsonl")


def helper_rows(cc: CcRun) -> list[dict[str, Any]]:
    sub = cc.session.claude_dir / cc.project_dir() / cc.lead_session_id() / "subagents"
    [path] = sorted(sub.glob("agent-*.jsonl"))
    return cc.transcript_rows(str(path.relative_to(cc.session.claude_dir)))


def said_row(rows: list[dict[str, Any]], text: str) -> dict[str, Any]:
    hits = [
        r
        for r in rows
        if r.get("type") == "assistant"
        and any(isinstance(b, dict) and b.get("text") == text for b in r["message"]["content"])
    ]
    assert hits, f"{text!r} is in no assistant row"
    return hits[0]


def usage_sum(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """input and output tokens, each message counted once (one row per content block)."""
    by_id: dict[str, tuple[int, int]] = {}
    for r in rows:
        if r.get("type") == "assistant":
            u = r["message"].get("usage") or {}
            by_id[r["message"]["id"]] = (u.get("input_tokens", 0), u.get("output_tokens", 0))
    return sum(i for i, _ in by_id.values()), sum(o for _, o in by_id.values())


def replied(cc: CcRun) -> list[dict[str, Any]]:
    return [p["message"] for p in cc.server.notifications.get("teamInbox/replied", [])]


def from_transcript(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in msgs if str(m.get("id", "")).startswith("t-")]


@dataclass
class Reopened:
    """A second server on the session's history, after the team folder was deleted."""

    teams: Any = None
    conversation: Any = None
    own: Any = None
    search: Any = None
    replied: list[Any] = field(default_factory=list)


@pytest.fixture(scope="module")
def reopened(cc: CcRun) -> Reopened:
    cc.require_server()
    assert not (cc.session.claude_dir / cc.team_dir).exists()
    sidecar = Sidecar(cc.home).start()
    out = Reopened()
    try:
        team = cc.server.team_id
        out.teams = sidecar.call("teamInbox/teams", {})
        out.conversation = sidecar.call("teamInbox/conversation", {"team": team})
        out.own = sidecar.call(
            "teamInbox/messages", {"team": team, "inbox": "user", "includeArchived": True}
        )
        out.search = sidecar.call("teamInbox/search", {"query": f'"{sc.LEAD_ANSWER}"'})
        out.replied = sidecar.notifications("teamInbox/replied")
    finally:
        sidecar.stop()
    return out


def test_the_leads_answers_reach_the_client_as_replied(cc: CcRun) -> None:
    cc.require_server()
    rows = lead_rows(cc)
    got = from_transcript(replied(cc))
    assert sorted(m["text"] for m in got) == sorted(ANSWERS), [m["text"] for m in replied(cc)]
    for text in ANSWERS:
        [m] = [m for m in got if m["text"] == text]
        row = said_row(rows, text)
        assert m["id"] == f"t-{row['uuid']}"
        assert m["timestamp"] == row["timestamp"]
        assert (m["from"], m["fromName"], m["to"], m["inbox"]) == (
            "team-lead",
            "team-lead",
            "user",
            "user",
        )
        assert (m["type"], m["format"], m["team"]) == ("message", "claude", cc.server.team_id)
        assert m["archived"] is True and m["structured"] is None
        assert m["raw"] == {"from": "team-lead", "text": text, "timestamp": row["timestamp"]}
    # what the lead said to helper (or after helper's message) is no answer to the person
    texts = {m["text"] for m in replied(cc)}
    assert not texts & {sc.LEAD_ACK, sc.LEAD_RELAY}, texts


def test_the_answer_is_served_in_the_persons_inbox_before_exit(cc: CcRun) -> None:
    cc.require_server()
    own = cc.server.messages.get("user")
    assert own is not None, sorted(cc.server.messages)
    hits = [m for m in own["messages"] if m["text"] == sc.LEAD_ANSWER]
    assert len(hits) == 1, [m["text"] for m in own["messages"]]
    assert (hits[0]["from"], hits[0]["archived"]) == ("team-lead", True)


def test_the_answers_are_kept_after_the_session_ends(cc: CcRun, reopened: Reopened) -> None:
    msgs = reopened.conversation["messages"]
    answers = [m for m in msgs if m["text"] in ANSWERS]
    assert sorted(m["text"] for m in answers) == sorted(ANSWERS), [m["text"] for m in msgs]
    assert all(m["from"] == "team-lead" and m["inbox"] == "user" for m in answers)
    assert [m["text"] for m in from_transcript(msgs)] == [m["text"] for m in answers]
    own = [m["text"] for m in reopened.own["messages"]]
    assert set(ANSWERS) <= set(own), own
    assert [m["text"] for m in reopened.search["messages"]] == [sc.LEAD_ANSWER]
    assert from_transcript(p["message"] for p in reopened.replied) == []  # once, not again
    # only the answers: nothing else the transcripts hold is in the history
    assert not [m for m in msgs if m["text"] in (sc.LEAD_ACK, sc.LEAD_RELAY, sc.HELPER_IDLE_1)]


def _member(team: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in team["members"] if m["name"] == name)


def _team(teams: Any, team_id: str) -> dict[str, Any]:
    [team] = [t for t in teams["teams"] if t["id"] == team_id]
    return team


def test_a_teammates_token_use_and_last_activity(cc: CcRun) -> None:
    """Before /exit: helper's activity from its subagent transcript (helper has left the
    config by then: it is a `left` member, still with its activity)."""
    cc.require_server()
    team = _team(cc.server.teams, cc.server.team_id)
    helper = _member(team, "helper")
    a = helper["activity"]
    assert a is not None, helper
    rows = helper_rows(cc)
    assert (a["tokens"]["input"], a["tokens"]["output"]) == usage_sum(rows)
    assert a["tokens"]["input"] > 0 and a["tokens"]["cost"] > 0
    served = [q.usage for q in cc.requests("teammate:helper") if q.usage]
    assert a["tokens"]["output"] == sum(u["output_tokens"] for u in served)
    stamps = [r["timestamp"] for r in rows if isinstance(r.get("timestamp"), str)]
    from teaminbox.timestamps import epoch

    assert a["lastActive"] == max(epoch(s) or 0.0 for s in stamps)
    assert a["lastWords"] == sc.HELPER_TASK_DONE
    lead = _member(team, "team-lead")["activity"]
    assert lead is not None and lead["lastWords"] is not None
    assert (lead["tokens"]["input"], lead["tokens"]["output"]) == usage_sum(lead_rows(cc))
    assert team["tokens"]["input"] == lead["tokens"]["input"] + a["tokens"]["input"]
    assert team["branch"] is None  # `HEAD`: the scratch folder is no git repository
    assert _member(team, "user")["activity"] is None


def test_the_ended_team_keeps_its_token_use(cc: CcRun, reopened: Reopened) -> None:
    team = _team(reopened.teams, cc.server.team_id)
    assert team["ended"] is True
    before = _team(cc.server.teams, cc.server.team_id)
    helper = _member(team, "helper")["activity"]
    assert helper is not None
    assert helper["tokens"] == _member(before, "helper")["activity"]["tokens"]
    assert helper["lastActive"] == _member(before, "helper")["activity"]["lastActive"]
    assert helper["lastWords"] is None and helper["working"] is False  # words are not kept
    lead_in, lead_out = usage_sum(lead_rows(cc))
    help_in, help_out = usage_sum(helper_rows(cc))
    assert (team["tokens"]["input"], team["tokens"]["output"]) == (
        lead_in + help_in,
        lead_out + help_out,
    )
    # Claude Code 2.1.3xx writes its own cost for the whole session (lead and in-process
    # teammates): our estimate from the price table matches it for these Sonnet tokens
    costs = [r for r in lead_rows(cc) if r.get("type") == "cost-state"]
    if cc.version.startswith("2.1.1"):
        assert not costs  # 2.1.197 keeps no cost in the transcript
    elif costs:
        usage = costs[-1]["modelUsage"]
        assert team["tokens"]["input"] == sum(u["inputTokens"] for u in usage.values())
        assert team["tokens"]["cost"] == pytest.approx(costs[-1]["totalCostUSD"], abs=1e-6)
