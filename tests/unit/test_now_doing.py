"""What each member does now: its last tool call without a result, from hand-written
transcripts in Claude Code 2.1.332's shape (one row per content block; a `tool_result` in
the next user row, `is_error` on a failed call)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, cast

import attrs

from support.world import Teams
from teaminbox import request_text
from teaminbox.cli.output import step_line
from teaminbox.model import Activity, Step
from teaminbox.protocol import ActivityParams, AttentionItem, PermissionPrompt
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.features.activity.feature import _shown, new_step
from teaminbox.server.features.permissions import OpenPrompt, Prompts
from teaminbox.transcripts import STEP_CHARS, Session, Stats, TeamActivity

SONNET = "claude-sonnet-4-5-20250929"
T0 = "2026-11-30T12:00:01.000Z"


def line(row: dict[str, Any]) -> bytes:
    return json.dumps(row, separators=(",", ":")).encode()


def call(tid: str, name: str, inp: dict[str, Any], ts: str = T0, msg: str = "msg_1") -> bytes:
    return line(
        {
            "parentUuid": "p",
            "isSidechain": False,
            "type": "assistant",
            "uuid": "a-" + tid,
            "timestamp": ts,
            "cwd": "/home/dev/app",
            "gitBranch": "main",
            "version": "2.1.332",
            "requestId": "req_" + msg,
            "message": {
                "id": msg,
                "model": SONNET,
                "role": "assistant",
                "type": "message",
                "content": [{"type": "tool_use", "id": tid, "name": name, "input": inp}],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        }
    )


def result(tid: str, text: str = "ok", error: bool = False, ts: str = T0) -> bytes:
    block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": text}
    if error:
        block["is_error"] = True
    return line(
        {
            "parentUuid": "a-" + tid,
            "isSidechain": False,
            "type": "user",
            "uuid": "u-" + tid,
            "timestamp": ts,
            "version": "2.1.332",
            "message": {"role": "user", "content": [block]},
            "toolUseResult": {"stdout": text, "stderr": "", "interrupted": False},
            "sourceToolAssistantUUID": "a-" + tid,
        }
    )


def test_a_call_without_its_result_is_the_step_until_the_result_comes() -> None:
    s = Stats()
    assert s.step() is None
    s.feed([call("toolu_1", "Bash", {"command": "npm test -- refunds", "description": "d"})])
    step = s.step()
    assert step is not None
    assert (step.tool, step.detail, step.text) == ("Bash", "npm test -- refunds", step.text)
    assert step.text == "Bash: npm test -- refunds" and step.tool_use_id == "toolu_1"
    assert step.since == 1796040001.0 and step.waiting is False
    s.feed([result("toolu_1")])
    assert s.step() is None


def test_the_newest_open_call_is_the_step_and_an_error_result_ends_it_too() -> None:
    s = Stats()
    s.feed([call("toolu_1", "Edit", {"file_path": "src/api/refunds.py", "old_string": "a"})])
    s.feed([call("toolu_2", "Read", {"file_path": "README.md"}, msg="msg_2")])
    assert s.step() is not None and s.step().text == "Read: README.md"  # type: ignore[union-attr]
    s.feed([result("toolu_2", "no such file", error=True)])
    assert s.step() is not None and s.step().text == "Edit: src/api/refunds.py"  # type: ignore[union-attr]
    s.feed([result("toolu_1")])
    assert s.step() is None


def test_a_tool_without_a_known_field_shows_its_input_and_a_bare_tool_its_name() -> None:
    s = Stats()
    s.feed([call("toolu_1", "TaskList", {})])
    assert s.step().text == "TaskList"  # type: ignore[union-attr]
    s.feed([call("toolu_2", "mcp__x__go", {"q": 1}, msg="msg_2")])
    assert s.step().text == 'mcp__x__go: {"q":1}'  # type: ignore[union-attr]


def test_hostile_commands_and_names_are_shown_as_one_line_of_text() -> None:
    s = Stats()
    evil = "echo \x1b]0;owned\x07 \u202eevil\nrm -rf / " + "x" * 500
    s.feed([call("toolu_\x1b[2J", "Bash", {"command": evil})])
    step = s.step()
    assert step is not None
    for text in (step.text, step.tool, step.detail, step.tool_use_id):
        assert (
            "\x1b" not in text and "\u202e" not in text and "\n" not in text and "\x07" not in text
        )
    assert step.text.startswith("Bash: echo \\e]0;owned\\x07 <U+202E>evil \u23ce rm -rf / xx")
    assert len(step.text) == STEP_CHARS and step.text.endswith("\u2026")
    assert step.tool_use_id == "toolu_\\e[2J"
    s.feed([call("toolu_2", "Ba\u202esh\n\x9b", {"x": "\u2066"}, msg="msg_2")])
    step = s.step()
    assert step is not None and step.tool == "Ba<U+202E>sh \u23ce \\x9b"
    assert step.text == 'Ba<U+202E>sh \u23ce \\x9b: {"x":"<U+2066>"}'


def test_a_teammates_step_is_in_its_activity_and_never_kept_in_the_history(
    tmp_path: Path,
) -> None:
    sid = "11111111-2222-4333-8444-555555555555"
    project = tmp_path / "projects" / "-home-dev-app"
    sub = project / sid / "subagents"
    sub.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_bytes(call("toolu_L", "Agent", {"name": "helper"}) + b"\n")
    (project / f"{sid}.jsonl").open("ab").write(result("toolu_L") + b"\n")
    cmd = {"command": "while [ ! -f GO ]; do sleep 0.2; done"}
    (sub / "agent-ahelper-1.jsonl").write_bytes(call("toolu_H", "Bash", cmd) + b"\n")
    (sub / "agent-ahelper-1.meta.json").write_text(
        json.dumps({"name": "helper", "teamName": "session-1", "taskKind": "in_process_teammate"})
    )
    s = Session(
        [str(tmp_path / "projects")], sid, "/home/dev/app", "team-lead", "user", ["session-1"]
    )
    s.poll(1 << 20)
    act = s.activity(now=time.time())
    assert act is not None
    assert act.members["team-lead"].doing is None
    doing = act.members["helper"].doing
    assert doing is not None and doing.text == "Bash: " + cmd["command"]
    assert "doing" not in json.dumps(act.persisted())
    back = TeamActivity.restored(act.persisted())
    assert back is not None and back.members["helper"].doing is None
    with (sub / "agent-ahelper-1.jsonl").open("ab") as f:
        f.write(result("toolu_H") + b"\n")
    s.poll(1 << 20)
    act = s.activity(now=time.time())
    assert act is not None and act.members["helper"].doing is None


def test_a_step_waits_for_a_permission_answer_only_while_a_prompt_is_open() -> None:
    step = Step("Bash", "rm x", "Bash: rm x", 100.0, "toolu_1")
    a = Activity(last_active=100.0, doing=step)
    shown = _shown(a, 200.0, True)
    assert shown.doing is not None and shown.doing.waiting and not a.doing.waiting  # type: ignore[union-attr]
    assert _shown(shown, 200.0, False).doing == step
    assert _shown(Activity(), 200.0, True).doing is None


def test_a_long_step_is_said_to_be_long() -> None:
    step = Step("Bash", "npm test", "Bash: npm test", 1000.0, "t")
    assert step_line(step, 1030.0) == "Bash: npm test"
    assert step_line(step, 1000.0 + 3 * 60 + 5) == "Bash: npm test (for 3 min)"
    waiting = attrs.evolve(step, waiting=True)
    assert step_line(waiting, 1001.0) == "waiting for a permission answer: Bash: npm test"
    assert step_line(attrs.evolve(step, since=None), 5000.0) == "Bash: npm test"


def test_the_command_line_shows_each_members_step(teams: Teams) -> None:
    # the alpha team's config: leadSessionId sess-1, the lead's cwd /w
    project = teams.home / ".claude" / "projects" / "-w"
    sub = project / "sess-1" / "subagents"
    sub.mkdir(parents=True)
    (project / "sess-1.jsonl").write_bytes(b"")
    cmd = {"command": "npm test -- refunds \x1b[31m"}
    (sub / "agent-ar-1.jsonl").write_bytes(call("toolu_R", "Bash", cmd) + b"\n")
    (sub / "agent-ar-1.meta.json").write_text(
        json.dumps({"name": "researcher", "teamName": "alpha"})
    )
    proc = teams.cli("teams", "--json")
    assert proc.returncode == 0, proc.stderr
    alpha = next(t for t in json.loads(proc.stdout)["teams"] if t["id"] == "claude:alpha")
    m = {x["name"]: x for x in alpha["members"]}
    doing = m["researcher"]["activity"]["doing"]
    assert doing["text"] == "Bash: npm test -- refunds \\e[31m"
    assert doing["toolUseId"] == "toolu_R" and doing["waiting"] is False
    assert doing["since"] == 1796040001.0
    assert m["coder"]["activity"] is None
    proc = teams.cli("teams")
    assert proc.returncode == 0, proc.stderr
    assert "    now: Bash: npm test -- refunds \\e[31m (for " in proc.stdout
    assert "\x1b" not in proc.stdout


def test_the_members_a_prompt_is_open_for_the_hooks_and_the_terminals() -> None:
    prompts = Prompts(cast(TeamInboxServer, None))
    assert prompts.waiting("claude:t") == set()
    hook = PermissionPrompt("p1", "claude:t", "helper", "Bash", {}, "rm x", "s", [], 1.0, "sid")
    other = PermissionPrompt("p2", "claude:u", "tester", "Bash", {}, "rm y", "s", [], 1.0, "sid2")
    text = request_text.describe("helper", "Bash", {}, [])
    prompts.open = {p.id: OpenPrompt(p, text, cast(Any, None)) for p in (hook, other)}
    item = AttentionItem("permission", "claude:t", "team-lead", None, 1.0, "s")
    prompts._looked["claude:t"] = (0.0, [item])
    assert prompts.waiting("claude:t") == {"helper", "team-lead"}
    assert prompts.waiting("claude:u") == {"tester"}


def test_a_new_or_ended_step_is_news_more_tokens_are_not() -> None:
    # a step's start or end goes out with the pass that read it; tokens and times wait
    def params(**steps: str | None) -> ActivityParams:
        members = {
            name: Activity(
                last_active=1.0,
                doing=Step("Bash", "x", "Bash: x", 1.0, tid) if tid else None,
            )
            for name, tid in steps.items()
        }
        return ActivityParams("claude:t", None, None, members)

    a = params(lead="t1", helper=None)
    assert not new_step(a, params(lead="t1", helper=None))
    more = params(lead="t1", helper=None)
    more.members["lead"].tokens.input = 500
    more.members["lead"].last_active = 2.0
    assert not new_step(a, more)
    assert new_step(a, params(lead="t2", helper=None))  # the next call
    assert new_step(a, params(lead=None, helper=None))  # the call's result
    assert new_step(a, params(lead="t1", helper="t9"))  # another member began one
    assert new_step(a, params(lead="t1", helper=None, new="t3"))  # a member that came
    assert not new_step(a, params(lead="t1"))  # one without a step that went: nothing shown
