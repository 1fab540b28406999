"""The REAL `teaminbox serve`, watching a real Claude Code team while it works.

The server was started on the scratch ~/.claude/teams before `claude` (conftest.py),
sent the person's message to helper and the tasks request to the lead with
teamInbox/send, and was asked for its history just before /exit. Ground truth is
the recorder: every entry that was ever in any inbox file, even for a millisecond.
What docs/protocol.md promises today is asserted here; what is still being built is
in pending_features.py.
"""

from __future__ import annotations

from typing import Any

from . import scenario as sc
from .conftest import CcRun
from .recorder import Entry
from .sidecar_client import SEARCHED


def history(cc: CcRun, inbox: str) -> list[dict[str, Any]]:
    res = cc.server.messages.get(inbox)
    assert res is not None, f"the server was not asked for {inbox} (inboxes: {cc.server.messages})"
    return list(res["messages"])


def same(entry: Entry, msg: dict[str, Any]) -> bool:
    v = entry.value
    return (
        msg.get("from") == v.get("from")
        and msg.get("text") == v.get("text")
        and msg.get("timestamp") == v.get("timestamp")
    )


def describe(msgs: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"  {m.get('id')} {m.get('from')} {m.get('type')} archived={m.get('archived')}"
        f" {str(m.get('text'))[:80]!r}"
        for m in msgs
    )


def test_server_lists_the_session_team(cc: CcRun) -> None:
    cc.require_server()
    teams = cc.server.teams["teams"]
    mine = [t for t in teams if t["id"] == f"claude:{cc.team}"]
    assert len(mine) == 1, [t["id"] for t in teams]
    team = mine[0]
    assert team["format"] == "claude"
    assert team["name"] == cc.team
    assert team["lead"] == "team-lead"
    assert team["identity"] == "user"
    assert team["ownInbox"] == "user"
    assert not team.get("error"), team["error"]
    inboxes = {m["inbox"]: m for m in team["members"]}
    assert {"team-lead", "helper"} <= set(inboxes), inboxes
    assert inboxes["team-lead"]["lead"] is True
    # helper shut down: it left config.json's members, its inbox file stayed
    assert inboxes["helper"]["lead"] is False


def test_every_inbox_entry_is_in_the_history(cc: CcRun) -> None:
    """Each entry Claude Code or teaminbox ever wrote (most lived < 1 s) is served."""
    cc.require_server()
    entries = cc.entries()
    # 6 from helper, 2 frames from the lead, 4 from the person
    assert len(entries) == 12, [e.value for e in entries]
    missing = []
    for e in entries:
        msgs = history(cc, e.inbox)
        hits = [m for m in msgs if same(e, m)]
        if len(hits) != 1:
            missing.append((e.inbox, len(hits), e.value))
            continue
        m = hits[0]
        assert m["id"] == e.value["msg_id"], (m["id"], e.value)
        assert m["team"] == f"claude:{cc.team}" and m["inbox"] == e.inbox
        assert m["format"] == "claude"
        assert m["raw"] == e.value
        # every one of them was pruned by the time the history was asked for
        assert m["archived"] is True, m
    assert not missing, (
        "entries the recorder saw but the server's history lacks (inbox, hits, entry):\n"
        + "\n".join(map(repr, missing))
        + "\nserver history:\n"
        + "\n".join(f"{i}:\n{describe(history(cc, i))}" for i in cc.server.messages)
    )


def test_history_has_nothing_that_was_never_written(cc: CcRun) -> None:
    cc.require_server()
    keys = {(e.inbox, *e.key) for e in cc.entries()}
    # (the person's own inbox `user` has no file: it holds what the transcripts add)
    for inbox in cc.inboxes_seen:
        for m in history(cc, inbox):
            key = (inbox, m["from"], m["timestamp"], m["text"])
            assert key in keys, f"served but never in {inbox}.json: {m!r}"


def test_frames_are_decoded(cc: CcRun) -> None:
    cc.require_server()
    kinds = {
        "idle_notification": "team-lead",
        "shutdown_approved": "team-lead",
        "task_assignment": "helper",
        "shutdown_request": "helper",
    }
    for kind, inbox in kinds.items():
        frames = cc.frames(kind, inbox)
        assert frames, kind
        served = [m for m in history(cc, inbox) if m["type"] == kind]
        assert len(served) == len(frames), (kind, describe(history(cc, inbox)))
        for e in frames:
            hit = [m for m in served if same(e, m)]
            assert hit and hit[0]["structured"] == e.frame, (kind, hit, e.frame)
    for m in history(cc, "team-lead") + history(cc, "helper"):
        if m["type"] == "message":
            assert m["structured"] is None, m
            assert m["to"] == m["inbox"], m


def test_messages_newest_first(cc: CcRun) -> None:
    cc.require_server()
    for inbox, res in cc.server.messages.items():
        stamps = [m["timestamp"] for m in res["messages"]]
        assert stamps == sorted(stamps, reverse=True), f"{inbox}: not newest first"


def test_search_finds_each_scenario_message(cc: CcRun) -> None:
    cc.require_server()
    for text in SEARCHED:
        found = cc.server.search[text]["messages"]
        wanted = [e for e in cc.entries() if text in e.value["text"]]
        assert len(wanted) == 1, (text, wanted)
        hits = [m for m in found if text in m["text"]]
        assert len(hits) == 1, (text, describe(found))
        assert hits[0]["inbox"] == wanted[0].inbox
        assert hits[0]["id"] == wanted[0].value["msg_id"]


def test_send_from_the_person_is_delivered(cc: CcRun) -> None:
    """teamInbox/send wrote the entry under the lock; Claude Code took it in."""
    cc.require_server()
    by_server = {to: res for how, to, text, res in cc.outcome.sends if how == "server"}
    failed = [s for s in cc.outcome.sends if s[0] == "server-error"]
    assert not failed, failed
    assert set(by_server) == {"helper", "team-lead"}, cc.outcome.sends
    cases = {
        "helper": (sc.PERSON_TO_HELPER, "teammate:helper", "helper-answer"),
        "team-lead": (sc.PERSON_TASKS, "lead", "task-create"),
    }
    for to, (text, who, rule) in cases.items():
        (result,) = by_server[to]["results"]
        assert result["ok"] is True and result["recipient"] == to, result
        entry = cc.entry_with(text, to)
        assert entry.value["from"] == "user"
        assert result["messageId"] == entry.value["msg_id"], (result, entry.value)
        # the model of the recipient was given it, and answered by the script
        assert any(text in r.last_user for r in cc.requests(who)), f"{who} never saw {text!r}"
        assert cc.fired(rule).who == who


def test_did_change_announced_every_entry(cc: CcRun) -> None:
    """teamInbox/didChange `added` carried each entry, even those pruned within a second."""
    cc.require_server()
    added: dict[str, set[str]] = {}
    for p in cc.server.notifications.get("teamInbox/didChange", []):
        if p.get("team") == f"claude:{cc.team}":
            added.setdefault(p["inbox"], set()).update(m["id"] for m in p.get("added", []))
    missing = [
        (e.inbox, e.value["text"][:60])
        for e in cc.entries()
        if e.value["msg_id"] not in added.get(e.inbox, set())
    ]
    assert not missing, f"never in a didChange.added: {missing}"
