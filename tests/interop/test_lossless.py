"""No message lost when the sidecar is stopped, starved, not running or killed, with Claude
Code's own mailbox behaviour: a teammate's SendMessage calls written under Claude Code's lock
(proper-lockfile with its options, temp file, rename) into the lead's inbox, the lead
polling and pruning what it delivers within a second, and the transcript rows Claude Code
2.1.332 writes for each send (the entry's msg_id in the tool_result): node/claude_team.js.
A message is lost when its msg_id is not in the history at the end (waited for by a
deadline, never by time). Those transcripts account for everything: no gap is shown.

And the gap: a file-bus inbox whose reader consumes while the sidecar is stopped, which
nothing else records, shows one that spans the stop, and a stop nothing happened in none."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from seed_filebus import FileMessageBus

from support.node import NODE_DIR, node_exe
from support.sidecar_process import Sidecar, gaps, message_ids, query, until
from teaminbox.gaps import gap_text

TEAM = "session-10550000"
TID = f"claude:{TEAM}"
SID = "10550000-0000-4000-8000-000000000001"
CWD = "/home/dev/lossless"
AGENT = "ahelper-00000000000000bb"
COUNT = 200
EVERY_MS = 25  # the teammate's pace: 200 sends take a few seconds, the stops fall inside
LEAD_POLL_MS = 500  # the lead delivers (prunes) within a second, as Claude Code's does


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))


class World:
    """A scratch HOME with a live Claude session team, its lead's and teammate's transcripts."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.home = tmp / "home"
        claude = self.home / ".claude"
        team = claude / "teams" / TEAM
        write_json(
            team / "config.json",
            {
                "name": TEAM,
                "createdAt": int(time.time() * 1000),
                "leadAgentId": f"team-lead@{TEAM}",
                "leadSessionId": SID,
                "leadProcess": {"pid": os.getpid()},
                "members": [
                    {"agentId": f"team-lead@{TEAM}", "name": "team-lead", "cwd": CWD},
                    {"agentId": f"helper@{TEAM}", "name": "helper", "color": "blue", "cwd": CWD},
                ],
            },
        )
        self.inbox = team / "inboxes" / "team-lead.json"
        write_json(self.inbox, [])
        write_json(team / "inboxes" / "helper.json", [])
        project = claude / "projects" / CWD.replace("/", "-")
        self.lead_transcript = project / f"{SID}.jsonl"
        sub = project / SID / "subagents"
        self.transcript = sub / f"agent-{AGENT}.jsonl"
        sub.mkdir(parents=True)
        self.lead_transcript.touch()
        self.transcript.touch()
        write_json(
            sub / f"agent-{AGENT}.meta.json",
            {"agentType": "helper", "name": "helper", "teamName": TEAM, "color": "blue"},
        )
        self.history = tmp / "history.db"
        self.procs: list[subprocess.Popen[bytes]] = []
        self.sidecars: list[Sidecar] = []

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR",)}
        return {**env, "HOME": str(self.home), "TEAMINBOX_ROOTS": ""}

    def sidecar(self, nice: int = 0, **extra: Any) -> Sidecar:
        init = {
            "defaultRoots": False,
            "roots": [f"claude={self.home / '.claude' / 'teams'}"],
            "historyPath": str(self.history),
            **extra,
        }
        s = Sidecar(self.env(), init, self.tmp / "sidecar.log", nice)
        self.sidecars.append(s)
        return s

    def ready(self) -> None:
        """Until a sidecar has looked at the team (the history holds it)."""
        until(lambda: query(self.history, "SELECT 1 FROM teams WHERE id=?", TID), "the team")

    def node(self, mode: str, spec: dict[str, Any]) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [node_exe(), str(NODE_DIR / "claude_team.js"), mode, json.dumps(spec)],
            stdout=subprocess.PIPE,
            stderr=open(self.tmp / f"{mode}.log", "ab"),  # noqa: SIM115 (the child holds it)
        )
        self.procs.append(proc)
        return proc

    def lead(self) -> subprocess.Popen[bytes]:
        spec = {"inbox": str(self.inbox), "transcript": str(self.lead_transcript)}
        return self.node("lead", {**spec, "pollMs": LEAD_POLL_MS, "sessionId": SID, "cwd": CWD})

    def sends(self, tag: str, count: int = COUNT) -> Iterator[dict[str, Any]]:
        """The teammate's sends, each as it is made."""
        spec = {
            "inbox": str(self.inbox),
            "transcript": str(self.transcript),
            "count": count,
            "everyMs": EVERY_MS,
            "from": "helper",
            "color": "blue",
            "agentId": AGENT,
            "sessionId": SID,
            "cwd": CWD,
            "tag": tag,
        }
        proc = self.node("send", spec)
        assert proc.stdout is not None
        for line in proc.stdout:
            yield json.loads(line)
        assert proc.wait(DEADLINE_NODE) == 0, (self.tmp / "send.log").read_text()

    def lost(self, sent: list[str]) -> list[str]:
        """What the history lacks of `sent`, once nothing more turns up by the deadline."""
        missing: list[str] = []

        def complete() -> bool:
            missing[:] = sorted(set(sent) - message_ids(self.history, TID))
            return not missing

        try:
            until(complete, "every message in the history")
        except AssertionError:
            pass
        return missing

    def end(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        for s in self.sidecars:
            s.close()


DEADLINE_NODE = 120


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    try:
        yield w
    finally:
        w.end()


def check(w: World, sent: list[str]) -> None:
    assert len(sent) == COUNT
    lost = w.lost(sent)
    assert lost == [], f"{len(lost)} of {COUNT} lost; see {w.tmp}/sidecar.log"
    assert gaps(w.history, TID) == []  # the transcripts account for every message
    bodies = query(w.history, "SELECT body FROM messages WHERE team=?", TID)
    recovered = sum(json.loads(b).get("recovered") is True for (b,) in bodies)
    print(f"{COUNT - len(lost)} of {COUNT} kept, {recovered} of them from the transcript")


def test_baseline(world: World) -> None:
    world.sidecar()
    world.ready()
    world.lead()
    check(world, [s["msg_id"] for s in world.sends("baseline")])


def test_stopped_three_times_for_two_seconds(world: World) -> None:
    s = world.sidecar()
    world.ready()
    world.lead()
    sent = []
    for send in world.sends("stopped"):
        sent.append(send["msg_id"])
        if send["seq"] in (40, 90, 140):
            s.pause()
            time.sleep(2.0)  # the stop itself (the teammate and the lead go on meanwhile)
            s.resume()
    check(world, sent)


def test_starved(world: World) -> None:
    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]),
        subprocess.Popen([sys.executable, "-c", "while True: pass"]),
    ]
    world.procs += busy  # type: ignore[arg-type]
    world.sidecar(nice=19)
    world.ready()
    world.lead()
    sent = [s["msg_id"] for s in world.sends("starved")]
    for p in busy:  # the sends were made starved; what the lead pruned meanwhile is gone
        p.kill()
    check(world, sent)


def test_not_running_during_the_writes(world: World) -> None:
    world.lead()
    sent = [s["msg_id"] for s in world.sends("closed")]
    until(lambda: json.loads(world.inbox.read_text() or "[]") == [], "the lead to prune all")
    world.sidecar()
    check(world, sent)


def test_killed_for_the_middle_third(world: World) -> None:
    s = world.sidecar()
    world.ready()
    world.lead()
    sent = []
    for send in world.sends("killed"):
        sent.append(send["msg_id"])
        if send["seq"] == COUNT // 3:
            s.terminate()
        elif send["seq"] == 2 * COUNT // 3:
            world.sidecar()
    check(world, sent)


def spanning(found: list[dict[str, Any]], stopped: float, resumed: float) -> dict[str, Any] | None:
    """The gap that holds the whole stop, if one does."""
    return next(
        (g for g in found if g["gap"]["start"] <= stopped and g["gap"]["end"] >= resumed), None
    )


def test_without_transcripts_a_stop_shows_a_gap(world: World) -> None:
    """The same team with transcripts not read: what the lead pruned during a stop is
    nowhere else, and the record says so."""
    s = world.sidecar(readTranscripts=False)
    world.ready()
    world.lead()
    stopped = resumed = 0.0
    for send in world.sends("untold", count=60):
        if send["seq"] == 20:
            s.pause()
            stopped = time.time()
            time.sleep(2.0)  # the stop itself
            resumed = time.time()
            s.resume()
    gap = until(lambda: spanning(gaps(world.history, TID), stopped, resumed), "the gap")
    assert gap["inbox"] == "team-lead" and gap["type"] == "gap"


# --- the gap: a file-bus inbox its reader consumes, nothing else keeping what it read

LEAD = "lead@auth-refactor"
CODER = "coder@auth-refactor"
BUS_TEAM = "filebus:auth-refactor"
BUS_INBOX = "coder_auth-refactor"


def test_a_file_bus_read_while_stopped_shows_a_gap(tmp_path: Path) -> None:
    project = tmp_path / "auth-refactor"
    bus = FileMessageBus(str(project / ".team"))
    bus._get_agent_inbox(CODER)
    bus._get_agent_inbox(LEAD)
    history = tmp_path / "history.db"
    init = {"defaultRoots": False, "roots": [str(project)], "historyPath": str(history)}
    env = {**os.environ, "HOME": str(tmp_path), "TEAMINBOX_ROOTS": ""}
    s = Sidecar(env, init, tmp_path / "sidecar.log")
    try:

        def read_until() -> float | None:
            rows = query(history, "SELECT until FROM reading WHERE inbox=?", BUS_INBOX)
            return rows[0][0] if rows else None

        until(read_until, "the sidecar to read the coder's inbox")

        # a stop nothing happened in: no gap (its check ran once the note moved past it)
        s.pause()
        time.sleep(2.0)  # the stop itself
        resumed = time.time()
        s.resume()
        until(lambda: (read_until() or 0) > resumed, "the sidecar to go on reading")
        assert gaps(history, BUS_TEAM) == []

        # the coder's runner takes what the lead sends while the sidecar is stopped
        s.pause()
        stopped = time.time()
        for i in range(5):
            bus.send_message(LEAD, CODER, f"step {i}: write src/auth/jwt.ts")
        taken = bus.read_inbox(CODER)
        assert len(taken) == 5 and not list(bus._get_agent_inbox(CODER).glob("*.json"))
        time.sleep(max(0.0, stopped + 2.0 - time.time()))  # the stop lasts 2 s
        resumed = time.time()
        s.resume()
        gap = until(lambda: spanning(gaps(history, BUS_TEAM), stopped, resumed), "the gap")
        assert gap["inbox"] == BUS_INBOX and gap["type"] == "gap"
        assert gap["text"] == gap_text(gap["gap"]["start"], gap["gap"]["end"])
    finally:
        s.close()

    # `teaminbox read` says it, as plain text, in the inbox's place
    out = subprocess.run(
        [sys.executable, "-m", "teaminbox", "--no-default-roots", "--root", str(project)]
        + ["read", "auth-refactor", BUS_INBOX, "--archived", "--history", str(history)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert gap["text"] in out.stdout, out.stdout + out.stderr
