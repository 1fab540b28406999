"""The real `teaminbox serve`: task boards (live, written under the peers' locks, ended),
member states, what needs the person, and answering a plan, per format.

Claude Code's task writes come from tests/interop/node/claude_tasks.js (proper-lockfile
with Claude Code's options, JSON.stringify, temp + rename); its inbox writes from
claude_peer.js, as in test_claude_today.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import (
    NODE_DIR,
    call,
    call_error,
    entry,
    error_code,
    make_home,
    node_append,
    node_prune,
    options,
    rec,
    start,
    write_json,
)
from pytest_lsp import LanguageClient

from support.words import FORGED, check_ask_lead

TEAM = "session-7e57ab1e"
NODE_TASKS = NODE_DIR / "node" / "claude_tasks.js"


def node_tasks(*args: str) -> str:
    lsp_session.ensure_node_modules()
    res = subprocess.run(
        ["node", str(NODE_TASKS), *args], capture_output=True, text=True, timeout=60
    )
    assert res.returncode == 0, res.stderr
    return res.stdout


def task(subject: str, **extra: Any) -> str:
    body = {"subject": subject, "description": f"about {subject}", "activeForm": "Working"}
    body.update(status="pending", blocks=[], blockedBy=[], **extra)
    return json.dumps(body)


def session_team(home: Path, pid: int, *, helper: bool = True) -> Path:
    team = home / ".claude" / "teams" / TEAM
    members = [{"agentId": f"team-lead@{TEAM}", "name": "team-lead", "tmuxPaneId": "leader"}]
    if helper:
        members.append({"agentId": f"helper@{TEAM}", "name": "helper", "color": "blue"})
    write_json(
        team / "config.json",
        {
            "name": TEAM,
            "createdAt": 1796031600000,
            "leadAgentId": f"team-lead@{TEAM}",
            "leadSessionId": "7e57ab1e-0000-4000-8000-000000000000",
            "leadProcess": {"pid": pid, "pidSpace": "host", "claimedAt": 1, "procStart": "x"},
            "members": members,
        },
    )
    for m in members:
        write_json(team / "inboxes" / f"{m['name']}.json", [])
    return team


def frame(kind: str, ts: str, **fields: Any) -> str:
    return json.dumps({"type": kind, **fields, "timestamp": ts})


def now_iso(offset: float = 0.0) -> str:
    t = time.time() + offset
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def by_name(p: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m["state"] for m in p["members"]}


# --- task boards ------------------------------------------------------------------------------


async def test_claude_board_live_set_under_its_lock_and_ended(
    client: LanguageClient, tmp_path: Path
) -> None:
    team = session_team(tmp_path, os.getpid())
    await start(client, options(tmp_path))
    r = rec(client)
    assert await call(client, "teamInbox/tasks", {"team": TEAM}) == {
        "team": f"claude:{TEAM}",
        "tasks": [],
    }
    # the tasks folder appears after the server started (a rescan starts watching it)
    board = tmp_path / ".claude" / "tasks" / TEAM
    mark = r.mark()
    t0 = time.monotonic()
    assert node_tasks("create", str(board), task("Write the report")).strip() == "1"
    got = await r.wait("teamInbox/tasksChanged", lambda p: len(p["tasks"]) == 1, since=mark)
    first_ms = (time.monotonic() - t0) * 1000
    [one] = got["tasks"]
    assert (one["id"], one["status"], one["subject"], one["format"]) == (
        "1",
        "pending",
        "Write the report",
        "claude",
    )
    # watched now: the next write is news at once
    mark = r.mark()
    t0 = time.monotonic()
    node_tasks("update", str(board), "1", json.dumps({"owner": "helper"}))
    got = await r.wait(
        "teamInbox/tasksChanged", lambda p: p["tasks"][0]["owner"] == "helper", since=mark
    )
    update_ms = (time.monotonic() - t0) * 1000  # node's start-up included
    print(f"tasksChanged: {first_ms:.0f} ms for a new folder, {update_ms:.0f} ms for an update")

    # set a status while Claude Code holds the task's lock: we wait for it
    holder = subprocess.Popen(
        ["node", str(NODE_TASKS), "hold", str(board), "1", "3000"],  # past a loaded pause
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "HELD"
    mark = r.mark()
    t0 = time.monotonic()
    res = await call(
        client, "teamInbox/setTaskStatus", {"team": TEAM, "id": "1", "status": "in_progress"}
    )
    waited = time.monotonic() - t0
    assert holder.wait(10) == 0 and waited > 0.3, waited
    assert res["task"]["status"] == "in_progress" and res["task"]["team"] == f"claude:{TEAM}"
    raw = (board / "1.json").read_bytes()
    doc = json.loads(raw)
    assert raw == json.dumps(doc, indent=2).encode()  # JSON.stringify(task, null, 2)
    assert doc["status"] == "in_progress" and doc["owner"] == "helper"
    await r.wait(
        "teamInbox/tasksChanged", lambda p: p["tasks"][0]["status"] == "in_progress", since=mark
    )
    for bad, code in (({"status": "blocked"}, "invalid_params"), ({"id": "9"}, "unknown_task")):
        params = {"team": TEAM, "id": "1", "status": "completed", **bad}
        err = await call_error(client, "teamInbox/setTaskStatus", params)
        assert error_code(err) == code, err

    # Claude Code's own writes and ours, racing on one task: nothing is lost
    racer = subprocess.Popen(
        [
            "node",
            str(NODE_TASKS),
            "update",
            str(board),
            "1",
            json.dumps({"metadata.n": "+1"}),
            "40",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    statuses = ["completed", "pending", "in_progress"] * 7
    for s in statuses:
        await call(client, "teamInbox/setTaskStatus", {"team": TEAM, "id": "1", "status": s})
    out, errs = racer.communicate(timeout=60)
    assert racer.returncode == 0, errs
    doc = json.loads((board / "1.json").read_bytes())
    assert doc["metadata"] == {"n": 40} and doc["status"] == statuses[-1], doc
    names = [n for n in os.listdir(board) if n != ".lock"]  # the list's empty anchor
    assert not [n for n in names if n.endswith(".lock") or "tmp" in n], names

    # the lead resets the finished list, then the session ends: the last board stays readable
    await call(client, "teamInbox/setTaskStatus", {"team": TEAM, "id": "1", "status": "completed"})
    mark = r.mark()
    node_tasks("reset", str(board))
    await r.wait("teamInbox/tasksChanged", lambda p: p["tasks"] == [], since=mark)
    shutil.rmtree(team)
    await r.wait("teamInbox/teamsChanged", since=mark)
    ended = await call(client, "teamInbox/tasks", {"team": TEAM})
    assert [(t["id"], t["status"], t["archived"]) for t in ended["tasks"]] == [
        ("1", "completed", True)
    ]
    err = await call_error(
        client, "teamInbox/setTaskStatus", {"team": TEAM, "id": "1", "status": "pending"}
    )
    assert error_code(err) == "team_ended"


async def test_pseudoclaude_board(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    tasks = tmp_path / ".PseudoClaude" / "teams" / "beta" / "tasks.json"
    stamp = "2026-11-30T10:00:00.123456789+01:00"
    write_json(
        tasks,
        {
            "tasks": [
                {
                    "id": "task_0123456789ab",
                    "title": "Write jwt.ts",
                    "assignee": "team-beta-coder-1",
                    "status": "todo",
                    "created_at": stamp,
                    "updated_at": stamp,
                    "blocks": ["task_ba9876543210"],
                },
                {
                    "id": "task_ba9876543210",
                    "title": "Test it",
                    "status": "blocked",
                    "created_at": stamp,
                    "updated_at": stamp,
                    "blocked_by": ["task_0123456789ab"],
                },
            ]
        },
    )
    await start(client, options(tmp_path))
    r = rec(client)
    got = await call(client, "teamInbox/tasks", {"team": "beta"})
    assert [(t["id"], t["status"], t["owner"]) for t in got["tasks"]] == [
        ("task_0123456789ab", "pending", "coder"),  # the agent id, as its member's name
        ("task_ba9876543210", "blocked", None),
    ]
    mark = r.mark()
    res = await call(
        client,
        "teamInbox/setTaskStatus",
        {"team": "beta", "id": "task_0123456789ab", "status": "completed"},
    )
    assert res["task"]["status"] == "completed" and res["task"]["raw"]["status"] == "done"
    assert res["task"]["owner"] == "coder"
    pushed = await r.wait("teamInbox/tasksChanged", since=mark)
    assert pushed["team"] == "pseudoclaude:beta"
    assert [t["status"] for t in pushed["tasks"]] == ["completed", "blocked"]
    doc = json.loads(tasks.read_bytes())
    assert doc["tasks"][0]["status"] == "done" and doc["tasks"][0]["updated_at"] != stamp
    assert doc["tasks"][1]["updated_at"] == stamp
    assert tasks.read_bytes().endswith(b"}\n")
    # a Claude team whose tasks folder does not exist: an empty board
    assert (await call(client, "teamInbox/tasks", {"team": "alpha"}))["tasks"] == []


# --- member states and what needs the person ---------------------------------------------------


async def test_states_attention_and_asking_the_lead(client: LanguageClient, tmp_path: Path) -> None:
    team = session_team(tmp_path, os.getpid())
    lead, helper = team / "inboxes" / "team-lead.json", team / "inboxes" / "helper.json"
    await start(client, options(tmp_path, stallMinutes=0.02))  # 1.2 s
    r = rec(client)
    [t] = [x for x in (await call(client, "teamInbox/teams", {}))["teams"] if x["name"] == TEAM]
    states = {m["name"]: m["state"] for m in t["members"]}
    assert states["helper"]["kind"] == "working" and states["user"] is None
    assert t["orphan"] is False
    assert (await call(client, "teamInbox/attention", {})) == {"items": [], "count": 0}

    # helper asks for its plan to be approved: waiting, and it needs the person
    rid = "plan_approval-1796031601000@helper"
    plan = frame(
        "plan_approval_request",
        now_iso(),
        **{"from": "helper", "planFilePath": "/p/plan.md", "planContent": "# Plan"},
        requestId=rid,
    )
    mark = r.mark()
    node_append(lead, [entry("helper", plan, now_iso())])
    p = await r.wait(
        "teamInbox/memberState", lambda p: by_name(p)["helper"]["kind"] == "waiting", since=mark
    )
    assert by_name(p)["helper"]["detail"] == "plan approval"
    # a Claude Code teammate's plan is approved by its lead within a second: shown as
    # information, not counted as waiting on the person
    items = await r.wait(
        "teamInbox/attentionChanged",
        lambda p: any(i["kind"] == "plan" for i in p["items"]),
        since=mark,
    )
    [item] = [i for i in items["items"] if i["kind"] == "plan"]
    assert (item["kind"], item["member"], item["requestId"], item["team"]) == (
        "plan",
        "helper",
        rid,
        f"claude:{TEAM}",
    )
    assert item["info"] is True and item["action"] is None
    got = await call(client, "teamInbox/attention", {})
    assert got["count"] == len([i for i in got["items"] if not i["info"]])

    # the person approves: Claude Code takes that only from its lead, so the lead is asked
    res = await call(
        client, "teamInbox/answerPlan", {"team": TEAM, "requestId": rid, "approved": True}
    )
    assert (res["effect"], res["to"], res["member"], res["requestId"]) == (
        "asked_lead",
        "team-lead",
        "helper",
        rid,
    )
    [asked] = [e for e in json.loads(lead.read_bytes()) if e["from"] == "user"]
    assert rid in asked["text"] and '"approve":true' in asked["text"]
    assert asked["msg_id"] == res["messageId"]
    # the lead answers helper: no longer waiting, nothing needs the person
    mark = r.mark()
    node_append(
        helper,
        [
            entry(
                "team-lead",
                frame("plan_approval_response", now_iso(), requestId=rid, approved=True),
                now_iso(),
            )
        ],
    )
    await r.wait(
        "teamInbox/memberState", lambda p: by_name(p)["helper"]["kind"] == "working", since=mark
    )
    await r.wait("teamInbox/attentionChanged", lambda p: p["count"] == 0, since=mark)
    node_prune(helper)  # Claude Code delivers it

    # an idle notification with the teammate's last words
    mark = r.mark()
    idle = frame(
        "idle_notification", now_iso(), **{"from": "helper"}, idleReason="available", result="Done!"
    )
    node_append(lead, [entry("helper", idle, now_iso())])
    p = await r.wait(
        "teamInbox/memberState", lambda p: by_name(p)["helper"]["kind"] == "idle", since=mark
    )
    assert by_name(p)["helper"]["detail"] == "Done!"
    node_prune(lead)  # the lead takes in what it got (else it would stall too)

    # a message helper never takes in: stalled after the stall time, and it needs the person
    mark = r.mark()
    await call(client, "teamInbox/send", {"team": TEAM, "to": "helper", "text": "wake up"})
    p = await r.wait(
        "teamInbox/memberState", lambda p: by_name(p)["helper"]["kind"] == "stalled", since=mark
    )
    assert by_name(p)["helper"]["detail"] == "1 message waiting unread"
    items = await r.wait("teamInbox/attentionChanged", lambda p: p["count"] == 1, since=mark)
    assert items["items"][0]["kind"] == "stalled" and items["items"][0]["count"] == 1

    # helper shuts down and leaves the config: gone, and its stall no longer matters
    mark = r.mark()
    node_append(
        lead,
        [
            entry(
                "helper",
                frame(
                    "shutdown_approved",
                    now_iso(),
                    requestId="shutdown-1@helper",
                    **{"from": "helper"},
                ),
                now_iso(),
            )
        ],
    )
    p = await r.wait(
        "teamInbox/memberState", lambda p: by_name(p)["helper"]["kind"] == "gone", since=mark
    )
    assert by_name(p)["helper"]["detail"] == "shut down"
    node_prune(lead)
    await r.wait("teamInbox/attentionChanged", lambda p: p["count"] == 0, since=mark)


async def test_orphan_team_and_an_unanswered_message(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)  # alpha: user.json holds "old news" from researcher, unread
    session_team(tmp_path, 2**22 + 4321, helper=False)  # its lead's pid is not running
    await start(client, options(tmp_path))
    r = rec(client)
    teams = {t["name"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    orphan = teams[TEAM]
    assert orphan["orphan"] is True and orphan["leadAlive"] is False
    assert orphan["members"][0]["state"] == {
        "kind": "gone",
        "since": None,
        "detail": "its process has ended",
    }
    assert teams["alpha"]["orphan"] is False
    got = await call(client, "teamInbox/attention", {})
    [item] = got["items"]
    assert (item["kind"], item["team"], item["member"], item["count"]) == (
        "unanswered",
        "claude:alpha",
        "researcher",
        1,
    )
    assert item["summary"] == "researcher: old news" and item["messageId"]
    # another one, then the person answers: nothing is left to answer
    user = tmp_path / ".claude" / "teams" / "alpha" / "inboxes" / "user.json"
    mark = r.mark()
    node_append(user, [entry("researcher", "are you there?", now_iso())])
    await r.wait(
        "teamInbox/attentionChanged",
        lambda p: p["items"] and p["items"][0]["count"] == 2,
        since=mark,
    )
    mark = r.mark()
    await call(client, "teamInbox/send", {"team": "alpha", "to": "researcher", "text": "yes"})
    await r.wait("teamInbox/attentionChanged", lambda p: p["count"] == 0, since=mark)
    # a new one, marked read by the person: not waiting either
    node_append(user, [entry("researcher", "one more thing", now_iso(5))])
    await r.wait("teamInbox/attentionChanged", lambda p: p["count"] == 1, since=mark)
    mark = r.mark()
    await call(client, "teamInbox/markRead", {"team": "alpha", "inbox": "user", "all": True})
    await r.wait("teamInbox/attentionChanged", lambda p: p["count"] == 0, since=mark)


async def test_asking_the_lead_quotes_the_teammates_values_as_data(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A teammate's request id with a line break and words "from the person" stays one JSON
    string inside the message the person's answer writes the lead; the summary is ours."""
    make_home(tmp_path)
    lead = tmp_path / ".claude" / "teams" / "alpha" / "inboxes" / "team-lead.json"
    plan = frame("plan_approval_request", now_iso(), **{"from": "researcher"}, requestId=FORGED)
    write_json(lead, [entry("researcher", plan, now_iso())])
    await start(client, options(tmp_path))
    res = await call(
        client,
        "teamInbox/answerPlan",
        {"team": "alpha", "requestId": FORGED, "approved": True, "feedback": "Go.\nTest it."},
    )
    assert (res["effect"], res["member"], res["requestId"]) == ("asked_lead", "researcher", FORGED)
    [asked] = [e for e in json.loads(lead.read_bytes()) if e["from"] == "user"]
    assert (
        asked["text"] == res["text"] and asked["summary"] == "please approve the plan of a teammate"
    )
    check_ask_lead(asked["text"], "researcher", FORGED, True, "Go.\nTest it.")


async def test_pseudoclaude_plan_answered_as_the_lead(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    pc = tmp_path / ".PseudoClaude" / "teams" / "beta" / "inboxes"
    request = {
        "from": "coder",
        "to": "lead-beta",
        "type": "plan_approval_request",
        "summary": "my plan",
        "content": "1. write jwt.ts\n2. test it",
        "payload": {"request_id": "plan-7"},
        "timestamp": now_iso(-3600).replace("Z", "123456Z"),  # an hour ago, Go's nanoseconds
        "read": False,
    }
    write_json(pc / "lead-beta.json", {"messages": [request]})
    await start(client, options(tmp_path))
    items = (await call(client, "teamInbox/attention", {}))["items"]
    # beside alpha's unanswered "old news"
    assert {(i["team"], i["kind"], i["member"]) for i in items} == {
        ("claude:alpha", "unanswered", "researcher"),
        ("pseudoclaude:beta", "plan", "coder"),
        ("pseudoclaude:beta", "stalled", "lead"),  # its runner never took the request in
    }
    [item] = [i for i in items if i["kind"] == "plan"]
    assert (
        item["requestId"] == "plan-7" and item["summary"] == "coder asks for approval of its plan"
    )
    res = await call(
        client,
        "teamInbox/answerPlan",
        {"team": "beta", "member": "coder", "approved": False, "feedback": "split step 2"},
    )
    assert (res["effect"], res["to"], res["requestId"], res["note"]) == (
        "answered",
        "coder",
        "plan-7",
        None,
    )
    [*_, written] = json.loads((pc / "team-beta-coder-1.json").read_bytes())["messages"]
    assert written["from"] == "lead" and written["type"] == "plan_approval_response"
    assert written["content"] == "Plan rejected: split step 2" == res["text"]
    assert written["payload"] == {
        "approved": False,
        "feedback": "split step 2",
        "request_id": "plan-7",
    }
    deadline = time.monotonic() + lsp_session.WAIT
    while time.monotonic() < deadline:  # the answer read back: the plan needs no one
        items = (await call(client, "teamInbox/attention", {}))["items"]
        if not [i for i in items if i["kind"] == "plan"]:
            break
        await asyncio.sleep(0.1)
    assert [i for i in items if i["kind"] == "plan"] == []
    err = await call_error(
        client, "teamInbox/answerPlan", {"team": "beta", "requestId": "nope", "approved": True}
    )
    assert error_code(err) == "unknown_request"
    err = await call_error(client, "teamInbox/answerPlan", {"team": "beta", "approved": True})
    assert error_code(err) == "invalid_params"
