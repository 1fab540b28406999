"""A teammate's permission prompts, against the REAL Claude Code CLI (2.1.332).

One session: `teaminbox hook install --yes --wait WAIT` writes the hook into the scratch
HOME's ~/.claude/settings.json before claude starts; the real `teaminbox serve` watches.
The lead spawns `helper` (in-process, default permission mode), which runs three Bash
calls, `touch <cwd>/x1` ... `x4`:

- x1: the hook hands the request to the sidecar: `teamInbox/permissionRequested`, and an
  attention item (`answerPermission`) naming helper and the command. The command is too
  long for a prompt: the prompt says it is cut, Allow is refused until the person opened
  the whole of it (`teamInbox/permissionText`), then allowed: the file is made.
- x2: the person denies it with a reason: no file, and helper's tool_result carries it.
- x3: the person allows it for the session: the prompt named what that grants (the
  project folder), it runs, and Claude Code applies exactly that for the session.
- x4: nobody answers: the hook gives up after WAIT seconds and prints nothing, Claude
  Code's own prompt appears in the lead's terminal (the session file turns `waiting`,
  `waitingFor: "permission prompt"`), and the sidecar shows it as an attention item
  (`showTerminal`) read from the session file and helper's transcript.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .api_script import Rule, Script, say
from .errors import HarnessError
from .harness import Session
from .own_session import (
    VERSION,
    allowed,
    answer_prompts,
    denied,
    hook_install,
    prompt_for,
    spawn_helper,
    tool_result,
    touch,
)
from .scenario import has_results
from .sidecar_client import Sidecar

WAIT = 12  # seconds the hook waits for the person (the settings' timeout: WAIT + 10)
PROMPT = "PERM-START: spawn a teammate named helper."
HELPER_PROMPT = "PERM-HELPER-TASK: make three files."
DENY_REASON = "PERM-DENY-REASON: not x2, please"
HELPER_DONE = "PERM-HELPER-DONE"
LONG_TAIL = "echo " + "harmless " * 50 + "END-OF-X1"  # x1's command: too long for a prompt


def command(cwd: Path, n: int) -> str:
    return f"touch {cwd}/x{n}" + (f"; {LONG_TAIL}" if n == 1 else "")


def make_script(cwd: Path) -> Script:
    return Script(
        [
            spawn_helper("PERM-START", HELPER_PROMPT),
            Rule("h-1", "helper", "PERM-HELPER-TASK", touch(cwd, 1, LONG_TAIL)),
            Rule("h-2", "helper", has_results, touch(cwd, 2), after=("h-1",)),
            Rule("h-3", "helper", has_results, touch(cwd, 3), after=("h-2",)),
            Rule("h-4", "helper", has_results, touch(cwd, 4), after=("h-3",)),
            Rule("h-done", "helper", has_results, say(HELPER_DONE), after=("h-4",)),
        ]
    )


@dataclass
class Perms:
    session: Session
    team: str = ""
    error: str | None = None
    install: Any = None
    settings: Any = None
    asked: dict[str, Any] = field(default_factory=dict)  # xN: the prompt the sidecar had
    items: dict[str, Any] = field(default_factory=dict)  # xN: its attention item
    answers: dict[str, Any] = field(default_factory=dict)
    refused: Any = None  # x1: allow before its whole text was shown
    shown: Any = None  # x1: teamInbox/permissionText
    session_file: Any = None  # x4: the session file while Claude Code's own prompt is up
    still_open: Any = None  # x4: permissionRequests after the hook gave up
    notifications: list[Any] = field(default_factory=list)
    waiting: dict[str, Any] = field(default_factory=dict)  # xN: helper's step while it waits

    def require(self) -> None:
        if self.error:
            raise HarnessError(f"Claude Code {VERSION}: {self.error}")


def session_files(home: Path) -> list[dict[str, Any]]:
    out = []
    for p in (home / ".claude" / "sessions").glob("*.json"):
        try:
            out.append(json.loads(p.read_text()))
        except (OSError, ValueError):
            continue
    return out


def _run(base: Path) -> Perms:
    cwd = base / "work"
    home = base / "home"
    home.mkdir(parents=True)
    installed = hook_install(home, "--wait", str(WAIT))
    (home / ".claude" / "teams").mkdir(parents=True)
    # the sidecar runs before claude starts, as an editor's would
    sidecar = Sidecar(home).start()
    try:
        return _session(base, cwd, installed, sidecar)
    finally:
        sidecar.stop()


def _session(base: Path, cwd: Path, installed: Any, sidecar: Sidecar) -> Perms:
    home = base / "home"
    with Session(VERSION, base, make_script(cwd), PROMPT, hard_limit=240.0) as s:
        out = Perms(s, install=installed)
        out.settings = json.loads((home / ".claude" / "settings.json").read_text())
        try:
            out.team = s.team(timeout=40)
            tid = f"claude:{out.team}"

            def item_for(n: int, action: str) -> Any:
                got = sidecar.call("teamInbox/attention", {})
                return next(
                    (
                        i
                        for i in got["items"]
                        if i["kind"] == "permission"
                        and i["action"] == action
                        and f"/x{n}" in (i["detail"] or "")
                    ),
                    None,
                )

            def waiting_step(n: int) -> Any:
                teams = sidecar.call("teamInbox/teams", {})["teams"]
                team = next((t for t in teams if t["id"] == tid), None)
                helper = next(
                    (m for m in (team or {}).get("members", []) if m["name"] == "helper"), {}
                )
                step = (helper.get("activity") or {}).get("doing")
                return step if step and step["waiting"] and f"/x{n}" in step["detail"] else None

            def before(n: int) -> None:
                out.items[f"x{n}"] = s.wait(
                    lambda: item_for(n, "answerPermission"), 20, f"an attention item for x{n}"
                )
                assert out.items[f"x{n}"]["team"] == tid
                if n == 2:
                    out.waiting["x2"] = s.wait(lambda: waiting_step(2), 20, "x2's step waiting")
                if n == 1:
                    pid = out.asked["x1"]["id"]
                    out.refused = sidecar.call_error(
                        "teamInbox/answerPermission", {"id": pid, "behavior": "allow"}
                    )
                    out.shown = sidecar.call("teamInbox/permissionText", {"id": pid})

            answers = (
                (1, {"behavior": "allow"}),
                (2, {"behavior": "deny", "message": DENY_REASON}),
                (3, {"behavior": "allowSession"}),
            )
            answer_prompts(s, sidecar, answers, out.asked, out.answers, before)
            # nobody answers x4: the hook gives up, Claude Code asks in the lead's terminal
            s.wait_rule("h-4", 60)
            out.asked["x4"] = s.wait(
                lambda: prompt_for(sidecar, 4), 45, "the hook's request for x4"
            )
            s.wait(
                lambda: [
                    f for f in session_files(s.home) if f.get("waitingFor") == "permission prompt"
                ],
                WAIT + 30,
                "the session file to wait on a permission prompt",
            )
            out.session_file = [
                f for f in session_files(s.home) if f.get("waitingFor") == "permission prompt"
            ][0]
            out.items["x4"] = s.wait(
                lambda: item_for(4, "showTerminal"), 20, "the terminal prompt as an attention item"
            )
            out.waiting["x4"] = s.wait(lambda: waiting_step(4), 20, "x4's step waiting")
            out.still_open = sidecar.call("teamInbox/permissionRequests", {})
            out.notifications = sidecar.notifications("teamInbox/permissionRequested")
        except HarnessError as exc:
            out.error = str(exc)
        except Exception as exc:
            out.error = f"{exc!r}\n{s.explain()}"
        finally:
            s.pty.write(b"\x1b") if s.pty is not None else None  # No to the open prompt
            time.sleep(1.0)
            s.exit()
    return out


@pytest.fixture(scope="module")
def perms(tmp_path_factory: pytest.TempPathFactory) -> Perms:
    return _run(tmp_path_factory.mktemp(f"claude-code-perms-{VERSION}"))


def test_hook_installed_with_a_timeout(perms: Perms) -> None:
    [group] = perms.settings["hooks"]["PermissionRequest"]
    [h] = group["hooks"]
    assert h["type"] == "command" and "teaminbox.hook run" in h["command"]
    assert h["timeout"] == WAIT + 10 and f"--wait {WAIT}" in h["command"]
    assert perms.install["added"] == group
    # make_home's own file is untouched beside it
    assert json.loads((perms.session.home / ".claude.json").read_text())["hasCompletedOnboarding"]


def test_prompt_reaches_the_sidecar_with_name_and_command(perms: Perms) -> None:
    perms.require()
    cwd = perms.session.cwd
    for n in (1, 2, 3, 4):
        p = perms.asked[f"x{n}"]
        assert (p["member"], p["toolName"]) == ("helper", "Bash")
        assert p["toolInput"]["command"] == command(cwd, n)
        assert p["detail"].startswith(f"touch {cwd}/x{n}")
        assert p["team"] == f"claude:{perms.team}"
    for n in (2, 3, 4):
        assert perms.asked[f"x{n}"]["whole"] is True
        assert perms.asked[f"x{n}"]["prompt"].startswith(
            f"helper asks to run: touch {cwd}/x{n} · description: make x{n}"
        )
    for n in (1, 2):
        item = perms.items[f"x{n}"]
        assert item["member"] == "helper" and item["toolName"] == "Bash"
        assert item["summary"].startswith(f"helper asks to run touch {cwd}/x{n}")
        assert item["info"] is False
    told = [p["id"] for p in perms.notifications]
    assert [perms.asked[f"x{n}"]["id"] for n in (1, 2, 3, 4)] == told, told


def test_a_long_command_is_allowed_only_after_its_whole_text_was_shown(perms: Perms) -> None:
    """x1's command is longer than a prompt holds: the prompt says it is cut (its tail is
    not in it), Allow is refused until the whole request was opened, and what was opened
    is the command Claude Code runs, to its last character."""
    perms.require()
    p = perms.asked["x1"]
    assert p["whole"] is False and "END-OF-X1" not in p["prompt"] and "(cut: " in p["prompt"]
    assert perms.refused == "not_shown"
    assert f"command: {command(perms.session.cwd, 1)}\n" in perms.shown["text"]
    assert perms.shown["shown"] is True


def test_allow_runs_the_call(perms: Perms) -> None:
    perms.require()
    allowed(perms.session, perms.answers, 1)


def test_deny_refuses_it_with_the_reason(perms: Perms) -> None:
    perms.require()
    denied(perms.session, perms.answers, 2, DENY_REASON)


def test_allow_for_the_session_keeps_the_suggestion(perms: Perms) -> None:
    """allowSession hands Claude Code the request's own suggestions with destination
    `session`: x3 runs, and Claude Code applies the suggestion for the session. For a
    `touch` in the project it suggests `addDirectories` (its terminal's "Yes, and always
    allow access to <cwd>", and a `setMode` the sidecar leaves out): the next request
    says the folder was added, and a further
    Bash call is still asked about (x4): that is Claude Code's rule, not a missed one."""
    perms.require()
    cwd = perms.session.cwd
    sugg = perms.asked["x3"]["suggestions"]
    dirs = [s for s in sugg if s["type"] == "addDirectories"]
    assert dirs and str(cwd) in dirs[0]["directories"], sugg
    # the prompt named what "Allow for this session" grants: that folder, nothing else
    kept = [s for s in sugg if s["type"] in ("addRules", "addDirectories")]
    grants = perms.asked["x3"]["grants"]
    assert f"access to {cwd}" in grants and len(grants) == len(kept), perms.asked["x3"]
    assert f"Allow for this session also allows: access to {cwd}" in perms.asked["x3"]["prompt"]
    assert perms.answers["x3"]["delivered"] is True
    assert (cwd / "x3").exists() and not tool_result(perms.session, "h-3").get("is_error")
    [after] = [r for r in perms.session.api.snapshot() if r.rule == "h-4"]
    assert "Additional working directories added" in after.last_user, after.last_user
    assert str(cwd) in after.last_user


def test_no_answer_falls_back_to_claude_codes_prompt(perms: Perms) -> None:
    perms.require()
    f = perms.session_file
    assert (f["status"], f["waitingFor"]) == ("waiting", "permission prompt")
    assert perms.still_open["requests"] == []  # the hook gave up: nothing to answer here
    item = perms.items["x4"]
    cwd = perms.session.cwd
    assert (item["member"], item["toolName"], item["detail"]) == (
        "helper",
        "Bash",
        f"touch {cwd}/x4",
    )
    assert item["summary"] == f"helper waits for permission to run touch {cwd}/x4"
    assert item["requestId"].startswith("toolu_")  # the waiting call's id in the transcript
    assert not (cwd / "x4").exists()


def test_the_teammates_step_waits_for_a_permission_answer_while_a_prompt_is_open(
    perms: Perms,
) -> None:
    """The hook's prompt (x2) and the terminal's (x4): helper's current step is the Bash call
    the prompt is about, marked waiting."""
    perms.require()
    for n in (2, 4):
        step = perms.waiting[f"x{n}"]
        assert step["tool"] == "Bash" and step["text"].startswith(
            f"Bash: touch {perms.session.cwd}/x{n}"
        )
        assert step["waiting"] is True
