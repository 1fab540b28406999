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

One session (about 30 s), nothing leaves the machine (own_session.py's stalled burst).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from teaminbox import spool
from teaminbox.history import History

from .harness import Session
from .own_session import (
    BURST,
    VERSION,
    Run,
    held_once,
    hook_install,
    run_stalled,
    scratch_home,
)
from .sidecar_client import Sidecar


@dataclass
class SpoolRun:
    run: Run
    settings: dict[str, Any] = field(default_factory=dict)
    spooled: list[dict[str, Any]] = field(default_factory=list)  # the records, as read
    skipped: int = 0
    lead_session: str = ""
    history: Path | None = None  # the sidecar's


def _run(base: Path) -> SpoolRun:
    home = scratch_home(base)
    hook_install(home, "--record")
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
    lead_session = ""

    def config(s: Session, run: Run) -> None:
        nonlocal lead_session
        config = json.loads((s.claude_dir / "teams" / run.team / "config.json").read_text())
        lead_session = str(config.get("leadSessionId"))

    try:
        run = run_stalled(base, sidecar, also=config)
    finally:
        sidecar.stop()
    out = SpoolRun(run, lead_session=lead_session)
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
    assert len(run.entries) == len(BURST)
    held_once(run.conversation, run.entries, lambda text: "team-lead")
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
