"""What the real Claude Code CLI does on disk and on the wire, per version.

Each test pins one behaviour this project relies on (docs/on-disk-formats.md, 1a), so a
Claude Code release that changes it fails here first. The session is scenario.py's
(one per version, shared); the evidence is the recorder's every-version record of
~/.claude/{teams,tasks,projects} and the fake API's log of every request.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from . import scenario as sc
from .conftest import CcRun
from .fake_api import MODEL

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
COLORS = {"blue", "green", "red", "yellow", "purple", "cyan", "orange", "pink"}


@dataclass(frozen=True)
class Expect:
    """Where the versions differ (each value observed on that version)."""

    lead_process: bool  # config.json has leadProcess
    verified_attr: bool  # a non-Claude-Code entry reaches the model with verified="false"
    wraps_user_to_teammate: bool  # from "user" to a teammate: <teammate-message> or bare
    helper_has_prompt: bool  # the teammate's member entry keeps its spawn prompt
    helper_model: str  # the teammate's model (2.1.197 ignores --model for teammates)
    idle_result: bool  # idle_notification carries the teammate's last text as `result`
    refusal_teammate: str  # SendMessage to "user" from a teammate ({team} is filled in)
    refusal_lead: str  # ... and from the lead
    lead_sees_pane_id: str  # shutdown_approved.paneId as the lead's model is shown it
    deletes_by_rename: bool  # on exit: teams/<team> -> <team>.deleted-<uuid>, then removed


REFUSAL_197 = (
    "No teammate named 'user' in team '{team}'. Valid names: team-lead, helper."
    " Spawn one with Agent({{name: 'user'}}) \u2014 or message the lead to do so."
)
EXPECT = {
    "2.1.197": Expect(
        lead_process=False,
        verified_attr=False,
        wraps_user_to_teammate=False,
        helper_has_prompt=True,
        helper_model="claude-opus-4-8",
        idle_result=False,
        refusal_teammate=REFUSAL_197,
        refusal_lead=REFUSAL_197,
        lead_sees_pane_id="in-process",
        deletes_by_rename=False,
    ),
    "2.1.332": Expect(
        lead_process=True,
        verified_attr=True,
        wraps_user_to_teammate=True,
        helper_has_prompt=False,
        helper_model=MODEL,
        idle_result=True,
        refusal_teammate=(
            "No agent named 'user' is reachable.\nCheck the spelling, or use the agent ID"
            " from a background agent's spawn result."
        ),
        refusal_lead=(
            "No agent named 'user' is reachable.\nUse ListAgents to see everyone you can message."
        ),
        lead_sees_pane_id="[invalid id]",
        deletes_by_rename=True,
    ),
}


def ms(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000


def expect(cc: CcRun) -> Expect:
    return EXPECT[cc.version]


def member(config: dict[str, Any], name: str) -> dict[str, Any]:
    found: list[dict[str, Any]] = [m for m in config.get("members", []) if m.get("name") == name]
    assert found, f"no member {name!r} in {config!r}"
    return found[0]


# --------------------------------------------------------------------------- the team


def test_session_team_is_created_implicitly(cc: CcRun) -> None:
    cc.require()
    assert re.fullmatch(r"session-[0-9a-f]{8}", cc.team), cc.team
    config = cc.config()
    assert config["name"] == cc.team
    assert UUID.match(config["leadSessionId"]), config["leadSessionId"]
    # the folder is named after the first 8 hex digits of the lead's session id
    assert cc.team == "session-" + config["leadSessionId"][:8]
    assert config["leadAgentId"] == f"team-lead@{cc.team}"
    assert isinstance(config["createdAt"], int) and config["createdAt"] > 1.7e12
    assert "description" not in config
    # the team exists from the start, before any Agent call
    assert cc.session.timings["team"] < cc.session.timings["spawn"]


def test_config_members(cc: CcRun) -> None:
    cc.require()
    config = cc.config()
    cwd = str(cc.session.cwd)
    lead = member(config, "team-lead")
    assert lead["agentId"] == f"team-lead@{cc.team}"
    assert lead["agentType"] == "team-lead"
    assert lead["cwd"] == cwd
    assert lead["tmuxPaneId"] == "leader"  # not "" as older notes say
    assert lead["backendType"] == "in-process"
    assert lead["subscriptions"] == []
    assert isinstance(lead["joinedAt"], int)

    helper = member(config, "helper")
    assert helper["agentId"] == f"helper@{cc.team}"
    assert helper["cwd"] == cwd
    assert helper["color"] in COLORS
    assert helper["tmuxPaneId"] == "in-process"
    assert helper["backendType"] == "in-process"
    assert helper["planModeRequired"] is False
    assert helper["model"] == expect(cc).helper_model
    assert "agentType" not in helper
    if expect(cc).helper_has_prompt:
        assert helper["prompt"] == sc.HELPER_PROMPT
    else:
        assert "prompt" not in helper


def test_lead_process_only_on_newer_versions(cc: CcRun) -> None:
    cc.require()
    config = cc.config()
    if not expect(cc).lead_process:
        assert "leadProcess" not in config
        return
    proc = config["leadProcess"]
    assert set(proc) == {"pid", "pidSpace", "claimedAt", "procStart"}
    assert cc.session.pty is not None
    assert proc["pid"] == cc.session.pty.proc.pid  # claude itself, the pty's session leader
    assert isinstance(proc["claimedAt"], int)
    assert isinstance(proc["pidSpace"], str) and proc["pidSpace"]
    assert isinstance(proc["procStart"], str) and proc["procStart"]


def test_teammate_leaves_members_after_shutdown(cc: CcRun) -> None:
    cc.require()
    docs = cc.config_versions()
    names = [[m["name"] for m in d["members"]] for d in docs]
    assert ["team-lead", "helper"] in names
    assert names[-1] == ["team-lead"], names


def test_team_folder_deleted_on_exit_tasks_and_transcripts_stay(cc: CcRun) -> None:
    cc.require()
    s = cc.session
    assert s.exit_how == "/exit" and s.exit_code == 0, (s.exit_how, s.exit_code)
    assert cc.rec.existed(cc.team_dir)
    assert not (s.claude_dir / cc.team_dir).exists()
    assert not cc.rec.exists_now(cc.team_dir)
    assert (s.claude_dir / "tasks" / cc.team).is_dir()
    assert (s.claude_dir / "tasks" / cc.team / ".lock").is_file()
    project = s.claude_dir / cc.project_dir()
    assert (project / f"{cc.lead_session_id()}.jsonl").is_file()
    assert list((project / cc.lead_session_id() / "subagents").glob("agent-*.jsonl"))


def test_how_the_team_folder_is_deleted(cc: CcRun) -> None:
    cc.require()
    teams = str(cc.session.claude_dir / "teams") + "/"
    renames = [
        (src[len(teams) :], dest[len(teams) :])
        for _, kind, src, dest in cc.rec.events
        if kind == "moved" and src == teams + cc.team
    ]
    deleted = [src for _, kind, src, _ in cc.rec.events if kind == "deleted"]
    if expect(cc).deletes_by_rename:
        # a watcher sees a folder `<team>.deleted-<uuid>` (with config.json) for a moment
        assert len(renames) == 1, renames
        gone = renames[0][1]
        assert re.fullmatch(re.escape(cc.team) + r"\.deleted-[0-9a-f-]{36}", gone), gone
        assert teams + gone + "/config.json" in deleted
        assert not (cc.session.claude_dir / "teams" / gone).exists()
    else:
        assert renames == []
        assert teams + cc.team + "/config.json" in deleted


# --------------------------------------------------------------------------- inboxes


def test_claude_code_entry_shape(cc: CcRun) -> None:
    cc.require()
    own = [e for e in cc.entries() if e.value["from"] in ("helper", "team-lead")]
    assert len(own) >= 8, [e.value for e in own]
    for e in own:
        v = e.value
        assert v["msgV"] == 1, v
        assert v["type"] == "message", v
        assert UUID.match(v["msg_id"]), v
        assert v["read"] is False, v
        assert ISO_MS.match(v["timestamp"]), v
        allowed = {
            "from",
            "text",
            "summary",
            "timestamp",
            "color",
            "msgV",
            "msg_id",
            "type",
            "read",
        }
        assert set(v) <= allowed, v
        if v["from"] == "helper":
            assert v["color"] == member(cc.config(), "helper")["color"], v
        else:
            assert "color" not in v, v  # the lead's frames carry no color
    hello = cc.entry_with(sc.HELPER_HELLO, "team-lead").value
    assert hello["text"] == sc.HELPER_HELLO
    assert hello["summary"] == "helper says hello"
    assert list(hello) == [
        "from",
        "text",
        "summary",
        "timestamp",
        "color",
        "msgV",
        "msg_id",
        "type",
        "read",
    ]


def test_inbox_files_are_json_arrays_with_two_space_indent(cc: CcRun) -> None:
    cc.require()
    for rel in cc.rec.paths(f"{cc.team_dir}/inboxes/*.json"):
        for v in cc.rec.versions(rel):
            if v.data is None or v.data in (b"", b"[]"):
                continue
            doc = json.loads(v.data)
            assert isinstance(doc, list), rel
            assert v.data.decode() == json.dumps(doc, indent=2, ensure_ascii=False), rel


def test_temp_files_and_lock_directories(cc: CcRun) -> None:
    cc.require()
    # the names come from the inotify events: a temp file lives well under a millisecond
    inboxes = str(cc.session.claude_dir / cc.team_dir / "inboxes") + "/"
    created = {src[len(inboxes) :] for _, kind, src, _ in cc.rec.events if kind == "created"}
    moved = {
        (src[len(inboxes) :], dest[len(inboxes) :])
        for _, kind, src, dest in cc.rec.events
        if kind == "moved" and src.startswith(inboxes)
    }
    temp = re.compile(r"^(team-lead|helper)\.json\.tmp\.[0-9a-f]{8}$")
    temps = {n for n in created if temp.match(n)}
    assert temps, sorted(created)
    # each renamed over its own inbox
    for src, dest in moved:
        if temp.match(src):
            assert dest == src.split(".tmp.")[0], (src, dest)
    assert any(temp.match(src) for src, _ in moved), sorted(moved)
    locks = cc.rec.dir_paths(f"{cc.team_dir}/inboxes/*.json.lock")
    assert locks, "no <inbox>.json.lock directory was ever seen"
    assert not cc.rec.paths(f"{cc.team_dir}/inboxes/*.json.lock")  # directories, not files


def test_delivered_entries_are_pruned_not_marked_read(cc: CcRun) -> None:
    cc.require()
    for inbox in ("team-lead", "helper"):
        rel = f"{cc.team_dir}/inboxes/{inbox}.json"
        docs = [d for _, d in cc.rec.json_versions(rel)]
        assert docs, rel
        for d in docs:
            assert all(item.get("read") is False for item in d), d  # never read: true
        assert docs[-1] == [], f"{inbox}.json still holds {docs[-1]!r} at the end"
        entries = [e for e in cc.entries() if e.inbox == inbox]
        assert entries
        for e in entries:
            # each entry was in some version, and is gone from a later one
            first = next(i for i, d in enumerate(docs) if e.value in d)
            assert any(e.value not in d for d in docs[first:]), e.value


def test_no_user_inbox(cc: CcRun) -> None:
    cc.require()
    assert not cc.rec.paths(f"{cc.team_dir}/inboxes/user.json")
    inboxes = {p.rsplit("/", 1)[1] for p in cc.rec.paths(f"{cc.team_dir}/inboxes/*.json")}
    assert inboxes == {"team-lead.json", "helper.json"}, inboxes


def test_send_message_to_user_is_refused(cc: CcRun) -> None:
    cc.require()
    for rule, want in (
        ("helper-to-user", expect(cc).refusal_teammate),
        ("lead-to-user", expect(cc).refusal_lead),
    ):
        text = cc.tool_result(rule)
        first = text.strip().split("\n<system-reminder>")[0].strip()
        result = json.loads(first)
        assert result == {"success": False, "message": want.format(team=cc.team)}, rule


def test_person_message_is_delivered_unverified(cc: CcRun) -> None:
    cc.require()
    verified = ' verified="false"' if expect(cc).verified_attr else ""
    cases = (
        ("lead", sc.SUMMARY_TO_LEAD, sc.PERSON_TO_LEAD),
        ("teammate:helper", sc.SUMMARY_TO_HELPER, sc.PERSON_TO_HELPER),
    )
    for who, summary, text in cases:
        block = f'<teammate-message teammate_id="user" summary="{summary}"{verified}>\n{text}\n'
        if who != "lead" and not expect(cc).wraps_user_to_teammate:
            # 2.1.197 hands a teammate the person's entry as a bare user turn
            hits = [r for r in cc.requests(who) if r.last_user == text]
            assert hits, f"{who} never got {text!r} as a bare turn\n{cc.explain()}"
            continue
        hits = [r for r in cc.requests(who) if block in r.last_user]
        assert hits, f"{who} never got {block!r}\n{cc.explain()}"
    # Claude Code's own entries are not flagged
    lead_views = "\n".join(r.last_user for r in cc.requests("lead"))
    assert '<teammate-message teammate_id="helper" color=' in lead_views
    assert 'teammate_id="helper" color="blue" summary="helper says hello">' in lead_views


def test_person_entries_were_written_by_teaminbox(cc: CcRun) -> None:
    cc.require()
    for text, inbox in ((sc.PERSON_TO_LEAD, "team-lead"), (sc.PERSON_TO_HELPER, "helper")):
        v = cc.entry_with(text, inbox).value
        assert v["from"] == "user" and v["read"] is False and v["type"] == "message", v
        assert UUID.match(v["msg_id"]), v


def test_idle_notifications(cc: CcRun) -> None:
    cc.require()
    idles = cc.frames("idle_notification", "team-lead")
    assert len(idles) == 3, [e.value for e in idles]
    for e in idles:
        f = e.frame or {}
        assert e.value["from"] == "helper"
        assert f["from"] == "helper" and f["idleReason"] == "available", f
        assert ISO_MS.match(f["timestamp"])
        allowed = {"type", "from", "timestamp", "idleReason", "summary", "result"}
        assert set(f) <= allowed, f
        assert "summary" not in e.value  # the entry itself has no summary
    first = idles[0].frame or {}
    # the teammate's refused message to the person is what its first idle reports
    assert first["summary"] == "[to user] reply to the person", first
    results = [(e.frame or {}).get("result") for e in idles]
    if expect(cc).idle_result:
        assert results == [sc.HELPER_IDLE_1, sc.HELPER_RESULT, sc.HELPER_TASK_DONE]
    else:
        assert results == [None, None, None]


def test_tasks_and_task_assignment(cc: CcRun) -> None:
    cc.require()
    rel = f"tasks/{cc.team}/1.json"
    docs = [d for _, d in cc.rec.json_versions(rel)]
    assert docs, cc.rec.paths("tasks/*")
    assert docs[0] == {
        "id": "1",
        "subject": sc.TASK_SUBJECT,
        "description": sc.TASK_DESC,
        "activeForm": "Writing",
        "status": "pending",
        "blocks": [],
        "blockedBy": [],
    }
    # assigned (the lead's TaskUpdate), then completed (helper's)
    assert any(d.get("owner") == "helper" and d["status"] == "pending" for d in docs), docs
    final = docs[-1]
    assert final["status"] == "completed" and final["owner"] == "helper", final
    assert cc.rec.versions(f"tasks/{cc.team}/.lock")[0].data == b""

    frames = cc.frames("task_assignment", "helper")
    assert len(frames) == 1
    e = frames[0]
    assert e.value["from"] == "team-lead"
    f = e.frame or {}
    assert f == {
        "type": "task_assignment",
        "taskId": "1",
        "subject": sc.TASK_SUBJECT,
        "description": sc.TASK_DESC,
        "assignedBy": "team-lead",
        "timestamp": f["timestamp"],
    }
    # the frame's own timestamp and the entry's are taken apart (a millisecond or so)
    assert abs(ms(f["timestamp"]) - ms(e.value["timestamp"])) < 1000, (f, e.value)


def test_completed_task_list_is_reset_after_five_seconds(cc: CcRun) -> None:
    cc.require()
    rel = f"tasks/{cc.team}/1.json"
    versions = cc.rec.versions(rel)
    assert versions[-1].data is None, "the completed task file was not deleted"
    completed = next(
        v.t for v in versions if v.data and json.loads(v.data).get("status") == "completed"
    )
    waited = versions[-1].t - completed
    # 5 s on an idle machine; the lead's UI may notice the completion late under load
    assert 4.5 < waited < 15, f"deleted {waited:.2f} s after completion"
    assert cc.rec.versions(f"tasks/{cc.team}/.highwatermark")[-1].data == b"1"
    assert (cc.session.claude_dir / "tasks" / cc.team / ".highwatermark").read_text() == "1"


def test_shutdown_request_and_approval(cc: CcRun) -> None:
    cc.require()
    requests = cc.frames("shutdown_request", "helper")
    assert len(requests) == 1
    req = requests[0].frame or {}
    assert re.fullmatch(r"shutdown-\d{13}@helper", req["requestId"]), req
    assert req["from"] == "team-lead" and req["reason"] == sc.SHUTDOWN_REASON
    assert set(req) == {"type", "requestId", "from", "reason", "timestamp"}

    approvals = cc.frames("shutdown_approved", "team-lead")
    assert len(approvals) == 1
    ok = approvals[0].frame or {}
    assert ok == {
        "type": "shutdown_approved",
        "requestId": req["requestId"],
        "from": "helper",
        "timestamp": ok["timestamp"],
        "paneId": "in-process",
        "backendType": "in-process",
    }
    # what the lead's model is shown of it
    shown = [r.last_user for r in cc.requests("lead") if "shutdown_approved" in r.last_user]
    assert shown and f'"paneId":"{expect(cc).lead_sees_pane_id}"' in shown[0], shown


# --------------------------------------------------------------------------- transcripts


def test_lead_transcript(cc: CcRun) -> None:
    cc.require()
    sid = cc.lead_session_id()
    rows = cc.transcript_rows(f"{cc.project_dir()}/{sid}.jsonl")
    chat = [r for r in rows if r.get("type") in ("user", "assistant")]
    assert len(chat) >= 20
    for r in chat:
        assert r["sessionId"] == sid
        assert r["cwd"] == str(cc.session.cwd)
        assert r["gitBranch"] == "HEAD"  # the scratch folder is no git repository
        assert r["version"] == cc.version
        assert UUID.match(r["uuid"])
        assert r["isSidechain"] is False
    assistants = [r for r in chat if r["type"] == "assistant"]
    sent = {
        (q.usage["input_tokens"], q.usage["output_tokens"]) for q in cc.requests("lead") if q.usage
    }
    for r in assistants:
        usage = r["message"]["usage"]
        assert (usage["input_tokens"], usage["output_tokens"]) in sent, usage
        assert r["message"]["model"] == MODEL
    said = [
        b.get("text")
        for r in assistants
        for b in r["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "text"
    ]
    for text in (sc.LEAD_ACK, sc.LEAD_ANSWER, sc.LEAD_RELAY, sc.LEAD_TASK_ASSIGNED):
        assert text in said, said
    person = [
        r
        for r in chat
        if r["type"] == "user" and sc.PERSON_TO_LEAD in json.dumps(r["message"]["content"])
    ]
    assert person, "the person's message is not in the lead's transcript"


def test_subagent_transcript_and_meta(cc: CcRun) -> None:
    cc.require()
    sid = cc.lead_session_id()
    sub = f"{cc.project_dir()}/{sid}/subagents"
    metas = cc.rec.paths(f"{sub}/agent-*.meta.json")
    metas = [p for p in metas if p.endswith(".meta.json")]
    assert len(metas) == 1, cc.rec.paths(f"{sub}/*")
    m = re.search(r"/agent-(ahelper-[0-9a-f]{16})\.meta\.json$", metas[0])
    assert m, metas[0]
    agent_id = m.group(1)
    meta = cc.rec.last_json(metas[0])
    assert {
        "agentType": "helper",
        "name": "helper",
        "description": "Spawn helper",
        "taskKind": "in_process_teammate",
        "teamName": cc.team,
        "spawnDepth": 0,
        "planModeRequired": False,
        "permissionMode": "default",
        "model": expect(cc).helper_model,
    }.items() <= meta.items(), meta
    assert meta["color"] == member(cc.config(), "helper")["color"]
    rows = cc.transcript_rows(f"{sub}/agent-{agent_id}.jsonl")
    chat = [r for r in rows if r.get("type") in ("user", "assistant")]
    assert chat
    for r in chat:
        assert r["sessionId"] == sid and r["agentId"] == agent_id and r["isSidechain"] is True
    assert sc.PERSON_TO_HELPER in json.dumps(chat)
