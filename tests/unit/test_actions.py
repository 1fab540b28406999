"""send / broadcast / mark-read / repair / doctor through actions.py."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from support import member_of, roster_of
from support.world import CODER_ID, LEAD_ID, TESTER_ID, Teams, tree, write_json
from teaminbox import maintenance, marking, sending
from teaminbox.errors import (
    CorruptInbox,
    InvalidName,
    InvalidParams,
    NotOwned,
    TooLarge,
    UnknownInbox,
    UnknownRecipient,
)
from teaminbox.formats.claude import CLAUDE
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.store import read


def entries(path: Path) -> list[dict[str, Any]]:
    doc = json.loads(path.read_bytes())
    return doc if isinstance(doc, list) else doc["messages"]


def old(path: Path | str, seconds: float = 20) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


# ---------------------------------------------------------------- send


def mark(settings, team, inbox, ids=None, *, all=False, deliver=False):  # type: ignore[no-untyped-def]
    r, m = member_of(settings, team, inbox)
    return marking.set_read(r, m, list(ids or []), every=all, discard=deliver)


def repair(settings, team, inbox):  # type: ignore[no-untyped-def]
    r, m = member_of(settings, team, inbox)
    path, kept, dropped, backup = maintenance.repair(r, m)
    return SimpleNamespace(path=path, kept=kept, dropped=dropped, backup=backup)


def test_send_claude_default_sender_is_user(teams: Teams) -> None:
    before = teams.cinbox("researcher").read_bytes()
    [res] = sending.send(
        roster_of(teams.settings, "alpha"), "researcher", 'hi\n"there" 😀', summary="s"
    )
    assert res.ok and res.recipient == "researcher" and res.inbox == "researcher"
    after = teams.cinbox("researcher").read_bytes()
    assert after.startswith(before[:-2])  # earlier bytes kept
    last = entries(teams.cinbox("researcher"))[-1]
    assert last["from"] == "user" and last["text"] == 'hi\n"there" 😀'
    assert last["summary"] == "s" and last["read"] is False and last["type"] == "message"
    assert res.message_id == last["msg_id"]
    assert (
        after
        == json.dumps(entries(teams.cinbox("researcher")), indent=2, ensure_ascii=False).encode()
    )


def test_send_by_agent_id_and_with_color(teams: Teams) -> None:
    [res] = sending.send(
        roster_of(teams.settings, "claude:alpha"), "researcher@alpha", "x", color="red"
    )
    assert res.ok
    assert entries(teams.cinbox("researcher"))[-1]["color"] == "red"


def test_send_creates_missing_claude_inbox_of_real_member(teams: Teams) -> None:
    path = teams.cinbox("coder")
    assert not path.exists()
    [res] = sending.send(roster_of(teams.settings, "alpha"), "coder", "first")
    assert res.ok
    [e] = entries(path)
    assert e["text"] == "first" and e["msg_id"] == res.message_id
    assert path.read_bytes() == json.dumps([e], indent=2, ensure_ascii=False).encode()


def test_send_pseudoclaude_default_sender_is_lead(teams: Teams) -> None:
    [res] = sending.send(
        roster_of(teams.settings, "beta"), "coder", "go", type="task", payload={"k": [1, "v"]}
    )
    assert res.ok and res.inbox == CODER_ID
    msgs = entries(teams.pinbox(CODER_ID))
    assert len(msgs) == 2
    e = msgs[-1]
    assert e["from"] == "lead" and e["to"] == CODER_ID and e["type"] == "task"
    assert e["content"] == "go" and e["payload"] == {"k": [1, "v"]} and e["read"] is False
    assert res.message_id == PSEUDOCLAUDE.entry_id(e, 1)
    # PseudoClaude's Go struct field order
    assert list(e) == ["from", "to", "type", "summary", "content", "payload", "timestamp", "read"]


def test_send_explicit_sender(teams: Teams) -> None:
    sending.send(roster_of(teams.settings, "alpha"), "researcher", "x", sender="coder")
    assert entries(teams.cinbox("researcher"))[-1]["from"] == "coder"


def test_broadcast_claude_one_result_per_recipient(teams: Teams) -> None:
    results = sending.send(roster_of(teams.settings, "alpha"), "*", "all hands")
    assert sorted(r.recipient for r in results) == ["coder", "researcher", "team-lead"]
    assert all(r.ok and r.message_id for r in results)
    for name in ("coder", "researcher", "team-lead"):
        assert entries(teams.cinbox(name))[-1]["text"] == "all hands"
    assert entries(teams.cinbox("user")) == []  # the sender itself gets nothing


def test_broadcast_pseudoclaude_skips_lead(teams: Teams) -> None:
    results = sending.send(roster_of(teams.settings, "beta"), "broadcast", "all hands")
    assert sorted(r.inbox for r in results) == sorted([CODER_ID, TESTER_ID])  # type: ignore[type-var]
    assert entries(teams.pinbox(LEAD_ID)) == []
    assert entries(teams.pinbox(TESTER_ID))[-1]["content"] == "all hands"


def test_broadcast_excludes_an_explicit_sender(teams: Teams) -> None:
    """Broadcast goes to everyone but the sender, also when the sender is given with --from."""
    results = sending.send(
        roster_of(teams.settings, "alpha"), "*", "from researcher", sender="researcher"
    )
    assert sorted(r.recipient for r in results) == ["coder", "team-lead"]
    assert entries(teams.cinbox("researcher"))[-1]["text"] != "from researcher"


def test_broadcast_partial_failure_is_reported(teams: Teams) -> None:
    bad = b'[{"from": "x", "text": '
    teams.cinbox("researcher").write_bytes(bad)
    results = sending.send(roster_of(teams.settings, "alpha"), "*", "partial")
    by = {r.recipient: r for r in results}
    assert set(by) == {"coder", "researcher", "team-lead"}
    assert not by["researcher"].ok and by["researcher"].code == "corrupt_inbox"
    assert by["researcher"].error and str(teams.cinbox("researcher")) in by["researcher"].error
    assert by["coder"].ok and by["team-lead"].ok
    assert teams.cinbox("researcher").read_bytes() == bad
    assert entries(teams.cinbox("team-lead"))[-1]["text"] == "partial"


def test_send_to_corrupt_inbox_raises_and_keeps_bytes(teams: Teams) -> None:
    bad = b'[\n  {"from": "x"}\n  garbage'
    teams.cinbox("researcher").write_bytes(bad)
    snap = tree(teams.home)
    with pytest.raises(CorruptInbox):
        sending.send(roster_of(teams.settings, "alpha"), "researcher", "x")
    assert tree(teams.home) == snap


@pytest.mark.parametrize("to", ["nobody", "ghost", "user", "team-beta-x-1"])
def test_unknown_recipient_creates_nothing(teams: Teams, to: str) -> None:
    write_json(teams.cinbox("ghost"), [])  # a phantom is not a recipient either
    snap = tree(teams.home)
    with pytest.raises(UnknownRecipient):
        sending.send(roster_of(teams.settings, "alpha"), to, "x")
    assert tree(teams.home) == snap


BAD_NAMES = ["../coder", "a/b", "a\\b", "..", "x\x00y", "n" * 256, "é" * 128]


@pytest.mark.parametrize("bad", BAD_NAMES)
@pytest.mark.parametrize("role", ["team", "recipient", "sender", "inbox"])
def test_bad_names_rejected_before_any_path(teams: Teams, bad: str, role: str) -> None:
    snap = tree(teams.home.parent)
    with pytest.raises(InvalidName):
        if role == "team":
            sending.send(roster_of(teams.settings, bad), "coder", "x")
        elif role == "recipient":
            sending.send(roster_of(teams.settings, "alpha"), bad, "x")
        elif role == "sender":
            sending.send(roster_of(teams.settings, "alpha"), "coder", "x", sender=bad)
        else:
            mark(teams.settings, "alpha", bad, all=True, deliver=True)
    assert tree(teams.home.parent) == snap


def test_too_large(teams: Teams) -> None:
    snap = tree(teams.home)
    with pytest.raises(TooLarge):
        sending.send(roster_of(teams.settings, "alpha"), "researcher", "x" * (1024 * 1024 + 1))
    with pytest.raises(TooLarge):
        sending.send(roster_of(teams.settings, "alpha"), "researcher", "é" * (512 * 1024 + 1))
    with pytest.raises(TooLarge):
        sending.send(
            roster_of(teams.settings, "beta"), "coder", "x", payload={"p": "y" * 1024 * 1024}
        )
    assert tree(teams.home) == snap
    [res] = sending.send(roster_of(teams.settings, "alpha"), "researcher", "x" * (1024 * 1024 - 10))
    assert res.ok


@pytest.mark.parametrize(
    "kwargs",
    [
        {"color": "magenta"},
        {"payload": [1, 2]},
        {"payload": "x"},
        {"text": ""},
        {"text": None},
    ],
)
def test_invalid_params(teams: Teams, kwargs: dict[str, Any]) -> None:
    snap = tree(teams.home)
    args: dict[str, Any] = {"text": "hello", **kwargs}
    text = args.pop("text")
    with pytest.raises(InvalidParams):
        sending.send(roster_of(teams.settings, "alpha"), "researcher", text, **args)
    assert tree(teams.home) == snap


def test_parse_payload() -> None:
    assert sending.parse_payload('{"a": 1}') == {"a": 1}
    assert sending.parse_payload(None) is None
    for bad in ("[1]", "{", "3"):
        with pytest.raises(InvalidParams):
            sending.parse_payload(bad)


# ---------------------------------------------------------------- mark read


def test_mark_read_own_inbox_by_id_and_all(teams: Teams) -> None:
    write_json(
        teams.cinbox("user"),
        [
            {
                "from": "coder",
                "text": f"m{i}",
                "timestamp": f"2026-01-01T00:00:0{i}Z",
                "read": False,
            }
            for i in range(3)
        ],
    )
    snap = read(CLAUDE, str(teams.cinbox("user")))
    ids = [CLAUDE.entry_id(e, i) for i, e in enumerate(snap.entries)]
    assert mark(teams.settings, "alpha", "user", [ids[1]]) == 1
    assert [e["read"] for e in entries(teams.cinbox("user"))] == [False, True, False]
    assert mark(teams.settings, "alpha", "user", [ids[1]]) == 0
    assert mark(teams.settings, "alpha", "user", all=True) == 2
    after = entries(teams.cinbox("user"))
    assert len(after) == 3 and all(e["read"] for e in after)  # nothing deleted
    assert [CLAUDE.entry_id(e, i) for i, e in enumerate(after)] == ids


def test_mark_read_pseudoclaude_lead_inbox_is_consumed(teams: Teams) -> None:
    """The lead's runner consumes lead-<team>.json by unread index (HasLeadMail): the
    person's "read" must not take its mail; only an explicit discard writes the flag."""
    sending.send(roster_of(teams.settings, "beta"), "coder", "x", sender="coder")  # to coder
    write_json(
        teams.pinbox(LEAD_ID),
        {
            "messages": [
                {
                    "from": "coder",
                    "to": LEAD_ID,
                    "type": "text",
                    "summary": "",
                    "content": "done",
                    "timestamp": "t",
                    "read": False,
                }
            ],
            "extra": 1,
        },
    )
    before = teams.pinbox(LEAD_ID).read_bytes()
    with pytest.raises(NotOwned):
        mark(teams.settings, "beta", "lead", all=True)
    assert teams.pinbox(LEAD_ID).read_bytes() == before
    assert mark(teams.settings, "beta", "lead", all=True, deliver=True) == 1
    doc = json.loads(teams.pinbox(LEAD_ID).read_bytes())
    assert doc["messages"][0]["read"] is True and doc["extra"] == 1


def test_mark_read_other_inbox_needs_deliver(teams: Teams) -> None:
    path = teams.cinbox("team-lead")
    before = path.read_bytes()
    with pytest.raises(NotOwned):
        mark(teams.settings, "alpha", "team-lead", all=True)
    with pytest.raises(NotOwned):
        mark(teams.settings, "beta", CODER_ID, all=True)
    assert path.read_bytes() == before
    assert mark(teams.settings, "alpha", "team-lead", all=True, deliver=True) == 1
    assert [e["read"] for e in entries(path)] == [True, True]
    n = mark(teams.settings, "beta", "coder", all=True, deliver=True)
    assert n == 1 and entries(teams.pinbox(CODER_ID))[0]["read"] is True


def test_mark_read_corrupt_inbox_untouched(teams: Teams) -> None:
    bad = b"[{]"
    teams.cinbox("user").write_bytes(bad)
    with pytest.raises(CorruptInbox):
        mark(teams.settings, "alpha", "user", all=True)
    assert teams.cinbox("user").read_bytes() == bad


def test_mark_read_needs_ids_or_all_and_known_inbox(teams: Teams) -> None:
    with pytest.raises(InvalidParams):
        mark(teams.settings, "alpha", "user")
    with pytest.raises(UnknownInbox):
        mark(teams.settings, "alpha", "nobody", all=True)
    assert not teams.cinbox("nobody").exists()


# ---------------------------------------------------------------- repair / doctor


def test_repair_truncated_inbox(teams: Teams) -> None:
    path = teams.cinbox("team-lead")
    data = path.read_bytes()
    cut = data[: len(data) - 30]
    path.write_bytes(cut)
    res = repair(teams.settings, "alpha", "team-lead")
    assert res.kept == 1 and res.backup is not None
    assert Path(res.backup).read_bytes() == cut
    assert Path(res.backup).name.startswith("team-lead.json.corrupt-")
    assert entries(path)[0]["msg_id"] == "11111111-1111-4111-8111-111111111111"
    # a repaired file is healthy: repair again leaves it alone
    again = path.read_bytes()
    res2 = repair(teams.settings, "alpha", "team-lead")
    assert res2.backup is None and path.read_bytes() == again


def test_doctor_findings(teams: Teams) -> None:
    inb = teams.claude_dir / "inboxes"
    assert maintenance.doctor(teams.settings) == []
    stale = inb / "researcher.json.lock"
    stale.mkdir()
    old(stale)
    fresh = inb / "team-lead.json.lock"
    fresh.mkdir()
    teams.cinbox("user").write_bytes(b"[{")
    write_json(teams.cinbox("ghost"), [])  # a departed teammate's leftover: not a phantom
    ghost = teams.pinbox("team-beta-ghost-1")
    write_json(ghost, {"messages": []})
    tmp = inb / ".researcher.json.1.abcd.teaminbox-tmp"
    tmp.write_bytes(b"[]")
    old(tmp, 120)
    ptmp = teams.pseudo_dir / "inboxes" / ".tmp-999.json"
    ptmp.write_bytes(b"{}")
    old(ptmp, 120)
    young = inb / "team-lead.json.tmp.4242"
    young.write_bytes(b"[]")
    plock = teams.pseudo_dir / "inboxes" / f"{CODER_ID}.json.lock"
    plock.write_text("2020-01-01T00:00:00.000000000Z")
    old(plock)
    found = {(f.kind, f.path) for f in maintenance.doctor(teams.settings)}
    assert found == {
        ("stale_lock", str(stale)),
        ("stale_lock", str(plock)),
        ("corrupt", str(teams.cinbox("user"))),
        ("phantom", str(ghost)),
        ("leftover_temp", str(tmp)),
        ("leftover_temp", str(ptmp)),
        ("young_temp", str(young)),  # listed, left alone: it may be a write in progress
    }
    assert young.exists()


def test_doctor_survives_a_member_with_a_bad_name(teams: Teams) -> None:
    """A config member named '../x' must not crash doctor (nor make it touch ../x.json)."""
    cfg = json.loads((teams.claude_dir / "config.json").read_bytes())
    cfg["members"].append({"agentId": "evil@alpha", "name": "../evil"})
    write_json(teams.claude_dir / "config.json", cfg)
    findings = maintenance.doctor(teams.settings)
    assert isinstance(findings, list)


def test_broadcast_with_a_bad_member_name_in_config_reports_it(teams: Teams) -> None:
    """One member whose config name is not a safe file name fails alone; others get it."""
    cfg = json.loads((teams.claude_dir / "config.json").read_bytes())
    cfg["members"].append({"agentId": "evil@alpha", "name": "../evil"})
    write_json(teams.claude_dir / "config.json", cfg)
    snap = tree(teams.home.parent)
    results = sending.send(roster_of(teams.settings, "alpha"), "*", "hello all")
    by = {r.recipient: r for r in results}
    assert set(by) == {"coder", "researcher", "team-lead", "../evil"}
    assert not by["../evil"].ok and by["../evil"].code == "invalid_name"
    assert all(by[n].ok for n in ("coder", "researcher", "team-lead"))
    assert not (teams.claude_dir / "evil.json").exists()
    created = set(tree(teams.home.parent)) - set(snap)
    assert created == {str(teams.cinbox("coder"))}
