"""Every request in docs/protocol.md against the real server and a scratch HOME."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import (
    call,
    call_error,
    claude_inbox,
    entry,
    error_code,
    make_home,
    options,
    rec,
    start,
    write_json,
)
from pytest_lsp import LanguageClient


def ts(i: int) -> str:
    return f"2026-11-29T10:{i // 60:02d}:{i % 60:02d}.000Z"


def rich_home(home: Path) -> None:
    """make_home's teams, plus a bigger Claude team `gamma`."""
    make_home(home)
    team = home / ".claude" / "teams" / "gamma"
    write_json(
        team / "config.json",
        {
            "name": "gamma",
            "description": "the gamma team",
            "leadAgentId": "team-lead@gamma",
            "leadSessionId": "s2",
            "createdAt": 1770000000000,
            "members": [
                {"agentId": "team-lead@gamma", "name": "team-lead", "agentType": "team-lead"},
                {
                    "agentId": "researcher@gamma",
                    "name": "researcher",
                    "agentType": "general-purpose",
                    "color": "blue",
                    "isActive": True,
                },
                {
                    "agentId": "tester@gamma",
                    "name": "tester",
                    "agentType": "tester",
                    "color": "green",
                    "isActive": False,
                },
            ],
        },
    )
    inboxes = team / "inboxes"
    write_json(
        inboxes / "user.json",
        [
            entry("researcher", "the auth module is done", ts(1), read=True, msg_id="u1"),
            entry("tester", "tests pass on linux", ts(2), msg_id="u2", summary="tests"),
            entry("researcher", "found a bug in jwt.ts", ts(3), msg_id="u3", color="blue"),
        ],
    )
    write_json(
        inboxes / "researcher.json",
        [
            entry("user", "please look at auth", ts(1), read=True, msg_id="r1"),
            entry("team-lead", "and the tokens too", ts(2), msg_id="r2"),
        ],
    )
    write_json(inboxes / "tester.json", [])
    write_json(inboxes / "ghost.json", [entry("user", "lost", ts(1))])  # a phantom


def member(team: dict[str, Any], inbox: str) -> dict[str, Any]:
    return next(m for m in team["members"] if m["inbox"] == inbox)


async def teams_by_id(client: LanguageClient) -> dict[str, Any]:
    return {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}


async def test_teams(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    await start(client, options(tmp_path))
    teams = await teams_by_id(client)
    assert sorted(teams) == ["claude:alpha", "claude:gamma", "pseudoclaude:beta"]
    g = teams["claude:gamma"]
    assert (g["format"], g["name"], g["lead"], g["identity"], g["ownInbox"]) == (
        "claude",
        "gamma",
        "team-lead",
        "user",
        "user",
    )
    assert g["description"] == "the gamma team"
    assert g["dir"] == str(tmp_path / ".claude" / "teams" / "gamma")
    assert g.get("error") is None
    assert sorted(m["inbox"] for m in g["members"]) == [
        "ghost",
        "researcher",
        "team-lead",
        "tester",
        "user",
    ]
    lead = member(g, "team-lead")
    assert (lead["lead"], lead["agentType"], lead["agentId"], lead["total"]) == (
        True,
        "team-lead",
        "team-lead@gamma",
        0,
    )
    r = member(g, "researcher")
    assert (r["color"], r["agentType"], r["isActive"], r["lead"], r["owned"], r["phantom"]) == (
        "blue",
        "general-purpose",
        True,
        False,
        False,
        False,
    )
    assert (r["total"], r["unread"]) == (2, 1)
    t = member(g, "tester")
    assert (t["isActive"], t["color"], t["total"], t["unread"]) == (False, "green", 0, 0)
    u = member(g, "user")
    assert (u["owned"], u["phantom"], u["total"], u["unread"]) == (True, False, 3, 2)
    ghost = member(g, "ghost")
    # in no config.json: a departed teammate's leftover, not a phantom (Claude Code keeps it)
    assert (ghost["phantom"], ghost["left"], ghost["owned"], ghost["total"]) == (
        False,
        True,
        False,
        1,
    )
    b = teams["pseudoclaude:beta"]
    assert (b["lead"], b["ownInbox"], b["identity"]) == ("lead", "lead-beta", "lead")
    coder = member(b, "team-beta-coder-1")
    assert (coder["name"], coder["agentId"], coder["owned"]) == (
        "coder",
        "team-beta-coder-1",
        False,
    )
    assert member(b, "lead-beta")["owned"] is True


async def test_messages_paging_newest_first(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    path = claude_inbox(tmp_path, "alpha", "user")
    write_json(
        path,
        [
            entry("researcher", f"note {i}", ts(i), read=i % 3 == 1, msg_id=f"m{i}")
            for i in range(25)
        ],
    )
    await start(client, options(tmp_path))
    first = await call(
        client, "teamInbox/messages", {"team": "alpha", "inbox": "user", "limit": 10}
    )
    assert [m["text"] for m in first["messages"]] == [f"note {i}" for i in range(24, 14, -1)]
    assert (first["total"], first["unread"]) == (25, 17)
    last = await call(
        client,
        "teamInbox/messages",
        {"team": "claude:alpha", "inbox": "user", "offset": 20, "limit": 10},
    )
    assert [m["id"] for m in last["messages"]] == [f"m{i}" for i in range(4, -1, -1)]
    every = await call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
    assert len(every["messages"]) == 25  # limit defaults to 200
    unread = await call(
        client, "teamInbox/messages", {"team": "alpha", "inbox": "user", "unreadOnly": True}
    )
    assert [m["id"] for m in unread["messages"]] == [
        f"m{i}" for i in range(24, -1, -1) if i % 3 != 1
    ]
    msg = first["messages"][0]
    assert (msg["from"], msg["to"], msg["team"], msg["inbox"], msg["format"]) == (
        "researcher",
        "user",
        "claude:alpha",
        "user",
        "claude",
    )
    assert (msg["type"], msg["read"], msg["seen"], msg["archived"]) == (
        "message",
        False,
        False,
        False,
    )
    assert msg["raw"] == entry("researcher", "note 24", ts(24), read=False, msg_id="m24")
    assert [m["seen"] for m in first["messages"]] == [m["read"] for m in first["messages"]]
    empty = await call(
        client, "teamInbox/messages", {"team": "alpha", "inbox": "user", "offset": 30}
    )
    assert empty["messages"] == [] and empty["total"] == 25


async def test_messages_pseudoclaude_and_by_member_name(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    write_json(
        tmp_path / ".PseudoClaude" / "teams" / "beta" / "inboxes" / "team-beta-coder-1.json",
        {
            "messages": [
                {
                    "from": "lead",
                    "to": "team-beta-coder-1",
                    "type": "text",
                    "content": "write jwt.ts",
                    "timestamp": "2026-11-29T10:00:00.123456789Z",
                    "read": False,
                },
                {
                    "from": "lead",
                    "to": "team-beta-coder-1",
                    "type": "shutdown_request",
                    "payload": {"request_id": "x1"},
                    "timestamp": "2026-11-29T10:01:00.123456789Z",
                    "read": True,
                },
            ]
        },
    )
    await start(client, options(tmp_path))
    page = await call(client, "teamInbox/messages", {"team": "beta", "inbox": "coder"})
    a, b = page["messages"]
    assert (a["type"], a["structured"], a["read"]) == (
        "shutdown_request",
        {"type": "shutdown_request", "payload": {"request_id": "x1"}},
        True,
    )
    assert (b["text"], b["type"], b["format"], b["id"].startswith("p-0-")) == (
        "write jwt.ts",
        "text",
        "pseudoclaude",
        True,
    )
    assert (page["total"], page["unread"]) == (2, 1)


async def test_send_to_member(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    await start(client, options(tmp_path))
    res = await call(
        client,
        "teamInbox/send",
        {
            "team": "gamma",
            "to": "tester",
            "text": "run the suite",
            "summary": "run",
            "color": "red",
        },
    )
    (result,) = res["results"]
    assert (result["recipient"], result["ok"]) == ("tester", True)
    on_disk = json.loads(claude_inbox(tmp_path, "gamma", "tester").read_text())
    assert len(on_disk) == 1
    e = on_disk[0]
    assert (e["from"], e["text"], e["summary"], e["color"], e["read"]) == (
        "user",
        "run the suite",
        "run",
        "red",
        False,
    )
    page = await call(client, "teamInbox/messages", {"team": "gamma", "inbox": "tester"})
    assert page["messages"][0]["id"] == result["messageId"]
    assert page["messages"][0]["text"] == "run the suite"
    # PseudoClaude: by member name, into the agent id's Box.
    res = await call(client, "teamInbox/send", {"team": "beta", "to": "coder", "text": "go"})
    assert res["results"][0]["ok"] is True
    box = json.loads(
        (
            tmp_path / ".PseudoClaude" / "teams" / "beta" / "inboxes" / "team-beta-coder-1.json"
        ).read_text()
    )
    assert [(m["from"], m["content"]) for m in box["messages"]] == [("lead", "go")]


async def test_broadcast_partial_failure(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    bad = claude_inbox(tmp_path, "gamma", "tester")
    bad.write_bytes(b'[\n  {"from": "x", "text": "half')
    before = bad.read_bytes()
    await start(client, options(tmp_path))
    res = await call(client, "teamInbox/send", {"team": "gamma", "to": "*", "text": "standup"})
    by = {r["recipient"]: r for r in res["results"]}
    assert sorted(by) == ["researcher", "team-lead", "tester"]  # not user, not the phantom
    assert by["researcher"]["ok"] and by["team-lead"]["ok"]
    assert by["tester"]["ok"] is False and by["tester"]["error"]
    assert by["tester"].get("messageId") is None
    assert bad.read_bytes() == before  # a corrupt inbox is never overwritten
    lead = json.loads(claude_inbox(tmp_path, "gamma", "team-lead").read_text())
    assert [e["text"] for e in lead] == ["standup"]
    res = await call(client, "teamInbox/send", {"team": "gamma", "to": "broadcast", "text": "b2"})
    assert len(res["results"]) == 3


async def test_mark_read_own_and_others(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    mark = r.mark()
    res = await call(
        client, "teamInbox/markRead", {"team": "gamma", "inbox": "user", "ids": ["u2"]}
    )
    assert res == {"marked": 1}
    on_disk = json.loads(claude_inbox(tmp_path, "gamma", "user").read_text())
    assert [e["read"] for e in on_disk] == [True, True, False]  # deletes nothing
    change = await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "user", since=mark)
    assert [m["id"] for m in change["updated"]] == ["u2"] and change["unread"] == 1
    assert change["added"] == [] and change["removed"] == []

    path = claude_inbox(tmp_path, "gamma", "researcher")
    before = path.read_bytes()
    # an agent's inbox: markRead is the seen state; the file is never written
    res = await call(
        client, "teamInbox/markRead", {"team": "gamma", "inbox": "researcher", "all": True}
    )
    assert res == {"marked": 2}
    assert path.read_bytes() == before
    page = await call(client, "teamInbox/messages", {"team": "gamma", "inbox": "researcher"})
    assert all(m["seen"] for m in page["messages"]) and page["unread"] == 1
    err = await call_error(
        client, "teamInbox/markRead", {"team": "gamma", "inbox": "user", "ids": ["nope"]}
    )
    assert error_code(err) == "unknown_message"
    res = await call(
        client, "teamInbox/discard", {"team": "gamma", "inbox": "researcher", "all": True}
    )
    assert res == {"marked": 1}
    assert all(e["read"] for e in json.loads(path.read_text()))
    res = await call(client, "teamInbox/markRead", {"team": "gamma", "inbox": "user", "all": True})
    assert res == {"marked": 1}
    page = await call(client, "teamInbox/messages", {"team": "gamma", "inbox": "user"})
    assert page["unread"] == 0 and all(m["seen"] for m in page["messages"])


async def test_mark_seen_touches_no_file(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    files = sorted((tmp_path / ".claude" / "teams" / "gamma" / "inboxes").iterdir())
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    page = await call(client, "teamInbox/messages", {"team": "gamma", "inbox": "researcher"})
    # r1 is the person's own message: seen by them from the start
    assert {m["id"]: m["seen"] for m in page["messages"]} == {"r1": True, "r2": False}
    res = await call(
        client, "teamInbox/markSeen", {"team": "gamma", "inbox": "researcher", "ids": ["r2"]}
    )
    assert res == {"marked": 1}
    page = await call(client, "teamInbox/messages", {"team": "gamma", "inbox": "researcher"})
    assert {m["id"]: (m["seen"], m["read"]) for m in page["messages"]} == {
        "r1": (True, True),
        "r2": (True, False),
    }
    # The person's own inbox: seen lowers the unread badge, the file keeps read: false.
    mark = r.mark()
    res = await call(
        client, "teamInbox/markSeen", {"team": "gamma", "inbox": "user", "ids": ["u3"]}
    )
    assert res == {"marked": 1}
    unread = await r.wait(
        "teamInbox/unread", lambda p: p["byTeam"].get("claude:gamma") == 1, since=mark
    )
    assert unread["total"] == sum(unread["byTeam"].values())
    mark = r.mark()
    res = await call(client, "teamInbox/markSeen", {"team": "gamma", "inbox": "user", "all": True})
    await r.wait("teamInbox/unread", lambda p: p["byTeam"].get("claude:gamma") == 0, since=mark)
    page = await call(client, "teamInbox/messages", {"team": "gamma", "inbox": "user"})
    assert all(m["seen"] for m in page["messages"])
    assert [m["read"] for m in page["messages"]] == [False, False, True]
    after = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    assert after == before
    assert not [
        p
        for p in (tmp_path / ".claude" / "teams" / "gamma" / "inboxes").iterdir()
        if p not in before
    ]


async def test_search(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    await start(client, options(tmp_path))
    found = (await call(client, "teamInbox/search", {"query": "auth"}))["messages"]
    assert sorted(m["id"] for m in found) == ["r1", "u1"]
    assert all(m["team"] == "claude:gamma" for m in found)
    found = (await call(client, "teamInbox/search", {"query": "jwt"}))["messages"]
    assert [m["text"] for m in found] == ["found a bug in jwt.ts"]
    await call(client, "teamInbox/send", {"team": "beta", "to": "coder", "text": "auth for beta"})
    found = (await call(client, "teamInbox/search", {"query": "auth", "team": "beta"}))["messages"]
    assert [(m["team"], m["text"]) for m in found] == [("pseudoclaude:beta", "auth for beta")]
    found = (await call(client, "teamInbox/search", {"query": "auth", "limit": 1}))["messages"]
    assert len(found) == 1
    for query in ['jwt"', "AND (", "*", "a:b", "NEAR(", "'", "-", "jwt.ts", '"unterminated', "^"]:
        res = await call(client, "teamInbox/search", {"query": query})
        assert isinstance(res["messages"], list), query
    found = (await call(client, "teamInbox/search", {"query": "jwt.ts"}))["messages"]
    assert [m["id"] for m in found] == ["u3"]
    # Still serving.
    assert (await call(client, "teamInbox/search", {"query": "linux"}))["messages"][0]["id"] == "u2"


async def test_compact_own_inbox(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    path = claude_inbox(tmp_path, "gamma", "user")
    write_json(
        path,
        [
            entry("researcher", "old one", ts(1), read=True, msg_id="u1"),
            entry("tester", "old two", ts(2), read=True, msg_id="u2"),
            entry("researcher", "still unread", ts(3), msg_id="u3"),
        ],
    )
    await start(client, options(tmp_path))
    res = await call(client, "teamInbox/compact", {"team": "gamma"})
    assert res["removed"] == 2
    assert [e["msg_id"] for e in json.loads(path.read_text())] == ["u3"]
    page = await call(
        client, "teamInbox/messages", {"team": "gamma", "inbox": "user", "includeArchived": True}
    )
    assert [(m["id"], m["archived"]) for m in page["messages"]] == [
        ("u3", False),
        ("u2", True),
        ("u1", True),
    ]
    page = await call(client, "teamInbox/messages", {"team": "gamma", "inbox": "user"})
    assert [m["id"] for m in page["messages"]] == ["u3"]
    found = (await call(client, "teamInbox/search", {"query": "old", "team": "gamma"}))["messages"]
    assert sorted((m["id"], m["archived"]) for m in found) == [("u1", True), ("u2", True)]


async def test_compact_result_shape(client: LanguageClient, tmp_path: Path) -> None:
    """docs/protocol.md: `teamInbox/compact` answers `{archived, removed}`."""
    rich_home(tmp_path)
    await start(client, options(tmp_path))
    res = await call(client, "teamInbox/compact", {"team": "gamma"})
    assert res["removed"] == 1  # u1 is read
    assert res.get("archived") == 1, res


async def test_compact_refuses_others_inbox(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    path = claude_inbox(tmp_path, "gamma", "researcher")
    before = path.read_bytes()
    await start(client, options(tmp_path))
    err = await call_error(client, "teamInbox/compact", {"team": "gamma", "inbox": "researcher"})
    assert error_code(err) == "not_owned"
    assert path.read_bytes() == before


async def test_doctor(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    inboxes = tmp_path / ".claude" / "teams" / "gamma" / "inboxes"
    lock = inboxes / "researcher.json.lock"
    lock.mkdir()
    old = time.time() - 3600
    os.utime(lock, (old, old))
    leftover = inboxes / "user.json.tmp.12345"
    leftover.write_text("[]")
    os.utime(leftover, (old, old))
    (inboxes / "tester.json").write_text("[{")
    await start(client, options(tmp_path))
    findings = (await call(client, "teamInbox/doctor", {}))["findings"]
    kinds = {(f["kind"], Path(f["path"]).name) for f in findings}
    assert ("stale_lock", "researcher.json.lock") in kinds
    assert ("leftover_temp", "user.json.tmp.12345") in kinds
    assert ("phantom", "ghost.json") not in kinds  # a leaver's leftover in a Claude team
    assert ("corrupt", "tester.json") in kinds
    assert all(f["message"] for f in findings)


async def test_inbox_path(client: LanguageClient, tmp_path: Path) -> None:
    rich_home(tmp_path)
    await start(client, options(tmp_path))
    res = await call(client, "teamInbox/inboxPath", {"team": "gamma", "inbox": "researcher"})
    assert res == {"path": str(claude_inbox(tmp_path, "gamma", "researcher"))}
    res = await call(client, "teamInbox/inboxPath", {"team": "beta", "inbox": "coder"})
    assert res["path"].endswith("/beta/inboxes/team-beta-coder-1.json")
    err = await call_error(client, "teamInbox/inboxPath", {"team": "gamma", "inbox": "../x"})
    assert error_code(err) == "invalid_name"
