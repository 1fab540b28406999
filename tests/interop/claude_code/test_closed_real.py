"""A team that lived while Team Inbox was closed, against the REAL Claude Code CLI (2.1.332).

No `teaminbox serve` runs during the session. The lead spawns helper; helper reports three
results to the lead in one turn, the lead answers helper; every entry is delivered and
pruned, then `/exit`, and Claude Code deletes the team folder. Only then does the real
server start on that HOME: the team must be listed as ended, with its members (named by
the teammate's own meta.json), and every message the two sent, by the entries' own
msg_ids (ground truth: the recorder's copy of the inboxes), `recovered`; helper's idle
notifications (Claude Code's own frames, in no sender's transcript) once each, from the
lead's `<teammate-message>` turns; searchable, no toast, and the same after a restart.

One session (about 20 s), nothing leaves the machine.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .api_script import Block, Reply, Rule, Script, call, say
from .harness import Session, teaminbox_exe, wait_until
from .own_session import (
    VERSION,
    OwnRun,
    held_once,
    idle_held_once,
    kept_after_restart,
    play,
    spawn_helper,
)
from .scenario import has_results
from .sidecar_client import Sidecar

PROMPT = "CLOSED-START: spawn a teammate named helper."
HELPER_PROMPT = "CLOSED-HELPER-TASK: report three results to the lead in one turn."
REPORTS = [f"CLOSED-REPORT-{i}: result {i} of 3" for i in range(1, 4)]
LEAD_TEXT = "CLOSED-LEAD-THANKS: well done, helper"
TEXTS = [*REPORTS, LEAD_TEXT]


@dataclass
class Run(OwnRun):
    entries: dict[str, dict[str, Any]] = field(default_factory=dict)  # text -> the entry
    recipients: dict[str, str] = field(default_factory=dict)  # text -> the inbox it was in
    idle: list[dict[str, Any]] = field(default_factory=list)  # helper's idle entries
    folder_gone: bool = False
    teams: list[dict[str, Any]] = field(default_factory=list)
    conversation: list[dict[str, Any]] = field(default_factory=list)
    search: list[dict[str, Any]] = field(default_factory=list)
    replied: list[Any] = field(default_factory=list)
    reopened: list[dict[str, Any]] = field(default_factory=list)
    cli: dict[str, str] = field(default_factory=dict)  # `teaminbox teams`, `read` afterwards


def _script() -> Script:
    burst = Reply(
        [
            Block(
                tool="SendMessage",
                input={"to": "team-lead", "message": t, "summary": f"result {i}"},
            )
            for i, t in enumerate(REPORTS, 1)
        ]
    )
    return Script(
        [
            spawn_helper("CLOSED-START", HELPER_PROMPT),
            Rule("report", "helper", "CLOSED-HELPER-TASK", burst),
            Rule(
                "report-done", "helper", has_results, say("CLOSED-HELPER-DONE"), after=("report",)
            ),
            Rule(
                "thanks",
                "lead",
                REPORTS[-1],
                call("SendMessage", {"to": "helper", "message": LEAD_TEXT, "summary": "thanks"}),
            ),
            Rule("thanks-done", "lead", has_results, say("CLOSED-LEAD-DONE"), after=("thanks",)),
        ]
    )


def _play(s: Session, run: Run) -> None:
    s.wait_rule("spawn", 40)
    s.wait_rule("report-done", 60)
    s.wait_rule("thanks-done", 60)

    def written() -> bool:
        for e in s.recorder.entries(run.team):
            text = e.value.get("text")
            if text in TEXTS:
                run.entries[text] = e.value
                run.recipients[text] = e.inbox
        return len(run.entries) == len(TEXTS)

    s.wait(written, 30, "the four entries in the inboxes")

    def pruned() -> bool:
        run.idle = [
            e.value
            for e in s.recorder.entries(run.team)
            if e.inbox == "team-lead" and '"idle_notification"' in str(e.value.get("text"))
        ]
        texts = [*TEXTS, *(e["text"] for e in run.idle)]
        for inbox in ("team-lead", "helper"):
            doc = s.recorder.last_json(f"teams/{run.team}/inboxes/{inbox}.json")
            if isinstance(doc, list) and {e.get("text") for e in doc} & set(texts):
                return False
        return bool(run.idle)

    s.wait(pruned, 30, "the entries and an idle notification pruned")
    s.exit()
    run.folder_gone = wait_until(
        lambda: not s.recorder.exists_now(f"teams/{run.team}"), 15, "the team folder deleted"
    )


def _look(home: Path, run: Run) -> None:
    """The real server started after the session: what it shows of the team."""
    tid = f"claude:{run.team}"
    sidecar = Sidecar(home)
    sidecar.options["notify"] = "all"
    sidecar.start()
    try:
        ids = {e["msg_id"] for e in run.entries.values()}
        idle = {e["text"] for e in run.idle}

        def rebuilt() -> list[dict[str, Any]] | None:
            teams = sidecar.call("teamInbox/teams", {})["teams"]
            if not any(t["id"] == tid for t in teams):
                return None
            msgs: list[dict[str, Any]] = sidecar.call(
                "teamInbox/conversation", {"team": tid, "limit": 1000}
            )["messages"]
            held = ids <= {m["id"] for m in msgs} and idle <= {m["text"] for m in msgs}
            return msgs if held else None

        run.conversation = wait_until(rebuilt, 60, "the team rebuilt with every message")
        run.teams = sidecar.call("teamInbox/teams", {})["teams"]
        run.search = sidecar.call(
            "teamInbox/search", {"query": '"CLOSED-REPORT-2"', "team": tid, "limit": 50}
        )["messages"]
        run.replied = sidecar.notifications("teamInbox/replied")
    finally:
        sidecar.stop()
    again = Sidecar(home).start()
    try:
        run.reopened = again.call("teamInbox/conversation", {"team": tid, "limit": 1000})[
            "messages"
        ]
    finally:
        again.stop()
    where = ["--no-default-roots", "--root", f"claude={home / '.claude' / 'teams'}"]
    history = ["--history", str(home / "teaminbox-history.db")]
    for name, args in (("teams", ["teams"]), ("read", ["read", tid, "team-lead"])):
        res = subprocess.run(
            [str(teaminbox_exe()), *where, *args, *history],
            capture_output=True,
            text=True,
            timeout=60,
            env={"HOME": str(home), "PATH": "/usr/bin:/bin"},
        )
        run.cli[name] = res.stdout + res.stderr


def _run(base: Path) -> Run:
    s = Session(VERSION, base, _script(), PROMPT, hard_limit=240.0)
    run = Run(s)
    play(s, run, lambda: _play(s, run))
    if run.error is None:
        try:
            _look(s.home, run)
        except Exception as exc:
            run.error = f"the server after the session: {exc!r}"
    return run


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp(f"claude-code-closed-{VERSION}")
    run = _run(base)
    (base / "closed.json").write_text(
        json.dumps({"entries": run.entries, "conversation": run.conversation}, indent=1)
    )
    return run


def test_the_session_ran_without_a_sidecar_and_deleted_its_team(closed: Run) -> None:
    closed.require()
    assert sorted(closed.entries) == sorted(TEXTS)
    assert closed.folder_gone
    assert closed.recipients == {**{t: "team-lead" for t in REPORTS}, LEAD_TEXT: "helper"}


def test_the_team_appears_ended_with_its_members(closed: Run) -> None:
    closed.require()
    [team] = [t for t in closed.teams if t["id"] == f"claude:{closed.team}"]
    assert team["ended"] is True
    members = {m["name"]: m for m in team["members"]}
    assert {"team-lead", "helper"} <= set(members)
    assert members["helper"]["color"] == closed.entries[REPORTS[0]].get("color")
    assert team["project"] == "work"  # the session's cwd, from the lead's transcript


def test_every_message_is_there_once(closed: Run) -> None:
    closed.require()
    keys = ("text", "summary", "from")
    held_once(closed.conversation, closed.entries, closed.recipients.__getitem__, keys)
    assert [m["text"] for m in closed.search] == [REPORTS[1]]
    assert not [p for p in closed.replied if p["message"]["text"] in TEXTS]


def test_kept_after_a_restart(closed: Run) -> None:
    closed.require()
    kept_after_restart(closed.reopened, closed.entries)


def test_helpers_idle_notifications_are_there_once(closed: Run) -> None:
    """Only the lead's transcript shows them (Claude Code writes them itself)."""
    closed.require()
    idle_held_once(closed.idle, closed.conversation, closed.reopened)
    idle = {e["text"] for e in closed.idle}
    assert not [p for p in closed.replied if p["message"]["text"] in idle]


def test_the_cli_lists_the_ended_team_and_reads_it(closed: Run) -> None:
    """`teaminbox teams` and `teaminbox read` on the server's history (read only), as the
    server showed them: the team ended, helper's reports in the lead's inbox, oldest first."""
    closed.require()
    assert f"claude:{closed.team}  (" in closed.cli["teams"], closed.cli
    assert ", ended)" in closed.cli["teams"].split(f"claude:{closed.team}")[1].split("\n")[0]
    out = closed.cli["read"]
    assert [out.index(t) for t in REPORTS] == sorted(out.index(t) for t in REPORTS), out
    assert "helper -> team-lead" in out and "team-lead: the team ended;" in out
