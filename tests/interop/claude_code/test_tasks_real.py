"""Task boards, member states and "ask the lead", against the REAL Claude Code CLI.

Two sessions per version (the second observed on 2.1.197 and 2.1.332):

- the shared one (`cc`, scenario.py): the lead creates a task, assigns it to helper
  (TaskUpdate owner), helper completes it, and 5 s later the lead empties the list. Every
  version of tasks/<team>/1.json the recorder saw must have reached the client as a
  `teamInbox/tasksChanged` board, in order.
- this module's own (`board`, SCRIPT below): the lead creates two tasks and spawns
  `planner` in plan mode. Team Inbox sets their statuses (teamInbox/setTaskStatus, under
  `<id>.json.lock` and `.lock.lock`), the person asks the lead to look, and the lead's
  TaskGet / TaskList results must show Team Inbox's statuses. planner writes its plan and
  calls ExitPlanMode: a real plan_approval_request reaches the lead's inbox, and the
  lead's own inbox poller approves it within a second or two (both versions). Team Inbox
  shows planner `waiting` and the request as needing the person until then. The person
  also answers it with teamInbox/answerPlan, which on Claude Code asks the lead (a
  message quoting the request id); the scripted lead sends the plan_approval_response the
  message asks for: Claude Code accepts it from the lead, and the teammate, already
  approved, is not told twice. After /exit the ended team's board is still served.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .api_script import Reply, Request, Rule, Script, call, conversation_text, say
from .conftest import CcRun
from .errors import HarnessError
from .harness import Session
from .install import VERSIONS
from .own_session import tool_result
from .sidecar_client import Sidecar

PROMPT = "TASKS-REAL-START: make two tasks and spawn a planning teammate."
PLANNER_PROMPT = "PLANNER-TASK: write a plan and ask the lead to approve it."
ALPHA, BETA = "Alpha task", "Beta task"
CHECK = "PERSON-CHECK-TASKS: look at tasks 1 and 2."
LEAD_READY = "LEAD-TASKS-READY"
LEAD_CHECKED = "LEAD-CHECKED-TASKS"
LEAD_APPROVED = "LEAD-APPROVED-PLAN"
PLAN = "# Plan\n\n1. PLAN-CONTENT-TOKEN: do the work.\n"
PLANNER_WAITING = "PLANNER-WAITING"
PLANNER_GO = "PLANNER-GOT-APPROVAL"
PLAN_PATH = re.compile(
    r"(?:create your plan at|plan file already exists at|No plan file found at) (\S+?\.md)"
)
RID = re.compile(r"plan approval request's id: \"([^\"]+)\"")


def has_results(req: Request) -> bool:
    return bool(req.tool_results())


def _plan_path(req: Request) -> str | None:
    m = PLAN_PATH.search(conversation_text(req.body, first=100))
    return m.group(1) if m else None


def write_plan(req: Request) -> Reply:
    """Write the plan where plan mode says; not said: ExitPlanMode, whose error says it."""
    path = _plan_path(req)
    if path is None:
        return call("ExitPlanMode", {})
    return call("Write", {"file_path": path, "content": PLAN})


def approve(req: Request) -> Reply:
    """The lead does what the person's message asks: the plan_approval_response."""
    m = RID.search(req.last_user)
    rid = m.group(1) if m else "missing"
    msg = {"type": "plan_approval_response", "request_id": rid, "approve": True}
    return call("SendMessage", {"to": "planner", "message": msg})


def make_script() -> Script:
    def after_write(req: Request) -> bool:
        return has_results(req) and "No plan file found" not in req.last_user

    return Script(
        [
            # --- the lead
            Rule(
                "t-create-1",
                "lead",
                "TASKS-REAL-START",
                call(
                    "TaskCreate",
                    {"subject": ALPHA, "description": "ALPHA-DESC", "activeForm": "Doing alpha"},
                ),
            ),
            Rule(
                "t-create-2",
                "lead",
                has_results,
                call(
                    "TaskCreate",
                    {"subject": BETA, "description": "BETA-DESC", "activeForm": "Doing beta"},
                ),
                after=("t-create-1",),
            ),
            Rule(
                "t-spawn",
                "lead",
                has_results,
                call(
                    "Agent",
                    {
                        "description": "Spawn planner",
                        "name": "planner",
                        "prompt": PLANNER_PROMPT,
                        "subagent_type": "planner",  # PLANNER_AGENT: permissionMode plan
                        "mode": "plan",  # 2.1.197's way (2.1.332: deprecated, ignored)
                    },
                ),
                after=("t-create-2",),
            ),
            Rule("t-ready", "lead", has_results, say(LEAD_READY), after=("t-spawn",)),
            Rule("t-get", "lead", "PERSON-CHECK-TASKS", call("TaskGet", {"taskId": "1"})),
            Rule("t-list", "lead", has_results, call("TaskList", {}), after=("t-get",)),
            Rule("t-checked", "lead", has_results, say(LEAD_CHECKED), after=("t-list",)),
            Rule("t-approve", "lead", "Please APPROVE a teammate's plan", approve),
            Rule("t-approved", "lead", has_results, say(LEAD_APPROVED), after=("t-approve",)),
            # --- planner, in plan mode
            Rule("p-write", "planner", "PLANNER-TASK", write_plan),
            Rule(
                "p-write-2",
                "planner",
                lambda r: "No plan file found at" in r.last_user,
                write_plan,
                after=("p-write",),
            ),
            Rule("p-exit", "planner", after_write, call("ExitPlanMode", {}), after=("p-write",)),
            Rule("p-wait", "planner", has_results, say(PLANNER_WAITING), after=("p-exit",)),
            Rule("p-go", "planner", "Plan Approved", say(PLANNER_GO)),
        ]
    )


@dataclass
class Board:
    """What this module's session and its server did and saw."""

    version: str
    session: Session
    team: str = ""
    error: str | None = None
    set_results: dict[str, Any] = field(default_factory=dict)  # task id -> setTaskStatus result
    set_bytes: dict[str, bytes] = field(default_factory=dict)  # task file right after
    answer: Any = None
    attention_after: Any = None
    teams_after: Any = None
    tasks_live: Any = None
    tasks_ended: Any = None
    notifications: dict[str, list[Any]] = field(default_factory=dict)

    def require(self) -> None:
        if self.error:
            raise HarnessError(f"Claude Code {self.version}: {self.error}")

    def requests(self, who: str) -> list[Request]:
        return [r for r in self.session.api.snapshot() if r.body and r.who == who]

    def fired(self, rule: str) -> Request:
        hits = [r for r in self.session.api.snapshot() if r.rule == rule]
        assert hits, f"rule {rule!r} never fired\n{self.session.explain()}"
        return hits[0]

    def tool_result(self, rule: str) -> str:
        inner = tool_result(self.session, rule).get("content")
        if isinstance(inner, str):
            return inner
        return "\n".join(str(x.get("text", "")) for x in inner or [])

    def entries(self, inbox: str) -> list[dict[str, Any]]:
        return [e.value for e in self.session.recorder.entries(self.team) if e.inbox == inbox]

    def frames(self, inbox: str, kind: str) -> list[dict[str, Any]]:
        out = []
        for v in self.entries(inbox):
            try:
                f = json.loads(v["text"])
            except ValueError:
                continue
            if isinstance(f, dict) and f.get("type") == kind:
                out.append({"entry": v, "frame": f})
        return out


def _team_of(teams: Any, team: str) -> dict[str, Any]:
    return next(t for t in teams["teams"] if t["id"] == f"claude:{team}")


def _states(team: dict[str, Any]) -> dict[str, Any]:
    return {m["name"]: m["state"] for m in team["members"]}


PLANNER_AGENT = """---
name: planner
description: A teammate that plans first and asks for its plan to be approved.
permissionMode: plan
---
You plan before you work.
"""


def _run(version: str, base: Path) -> Board:
    agents = base / "work" / ".claude" / "agents"  # the project's own agent types
    agents.mkdir(parents=True)
    (agents / "planner.md").write_text(PLANNER_AGENT)
    # A teammate must plan first when the lead was in plan mode as it spawned it
    # (2.1.332 ignores Agent's `mode`): the lead runs in plan mode throughout.
    # the sidecar watches before claude starts, as an editor's would: on a busy machine a
    # sidecar started later may first see the board whole, and push no change of it
    (base / "home" / ".claude" / "teams").mkdir(parents=True)
    sidecar: Sidecar | None = Sidecar(base / "home").start()
    with Session(version, base, make_script(), PROMPT, ["--permission-mode", "plan"]) as s:
        out = Board(version, s)
        try:
            out.team = s.team(timeout=40)
            tid = f"claude:{out.team}"
            s.wait_rule("t-ready", 60)
            board = s.claude_dir / "tasks" / out.team

            def notes(method: str) -> list[Any]:
                assert sidecar is not None
                return sidecar.notifications(method)

            s.wait(
                lambda: any(
                    p["team"] == tid and len(p["tasks"]) == 2
                    for p in notes("teamInbox/tasksChanged")
                ),
                45,
                "a tasksChanged with both tasks",
            )
            out.tasks_live = sidecar.call("teamInbox/tasks", {"team": tid})
            for task_id, status in (("1", "in_progress"), ("2", "completed")):
                out.set_results[task_id] = sidecar.call(
                    "teamInbox/setTaskStatus", {"team": tid, "id": task_id, "status": status}
                )
                out.set_bytes[task_id] = (board / f"{task_id}.json").read_bytes()
            sidecar.send(out.team, "team-lead", CHECK, "person asks about the tasks")
            s.wait_rule("t-checked", 60)
            # planner's plan reaches the lead's inbox as a real plan_approval_request
            s.wait_rule("p-wait", 90)
            s.wait(lambda: out.frames("team-lead", "plan_approval_request"), 30, "the plan request")
            rid = out.frames("team-lead", "plan_approval_request")[0]["frame"]["requestId"]
            # the lead's runtime approves it by itself: ask the lead only after that, so
            # that which answer is whose is plain
            s.wait(lambda: out.frames("planner", "plan_approval_response"), 20, "the auto-approval")
            out.answer = sidecar.call(
                "teamInbox/answerPlan", {"team": tid, "requestId": rid, "approved": True}
            )
            s.wait_rule("t-approved", 60)
            s.wait_rule("p-go", 60)
            s.wait(
                lambda: len(out.frames("planner", "plan_approval_response")) >= 2,
                30,
                "the lead's own plan_approval_response",
            )
            time.sleep(2.0)  # whatever planner does with a second answer, and the server
            out.attention_after = sidecar.call("teamInbox/attention", {})
            out.teams_after = sidecar.call("teamInbox/teams", {})
        except HarnessError as exc:
            out.error = str(exc)
        except Exception as exc:
            out.error = f"{exc!r}\n{s.explain()}"
        finally:
            s.exit()
            time.sleep(2.0)  # the deletion reaches the server
            if sidecar is not None:
                try:
                    if out.team:
                        out.tasks_ended = sidecar.call(
                            "teamInbox/tasks", {"team": f"claude:{out.team}"}
                        )
                    for method in sidecar.ls.NOTIFICATIONS:
                        out.notifications[method] = sidecar.notifications(method)
                except Exception as exc:
                    out.error = out.error or f"querying the server after /exit: {exc!r}"
                finally:
                    sidecar.stop()
    return out


@pytest.fixture(scope="module", params=VERSIONS, ids=[f"cc{v}" for v in VERSIONS])
def board(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Board:
    version: str = request.param
    return _run(version, tmp_path_factory.mktemp(f"claude-code-tasks-{version}"))


# --------------------------------------------------------------------------- the shared session


def test_every_task_file_version_reached_the_client(cc: CcRun) -> None:
    """Created, assigned, completed, emptied: each state of the task file, in order, as
    a teamInbox/tasksChanged board (a state that another write replaced within half a
    second may have been read only as the later one)."""
    cc.require_server()
    rel = f"tasks/{cc.team}/1.json"
    versions: list[tuple[float, tuple[str, str | None] | None]] = []
    for v in cc.rec.versions(rel):
        state = None
        if v.data is not None:
            try:
                doc = json.loads(v.data)
            except ValueError:  # caught half-written (created, then filled): not a version
                continue
            state = (doc["status"], doc.get("owner"))
        if not versions or versions[-1][1] != state:
            versions.append((v.t, state))
    states = [s for _, s in versions]
    for must in (("pending", None), ("pending", "helper"), ("completed", "helper"), None):
        assert must in states, states
    boards = [
        p["tasks"]
        for p in cc.server.notifications.get("teamInbox/tasksChanged", [])
        if p["team"] == f"claude:{cc.team}"
    ]
    seen = [(b[0]["status"], b[0]["owner"]) if b else None for b in boards]
    at = 0
    for i, (t, state) in enumerate(versions):
        later = versions[i + 1][0] if i + 1 < len(versions) else None
        if state in seen[at:]:
            at = seen.index(state, at) + 1
        else:
            assert later is not None and later - t < 0.5, (state, versions, seen)
    for b in boards:
        for task in b:
            assert task["subject"] and task["format"] == "claude" and task["id"] == "1"
    completed = [b for b in boards if b and b[0]["status"] == "completed"]
    assert completed and completed[-1][0]["raw"]["activeForm"] == "Writing"


# --------------------------------------------------------------------------- this module's session


def test_tasks_appear_and_update_live(board: Board) -> None:
    board.require()
    live = board.tasks_live["tasks"]
    assert [(t["id"], t["subject"], t["status"]) for t in live] == [
        ("1", ALPHA, "pending"),
        ("2", BETA, "pending"),
    ]
    rec = board.session.recorder
    for n, subject in (("1", ALPHA), ("2", BETA)):
        docs = [d for _, d in rec.json_versions(f"tasks/{board.team}/{n}.json")]
        assert docs[0] == {
            "id": n,
            "subject": subject,
            "description": f"{subject.split()[0].upper()}-DESC",
            "activeForm": f"Doing {subject.split()[0].lower()}",
            "status": "pending",
            "blocks": [],
            "blockedBy": [],
        }
    boards = [
        p["tasks"]
        for p in board.notifications["teamInbox/tasksChanged"]
        if p["team"] == f"claude:{board.team}"
    ]
    states = [tuple(t["status"] for t in b) for b in boards]
    # one task, then two, then Team Inbox's two writes (each one a board of its own)
    assert states[0] in (("pending",), ("pending", "pending")), states
    assert ("in_progress", "pending") in states and ("in_progress", "completed") in states
    assert states.index(("in_progress", "pending")) < states.index(("in_progress", "completed"))


def test_status_written_as_claude_code_writes_tasks(board: Board) -> None:
    board.require()
    for n, status in (("1", "in_progress"), ("2", "completed")):
        res = board.set_results[n]["task"]
        assert res["status"] == status and res["id"] == n
        data = board.set_bytes[n]
        doc = json.loads(data)
        assert data == json.dumps(doc, indent=2, ensure_ascii=False).encode()  # stringify
        assert doc["status"] == status
        original = board.session.recorder.json_versions(f"tasks/{board.team}/{n}.json")[0][1]
        assert {k: v for k, v in doc.items() if k != "status"} == {
            k: v for k, v in original.items() if k != "status"
        }
    # our temp files: hidden and not *.json (Claude Code lists `*.json` not starting with
    # "."), and gone; no other file appeared
    # (watchdog's events name a temp renamed away before the recorder could read it)
    rec = board.session.recorder
    names = {Path(p).name for p in rec.named_paths(f"tasks/{board.team}/*")}
    ours = {n for n in names if n.endswith(".teaminbox-tmp")}
    assert ours and all(n.startswith(".") and not n.endswith(".json") for n in ours), ours
    assert names - ours <= {"1.json", "2.json", ".lock", ".highwatermark"}, names
    for n in ours:
        kept = rec.versions(f"tasks/{board.team}/{n}")
        assert not kept or kept[-1].data is None, n


def test_claude_code_sees_the_status_team_inbox_set(board: Board) -> None:
    """The lead's own TaskGet and TaskList tools read what Team Inbox wrote."""
    board.require()
    got = board.tool_result("t-get")
    listed = board.tool_result("t-list")
    print(f"TaskGet #1 -> {got!r}\nTaskList -> {listed!r}")
    assert ALPHA in got and "in_progress" in got.replace(" ", "_").lower(), got
    lines = {ln for ln in listed.splitlines() if ALPHA in ln or BETA in ln}
    alpha = next(ln for ln in lines if ALPHA in ln)
    beta = next(ln for ln in lines if BETA in ln)
    assert "in_progress" in alpha.replace(" ", "_").lower(), listed
    assert "completed" in beta.lower(), listed


def _pushed_states(board: Board, member: str) -> list[str]:
    return [
        m["state"]["kind"]
        for p in board.notifications["teamInbox/memberState"]
        if p["team"] == f"claude:{board.team}"
        for m in p["members"]
        if m["name"] == member
    ]


def test_a_real_plan_request_is_approved_by_the_leads_own_runtime(board: Board) -> None:
    """Observed: Claude Code's lead (its inbox poller, not its model) approves an in-process
    teammate's plan within a second or two. Team Inbox shows planner `waiting` and the
    request as needing the person meanwhile, and clears both when the answer comes."""
    board.require()
    [req] = board.frames("team-lead", "plan_approval_request")
    frame, entry = req["frame"], req["entry"]
    assert entry["from"] == "planner" and frame["from"] == "planner"
    assert "PLAN-CONTENT-TOKEN" in frame["planContent"]
    rid = frame["requestId"]
    assert re.fullmatch(r"plan_approval-\d+@planner@" + re.escape(board.team), rid), rid
    first = board.frames("planner", "plan_approval_response")[0]
    auto = first["frame"]
    assert first["entry"]["from"] == "team-lead"
    assert auto["requestId"] == rid and auto["approved"] is True
    assert ("planDigest" in auto) == (board.version != "2.1.197"), auto
    rec = board.session.recorder
    t_request = min(e.t for e in rec.entries(board.team) if e.value == entry)
    t_auto = min(e.t for e in rec.entries(board.team) if e.value == first["entry"])
    t_model = board.fired("t-approve").t  # the lead's model acting on the person's message
    print(f"plan request -> auto-approval: {t_auto - t_request:.2f} s")
    assert 0 < t_auto - t_request < 5 and t_auto < t_model
    assert "[Plan Approved]" in board.fired("p-go").last_user
    # Team Inbox: waiting, then not; the request needed the person, then not
    kinds = _pushed_states(board, "planner")
    assert "waiting" in kinds and kinds[-1] != "waiting", kinds
    seen = [
        any(i["kind"] == "plan" and i["requestId"] == rid for i in p["items"])
        for p in board.notifications["teamInbox/attentionChanged"]
    ]
    assert True in seen and seen[-1] is False, seen
    # the lead approves it by itself: shown as information, not counted
    plans = [
        i
        for p in board.notifications["teamInbox/attentionChanged"]
        for i in p["items"]
        if i["kind"] == "plan" and i["requestId"] == rid
    ]
    assert all(i["info"] is True and i["action"] is None for i in plans), plans
    st = _states(_team_of(board.teams_after, board.team))["planner"]
    assert st["kind"] != "waiting", st
    assert not [i for i in board.attention_after["items"] if i["kind"] == "plan"]


def test_asking_the_lead(board: Board) -> None:
    """answerPlan on Claude Code writes the lead a message quoting the request id: the
    lead's model gets it (unverified, from user), and the lead's SendMessage of the
    plan_approval_response it asks for is accepted and lands in the teammate's inbox."""
    board.require()
    [req] = board.frames("team-lead", "plan_approval_request")
    rid = req["frame"]["requestId"]
    ans = board.answer
    print(f"answerPlan -> {ans}")
    assert (ans["effect"], ans["to"], ans["member"], ans["requestId"]) == (
        "asked_lead",
        "team-lead",
        "planner",
        rid,
    )
    assert ans["note"].startswith("team-lead approved this request already")
    assert "only from its lead" in ans["note"]
    [asked] = [e for e in board.entries("team-lead") if e["from"] == "user" and rid in e["text"]]
    assert asked["msg_id"] == ans["messageId"] and asked["text"] == ans["text"]
    # what the lead's model was given: the person's words, flagged unverified on 2.1.332
    shown = board.fired("t-approve").last_user
    verified = ' verified="false"' if board.version != "2.1.197" else ""
    summary = "please approve the plan of a teammate"
    assert f'<teammate-message teammate_id="user" summary="{summary}"{verified}>' in shown, shown
    assert rid in shown and '"approve":true' in shown
    # the lead's SendMessage is accepted; its response is in planner's inbox, from the lead
    result = board.tool_result("t-approve")
    print(f"the lead's SendMessage -> {result!r}")
    assert "Plan approved for planner" in result, result
    responses = board.frames("planner", "plan_approval_response")
    assert len(responses) == 2, responses
    mine = responses[1]
    assert mine["entry"]["from"] == "team-lead" and mine["frame"]["requestId"] == rid
    assert mine["frame"]["approved"] is True
    # the request was answered already: planner is not told twice
    approvals = [r for r in board.requests("teammate:planner") if "[Plan Approved]" in r.last_user]
    print(f"planner was told [Plan Approved] {len(approvals)} time(s)")
    assert len(approvals) == 1, [r.summary() for r in approvals]


def test_the_ended_teams_board_is_still_served(board: Board) -> None:
    board.require()
    assert not (board.session.claude_dir / "teams" / board.team).exists()
    ended = board.tasks_ended["tasks"]
    assert [(t["id"], t["status"]) for t in ended] == [("1", "in_progress"), ("2", "completed")]
