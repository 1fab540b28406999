"""Session transcripts (Claude Code 2.1.3xx layout, written here as Claude Code appends them):
the lead's answers to the person, each member's activity and token use, kept after the
team ends; readTranscripts off; hostile transcript files."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import call, options, rec, start, write_json
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

TEAM = "session-7a1c0de5"
SID = "7a1c0de5-0000-4000-8000-000000000001"
CWD = "/home/dev/my-app"
PROJECT = "-home-dev-my-app"
AGENT = "ahelper-0123456789abcdef"
MODEL = "claude-sonnet-4-5-20250929"
QUIET = 1.0


def session_team(home: Path) -> Path:
    team = home / ".claude" / "teams" / TEAM
    write_json(
        team / "config.json",
        {
            "name": TEAM,
            "createdAt": 1796031600000,
            "leadAgentId": f"team-lead@{TEAM}",
            "leadSessionId": SID,
            "leadProcess": {"pid": os.getpid()},
            "members": [
                {"agentId": f"team-lead@{TEAM}", "name": "team-lead", "cwd": CWD},
                {"agentId": f"helper@{TEAM}", "name": "helper", "color": "blue", "cwd": CWD},
            ],
        },
    )
    for name in ("team-lead", "helper"):
        write_json(team / "inboxes" / f"{name}.json", [])
    return team


class Rows:
    """Transcript rows as Claude Code writes them: compact JSON, one a line, appended."""

    def __init__(self, path: Path, agent: str | None = None) -> None:
        self.path = path
        self.agent = agent
        self.n = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def _base(self, kind: str) -> dict[str, Any]:
        self.n += 1
        row: dict[str, Any] = {
            "parentUuid": None,
            "isSidechain": self.agent is not None,
            "type": kind,
            "uuid": f"00000000-0000-4000-8000-{self.n:012d}"
            if self.agent is None
            else f"00000000-0000-4000-9000-{self.n:012d}",
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "cwd": CWD,
            "gitBranch": "feature/login",
            "sessionId": SID,
            "version": "2.1.332",
        }
        if self.agent:
            row["agentId"] = self.agent
        return row

    def person(self, text: str) -> dict[str, Any]:
        row = self._base("user")
        row["message"] = {
            "role": "user",
            "content": "Another Claude session sent a message:\n"
            '<teammate-message teammate_id="user" summary="asks" verified="false">\n'
            f"{text}\n</teammate-message>\n\nThis came from another Claude session.",
        }
        return row

    def said(
        self, text: str | None = None, tool: str | None = None, out: int = 10, msg: str = ""
    ) -> dict[str, Any]:
        row = self._base("assistant")
        block: dict[str, Any] = (
            {"type": "text", "text": text}
            if text is not None
            else {"type": "tool_use", "id": f"toolu_{self.n}", "name": tool, "input": {}}
        )
        row["requestId"] = f"req_{self.n}"
        row["message"] = {
            "id": msg or f"msg_{self.agent or 'lead'}_{self.n}",
            "model": MODEL,
            "role": "assistant",
            "content": [block],
            "usage": {
                "input_tokens": 1000,
                "output_tokens": out,
                "cache_read_input_tokens": 500,
                "cache_creation_input_tokens": 0,
            },
        }
        return row

    def attachment(self) -> dict[str, Any]:
        row = self._base("attachment")
        row["attachment"] = {"type": "date", "date": "2026-11-30"}
        return row

    def append(self, *rows: dict[str, Any], raw: bytes = b"") -> None:
        data = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)
        with open(self.path, "ab") as f:
            f.write(data + raw)


def transcripts(home: Path) -> tuple[Rows, Rows]:
    project = home / ".claude" / "projects" / PROJECT
    lead = Rows(project / f"{SID}.jsonl")
    sub = project / SID / "subagents"
    helper = Rows(sub / f"agent-{AGENT}.jsonl", agent=AGENT)
    write_json(
        sub / f"agent-{AGENT}.meta.json",
        {
            "agentType": "helper",
            "name": "helper",
            "teamName": TEAM,
            "color": "blue",
            "model": MODEL,
            "taskKind": "in_process_teammate",
        },
    )
    return lead, helper


def listen(client: LanguageClient) -> list[dict[str, Any]]:
    """teamInbox/activity notifications (lsp_session records the four older ones)."""
    got: list[dict[str, Any]] = []
    client.feature("teamInbox/activity")(lambda ls, params: got.append(params))
    return got


async def until(pred: Any, what: str, timeout: float = lsp_session.WAIT) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def the_team(c: LanguageClient) -> dict[str, Any]:
    teams = (await call(c, "teamInbox/teams", {}))["teams"]
    return next(t for t in teams if t["id"] == f"claude:{TEAM}")


def members(team: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in team["members"]}


async def test_lead_answers_activity_tokens_and_the_ended_team(
    client: LanguageClient, tmp_path: Path
) -> None:
    team = session_team(tmp_path)
    lead, helper = transcripts(tmp_path)
    lead.append(lead.attachment(), lead.said("LEAD-HELLO"))
    helper.append(helper.said(tool="SendMessage", out=20), helper.said("HELPER-WORKING", out=5))
    got = listen(client)
    await start(client, options(tmp_path))
    r = rec(client)

    async def counted() -> dict[str, Any] | None:
        t = await the_team(client)
        return t if t["tokens"] and members(t)["helper"]["activity"] else None

    t = await until(counted, "activity in teamInbox/teams")
    m = members(t)
    assert t["branch"] == "feature/login"
    assert m["team-lead"]["activity"]["lastWords"] == "LEAD-HELLO"
    assert m["team-lead"]["activity"]["tokens"]["input"] == 1000
    assert m["helper"]["activity"]["lastWords"] == "HELPER-WORKING"
    assert m["helper"]["activity"]["tokens"] == {
        "input": 2000,
        "output": 25,
        "cacheRead": 1000,
        "cacheWrite": 0,
        "cost": 0.006675,  # 2000 x $3 + 25 x $15 + 1000 x $0.30, per million
    }
    assert m["helper"]["activity"]["working"] is True
    assert m["helper"]["branch"] == "feature/login"
    assert abs(m["helper"]["activity"]["lastActive"] - time.time()) < 60
    assert t["tokens"]["input"] == 3000 and t["tokens"]["output"] == 35
    assert m["user"]["activity"] is None
    await until(lambda: _true(got), "a teamInbox/activity notification")
    assert got[-1]["team"] == f"claude:{TEAM}" and "helper" in got[-1]["members"]

    # the baseline was silent; now the person writes and the lead answers
    mark = r.mark()
    lead.append(lead.person("PERSON-1: status?"))
    lead.append(lead.said(tool="SendMessage"))  # a tool call first: not the answer
    # the answer arrives in two writes: half a line is not there yet
    answer = lead.said("LEAD-ANSWER-1: all good")
    line = json.dumps(answer, separators=(",", ":")).encode()
    with open(lead.path, "ab") as f:
        f.write(line[:40])
    await r.quiet(QUIET)
    assert r.since("teamInbox/replied", mark) == []
    with open(lead.path, "ab") as f:
        f.write(line[40:] + b"\n")
    replied = (await r.wait("teamInbox/replied", since=mark))["message"]
    assert replied["id"] == f"t-{answer['uuid']}"
    assert (replied["from"], replied["fromName"], replied["inbox"], replied["to"]) == (
        "team-lead",
        "team-lead",
        "user",
        "user",
    )
    assert replied["text"] == "LEAD-ANSWER-1: all good" and replied["type"] == "message"
    assert replied["archived"] is True and replied["format"] == "claude"
    assert replied["raw"] == {
        "from": "team-lead",
        "text": "LEAD-ANSWER-1: all good",
        "timestamp": answer["timestamp"],
    }
    changed = await r.wait(
        "teamInbox/didChange", lambda p: p["inbox"] == "user" and p["added"], since=mark
    )
    assert [m["id"] for m in changed["added"]] == [replied["id"]]
    # a later text is not a second answer
    lead.append(lead.said("LEAD-MORE-WORDS"))
    await r.quiet(QUIET)
    assert len(r.since("teamInbox/replied", mark)) == 1

    convo = (await call(client, "teamInbox/conversation", {"team": TEAM}))["messages"]
    # the person's message only the lead's turn shows (no inbox file here): recovered
    assert sorted((m["text"], m["recovered"]) for m in convo) == [
        ("LEAD-ANSWER-1: all good", False),
        ("PERSON-1: status?", True),
    ]
    page = await call(
        client, "teamInbox/messages", {"team": TEAM, "inbox": "user", "includeArchived": True}
    )
    assert [m["id"] for m in page["messages"]] == [replied["id"]]
    found = await call(client, "teamInbox/search", {"query": "LEAD-ANSWER-1"})
    assert [m["id"] for m in found["messages"]] == [replied["id"]]
    # only the answer and the message it answered are kept: no other words of the transcripts
    found = await call(client, "teamInbox/search", {"query": "PERSON"})
    assert [(m["text"], m["recovered"]) for m in found["messages"]] == [("PERSON-1: status?", True)]
    assert (await call(client, "teamInbox/search", {"query": "LEAD-HELLO"}))["messages"] == []

    # helper is done: Claude Code drops it from the config and (2.1.197) deletes its inbox
    config = json.loads((team / "config.json").read_text())
    config["members"] = config["members"][:1]
    write_json(team / "config.json", config)
    (team / "inboxes" / "helper.json").unlink()

    async def helper_left() -> dict[str, Any] | None:
        t = await the_team(client)
        h = members(t).get("helper")
        return t if h and h["left"] and h["activity"] else None

    t = await until(helper_left, "helper listed as a member that left, with its activity")
    before = members(t)
    # the session ends: the folder is renamed `.deleted-<uuid>`, then goes; the
    # transcripts stay (the renamed copy is not a second team to follow)
    mark = r.mark()
    deleted = team.with_name(f"{TEAM}.deleted-0f0f0f0f-0000-4000-8000-000000000000")
    os.rename(team, deleted)
    await r.wait("teamInbox/teamsChanged", since=mark)
    await r.quiet(QUIET)
    shutil.rmtree(deleted)

    async def ended() -> dict[str, Any] | None:
        t = await the_team(client)
        return t if t["ended"] else None

    t = await until(ended, "the team to end")
    m = members(t)
    assert t["tokens"] == (await until(lambda: _tokens(client), "tokens"))
    assert m["helper"]["activity"]["tokens"] == before["helper"]["activity"]["tokens"]
    assert m["helper"]["activity"]["lastActive"] == before["helper"]["activity"]["lastActive"]
    assert m["helper"]["activity"]["lastWords"] is None  # words are not kept
    assert m["team-lead"]["activity"]["working"] is False
    assert t["branch"] == "feature/login"
    convo = (await call(client, "teamInbox/conversation", {"team": f"claude:{TEAM}"}))["messages"]
    assert sorted(m["text"] for m in convo) == ["LEAD-ANSWER-1: all good", "PERSON-1: status?"]
    assert r.since("teamInbox/replied", mark) == []
    try:  # the renamed copy, if it is listed at all, has no answers of its own
        copy = await call(client, "teamInbox/conversation", {"team": f"claude:{deleted.name}"})
        assert copy["messages"] == []
    except JsonRpcException as err:
        assert lsp_session.error_code(err) == "unknown_team"
    # no longer followed (once its last reading is done): what is appended now is not read
    await r.quiet(QUIET)
    lead.append(lead.person("PERSON-2"), lead.said("LEAD-ANSWER-2"))
    await r.quiet(QUIET)
    convo = (await call(client, "teamInbox/conversation", {"team": f"claude:{TEAM}"}))["messages"]
    assert sorted(m["text"] for m in convo) == ["LEAD-ANSWER-1: all good", "PERSON-1: status?"]


async def _true(got: list[Any]) -> bool:
    return bool(got)


async def _tokens(c: LanguageClient) -> Any:
    return (await the_team(c))["tokens"]


async def test_restart_replies_once_and_catches_up(tmp_path: Path) -> None:
    session_team(tmp_path)
    lead, _ = transcripts(tmp_path)
    lead.append(lead.said("HELLO"))
    first = await lsp_session.start_server(tmp_path)
    try:
        await until(lambda: _tokens(first), "tokens")
        lead.append(lead.person("PERSON-1"), lead.said("ANSWER-1"))
        await rec(first).wait("teamInbox/replied")
    finally:
        await lsp_session.stop_server(first)
    # while the sidecar is away the person writes again and the lead answers
    lead.append(lead.person("PERSON-2"), lead.said("ANSWER-2"))
    second = await lsp_session.start_server(tmp_path)
    try:
        r = rec(second)
        got = await r.wait("teamInbox/replied")
        assert got["message"]["text"] == "ANSWER-2"  # news: the team was followed before
        await r.quiet(QUIET)
        assert [p["message"]["text"] for p in r.since("teamInbox/replied")] == ["ANSWER-2"]
        convo = (await call(second, "teamInbox/conversation", {"team": TEAM}))["messages"]
        assert sorted(m["text"] for m in convo) == ["ANSWER-1", "ANSWER-2", "PERSON-1", "PERSON-2"]
    finally:
        await lsp_session.stop_server(second)


async def test_a_team_that_ended_while_away_is_read_to_its_end(tmp_path: Path) -> None:
    team = session_team(tmp_path)
    lead, helper = transcripts(tmp_path)
    lead.append(lead.said("HELLO"))
    first = await lsp_session.start_server(tmp_path)
    try:
        await until(lambda: _tokens(first), "tokens")
    finally:
        await lsp_session.stop_server(first)
    helper.append(helper.said("LATE", out=7))
    lead.append(lead.person("PERSON-1"), lead.said("ANSWER-LATE"))
    shutil.rmtree(team)
    second = await lsp_session.start_server(tmp_path)
    try:

        async def final() -> Any:
            t = await the_team(second)
            a = members(t)["helper"]["activity"] if "helper" in members(t) else None
            return t if t["ended"] and a and a["tokens"]["output"] == 7 else None

        t = await until(final, "the ended team's last reading")
        assert t["tokens"]["output"] == 27  # HELLO 10, LATE 7, ANSWER-LATE 10
        convo = (await call(second, "teamInbox/conversation", {"team": TEAM}))["messages"]
        assert sorted(m["text"] for m in convo) == ["ANSWER-LATE", "PERSON-1"]
        assert rec(second).since("teamInbox/replied") == []  # an ended team: archived only
    finally:
        await lsp_session.stop_server(second)


async def test_read_transcripts_off_never_reads_them(
    client: LanguageClient, tmp_path: Path
) -> None:
    session_team(tmp_path)
    lead, _ = transcripts(tmp_path)
    lead.append(lead.said("HELLO"))
    got = listen(client)
    await start(client, options(tmp_path, readTranscripts=False))
    r = rec(client)
    lead.append(lead.person("PERSON-1"), lead.said("ANSWER-1"))
    await r.quiet(QUIET + 1.5)
    t = await the_team(client)
    assert t["tokens"] is None and t["branch"] is None
    assert all(m["activity"] is None for m in t["members"])
    assert r.since("teamInbox/replied") == [] and got == []
    assert (await call(client, "teamInbox/conversation", {"team": TEAM}))["messages"] == []
    server = client._server
    assert server is not None
    fds = Path(f"/proc/{server.pid}/fd")
    if fds.is_dir():
        opened = {os.readlink(fd) for fd in fds.iterdir() if fd.is_symlink()}
        assert not [p for p in opened if "/projects/" in p], opened


async def test_hostile_transcripts_neither_hang_nor_crash(
    client: LanguageClient, tmp_path: Path
) -> None:
    session_team(tmp_path)
    project = tmp_path / ".claude" / "projects" / PROJECT
    sub = project / SID / "subagents"
    sub.mkdir(parents=True)
    os.mkfifo(project / f"{SID}.jsonl")  # the lead's transcript is a FIFO
    os.symlink(sub / "agent-loop.jsonl", sub / "agent-loop.jsonl")  # a symlink to itself
    write_json(sub / "agent-loop.meta.json", {"name": "helper", "teamName": TEAM})
    huge = Rows(sub / f"agent-{AGENT}.jsonl", agent=AGENT)
    write_json(sub / f"agent-{AGENT}.meta.json", {"name": "helper", "teamName": TEAM})
    # a line of 9 MB (skipped without being held whole), then a good row
    huge.append(raw=b'{"type":"assistant","pad":"' + b"x" * (9 * 1024 * 1024) + b'"}\n')
    huge.append(huge.said("AFTER-THE-HUGE-LINE", out=3), raw=b"{not json\n")
    await start(client, options(tmp_path))

    async def helper_read() -> Any:
        t = await asyncio.wait_for(the_team(client), 5)
        a = members(t)["helper"]["activity"]
        return a if a and a["lastWords"] == "AFTER-THE-HUGE-LINE" else None

    # the FIFO: not followed (so no lead activity), the teams answer comes at once
    a = await until(helper_read, "helper's row after the huge line")
    assert a["tokens"]["output"] == 3
    t = await the_team(client)
    assert (
        members(t)["team-lead"]["activity"] is None
        or members(t)["team-lead"]["activity"]["tokens"]["input"] == 0
    )
    # the FIFO replaced by a real transcript: followed from then on
    fifo = project / f"{SID}.jsonl"
    fifo.unlink()
    lead = Rows(fifo)
    lead.append(lead.said("LEAD-BACK"))

    async def lead_back() -> Any:
        a = members(await the_team(client))["team-lead"]["activity"]
        return a if a and a["lastWords"] == "LEAD-BACK" else None

    await until(lead_back, "the lead's transcript after the FIFO went")
