"""What a teammate does now, against the REAL Claude Code CLI (2.1.332).

The real `teaminbox serve` runs before claude. The lead spawns helper, whose first call is
a Bash command that waits for a file the test creates (`GO`): while it waits, the sidecar
must say helper runs it (in `teamInbox/teams`, in a `teamInbox/activity` notification,
and in `teaminbox teams --json`). The test then creates GO; the command ends, helper
writes a file with Write, tries an Edit that fails and says it is done: its step is gone,
the Write is its one changed file (`teamInbox/changes`, its text from `changeContent`),
and a second server on the same history, the team ended, still lists it (without its
text). No timing assumption: each look waits for its condition, the command waits for
the test.

One session (about 30 s), nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from teaminbox.transcripts import STEP_CHARS

from .api_script import Rule, Script, call, say
from .errors import HarnessError
from .harness import Session, teaminbox_exe
from .own_session import VERSION, OwnRun, play, scratch_home, spawn_helper
from .scenario import has_results
from .sidecar_client import Sidecar

PROMPT = "DOING-START: spawn a teammate named helper."
HELPER_PROMPT = "DOING-HELPER-TASK: wait for GO, then write the report."
HELPER_DONE = "DOING-HELPER-DONE"
WRITTEN = "DOING-WRITTEN-CONTENT\n"


def wait_command(cwd: Path) -> str:
    return f"while [ ! -f {cwd}/GO ]; do sleep 0.2; done; echo DOING-WENT"


def make_script(cwd: Path) -> Script:
    return Script(
        [
            spawn_helper("DOING-START", HELPER_PROMPT),
            Rule(
                "h-bash",
                "helper",
                "DOING-HELPER-TASK",
                call("Bash", {"command": wait_command(cwd), "description": "wait for GO"}),
            ),
            Rule(
                "h-write",
                "helper",
                has_results,
                call("Write", {"file_path": f"{cwd}/report.txt", "content": WRITTEN}),
                after=("h-bash",),
            ),
            Rule(
                "h-bad-edit",
                "helper",
                has_results,
                call(
                    "Edit",
                    {
                        "file_path": f"{cwd}/report.txt",
                        "old_string": "NOT-IN-THE-FILE",
                        "new_string": "x",
                    },
                ),
                after=("h-write",),
            ),
            Rule("h-done", "helper", has_results, say(HELPER_DONE), after=("h-bad-edit",)),
        ]
    )


@dataclass
class Run(OwnRun):
    running: dict[str, Any] = field(default_factory=dict)  # helper, while the command waits
    noted: dict[str, Any] = field(default_factory=dict)  # its teamInbox/activity step
    cli: dict[str, Any] = field(default_factory=dict)  # its `teams --json` member
    cli_text: str = ""
    after: dict[str, Any] = field(default_factory=dict)  # helper, once it is done
    bash_result: dict[str, Any] = field(default_factory=dict)
    write_result: dict[str, Any] = field(default_factory=dict)
    edit_result: dict[str, Any] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)  # teamInbox/changes, helper's
    content: dict[str, Any] = field(default_factory=dict)  # teamInbox/changeContent of the Write
    ended_changes: list[dict[str, Any]] = field(default_factory=list)  # a second server's
    ended_content: dict[str, Any] = field(default_factory=dict)


def _helper(sidecar: Sidecar, tid: str) -> dict[str, Any] | None:
    teams = sidecar.call("teamInbox/teams", {})["teams"]
    team = next((t for t in teams if t["id"] == tid), None)
    if team is None:
        return None
    return next((m for m in team["members"] if m["name"] == "helper"), None)


def _cli(s: Session, *args: str) -> str:
    env = {**os.environ, "HOME": str(s.home)}
    env.pop("TEAMINBOX_ROOTS", None)
    env.pop("CLAUDE_CONFIG_DIR", None)
    cmd = [str(teaminbox_exe()), "--no-default-roots", "--root", f"claude={s.claude_dir / 'teams'}"]
    res = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=60, env=env)
    if res.returncode != 0:
        raise HarnessError(f"`teaminbox {' '.join(args)}` failed: {res.stderr}")
    return res.stdout


def _play(s: Session, sidecar: Sidecar, run: Run, notes: list[Any]) -> None:
    tid = f"claude:{run.team}"
    cwd = s.cwd
    s.wait_rule("h-bash", 60)

    def running() -> dict[str, Any] | None:
        m = _helper(sidecar, tid)
        doing = ((m or {}).get("activity") or {}).get("doing")
        return m if doing and "GO" in doing["detail"] else None

    run.running = s.wait(running, 60, "the sidecar to say helper runs the command")

    def noted() -> dict[str, Any] | None:
        for p in list(notes):
            step = ((p.get("members") or {}).get("helper") or {}).get("doing")
            if p.get("team") == tid and step and "GO" in step["detail"]:
                return dict(step)
        return None

    run.noted = s.wait(noted, 30, "a teamInbox/activity notification with helper's step")
    doc = json.loads(_cli(s, "teams", "--json"))
    [team] = [t for t in doc["teams"] if t["id"] == tid]
    run.cli = next(m for m in team["members"] if m["name"] == "helper")
    run.cli_text = _cli(s, "teams")
    (cwd / "GO").touch()
    done = s.wait_rule("h-done", 60)
    run.edit_result = done.tool_results()[0] if done.tool_results() else {}
    [edit] = [r for r in s.api.snapshot() if r.rule == "h-bad-edit"]
    run.write_result = edit.tool_results()[0] if edit.tool_results() else {}
    [wrote] = [r for r in s.api.snapshot() if r.rule == "h-write"]
    run.bash_result = wrote.tool_results()[0] if wrote.tool_results() else {}

    def finished() -> dict[str, Any] | None:
        m = _helper(sidecar, tid)
        a = (m or {}).get("activity") or {}
        return m if a.get("lastWords") == HELPER_DONE and a.get("doing") is None else None

    run.after = s.wait(finished, 30, "the sidecar to say helper runs nothing")
    run.changes = sidecar.call("teamInbox/changes", {"team": tid, "member": "helper"})["changes"]
    if run.changes:
        run.content = sidecar.call(
            "teamInbox/changeContent", {"team": tid, "toolUseId": run.changes[0]["toolUseId"]}
        )


def _run(base: Path) -> Run:
    home = scratch_home(base)
    sidecar = Sidecar(home).start()
    notes: list[Any] = []  # teamInbox/activity: the recording client keeps the older ones only
    sidecar.client.feature("teamInbox/activity")(lambda ls, params: notes.append(params))
    s = Session(
        VERSION,
        base,
        make_script(base / "work"),
        PROMPT,
        ["--allowedTools=Bash,Write"],  # one value: the option is variadic, the prompt follows
        hard_limit=240.0,
    )
    run = Run(s)
    try:
        # never leave the command waiting
        play(s, run, lambda: _play(s, sidecar, run, notes), last=(s.cwd / "GO").touch)
    finally:
        sidecar.stop()
    if run.error is None and run.changes:  # a second server on the same history, the team ended
        again = Sidecar(home).start()
        try:
            params = {"team": f"claude:{run.team}", "member": "helper"}
            run.ended_changes = again.call("teamInbox/changes", params)["changes"]
            run.ended_content = again.call(
                "teamInbox/changeContent",
                {"team": params["team"], "toolUseId": run.changes[0]["toolUseId"]},
            )
        finally:
            again.stop()
    return run


@pytest.fixture(scope="module")
def doing(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run(tmp_path_factory.mktemp(f"claude-code-doing-{VERSION}"))


def test_a_running_command_is_what_the_teammate_does_now(doing: Run) -> None:
    doing.require()
    cmd = wait_command(doing.session.cwd)
    step = doing.running["activity"]["doing"]
    text = f"Bash: {cmd}"
    text = text if len(text) <= STEP_CHARS else text[: STEP_CHARS - 1] + "\u2026"
    assert (step["tool"], step["detail"], step["text"]) == ("Bash", cmd, text)
    assert step["toolUseId"].startswith("toolu_") and step["waiting"] is False
    assert isinstance(step["since"], float)
    assert doing.noted == step
    cli_step = doing.cli["activity"]["doing"]
    assert cli_step == step
    assert "    now: Bash: while [ ! -f " in doing.cli_text


def test_the_step_ends_with_its_result(doing: Run) -> None:
    doing.require()
    assert "DOING-WENT" in json.dumps(doing.bash_result), doing.bash_result
    assert not doing.bash_result.get("is_error") and not doing.write_result.get("is_error")
    assert (doing.session.cwd / "report.txt").read_text() == WRITTEN
    assert doing.after["activity"]["doing"] is None


def test_the_teammates_write_is_its_changed_file_and_the_failed_edit_is_not(doing: Run) -> None:
    doing.require()
    assert doing.edit_result.get("is_error") is True, doing.edit_result
    path = str(doing.session.cwd / "report.txt")
    [change] = doing.changes
    assert (change["member"], change["path"], change["pathText"], change["tool"]) == (
        "helper",
        path,
        path,
        "Write",
    )
    assert change["toolUseId"].startswith("toolu_") and isinstance(change["time"], float)
    assert doing.after["activity"]["changed"] == 1
    c = doing.content
    assert (c["kept"], c["path"], c["tool"], c["before"], c["after"], c["cut"]) == (
        True,
        path,
        "Write",
        None,
        WRITTEN,
        False,
    )


def test_an_ended_team_keeps_its_changed_files_without_their_text(doing: Run) -> None:
    doing.require()
    assert doing.ended_changes and doing.ended_changes == doing.changes
    assert doing.ended_content == {
        "toolUseId": doing.changes[0]["toolUseId"],
        "kept": False,
        "path": None,
        "tool": None,
        "before": None,
        "after": None,
        "cut": False,
    }
