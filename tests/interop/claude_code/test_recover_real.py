"""Messages pruned while Team Inbox was stalled, against the REAL Claude Code CLI (2.1.332).

The real `teaminbox serve` runs before claude (as an editor's does) and has scanned the
team. The lead spawns helper; when helper's model is asked for its turn, the fake API
stops the sidecar (SIGSTOP) before it answers: eight `SendMessage` calls to the lead in one
turn, and a ninth to `*`. Claude Code writes the eight entries into team-lead.json, the
lead takes them and prunes them, while the sidecar cannot read a thing; only once the
recorder saw every entry gone is it continued (SIGCONT). The sidecar must then hold all
eight, by the entries' own msg_ids, recovered from helper's transcript: in the
conversation, the lead's inbox page, search, and a second server on the same history after
the session ended; each a toast once (written while the sidecar ran, stalled: news),
none after the restart. helper's idle notification, which Claude Code writes itself (no
tool call, no send in any transcript), is written and pruned during the stop too: only the
lead's transcript shows it, and the sidecar holds it once, recovered at that turn's time.
The broadcast is refused by Claude Code itself (no entry, nothing to recover).

One session (about 30 s), nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from teaminbox.timestamps import epoch

from .api_script import Block, Reply, Request, Rule, Script, call, say
from .errors import HarnessError
from .harness import Session
from .sidecar_client import Sidecar

VERSION = "2.1.332"
PROMPT = "RECOVER-START: wait for the person."
PERSON_GO = "RECOVER-PERSON-GO: spawn a teammate named helper."
HELPER_PROMPT = "RECOVER-HELPER-TASK: report eight results to the lead in one turn."
BURST = [f"RECOVER-BURST-{i}: result {i} of 8" for i in range(1, 9)]
BROADCAST = "RECOVER-BROADCAST: to everyone"
REFUSED = "is no longer supported"  # Claude Code's refusal of `to: "*"`


def has_results(req: Request) -> bool:
    return bool(req.tool_results())


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
class Run:
    session: Session
    team: str = ""
    error: str | None = None
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

    def require(self) -> None:
        if self.error:
            raise HarnessError(f"Claude Code {VERSION}: {self.error}")


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


def _play(s: Session, sidecar: Sidecar, run: Run, stop: Any) -> None:
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


def _run(base: Path) -> Run:
    home = base / "home"
    (home / ".claude" / "teams").mkdir(parents=True)
    sidecar = Sidecar(home)
    sidecar.options["notify"] = "messages"  # a teammate's text to the lead toasts...
    sidecar.start()
    stop = Stopper(sidecar.client._server.pid)

    def burst(req: Request) -> Reply:
        stop.stop()  # before Claude Code has the calls: nothing of them is read live
        run.stopped_at = time.monotonic()
        return burst_reply()

    script = Script(
        [
            Rule("waiting", "lead", "RECOVER-START", say("RECOVER-LEAD-WAITING")),
            Rule(
                "spawn",
                "lead",
                "RECOVER-PERSON-GO",
                call(
                    "Agent",
                    {"description": "Spawn helper", "name": "helper", "prompt": HELPER_PROMPT},
                ),
            ),
            Rule("burst", "helper", "RECOVER-HELPER-TASK", burst),
            Rule("burst-done", "helper", has_results, say("RECOVER-HELPER-DONE"), after=("burst",)),
        ]
    )
    s = Session(VERSION, base, script, PROMPT, hard_limit=240.0)
    run = Run(s)
    try:
        with s:
            try:
                run.team = s.team(timeout=40)
                _play(s, sidecar, run, stop)
            except HarnessError as exc:
                run.error = str(exc)
            except Exception as exc:
                run.error = f"{exc!r}\n{s.explain()}"
            finally:
                stop.cont()  # never leave it stopped
                s.exit()
        if run.error is None:  # a second server on the same history, the team ended
            stop.cont()
            again = Sidecar(home).start()
            try:
                run.reopened = again.call(
                    "teamInbox/conversation", {"team": f"claude:{run.team}", "limit": 1000}
                )["messages"]
                run.reopened_replied = again.notifications("teamInbox/replied")
            finally:
                again.stop()
    finally:
        stop.cont()
        sidecar.stop()
    return run


def figures(run: Run) -> dict[str, Any]:
    """What the run measured, kept beside the evidence (figures.json)."""
    got = {m["id"]: m for m in run.conversation}
    lag = [
        round(
            (epoch(got[e["msg_id"]]["timestamp"]) or 0) * 1000 - (epoch(e["timestamp"]) or 0) * 1000
        )
        for e in run.entries.values()
        if e["msg_id"] in got
    ]
    return {
        "stopped_s": round(run.continued_at - run.stopped_at, 2),
        "caught_up_s": round(run.caught_up_at - run.continued_at, 2),
        "held": len(lag),
        "recovered": sum(
            1 for e in run.entries.values() if got.get(e["msg_id"], {}).get("recovered")
        ),
        "row_after_entry_ms": lag,
    }


@pytest.fixture(scope="module")
def recovered(tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp(f"claude-code-recover-{VERSION}")
    run = _run(base)
    (base / "figures.json").write_text(json.dumps(figures(run), indent=1))
    return run


def test_the_burst_was_written_and_pruned_while_the_sidecar_was_stopped(recovered: Run) -> None:
    recovered.require()
    assert sorted(recovered.entries) == sorted(BURST)
    # Claude Code's own entries: its msg_id is what helper's transcript says it wrote
    assert sorted(e["msg_id"] for e in recovered.entries.values()) == sorted(
        recovered.transcript_ids
    )
    assert recovered.broadcast_result is not None  # `*` refused: no entry, no msg_id
    assert not [e for e in recovered.session.recorder.entries() if BROADCAST in str(e.value)]


def test_none_of_the_eight_is_lost(recovered: Run) -> None:
    recovered.require()
    by_id: dict[str, list[dict[str, Any]]] = {}
    for m in recovered.conversation:
        by_id.setdefault(m["id"], []).append(m)
    for text, entry in recovered.entries.items():
        got = by_id.get(entry["msg_id"], [])
        assert len(got) == 1, (text, got)
        [m] = got
        assert (m["text"], m["summary"], m["from"], m["inbox"], m["color"]) == (
            entry["text"],
            entry["summary"],
            entry["from"],
            "team-lead",
            entry["color"],
        )
        assert (m["recovered"], m["archived"], m["delivery"]) == (True, True, "delivered")
    assert not [m for m in recovered.conversation if BROADCAST in m["text"]]
    page_ids = [m["id"] for m in recovered.page]
    for entry in recovered.entries.values():
        assert page_ids.count(entry["msg_id"]) == 1
    assert [(m["text"], m["recovered"]) for m in recovered.search] == [(BURST[4], True)]


def test_recovered_messages_written_during_the_stall_toast_once(recovered: Run) -> None:
    """Written after the sidecar started: a teammate's text to the lead toasts at `messages`
    as a live one does, once each."""
    recovered.require()
    toasted = sorted(m["text"] for m in recovered.replied if m["text"] in BURST)
    assert toasted == sorted(BURST), recovered.replied


def test_kept_after_the_session_ended(recovered: Run) -> None:
    recovered.require()
    ids = sorted(e["msg_id"] for e in recovered.entries.values())
    assert sorted(m["id"] for m in recovered.reopened if m["text"] in BURST) == ids
    assert all(m["recovered"] for m in recovered.reopened if m["text"] in BURST)
    assert not [p for p in recovered.reopened_replied if p["message"]["text"] in BURST]


def test_helpers_idle_notification_is_recovered_once_from_the_leads_transcript(
    recovered: Run,
) -> None:
    """Written and pruned while the sidecar was stopped, in no sender's transcript: the
    lead's `<teammate-message>` turn is its only record."""
    recovered.require()
    assert recovered.idle
    for entry in recovered.idle:
        got = [m for m in recovered.conversation if m["text"] == entry["text"]]
        assert len(got) == 1, (entry, got)
        [m] = got
        assert m["id"].startswith("tm-") and m["id"] != entry["msg_id"]
        assert (m["recovered"], m["archived"], m["type"]) == (True, True, "idle_notification")
        assert (m["from"], m["inbox"], m["color"]) == ("helper", "team-lead", entry["color"])
        assert m["structured"]["type"] == "idle_notification"
        # the turn that handed it to the lead: after it was written
        assert (epoch(m["timestamp"]) or 0) >= (epoch(entry["timestamp"]) or 0) - 1
        again = [x for x in recovered.reopened if x["text"] == entry["text"]]
        assert [x["id"] for x in again] == [m["id"]]
    # an idle notification never toasts under the default policy
    assert not [p for p in recovered.replied if '"idle_notification"' in p["text"]]
