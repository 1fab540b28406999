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
from pathlib import Path
from typing import Any

import pytest

from teaminbox.timestamps import epoch

from .own_session import (
    BROADCAST,
    BURST,
    VERSION,
    Run,
    held_once,
    idle_held_once,
    kept_after_restart,
    run_stalled,
    scratch_home,
)
from .sidecar_client import Sidecar


def _run(base: Path) -> Run:
    home = scratch_home(base)
    sidecar = Sidecar(home)
    sidecar.options["notify"] = "messages"  # a teammate's text to the lead toasts...
    sidecar.start()
    try:
        run = run_stalled(base, sidecar)
        if run.error is None:  # a second server on the same history, the team ended
            again = Sidecar(home).start()
            try:
                run.reopened = again.call(
                    "teamInbox/conversation", {"team": f"claude:{run.team}", "limit": 1000}
                )["messages"]
                run.reopened_replied = again.notifications("teamInbox/replied")
            finally:
                again.stop()
    finally:
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
    held = held_once(recovered.conversation, recovered.entries, lambda text: "team-lead")
    assert {m["delivery"] for m in held.values()} == {"delivered"}
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
    kept_after_restart(recovered.reopened, recovered.entries)
    assert all(m["recovered"] for m in recovered.reopened if m["text"] in BURST)
    assert not [p for p in recovered.reopened_replied if p["message"]["text"] in BURST]


def test_helpers_idle_notification_is_recovered_once_from_the_leads_transcript(
    recovered: Run,
) -> None:
    """Written and pruned while the sidecar was stopped, in no sender's transcript: the
    lead's `<teammate-message>` turn is its only record."""
    recovered.require()
    for entry, m in idle_held_once(recovered.idle, recovered.conversation, recovered.reopened):
        assert m["id"] != entry["msg_id"]
        assert m["archived"] is True and m["color"] == entry["color"]
        assert m["structured"]["type"] == "idle_notification"
        # the turn that handed it to the lead: after it was written
        assert (epoch(m["timestamp"]) or 0) >= (epoch(entry["timestamp"]) or 0) - 1
    # an idle notification never toasts under the default policy
    assert not [p for p in recovered.replied if '"idle_notification"' in p["text"]]
