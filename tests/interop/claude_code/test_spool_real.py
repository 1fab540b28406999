"""The record hook's spool, against the REAL Claude Code CLI (2.1.332).

`teaminbox hook install --record --yes` writes the `PostToolUse` / `SendMessage` hook into
the scratch HOME's ~/.claude/settings.json before claude starts. The real `teaminbox
serve` runs with `readTranscripts: false` (so the spool is the only record it may take
in besides the files) and is stopped (SIGSTOP) before helper's turn: eight `SendMessage`
calls to the lead, written and pruned by Claude Code while the sidecar cannot read. Claude
Code runs the real `python -m teaminbox.hook record` for each send: the spool must hold
all eight, with the entries' own msg_ids, helper's name and the lead's session; once the
sidecar is continued it holds all eight, by msg_id, `recovered`, each a toast once (written
while the sidecar ran, stalled: news, as test_recover_real.py says).

One session (about 30 s), nothing leaves the machine (test_recover_real.py's script).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from teaminbox import spool
from teaminbox.history import History

from .api_script import Reply, Request, Rule, Script, call, say
from .errors import HarnessError
from .harness import Session, teaminbox_exe
from .sidecar_client import Sidecar
from .test_recover_real import (
    BURST,
    HELPER_PROMPT,
    PROMPT,
    VERSION,
    Run,
    Stopper,
    _play,
    burst_reply,
    has_results,
)


@dataclass
class SpoolRun:
    run: Run
    settings: dict[str, Any] = field(default_factory=dict)
    spooled: list[dict[str, Any]] = field(default_factory=list)  # the records, as read
    skipped: int = 0
    lead_session: str = ""
    history: Path | None = None  # the sidecar's


def install_record_hook(home: Path) -> None:
    env = {**os.environ, "HOME": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    res = subprocess.run(
        [str(teaminbox_exe()), "hook", "install", "--record", "--yes", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    if res.returncode != 0:
        raise HarnessError(f"teaminbox hook install --record failed: {res.stderr}")


def _run(base: Path) -> SpoolRun:
    home = base / "home"
    (home / ".claude" / "teams").mkdir(parents=True)
    install_record_hook(home)
    where = spool.folder({"HOME": str(home)})  # where the hook writes under Claude Code's env
    old = os.environ.get("TEAMINBOX_SPOOL_DIR")
    os.environ["TEAMINBOX_SPOOL_DIR"] = where  # the sidecar reads the same spool
    try:
        sidecar = Sidecar(home)
        sidecar.options["readTranscripts"] = False
        sidecar.options["notify"] = "messages"
        sidecar.start()
    finally:
        if old is None:
            os.environ.pop("TEAMINBOX_SPOOL_DIR", None)
        else:
            os.environ["TEAMINBOX_SPOOL_DIR"] = old
    stop = Stopper(sidecar.client._server.pid)

    def burst(req: Request) -> Reply:
        stop.stop()
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
    out = SpoolRun(run)
    try:
        with s:
            try:
                run.team = s.team(timeout=40)
                _play(s, sidecar, run, stop)
                config_path = home / ".claude" / "teams" / run.team / "config.json"
                config = json.loads(config_path.read_text())
                out.lead_session = str(config.get("leadSessionId"))
            except HarnessError as exc:
                run.error = str(exc)
            except Exception as exc:
                run.error = f"{exc!r}\n{s.explain()}"
            finally:
                stop.cont()
                s.exit()
    finally:
        stop.cont()
        sidecar.stop()
    out.settings = json.loads((home / ".claude" / "settings.json").read_text())
    out.history = home / "teaminbox-history.db"
    got = spool.read(where, {})
    out.spooled = [doc for _, _, doc in got.records]
    out.skipped = got.skipped
    return out


@pytest.fixture(scope="module")
def spooled(tmp_path_factory: pytest.TempPathFactory) -> SpoolRun:
    return _run(tmp_path_factory.mktemp(f"claude-code-spool-{VERSION}"))


def test_the_record_hook_is_installed_as_written(spooled: SpoolRun) -> None:
    [group] = spooled.settings["hooks"]["PostToolUse"]
    assert group["matcher"] == "SendMessage"
    [h] = group["hooks"]
    assert h["command"].endswith("-m teaminbox.hook record")


def test_every_send_reached_the_spool_through_the_real_hook(spooled: SpoolRun) -> None:
    spooled.run.require()
    entries = spooled.run.entries  # text -> Claude Code's own entry in team-lead.json
    by_id = {d["p"]["tool_response"]["msg_id"]: d["p"] for d in spooled.spooled if "p" in d}
    assert spooled.skipped == 0
    for text, entry in entries.items():
        p = by_id.get(entry["msg_id"])
        assert p is not None, (text, sorted(by_id))
        assert (p["hook_event_name"], p["tool_name"], p["agent_type"]) == (
            "PostToolUse",
            "SendMessage",
            "helper",
        )
        assert (p["tool_input"]["to"], p["tool_input"]["message"]) == ("team-lead", text)
        assert p["session_id"] == spooled.lead_session


def test_none_of_the_eight_is_lost_with_the_spool_alone(spooled: SpoolRun) -> None:
    spooled.run.require()
    run = spooled.run
    by_id: dict[str, list[dict[str, Any]]] = {}
    for m in run.conversation:
        by_id.setdefault(m["id"], []).append(m)
    assert len(run.entries) == len(BURST)
    for text, entry in run.entries.items():
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
        assert (m["recovered"], m["archived"]) == (True, True)
    toasted = sorted(m["text"] for m in run.replied if m["text"] in BURST)
    assert toasted == sorted(BURST), run.replied


def test_the_history_notes_when_the_hook_recorded_the_leads_session(spooled: SpoolRun) -> None:
    """What the gaps check asks (features/gaps.py `_spooled`): the real hook's payloads name
    the team's lead session, and the intake noted from when the hook recorded it."""
    spooled.run.require()
    assert spooled.history is not None
    history = History(str(spooled.history), read_only=True)
    try:
        first = history.spooled_since(spooled.lead_session)
    finally:
        history.close()
    times = [d["t"] for d in spooled.spooled if "p" in d]
    assert first is not None and first == pytest.approx(min(times))
