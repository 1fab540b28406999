"""The Claude Code people run today (2.1.3xx), simulated with its own writer and pruner
(proper-lockfile in Node): implicit session teams deleted on exit, delivered entries
pruned within a second, no user.json. The real CLI drives the same in
tests/interop/claude_code/."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import call, entry, node_append, node_prune, options, rec, start, write_json
from pytest_lsp import LanguageClient

TEAM = "session-1d0f5bbe"
QUIET = 1.0


def idle(sender: str, result: str | None = None) -> str:
    frame: dict[str, Any] = {
        "type": "idle_notification",
        "from": sender,
        "timestamp": "2026-11-30T10:00:00.000Z",
        "idleReason": "available",
    }
    if result is not None:
        frame.update(summary="[to user] answer", result=result)
    return json.dumps(frame)


def session_team(home: Path, pid: int) -> Path:
    """A team as Claude Code 2.1.332 writes it: config with leadProcess, no user.json."""
    team = home / ".claude" / "teams" / TEAM
    write_json(
        team / "config.json",
        {
            "name": TEAM,
            "createdAt": 1796031600000,
            "leadAgentId": f"team-lead@{TEAM}",
            "leadSessionId": "1d0f5bbe-0000-4000-8000-000000000000",
            "leadProcess": {"pid": pid, "pidSpace": "host", "claimedAt": 1, "procStart": "x"},
            "members": [
                {
                    "agentId": f"team-lead@{TEAM}",
                    "name": "team-lead",
                    "tmuxPaneId": "leader",
                    "cwd": "/home/dev/projects/myapp",
                },
                {
                    "agentId": f"helper@{TEAM}",
                    "name": "helper",
                    "color": "blue",
                    "tmuxPaneId": "in-process",
                    "cwd": "/home/dev/projects/myapp",
                },
            ],
        },
    )
    for name in ("team-lead", "helper"):
        write_json(team / "inboxes" / f"{name}.json", [])
    return team


def inbox(team: Path, name: str) -> Path:
    return team / "inboxes" / f"{name}.json"


async def test_session_team_label_delivery_and_ended_team(
    client: LanguageClient, tmp_path: Path
) -> None:
    team = session_team(tmp_path, os.getpid())
    await start(client, options(tmp_path, notify="messages"))  # a teammate's text to the lead too
    r = rec(client)
    [t] = [
        t for t in (await call(client, "teamInbox/teams", {}))["teams"] if t["id"].endswith(TEAM)
    ]
    assert t["project"] == "myapp" and t["label"].startswith("myapp · ")
    assert t["title"] == t["label"]  # a session's own team is called by its label
    assert t["leadAlive"] is True and t["ended"] is False and t["ownInbox"] == "user"
    assert {m["name"]: m["consumed"] for m in t["members"]} == {
        "team-lead": True,
        "helper": True,
        "user": False,
    }

    # the person writes to the lead; Claude Code delivers it by pruning the entry
    mark = r.mark()
    sent = await call(
        client, "teamInbox/send", {"team": TEAM, "to": "team-lead", "text": "status?"}
    )
    assert sent["results"][0]["ok"]
    change = await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "team-lead", since=mark)
    [added] = change["added"]
    # the person's own words are never "not seen yet" to the person
    assert (added["delivery"], added["fromName"], added["seen"]) == ("waiting", "user", True)
    page = await call(client, "teamInbox/messages", {"team": TEAM, "inbox": "team-lead"})
    assert [(m["text"], m["delivery"]) for m in page["messages"]] == [("status?", "waiting")]
    node_prune(inbox(team, "team-lead"))
    gone = await r.wait(
        "teamInbox/didChange", lambda p: p["inbox"] == "team-lead" and p["removed"], since=mark
    )
    assert gone["total"] == 0
    node_append(
        inbox(team, "team-lead"), [entry("helper", "tests pass", "2026-11-30T10:00:01.000Z")]
    )
    convo = await r.wait("teamInbox/replied", since=mark)  # a teammate's message to the lead
    assert (convo["message"]["from"], convo["message"]["fromName"]) == ("helper", "helper")

    messages = (await call(client, "teamInbox/conversation", {"team": TEAM}))["messages"]
    states = {m["text"]: (m["inbox"], m["delivery"]) for m in messages}
    assert states == {
        "status?": ("team-lead", "delivered"),
        "tests pass": ("team-lead", "waiting"),
    }

    # Claude Code exits: the whole folder goes; the team stays, ended, readable
    mark = r.mark()
    shutil.rmtree(team)
    await r.wait("teamInbox/teamsChanged", since=mark)
    teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    ended = teams[f"claude:{TEAM}"]
    assert ended["ended"] is True and ended["leadAlive"] is False and ended["label"] == t["label"]
    assert ended["title"] == t["title"]
    page = await call(
        client,
        "teamInbox/messages",
        {"team": TEAM, "inbox": "team-lead", "includeArchived": True},
    )
    assert sorted(m["text"] for m in page["messages"]) == ["status?", "tests pass"]
    assert all(m["archived"] and m["delivery"] == "delivered" for m in page["messages"])
    messages = (await call(client, "teamInbox/conversation", {"team": TEAM}))["messages"]
    assert len(messages) == 2
    err = await lsp_session.call_error(
        client, "teamInbox/send", {"team": TEAM, "to": "team-lead", "text": "still there?"}
    )
    assert lsp_session.error_code(err) == "team_ended"

    forgot = await call(client, "teamInbox/forgetTeam", {"team": TEAM})
    assert forgot == {"team": f"claude:{TEAM}", "messages": 2, "inboxes": 3, "forgotten": 2}
    teams = (await call(client, "teamInbox/teams", {}))["teams"]
    assert f"claude:{TEAM}" not in [t["id"] for t in teams]


async def test_a_team_that_ended_while_the_server_was_down_is_listed_ended(
    tmp_path: Path,
) -> None:
    team = session_team(tmp_path, 2**22 + 12345)  # a pid that is not running
    node_append(inbox(team, "team-lead"), [entry("helper", "done", "2026-11-30T10:00:01.000Z")])
    first = await lsp_session.start_server(tmp_path)
    try:
        [t] = (await call(first, "teamInbox/teams", {}))["teams"]
        assert t["leadAlive"] is False and t["ended"] is False  # an orphan Claude will delete
    finally:
        await lsp_session.stop_server(first)
    shutil.rmtree(team)
    second = await lsp_session.start_server(tmp_path)
    try:
        [t] = (await call(second, "teamInbox/teams", {}))["teams"]
        assert t["ended"] is True and t["id"] == f"claude:{TEAM}"
        page = await call(second, "teamInbox/conversation", {"team": t["id"]})
        assert [m["text"] for m in page["messages"]] == ["done"]
    finally:
        await lsp_session.stop_server(second)


async def test_replied_rules_on_lead_traffic_and_idle_results(
    client: LanguageClient, tmp_path: Path
) -> None:
    team = session_team(tmp_path, os.getpid())
    await start(client, options(tmp_path))
    r = rec(client)
    lead = inbox(team, "team-lead")
    mark = r.mark()
    node_append(lead, [entry("helper", idle("helper"), "2026-11-30T10:00:01.000Z")])
    shutdown = json.dumps(
        {
            "type": "shutdown_approved",
            "requestId": "shutdown-1@helper",
            "from": "helper",
            "timestamp": "2026-11-30T10:00:02.000Z",
        }
    )
    node_append(lead, [entry("helper", shutdown, "2026-11-30T10:00:02.000Z")])
    assignment = json.dumps(
        {
            "type": "task_assignment",
            "taskId": "1",
            "subject": "x",
            "description": "y",
            "assignedBy": "team-lead",
            "timestamp": "2026-11-30T10:00:03.000Z",
        }
    )
    node_append(inbox(team, "helper"), [entry("team-lead", assignment, "2026-11-30T10:00:03.000Z")])
    await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "helper", since=mark)
    await r.quiet(QUIET)
    assert r.since("teamInbox/replied", mark) == []  # idle pings and frames are noise

    # the person asks the helper; its next idle notification carries its answer
    await call(client, "teamInbox/send", {"team": TEAM, "to": "helper", "text": "which test?"})
    mark = r.mark()
    node_append(lead, [entry("helper", idle("helper", "test_auth.py"), "2026-11-30T10:00:05.000Z")])
    got = await r.wait("teamInbox/replied", since=mark)
    assert got["message"]["structured"]["result"] == "test_auth.py"
    # ...only once: a later idle notification with a result is not an answer to the person
    mark = r.mark()
    node_append(lead, [entry("helper", idle("helper", "idle again"), "2026-11-30T10:00:06.000Z")])
    await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "team-lead", since=mark)
    await r.quiet(QUIET)
    assert r.since("teamInbox/replied", mark) == []


async def test_lead_traffic_can_be_turned_off(client: LanguageClient, tmp_path: Path) -> None:
    team = session_team(tmp_path, os.getpid())
    await start(client, options(tmp_path, notify="messages", notifyLeadTraffic=False))
    r = rec(client)
    mark = r.mark()
    node_append(inbox(team, "team-lead"), [entry("helper", "fyi", "2026-11-30T10:00:01.000Z")])
    await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "team-lead", since=mark)
    await r.quiet(QUIET)
    assert r.since("teamInbox/replied", mark) == []


async def test_half_written_config_is_not_corrupt_until_it_stays_so(
    client: LanguageClient, tmp_path: Path
) -> None:
    team = session_team(tmp_path, os.getpid())
    await start(client, options(tmp_path))
    good = (team / "config.json").read_bytes()
    (team / "config.json").write_bytes(good[: len(good) // 2])  # Claude writes it in place
    t = (await call(client, "teamInbox/teams", {}))["teams"][0]
    assert t["error"] is None and len(t["members"]) == 3  # the last good roster, for now
    (team / "config.json").write_bytes(good)
    t = (await call(client, "teamInbox/teams", {}))["teams"][0]
    assert t["error"] is None
    (team / "config.json").write_bytes(good[:10])
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        t = (await call(client, "teamInbox/teams", {}))["teams"][0]
        if t["error"]:
            break
    assert t["error"]["code"] == "corrupt_config"
