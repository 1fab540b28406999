"""Teams that lived while no sidecar ran (Claude Code 2.1.332's transcripts, written here as
it appends them): a session that started and ended with the editor closed, its team folder
deleted, appears as an ended team with every SendMessage of its lead and teammates, its
members, its task list; in the teams answer, the conversation, search and the agent tools;
across a restart, once. A session without teammates, or one whose team another session
used, is no team here. Recovered replies toast by the same policy as live ones, only when
written after the sidecar started, once."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import call, claude_inbox, rec, write_json
from pytest_lsp import LanguageClient
from test_recover import (
    AGENT,
    TID,
    Transcript,
    by_text,
    control_entry,
    has,
    make_team,
    stamp,
    transcripts,
    until,
)

GONE = "session-0ff1c0de"
GONE_TID = f"claude:{GONE}"
GONE_SID = "0ff1c0de-0000-4000-8000-000000000001"
TESTER = "atester-00000000000000bb"


def closed_session(home: Path, sid: str = GONE_SID, team: str = GONE) -> dict[str, Transcript]:
    """A session that ran and ended while no sidecar ran: its folder under teams/ is gone,
    its transcripts and its task list stay."""
    project = home / ".claude" / "projects" / "-home-dev-closed"
    lead = Transcript(project / f"{sid}.jsonl", None, "team-lead", None)
    sub = project / sid / "subagents"
    helper = Transcript(sub / f"agent-{AGENT}.jsonl", AGENT, "helper", "blue")
    tester = Transcript(sub / f"agent-{TESTER}.jsonl", TESTER, "tester", "green")
    for agent, name, color in ((AGENT, "helper", "blue"), (TESTER, "tester", "green")):
        write_json(
            sub / f"agent-{agent}.meta.json",
            {
                "agentType": "general-purpose",
                "name": name,
                "teamName": team,
                "color": color,
                "taskKind": "in_process_teammate",
            },
        )
    # the lead's own subagent (the Task tool): no team's member
    write_json(sub / "agent-aplain-000000000000000cc.meta.json", {"agentType": "Explore"})
    (sub / "agent-aplain-000000000000000cc.jsonl").write_text("")
    return {"lead": lead, "helper": helper, "tester": tester}


def conversation_rows(sessions: dict[str, Transcript]) -> None:
    t = sessions
    t["lead"].append(t["lead"].send("helper", "CLOSED-LEAD-TO-HELPER", "m-c-1", stamp(1)))
    t["helper"].append(
        t["helper"].send("team-lead", "CLOSED-HELPER-REPORT", "m-c-2", stamp(2))
        + t["helper"].send("tester", "CLOSED-HELPER-TO-TESTER", "m-c-3", stamp(3))
        + t["helper"].send("user", "CLOSED-REFUSED", None, stamp(4))
    )
    t["tester"].append(t["tester"].send("team-lead", "CLOSED-TESTER-DONE", "m-c-4", stamp(5)))


EXPECTED = [
    ("m-c-1", "team-lead", "helper", "CLOSED-LEAD-TO-HELPER"),
    ("m-c-2", "helper", "team-lead", "CLOSED-HELPER-REPORT"),
    ("m-c-3", "helper", "tester", "CLOSED-HELPER-TO-TESTER"),
    ("m-c-4", "tester", "team-lead", "CLOSED-TESTER-DONE"),
]


def ended_team(c: LanguageClient, tid: str) -> Any:
    async def check() -> dict[str, Any] | None:
        teams = (await call(c, "teamInbox/teams", {}))["teams"]
        return next((t for t in teams if t["id"] == tid), None)

    return check


async def test_a_session_that_lived_while_closed_is_an_ended_team(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "teams").mkdir(parents=True)
    conversation_rows(closed_session(tmp_path))
    board = tmp_path / ".claude" / "tasks" / GONE
    write_json(
        board / "1.json",
        {
            "id": "1",
            "subject": "Write the report",
            "status": "completed",
            "description": "",
            "blocks": [],
            "blockedBy": [],
            "owner": "helper",
        },
    )
    # a session without teammates: no team
    plain = tmp_path / ".claude" / "projects" / "-home-dev-closed"
    Transcript(plain / "11110000-0000-4000-8000-000000000001.jsonl", None, "team-lead", None)

    c = await lsp_session.start_server(tmp_path, notify="all")
    try:
        r = rec(c)
        team = await until(ended_team(c, GONE_TID), "the rebuilt team")
        assert team["ended"] is True
        members = [(m["name"], m["color"], m["lead"]) for m in team["members"]]
        assert members[:3] == [
            ("team-lead", None, True),
            ("helper", "blue", False),
            ("tester", "green", False),
        ]
        assert team["project"] == "recover"  # the lead's cwd in its transcript
        assert team["createdAt"] is not None
        msgs = await until(has_team(c, *[e[3] for e in EXPECTED]), "every send")
        got = sorted((m["id"], m["from"], m["inbox"], m["text"]) for m in msgs)
        assert got == EXPECTED
        assert all(m["recovered"] and m["archived"] for m in msgs)
        teams = (await call(c, "teamInbox/teams", {}))["teams"]
        assert [t["id"] for t in teams] == [GONE_TID]  # the plain session is no team
        found = await call(c, "teamInbox/search", {"query": "CLOSED-TESTER-DONE"})
        assert [(m["id"], m["team"]) for m in found["messages"]] == [("m-c-4", GONE_TID)]
        tasks = (await call(c, "teamInbox/tasks", {"team": GONE_TID}))["tasks"]
        assert [(t["subject"], t["owner"]) for t in tasks] == [("Write the report", "helper")]
        listed = await call(
            c, "teamInbox/callTool", {"name": "list_teams", "input": {"include_ended": True}}
        )
        assert GONE_TID in str(listed["result"])
        read = await call(
            c,
            "teamInbox/callTool",
            {"name": "read_messages", "input": {"team": GONE_TID, "inbox": "team-lead"}},
        )
        assert "CLOSED-TESTER-DONE" in str(read["result"])
        assert "CLOSED-HELPER-REPORT" in str(read["result"])
        assert r.since("teamInbox/replied") == []  # its past is no news
    finally:
        await lsp_session.stop_server(c)

    # the task list deleted (Claude Code empties a finished one): the history kept it
    for f in board.iterdir():
        f.unlink()
    c = await lsp_session.start_server(tmp_path, notify="all")
    try:
        team = await until(ended_team(c, GONE_TID), "the team after a restart")
        assert team["ended"] is True
        msgs = (await call(c, "teamInbox/conversation", {"team": GONE_TID}))["messages"]
        assert sorted(m["id"] for m in msgs) == [e[0] for e in EXPECTED]  # once each
        tasks = (await call(c, "teamInbox/tasks", {"team": GONE_TID}))["tasks"]
        assert [t["subject"] for t in tasks] == ["Write the report"]
        assert rec(c).since("teamInbox/replied") == []
    finally:
        await lsp_session.stop_server(c)


async def test_a_later_start_reads_only_what_changed(tmp_path: Path) -> None:
    """The second start finds the session as it was: it reads none of its transcripts (a
    row appended to one it would read is not taken in); a grown session is read again."""
    (tmp_path / ".claude" / "teams").mkdir(parents=True)
    t = closed_session(tmp_path)
    conversation_rows(t)
    c = await lsp_session.start_server(tmp_path)
    try:
        await until(has_team(c, "CLOSED-TESTER-DONE"), "the rebuilt team")
    finally:
        await lsp_session.stop_server(c)
    # a teammate's transcript grows, its folder's and the lead's stats unchanged
    lead_stat = t["lead"].path.stat()
    sub = t["helper"].path.parent
    sub_stat = sub.stat()
    t["helper"].append(t["helper"].send("team-lead", "UNREAD-GROWTH", "m-c-5", stamp(6)))
    os.utime(sub, ns=(sub_stat.st_atime_ns, sub_stat.st_mtime_ns))
    assert t["lead"].path.stat().st_mtime_ns == lead_stat.st_mtime_ns
    c = await lsp_session.start_server(tmp_path)
    try:
        await until(ended_team(c, GONE_TID), "the team after a restart")
        await call(c, "teamInbox/teams", {})
        msgs = (await call(c, "teamInbox/conversation", {"team": GONE_TID}))["messages"]
        assert "UNREAD-GROWTH" not in {m["text"] for m in msgs}
        # the lead's transcript grows (the session went on): read again, what it lacks added
        t["lead"].append(t["lead"].send("tester", "LEAD-LATER", "m-c-6", stamp(7)))
    finally:
        await lsp_session.stop_server(c)
    c = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has_team(c, "LEAD-LATER", "UNREAD-GROWTH"), "the grown session")
        assert sorted(m["id"] for m in msgs) == [e[0] for e in EXPECTED] + ["m-c-5", "m-c-6"]
    finally:
        await lsp_session.stop_server(c)


async def test_a_session_older_than_the_history_keeps_is_not_rebuilt(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "teams").mkdir(parents=True)
    t = closed_session(tmp_path)
    conversation_rows(t)
    old = time.time() - 40 * 86400
    os.utime(t["lead"].path, (old, old))
    fresh = closed_session(tmp_path, "0ff1c0de-0000-4000-8000-000000000002", "session-0ff1c0df")
    fresh["helper"].append(fresh["helper"].send("team-lead", "FRESH", "m-fresh", stamp(1)))
    c = await lsp_session.start_server(tmp_path, historyDays=30)
    try:
        await until(ended_team(c, "claude:session-0ff1c0df"), "the fresh session's team")
        teams = (await call(c, "teamInbox/teams", {}))["teams"]
        assert [t["id"] for t in teams] == ["claude:session-0ff1c0df"]
    finally:
        await lsp_session.stop_server(c)


def has_team(c: LanguageClient, *texts: str) -> Any:
    async def check() -> list[dict[str, Any]] | None:
        try:
            got: list[dict[str, Any]] = (
                await call(c, "teamInbox/conversation", {"team": GONE_TID})
            )["messages"]
        except Exception:  # not there yet: an unknown team
            return None
        return got if set(texts) <= {m["text"] for m in got} else None

    return check


async def test_a_team_name_another_session_used_is_left_alone(tmp_path: Path) -> None:
    """The history knows the team from the live session: an older session of the same name
    adds nothing to it; the live session's sends before the start are archived (by the
    follow passes)."""
    make_team(tmp_path)  # session-5e1d0000, live
    lead, helper = transcripts(tmp_path)
    helper.append(helper.send("team-lead", "LIVE-SESSION-EARLY", "m-early", stamp(1)))
    old = closed_session(tmp_path, "5e1d0000-0000-4000-8000-0000000000ff", "session-5e1d0000")
    old["helper"].append(old["helper"].send("team-lead", "OTHER-SESSION", "m-other", stamp(2)))
    c = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has(c, "LIVE-SESSION-EARLY"), "the live session's early send")
        teams = (await call(c, "teamInbox/teams", {}))["teams"]
        assert [(t["id"], t["ended"]) for t in teams] == [(TID, False)]
    finally:
        await lsp_session.stop_server(c)
    c = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has(c, "LIVE-SESSION-EARLY"), "the history")
        assert "OTHER-SESSION" not in {m["text"] for m in msgs}
    finally:
        await lsp_session.stop_server(c)


def now_stamp() -> str:
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


async def test_a_reply_recovered_during_a_stall_toasts_once(tmp_path: Path) -> None:
    """Written after the sidecar started, pruned before it read the file: the same toast a
    live one gets, once, also when the file shows the entry after all; an old one none."""
    make_team(tmp_path)
    _, helper = transcripts(tmp_path)
    c = await lsp_session.start_server(tmp_path, notify="messages")
    try:
        r = rec(c)
        mark = r.mark()
        helper.append(
            helper.send("team-lead", "STALL-OLD", "m-stall-old", stamp(1))
            + helper.send("team-lead", "STALL-NEW", "m-stall-new", now_stamp())
        )
        await r.wait(
            "teamInbox/replied",
            lambda p: p["message"]["text"] == "STALL-NEW",
            since=mark,
            timeout=20,
        )
        # the file shows it after all (a slow look), then the lead prunes it
        inbox = claude_inbox(tmp_path, "session-5e1d0000", "team-lead")
        write_json(inbox, [control_entry("STALL-NEW", "m-stall-new")])

        async def from_file() -> list[dict[str, Any]] | None:
            got = by_text(await call_convo(c))["STALL-NEW"]
            return got if not got[0]["recovered"] else None

        await until(from_file, "the file's entry")
        write_json(inbox, [])
        lsp_session.py_append(inbox, [control_entry("STALL-CONTROL", "m-stall-control")])
        await r.wait(
            "teamInbox/replied",
            lambda p: p["message"]["text"] == "STALL-CONTROL",
            since=mark,
            timeout=20,
        )
        toasted = [p["message"]["text"] for p in r.since("teamInbox/replied")]
        assert toasted == ["STALL-NEW", "STALL-CONTROL"], toasted
    finally:
        await lsp_session.stop_server(c)


async def call_convo(c: LanguageClient) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = (await call(c, "teamInbox/conversation", {"team": TID}))["messages"]
    return got
