"""What the tests that run a session of their own (test_*_real.py) share, written once.

- `OwnRun`, `play`, `spawn_helper`, `hook_install`: a run's record (its failure is
  evidence, never a crash in the fixture), the session played inside it, the lead's spawn
  rule, `teaminbox hook install` on the scratch HOME.
- The stalled burst (test_recover_real.py, test_spool_real.py): helper's eight
  `SendMessage` calls in one turn and a ninth to `*`, the sidecar stopped (SIGSTOP) from
  that turn until the lead pruned them.
- Checks on what a sidecar holds of entries it never read (those two and
  test_closed_real.py): each once by its own msg_id, helper's idle notifications once from
  the lead's transcript, the same after a restart.
- A teammate's prompts answered through the sidecar (test_permissions_real.py,
  test_plugin_real.py) and the checks on allow and deny.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .api_script import Block, Reply, Request, Rule, Script, call, say
from .errors import HarnessError
from .harness import Session, teaminbox_exe
from .scenario import has_results
from .sidecar_client import Sidecar

VERSION = "2.1.332"


@dataclass
class OwnRun:
    session: Session
    team: str = ""
    error: str | None = None

    def require(self) -> None:
        if self.error:
            raise HarnessError(f"Claude Code {self.session.version}: {self.error}")


def play(
    s: Session, run: OwnRun, steps: Callable[[], None], last: Callable[[], None] = lambda: None
) -> None:
    """The session started, its team named, then `steps`; a failure is `run.error` with the
    evidence; `last`, then `/exit`, whatever happened."""
    with s:
        try:
            run.team = s.team(timeout=40)
            steps()
        except HarnessError as exc:
            run.error = str(exc)
        except Exception as exc:
            run.error = f"{exc!r}\n{s.explain()}"
        finally:
            last()
            s.exit()


def scratch_home(base: Path) -> Path:
    home = base / "home"
    (home / ".claude" / "teams").mkdir(parents=True, exist_ok=True)
    return home


def spawn_helper(start: str, prompt: str) -> Rule:
    """The lead's first turn (its prompt holds `start`): spawn `helper` with `prompt`."""
    return Rule(
        "spawn",
        "lead",
        start,
        call("Agent", {"description": "Spawn helper", "name": "helper", "prompt": prompt}),
    )


def hook_install(home: Path, *args: str) -> Any:
    """`teaminbox hook install --yes --json ARGS` for the scratch HOME: its JSON answer."""
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    res = subprocess.run(
        [str(teaminbox_exe()), "hook", "install", *args, "--yes", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    if res.returncode != 0:
        raise HarnessError(f"teaminbox hook install {' '.join(args)} failed: {res.stderr}")
    return json.loads(res.stdout)


# --- the stalled burst --------------------------------------------------------------------

PROMPT = "RECOVER-START: wait for the person."
PERSON_GO = "RECOVER-PERSON-GO: spawn a teammate named helper."
HELPER_PROMPT = "RECOVER-HELPER-TASK: report eight results to the lead in one turn."
BURST = [f"RECOVER-BURST-{i}: result {i} of 8" for i in range(1, 9)]
BROADCAST = "RECOVER-BROADCAST: to everyone"
REFUSED = "is no longer supported"  # Claude Code's refusal of `to: "*"`


def burst_reply() -> Reply:
    blocks = [
        Block(tool="SendMessage", input={"to": "team-lead", "message": t, "summary": f"part {i}"})
        for i, t in enumerate(BURST, 1)
    ]
    blocks.append(
        Block(tool="SendMessage", input={"to": "*", "message": BROADCAST, "summary": "all"})
    )
    return Reply(blocks)


@dataclass
class Run(OwnRun):
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # text -> the entry
    transcript_ids: list[str] = field(default_factory=list)  # msg_ids in helper's results
    idle: list[dict[str, Any]] = field(default_factory=list)  # helper's idle entries
    broadcast_result: dict[str, Any] | None = None
    stopped_at: float = 0.0
    continued_at: float = 0.0
    caught_up_at: float = 0.0
    conversation: list[dict[str, Any]] = field(default_factory=list)
    page: list[dict[str, Any]] = field(default_factory=list)
    search: list[dict[str, Any]] = field(default_factory=list)
    replied: list[dict[str, Any]] = field(default_factory=list)
    reopened: list[dict[str, Any]] = field(default_factory=list)
    reopened_replied: list[dict[str, Any]] = field(default_factory=list)


def helper_results(s: Session) -> list[dict[str, Any]]:
    """helper's SendMessage results in its transcript (the file as it is now)."""
    out = []
    for path in s.claude_dir.glob("projects/*/*/subagents/agent-*.jsonl"):
        for line in path.read_text(errors="replace").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            res = row.get("toolUseResult") if isinstance(row, dict) else None
            if isinstance(res, dict) and res.get("msg_id"):
                out.append(res)
    return out


def lead_inbox_now(s: Session, team: str) -> list[Any]:
    doc = s.recorder.last_json(f"teams/{team}/inboxes/team-lead.json")
    return doc if isinstance(doc, list) else []


def play_burst(s: Session, sidecar: Sidecar, run: Run, stop: Any) -> None:
    tid = f"claude:{run.team}"

    def knows_team() -> bool:
        teams = sidecar.call("teamInbox/teams", {})["teams"]
        return any(t["id"] == tid and not t["ended"] for t in teams)

    s.wait_rule("waiting", 40)
    s.wait(knows_team, 40, "the sidecar to list the team")
    s.idle()
    assert s.pty is not None
    s.pty.type(PERSON_GO)
    s.wait_rule("spawn", 40)
    s.wait_rule("burst", 60)
    s.wait_rule("burst-done", 60)
    assert stop.stopped, "the sidecar was not stopped before the burst"

    def written() -> bool:
        texts = {e.value.get("text"): e.value for e in s.recorder.entries(run.team)}
        found = {t: texts[t] for t in BURST if t in texts}
        run.entries = found
        return len(found) == len(BURST)

    s.wait(written, 30, "the eight entries in team-lead.json")
    s.wait(
        lambda: not {e.get("text") for e in lead_inbox_now(s, run.team)} & set(BURST),
        30,
        "the lead to prune the eight entries",
    )
    s.wait(lambda: len(helper_results(s)) >= len(BURST), 30, "helper's eight results")
    run.transcript_ids = [str(r["msg_id"]) for r in helper_results(s)]

    def idle_pruned() -> bool:  # helper went idle after its turn: Claude Code's own frame
        run.idle = [
            e.value
            for e in s.recorder.entries(run.team)
            if e.inbox == "team-lead" and '"idle_notification"' in str(e.value.get("text"))
        ]
        texts = {e.get("text") for e in lead_inbox_now(s, run.team)}
        return bool(run.idle) and not texts & {e["text"] for e in run.idle}

    reads = sidecar.options.get("readTranscripts", True) is not False
    if reads:  # only the lead's transcript can show it (test_spool_real.py reads none)
        s.wait(idle_pruned, 30, "helper's idle notification written and pruned")
    [done] = [r for r in s.api.snapshot() if r.rule == "burst-done"]
    run.broadcast_result = next((b for b in done.tool_results() if REFUSED in json.dumps(b)), None)
    run.continued_at = time.monotonic()
    stop.cont()
    ids = {e["msg_id"] for e in run.entries.values()}
    idle = {e["text"] for e in run.idle}

    def caught_up() -> list[dict[str, Any]] | None:
        msgs: list[dict[str, Any]] = sidecar.call(
            "teamInbox/conversation", {"team": tid, "limit": 1000}
        )["messages"]
        held = ids <= {m["id"] for m in msgs} and idle <= {m["text"] for m in msgs}
        return msgs if held else None

    try:
        run.conversation = s.wait(caught_up, 60, "the sidecar to hold the eight messages")
    except HarnessError:
        msgs = sidecar.call("teamInbox/conversation", {"team": tid, "limit": 1000})["messages"]
        held = len(ids & {m["id"] for m in msgs})
        frames = len(idle & {m["text"] for m in msgs})
        raise HarnessError(
            f"after 60 s the sidecar holds {held} of the 8 messages,"
            f" {frames} of {len(idle)} idle notifications"
        ) from None
    run.caught_up_at = time.monotonic()
    run.page = sidecar.call(
        "teamInbox/messages",
        {"team": tid, "inbox": "team-lead", "includeArchived": True, "limit": 1000},
    )["messages"]
    run.search = sidecar.call(
        "teamInbox/search", {"query": f'"{BURST[4]}"', "team": tid, "limit": 50}
    )["messages"]

    def toasts() -> bool:  # published just after the archive a query may see first
        run.replied = [p["message"] for p in sidecar.notifications("teamInbox/replied")]
        return set(BURST) <= {m["text"] for m in run.replied}

    try:
        s.wait(toasts, 30, "the toasts")
    except HarnessError:
        pass  # the test on toasts says what came


class Stopper:
    """SIGSTOP / SIGCONT of the one server this test started, by its pid."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.stopped = False

    def stop(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)
        self.stopped = True

    def cont(self) -> None:
        os.kill(self.pid, signal.SIGCONT)


def burst_script(burst: Callable[[Request], Reply]) -> Script:
    """The lead waits for the person, spawns helper; helper's first turn is `burst`."""
    return Script(
        [
            Rule("waiting", "lead", "RECOVER-START", say("RECOVER-LEAD-WAITING")),
            spawn_helper("RECOVER-PERSON-GO", HELPER_PROMPT),
            Rule("burst", "helper", "RECOVER-HELPER-TASK", burst),
            Rule("burst-done", "helper", has_results, say("RECOVER-HELPER-DONE"), after=("burst",)),
        ]
    )


def run_stalled(
    base: Path, sidecar: Sidecar, also: Callable[[Session, Run], None] = lambda s, r: None
) -> Run:
    """The burst played against `sidecar` (started): stopped from helper's turn until the
    lead pruned it, continued whatever happened; `also` runs while the team still exists."""
    stop = Stopper(sidecar.client._server.pid)

    def burst(req: Request) -> Reply:
        stop.stop()  # before Claude Code has the calls: nothing of them is read live
        run.stopped_at = time.monotonic()
        return burst_reply()

    s = Session(VERSION, base, burst_script(burst), PROMPT, hard_limit=240.0)
    run = Run(s)

    def steps() -> None:
        play_burst(s, sidecar, run, stop)
        also(s, run)

    try:
        play(s, run, steps, last=stop.cont)  # never leave it stopped
    finally:
        stop.cont()
    return run


# --- what a sidecar holds of entries it never read ----------------------------------------


def held_once(
    conversation: Iterable[dict[str, Any]],
    entries: dict[str, dict[str, Any]],
    inbox: Callable[[str], str],
    keys: Sequence[str] = ("text", "summary", "from", "color"),
) -> dict[str, dict[str, Any]]:
    """Each entry (text -> Claude Code's own entry) once, by its msg_id, with the entry's
    `keys` and in `inbox(text)`, recovered and archived: the messages by text."""
    by_id: dict[str, list[dict[str, Any]]] = {}
    for m in conversation:
        by_id.setdefault(m["id"], []).append(m)
    out = {}
    for text, entry in entries.items():
        got = by_id.get(entry["msg_id"], [])
        assert len(got) == 1, (text, got)
        [m] = got
        assert [m[k] for k in keys] == [entry[k] for k in keys], (m, entry)
        assert m["inbox"] == inbox(text), (m, entry)
        assert (m["recovered"], m["archived"]) == (True, True), m
        out[text] = m
    return out


def kept_after_restart(reopened: Iterable[dict[str, Any]], entries: dict[str, Any]) -> None:
    """A second server on the same history holds each entry, by its msg_id."""
    ids = sorted(e["msg_id"] for e in entries.values())
    assert sorted(m["id"] for m in reopened if m["text"] in entries) == ids


def idle_held_once(
    idle: Sequence[dict[str, Any]],
    conversation: Sequence[dict[str, Any]],
    reopened: Sequence[dict[str, Any]],
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """helper's idle notifications (Claude Code's own entries, in no sender's transcript),
    each once, from the lead's transcript (`tm-`), recovered, and the same after a restart:
    (entry, message) pairs."""
    assert idle
    out = []
    for entry in idle:
        got = [m for m in conversation if m["text"] == entry["text"]]
        assert len(got) == 1, (entry, got)
        [m] = got
        assert m["id"].startswith("tm-")
        assert (m["recovered"], m["type"], m["from"], m["inbox"]) == (
            True,
            "idle_notification",
            "helper",
            "team-lead",
        )
        assert [x["id"] for x in reopened if x["text"] == entry["text"]] == [m["id"]]
        out.append((entry, m))
    return out


# --- a teammate's prompts answered through the sidecar -----------------------------------


def touch(cwd: Path, n: int, tail: str = "") -> Reply:
    """helper's Bash call that makes `x<n>` (the prompts find it by `/x<n>`)."""
    cmd = f"touch {cwd}/x{n}" + (f"; {tail}" if tail else "")
    return call("Bash", {"command": cmd, "description": f"make x{n}"})


def prompt_for(sidecar: Sidecar, n: int) -> Any:
    got = sidecar.call("teamInbox/permissionRequests", {})["requests"]
    return next((p for p in got if f"/x{n}" in p["detail"]), None)


def answer_prompts(
    s: Session,
    sidecar: Sidecar,
    answers: Sequence[tuple[int, dict[str, Any]]],
    asked: dict[str, Any],
    answered: dict[str, Any],
    before: Callable[[int], None] = lambda n: None,
) -> None:
    """For each (n, answer): rule `h-<n>` fired, the hook's request for x<n> reached the
    sidecar (`asked`), `before(n)`, then the person's answer (its result in `answered`)."""
    for n, answer in answers:
        s.wait_rule(f"h-{n}", 90)
        asked[f"x{n}"] = s.wait(
            lambda n=n: prompt_for(sidecar, n), 45, f"the hook's request for x{n}"
        )
        before(n)
        answered[f"x{n}"] = sidecar.call(
            "teamInbox/answerPermission", {"id": asked[f"x{n}"]["id"], **answer}
        )


def tool_result(s: Session, rule: str) -> dict[str, Any]:
    """The tool_result block Claude Code sent back for the call made at `rule`."""
    hits = [r for r in s.api.snapshot() if r.rule == rule]
    assert hits, f"rule {rule!r} never fired\n{s.explain()}"
    ids = hits[0].tool_use_ids()
    for req in s.api.snapshot():
        for m in req.body.get("messages") or []:
            content = m.get("content")
            if m.get("role") != "user" or not isinstance(content, list):
                continue
            for b in content:
                if isinstance(b, dict) and ids and b.get("tool_use_id") == ids[0]:
                    return b
    raise AssertionError(f"no tool_result for {rule}\n{s.explain()}")


def result_text(block: dict[str, Any]) -> str:
    """A tool_result's text, without the reminder Claude Code may append to it."""
    inner = block.get("content")
    if isinstance(inner, str):
        return inner.split("\n\n<system-reminder>", 1)[0]
    return "\n".join(str(x.get("text", "")) for x in inner or [] if isinstance(x, dict))


def allowed(s: Session, answers: dict[str, Any], n: int) -> None:
    """The person's allow of x<n> was delivered: the call ran, its result no error."""
    assert answers[f"x{n}"]["delivered"] is True
    assert (s.cwd / f"x{n}").exists()
    block = tool_result(s, f"h-{n}")
    assert not block.get("is_error"), block


def denied(s: Session, answers: dict[str, Any], n: int, reason: str) -> None:
    """The person's deny of x<n> was delivered: nothing ran, the result carries `reason`."""
    assert answers[f"x{n}"]["delivered"] is True
    assert not (s.cwd / f"x{n}").exists()
    block = tool_result(s, f"h-{n}")
    assert block.get("is_error") is True, block
    assert reason in result_text(block), block
