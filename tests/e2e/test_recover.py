"""Messages Claude Code pruned before the sidecar read them, recovered from the senders'
transcripts (Claude Code 2.1.332's rows, written here as it appends them): at the start,
while running, across a restart; once each, marked `recovered`, never a toast; a message
the file capture saw is neither repeated nor changed; a hostile row is skipped."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import call, claude_inbox, options, rec, start, write_json
from pytest_lsp import LanguageClient

TEAM = "session-5e1d0000"
TID = f"claude:{TEAM}"
SID = "5e1d0000-0000-4000-8000-000000000001"
CWD = "/home/dev/recover"
AGENT = "ahelper-00000000000000aa"


def make_team(home: Path) -> None:
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


class Transcript:
    """One transcript, appended as Claude Code appends it: a SendMessage call's assistant
    row, then the user row with its result (`toolUseResult` and the block's text)."""

    def __init__(self, path: Path, agent: str | None, sender: str, color: str | None) -> None:
        self.path, self.agent, self.sender, self.color = path, agent, sender, color
        self.n = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def _row(self, kind: str, ts: str) -> dict[str, Any]:
        self.n += 1
        row: dict[str, Any] = {
            "parentUuid": None,
            "isSidechain": self.agent is not None,
            "type": kind,
            "uuid": f"00000000-0000-4000-{'9' if self.agent else '8'}000-{self.n:012d}",
            "timestamp": ts,
            "cwd": CWD,
            "sessionId": SID,
            "version": "2.1.332",
        }
        if self.agent:
            row["agentId"] = self.agent
        return row

    def send(self, to: str, text: str, msg_id: str | None, ts: str) -> list[dict[str, Any]]:
        """A send that wrote `msg_id` (None: refused, as to `user`)."""
        tid = f"toolu_{self.sender}_{self.n}"
        call_row = self._row("assistant", ts)
        call_row["message"] = {
            "id": f"msg_{tid}",
            "model": "claude-sonnet-4-5-20250929",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": tid,
                    "name": "SendMessage",
                    "input": {
                        "to": to,
                        "message": text,
                        "summary": f"sum {text}",
                        "type": "message",
                        "recipient": to,
                        "recipient_kind": "name",
                        "content": text,
                    },
                }
            ],
            "usage": {"input_tokens": 10, "output_tokens": 2},
        }
        result: dict[str, Any] = (
            {
                "success": True,
                "message": f"Message sent to {to}'s inbox",
                "msg_id": msg_id,
                "routing": {
                    "sender": self.sender,
                    "target": f"@{to}",
                    "summary": f"sum {text}",
                    "content": text[:50],
                    **({"senderColor": self.color} if self.color else {}),
                },
            }
            if msg_id
            else {"success": False, "message": f"No agent named '{to}' is reachable."}
        )
        result_row = self._row("user", ts)
        result_row["message"] = {
            "role": "user",
            "content": [
                {
                    "tool_use_id": tid,
                    "type": "tool_result",
                    "content": [{"type": "text", "text": json.dumps(result)}],
                }
            ],
        }
        result_row["toolUseResult"] = result
        return [call_row, result_row]

    def append(self, rows: list[dict[str, Any]], raw: bytes = b"") -> None:
        data = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in rows)
        with open(self.path, "ab") as f:
            f.write(raw + data)


def transcripts(home: Path) -> tuple[Transcript, Transcript]:
    project = home / ".claude" / "projects" / "-home-dev-recover"
    lead = Transcript(project / f"{SID}.jsonl", None, "team-lead", None)
    sub = project / SID / "subagents"
    helper = Transcript(sub / f"agent-{AGENT}.jsonl", AGENT, "helper", "blue")
    write_json(
        sub / f"agent-{AGENT}.meta.json",
        {"agentType": "helper", "name": "helper", "teamName": TEAM, "color": "blue"},
    )
    return lead, helper


def stamp(second: int) -> str:
    return f"2026-12-01T10:00:{second:02d}.400Z"


async def until(pred: Any, what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def conversation(c: LanguageClient) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = (await call(c, "teamInbox/conversation", {"team": TID}))["messages"]
    return got


def by_text(msgs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for m in msgs:
        out.setdefault(m["text"], []).append(m)
    return out


def has(c: LanguageClient, *texts: str) -> Any:
    """A check for `until`: the conversation once it holds every one of `texts`."""

    async def check() -> list[dict[str, Any]] | None:
        msgs = await conversation(c)
        return msgs if set(texts) <= {m["text"] for m in msgs} else None

    return check


def control_entry(text: str, msg_id: str) -> dict[str, Any]:
    """helper's message as Claude Code writes it into team-lead.json."""
    return lsp_session.entry(
        "helper",
        text,
        time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
        summary=f"sum {text}",
        color="blue",
        msgV=1,
        msg_id=msg_id,
        type="message",
    )


async def toasts_settled(c: LanguageClient, home: Path, text: str, msg_id: str) -> list[str]:
    """A message the capture sees, which does toast: once its `replied` came, any toast for
    what came before it has come too (one stdio stream, in order). The texts toasted."""
    r = rec(c)
    lsp_session.py_append(claude_inbox(home, TEAM, "team-lead"), [control_entry(text, msg_id)])
    await r.wait("teamInbox/replied", lambda p: p["message"]["text"] == text, timeout=20)
    return [p["message"]["text"] for p in r.since("teamInbox/replied")]


async def test_pruned_sends_are_recovered_once_at_start_live_and_after_a_restart(
    tmp_path: Path,
) -> None:
    make_team(tmp_path)
    lead, helper = transcripts(tmp_path)
    # Claude Code delivered and pruned these while Team Inbox was closed
    helper.append(
        helper.send("team-lead", "GONE-1", "m-gone-1", stamp(1))
        + helper.send("team-lead", "GONE-2", "m-gone-2", stamp(2))
        + helper.send("user", "REFUSED", None, stamp(3))
    )
    lead.append(lead.send("helper", "LEAD-GONE", "m-lead-gone", stamp(4)))
    # this one is still in team-lead.json: the file capture reads it (its own time)
    seen = control_entry("STILL-THERE", "m-seen") | {"timestamp": "2026-12-01T10:00:05.111Z"}
    write_json(claude_inbox(tmp_path, TEAM, "team-lead"), [seen])
    helper.append(helper.send("team-lead", "STILL-THERE", "m-seen", stamp(6)))
    # a truncated row and one that is no JSON, then a send that counts
    helper.append(
        helper.send("team-lead", "AFTER-HOSTILE", "m-after", stamp(7)),
        raw=b'{"type":"user","message":{"content":[{"tool_use_id":"x","msg_id"\n[1,2]\n',
    )

    c = await lsp_session.start_server(tmp_path, notify="messages")
    try:
        r = rec(c)
        msgs = await until(has(c, "GONE-1", "GONE-2", "LEAD-GONE", "AFTER-HOSTILE"), "the recovery")
        got = by_text(msgs)
        assert all(len(v) == 1 for v in got.values()), got  # nothing twice
        assert set(got) == {"GONE-1", "GONE-2", "LEAD-GONE", "STILL-THERE", "AFTER-HOSTILE"}
        for text, msg_id, sender, inbox, second in (
            ("GONE-1", "m-gone-1", "helper", "team-lead", 1),
            ("GONE-2", "m-gone-2", "helper", "team-lead", 2),
            ("LEAD-GONE", "m-lead-gone", "team-lead", "helper", 4),
            ("AFTER-HOSTILE", "m-after", "helper", "team-lead", 7),
        ):
            [m] = got[text]
            assert (m["id"], m["from"], m["fromName"], m["inbox"], m["to"]) == (
                msg_id,
                sender,
                sender,
                inbox,
                inbox,
            )
            assert (m["recovered"], m["archived"], m["delivery"]) == (True, True, "delivered")
            assert (m["timestamp"], m["summary"], m["type"]) == (
                stamp(second),
                f"sum {text}",
                "message",
            )
            assert m["color"] == ("blue" if sender == "helper" else None)
        [kept] = got["STILL-THERE"]  # the capture's: not repeated, not changed
        assert (kept["id"], kept["recovered"], kept["timestamp"]) == (
            "m-seen",
            False,
            "2026-12-01T10:00:05.111Z",
        )
        page = await call(
            c,
            "teamInbox/messages",
            {"team": TID, "inbox": "team-lead", "includeArchived": True},
        )
        assert sorted(m["id"] for m in page["messages"]) == [
            "m-after",
            "m-gone-1",
            "m-gone-2",
            "m-seen",
        ]
        found = await call(c, "teamInbox/search", {"query": "GONE-2"})
        assert [(m["id"], m["recovered"]) for m in found["messages"]] == [("m-gone-2", True)]

        # while it runs: two sends whose entries it never reads (pruned unseen)
        mark = r.mark()
        helper.append(
            helper.send("team-lead", "LIVE-1", "m-live-1", stamp(8))
            + helper.send("team-lead", "LIVE-2", "m-live-2", stamp(9))
        )
        changed = await r.wait(
            "teamInbox/didChange",
            lambda p: p["inbox"] == "team-lead" and any(m["text"] == "LIVE-2" for m in p["added"]),
            since=mark,
            timeout=20,
        )
        added = {m["text"]: m for m in changed["added"]}
        assert added["LIVE-2"]["recovered"] and added["LIVE-2"]["archived"]
        # helper's message the capture reads does toast; none of the recovered ones did
        toasted = await toasts_settled(c, tmp_path, "CONTROL-1", "m-control-1")
        assert toasted == ["CONTROL-1"], toasted
    finally:
        await lsp_session.stop_server(c)

    # a restart: the history holds them; the transcripts read again add nothing
    c = await lsp_session.start_server(tmp_path, notify="messages")
    try:
        msgs = await until(has(c, "GONE-1", "LIVE-2", "CONTROL-1"), "the history after a restart")
        texts = sorted(m["text"] for m in msgs)
        want = ["AFTER-HOSTILE", "CONTROL-1", "GONE-1", "GONE-2", "LEAD-GONE", "LIVE-1", "LIVE-2"]
        assert texts == sorted([*want, "STILL-THERE"]), texts
        assert [m["text"] for m in msgs if m["recovered"]] == [
            "LIVE-2",
            "LIVE-1",
            "AFTER-HOSTILE",
            "LEAD-GONE",
            "GONE-2",
            "GONE-1",
        ]
        toasted = await toasts_settled(c, tmp_path, "CONTROL-2", "m-control-2")
        assert toasted == ["CONTROL-2"], toasted
        assert sorted(m["text"] for m in await conversation(c)) == sorted(
            [*want, "STILL-THERE", "CONTROL-2"]
        )
    finally:
        await lsp_session.stop_server(c)


async def test_an_entry_read_after_its_send_was_recovered_is_one_message(
    client: LanguageClient, tmp_path: Path
) -> None:
    """The transcript came first (a slow look at the inbox): when the file shows the entry
    after all, it replaces what was rebuilt; one message, the file's."""
    make_team(tmp_path)
    _, helper = transcripts(tmp_path)
    await start(client, options(tmp_path))
    helper.append(helper.send("team-lead", "LATE-ENTRY", "m-late", stamp(1)))
    msgs = await until(has(client, "LATE-ENTRY"), "the send recovered")
    [m] = by_text(msgs)["LATE-ENTRY"]
    assert m["recovered"] is True
    inbox = claude_inbox(tmp_path, TEAM, "team-lead")
    entry = control_entry("LATE-ENTRY", "m-late") | {"timestamp": "2026-12-01T10:00:01.300Z"}
    write_json(inbox, [entry])

    async def replaced() -> list[dict[str, Any]] | None:
        got = by_text(await conversation(client))["LATE-ENTRY"]
        return got if any(not m["recovered"] for m in got) else None

    [m] = await until(replaced, "the file's entry in the history")
    assert (m["id"], m["archived"], m["timestamp"]) == ("m-late", False, entry["timestamp"])
    write_json(inbox, [])  # Claude Code prunes it

    async def pruned() -> list[dict[str, Any]] | None:
        got = by_text(await conversation(client))["LATE-ENTRY"]
        return got if all(m["archived"] for m in got) else None

    [m] = await until(pruned, "the entry archived")
    assert (m["id"], m["recovered"]) == ("m-late", False)
    page = await call(
        client, "teamInbox/messages", {"team": TID, "inbox": "team-lead", "includeArchived": True}
    )
    assert [(x["id"], x["recovered"]) for x in page["messages"]] == [("m-late", False)]


async def test_a_long_sessions_sends_are_each_recovered_once(
    client: LanguageClient, tmp_path: Path
) -> None:
    """More sends than one state-thread step takes (SENDS_A_STEP): every one, once."""
    make_team(tmp_path)
    _, helper = transcripts(tmp_path)
    n = 1234
    rows: list[dict[str, Any]] = []
    for i in range(n):
        rows += helper.send("team-lead", f"MANY-{i:04d}", f"m-many-{i}", stamp(i % 60))
    helper.append(rows)
    await start(client, options(tmp_path))

    async def all_there() -> list[dict[str, Any]] | None:
        got: list[dict[str, Any]] = (
            await call(client, "teamInbox/conversation", {"team": TID, "limit": 5000})
        )["messages"]
        return got if len(got) >= n else None

    msgs = await until(all_there, f"{n} recovered messages", timeout=60)
    assert sorted(m["id"] for m in msgs) == sorted(f"m-many-{i}" for i in range(n))
    assert all(m["recovered"] for m in msgs)


async def test_a_team_that_ended_while_away_has_its_last_sends_recovered(tmp_path: Path) -> None:
    team = tmp_path / ".claude" / "teams" / TEAM
    make_team(tmp_path)
    lead, helper = transcripts(tmp_path)
    helper.append(helper.send("team-lead", "BEFORE", "m-before", stamp(1)))
    first = await lsp_session.start_server(tmp_path)
    try:
        await until(has(first, "BEFORE"), "the first server's recovery")
    finally:
        await lsp_session.stop_server(first)
    # while no sidecar runs: the last sends, then the session ends (its folder deleted)
    helper.append(helper.send("team-lead", "LAST-WORDS", "m-last", stamp(2)))
    lead.append(lead.send("helper", "LEAD-LAST", "m-lead-last", stamp(3)))
    shutil.rmtree(team)
    second = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has(second, "BEFORE", "LAST-WORDS", "LEAD-LAST"), "the final reading")
        assert sorted((m["id"], m["inbox"], m["recovered"]) for m in msgs) == [
            ("m-before", "team-lead", True),
            ("m-last", "team-lead", True),
            ("m-lead-last", "helper", True),
        ]
        teams = (await call(second, "teamInbox/teams", {}))["teams"]
        assert [t["ended"] for t in teams if t["id"] == TID] == [True]
        assert rec(second).since("teamInbox/replied") == []
    finally:
        await lsp_session.stop_server(second)
