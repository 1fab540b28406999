"""The scripted team session every test here shares (one per Claude Code version).

The lead spawns `helper`; helper greets the lead and tries to message `user` (refused);
the person writes to the lead and to helper (through this project's writers); the lead
creates a task and assigns it to helper, who completes it; the lead asks helper to shut
down, helper approves; the person types /exit. Every model answer comes from the rules
below; the unique tokens in CAPITALS let the tests find each step in the files and in
the fake API's request log.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .api_script import Reply, Request, Rule, Script, call, say
from .errors import HarnessError
from .harness import Session

PROMPT = "SCENARIO-START: spawn a teammate named helper and wait for its greeting."
HELPER_PROMPT = "HELPER-TASK: greet the lead, then wait for instructions."

# What the person sends (through teaminbox: the CLI, or the server's teamInbox/send).
PERSON_TO_LEAD = "PERSON-TO-LEAD-1: how is it going?"
PERSON_TO_HELPER = "PERSON-TO-HELPER-1: please report to the lead."
PERSON_TASKS = "PERSON-TASKS: create a task for helper."
PERSON_SHUTDOWN = "PERSON-SHUTDOWN: we are done, stop helper."

# What the scripted model says.
HELPER_HELLO = "HELLO-FROM-HELPER"
HELPER_TO_USER = "HELPER-REPLY-TO-USER"
LEAD_TO_USER = "LEAD-REPLY-TO-USER"
HELPER_IDLE_1 = "HELPER-IDLE-1"
LEAD_ACK = "LEAD-ACK-HELPER"
LEAD_ANSWER = "LEAD-ANSWER-PERSON-1"
HELPER_ANSWER = "HELPER-ANSWER-PERSON-2"
HELPER_RESULT = "HELPER-RESULT-PERSON-2"
LEAD_RELAY = "LEAD-SAW-HELPER-ANSWER"
TASK_SUBJECT = "Write the report"
TASK_DESC = "TASK-DESC: write the report and mark the task completed."
HELPER_TASK_DONE = "HELPER-TASK-DONE"
LEAD_TASK_ASSIGNED = "LEAD-TASK-ASSIGNED"
SHUTDOWN_REASON = "SHUTDOWN-REASON: the work is done"
LEAD_SHUTDOWN_SENT = "LEAD-SHUTDOWN-SENT"

SUMMARY_TO_LEAD = "person asks the lead"
SUMMARY_TO_HELPER = "person asks helper"


def has_results(req: Request) -> bool:
    return bool(req.tool_results())


def _task_id(req: Request) -> str:
    m = re.search(r"#(\d+)", req.last_user)
    return m.group(1) if m else "1"


def _approve_shutdown(req: Request) -> Reply:
    m = re.search(r"(shutdown-\d+@[A-Za-z0-9_-]+)", req.last_user)
    rid = m.group(1) if m else "shutdown-0@helper"
    return call(
        "SendMessage",
        {
            "to": "team-lead",
            "message": {"type": "shutdown_response", "request_id": rid, "approve": True},
        },
    )


def make_script() -> Script:
    rules = [
        # --- the lead
        Rule(
            "spawn",
            "lead",
            "SCENARIO-START",
            call(
                "Agent",
                {"description": "Spawn helper", "name": "helper", "prompt": HELPER_PROMPT},
            ),
        ),
        Rule("lead-ack", "lead", HELPER_HELLO, say(LEAD_ACK)),
        Rule(
            "lead-to-user",
            "lead",
            "PERSON-TO-LEAD-1",
            call(
                "SendMessage",
                {"to": "user", "message": LEAD_TO_USER, "summary": "lead answers the person"},
            ),
        ),
        Rule("lead-answer", "lead", has_results, say(LEAD_ANSWER), after=("lead-to-user",)),
        Rule("lead-relay", "lead", HELPER_ANSWER, say(LEAD_RELAY)),
        Rule(
            "task-create",
            "lead",
            "PERSON-TASKS",
            call(
                "TaskCreate",
                {"subject": TASK_SUBJECT, "description": TASK_DESC, "activeForm": "Writing"},
            ),
        ),
        Rule(
            "task-assign",
            "lead",
            has_results,
            lambda r: call("TaskUpdate", {"taskId": _task_id(r), "owner": "helper"}),
            after=("task-create",),
        ),
        Rule("task-assigned", "lead", has_results, say(LEAD_TASK_ASSIGNED), after=("task-assign",)),
        Rule(
            "shutdown",
            "lead",
            "PERSON-SHUTDOWN",
            call(
                "SendMessage",
                {
                    "to": "helper",
                    "message": {"type": "shutdown_request", "reason": SHUTDOWN_REASON},
                },
            ),
        ),
        Rule("shutdown-sent", "lead", has_results, say(LEAD_SHUTDOWN_SENT), after=("shutdown",)),
        # --- helper
        Rule(
            "hello",
            "helper",
            "HELPER-TASK",
            call(
                "SendMessage",
                {"to": "team-lead", "message": HELPER_HELLO, "summary": "helper says hello"},
            ),
        ),
        Rule(
            "helper-to-user",
            "helper",
            has_results,
            call(
                "SendMessage",
                {"to": "user", "message": HELPER_TO_USER, "summary": "reply to the person"},
            ),
            after=("hello",),
        ),
        Rule("hello-done", "helper", has_results, say(HELPER_IDLE_1), after=("helper-to-user",)),
        Rule(
            "helper-answer",
            "helper",
            "PERSON-TO-HELPER-1",
            call(
                "SendMessage",
                {"to": "team-lead", "message": HELPER_ANSWER, "summary": "answer for the person"},
            ),
        ),
        Rule("helper-result", "helper", has_results, say(HELPER_RESULT), after=("helper-answer",)),
        Rule(
            "task-work",
            "helper",
            "task_assignment",
            lambda r: call("TaskUpdate", {"taskId": _task_id(r), "status": "completed"}),
        ),
        Rule("task-done", "helper", has_results, say(HELPER_TASK_DONE), after=("task-work",)),
        Rule("shutdown-ok", "helper", "shutdown_request", _approve_shutdown),
    ]
    return Script(rules)


Sender = Callable[[str, str, str, str], Any]  # (team, to, text, summary)


@dataclass
class Outcome:
    """What a scenario run left for the tests to look at."""

    session: Session
    team: str
    error: str | None = None
    sends: list[tuple[str, str, str, Any]] = field(default_factory=list)  # (how, to, text, result)
    server: Any = None

    @property
    def home(self) -> Path:
        return self.session.home


def run(
    session: Session,
    server_send: Sender | None = None,
    before_exit: Callable[[Outcome], None] | None = None,
) -> Outcome:
    """Play the scenario on a started session. Never raises: a failure is `error`.

    `server_send` (the teaminbox server's teamInbox/send) is used for the person's
    message to helper and the tasks request; when it fails the CLI sends instead, so
    the Claude Code observations do not depend on the server. `before_exit` runs while
    the team still exists (after the last step, before /exit); its failure is its own
    to record.
    """
    s = session
    out = Outcome(s, team="")

    def send(to: str, text: str, summary: str, via_server: bool) -> None:
        if via_server and server_send is not None:
            try:
                res = server_send(out.team, to, text, summary)
                out.sends.append(("server", to, text, res))
                return
            except Exception as exc:  # the server's failure is test_teaminbox's to report
                out.sends.append(("server-error", to, text, repr(exc)))
        out.sends.append(("cli", to, text, s.send_cli(out.team, to, text, summary)))

    try:
        out.team = s.team(timeout=40)
        s.mark("team")
        s.wait_rule("spawn", 40)
        s.wait_rule("hello", 40)
        s.wait_rule("hello-done", 30)
        s.wait_rule("lead-ack", 30)
        # helper's idle_notification reaches the lead's inbox
        s.wait(
            lambda: any(
                e.inbox == "team-lead" and (e.frame or {}).get("type") == "idle_notification"
                for e in s.recorder.entries(out.team)
            ),
            30,
            "helper's idle_notification in team-lead.json",
        )
        send("team-lead", PERSON_TO_LEAD, SUMMARY_TO_LEAD, via_server=False)
        s.wait_rule("lead-answer", 30)
        send("helper", PERSON_TO_HELPER, SUMMARY_TO_HELPER, via_server=True)
        s.wait_rule("helper-result", 30)
        s.wait_rule("lead-relay", 30)
        send("team-lead", PERSON_TASKS, "person asks for a task", via_server=True)
        s.wait_rule("task-assigned", 30)
        s.wait_rule("task-done", 30)
        send("team-lead", PERSON_SHUTDOWN, "person ends the work", via_server=False)
        s.wait_rule("shutdown-ok", 30)
        s.wait(
            lambda: any(
                e.inbox == "team-lead" and (e.frame or {}).get("type") == "shutdown_approved"
                for e in s.recorder.entries(out.team)
            ),
            30,
            "shutdown_approved in team-lead.json",
        )
        # the lead takes in the approval (its model is shown it) and prunes it
        s.wait(
            lambda: s.api.find(lambda r: r.who == "lead" and "shutdown_approved" in r.last_user),
            30,
            "the lead's model to be shown shutdown_approved",
        )
        inboxes = [f"teams/{out.team}/inboxes/{n}.json" for n in ("team-lead", "helper")]
        s.wait(
            lambda: all(s.recorder.last_json(p) == [] for p in inboxes),
            15,
            "team-lead.json and helper.json to be empty",
        )
        # 5 s after every task is completed, the lead's task list is reset (files
        # deleted, .highwatermark kept): wait for it (test_observed asserts it)
        task = f"tasks/{out.team}/1.json"
        s.recorder.wait_for(
            lambda r: bool(r.versions(task)) and r.versions(task)[-1].data is None, 15.0
        )
        s.mark("task-reset")
        s.idle()
    except HarnessError as exc:
        out.error = str(exc)
    except Exception as exc:
        out.error = f"{exc!r}\n{s.explain()}"
    finally:
        s.mark("scenario")
        if before_exit is not None and out.team:
            before_exit(out)
        s.exit()
        time.sleep(0.5)
    return out


def require(out: Outcome) -> None:
    """Fail with the evidence when the scenario itself did not complete."""
    if out.error:
        raise HarnessError(f"the scripted session did not complete:\n{out.error}")
    if out.team == "":
        raise HarnessError("no team")
