"""The notification policy (notify_policy.decide), level by level, kind of message by kind:
each level does what the `teamInbox.notifications` setting's description says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from support.world import CODER_ID, LEAD_ID, make_teams
from teaminbox.diff import InboxDiff
from teaminbox.discovery import Roster, resolve_team, roster
from teaminbox.model import Message
from teaminbox.notify_policy import decide
from teaminbox.protocol import InitializationOptions
from teaminbox.tracker import Change

LEVELS = ("off", "replies", "messages", "all")


@pytest.fixture(scope="module")
def rosters(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Roster]:
    """Real rosters from real configs: Claude `alpha` (the person is `user`, lead
    `team-lead`, teammates researcher and coder), PseudoClaude `beta` (the person is the
    lead, `lead-beta`)."""
    teams = make_teams(tmp_path_factory.mktemp("home"))
    return {
        n: roster(resolve_team(teams.settings.roots, n), teams.settings) for n in ("alpha", "beta")
    }


def idle(sender: str, result: str | None = None) -> dict[str, Any]:
    frame = {"type": "idle_notification", "from": sender, "idleReason": "available"}
    return frame | ({"result": result} if result else {})


WRITTEN = 1796032800.0  # 2026-11-30T10:00:00Z: when every message here was written


@attrs.frozen
class Case:
    """A message `sender` -> `inbox` of `team`; `text` a string or a frame (dict)."""

    inbox: str
    sender: str
    text: str | dict[str, Any] = "tests pass"
    team: str = "alpha"
    read: bool = False
    waited: bool = False  # the person wrote to `sender` before
    initial: bool = False  # in the first look at this inbox in this process...
    known_before: bool = True  # ...of an inbox the history knew (a restart's catch-up)
    recovered: bool = False  # rebuilt from its sender's transcript: its entry pruned unread
    started: float | None = None  # when the sidecar started (the message: WRITTEN)

    def run(self, rosters: dict[str, Roster], level: str, lead_traffic: bool = True) -> bool:
        r = rosters[self.team]
        frame = self.text if isinstance(self.text, dict) else None
        msg = Message(
            id="m1",
            team=r.team.id,
            inbox=self.inbox,
            format=r.team.format,  # type: ignore[arg-type]
            from_=self.sender,
            to=self.inbox,
            type=str(frame["type"]) if frame else "message",
            text=json.dumps(frame) if frame else str(self.text),
            timestamp="2026-11-30T10:00:00.000Z",
            read=self.read,
            structured=frame,
            recovered=self.recovered,
        )
        change = Change(
            r.team.id, self.inbox, InboxDiff([msg]), 1, 1, self.initial, self.known_before
        )
        opts = InitializationOptions(notify=level, notify_lead_traffic=lead_traffic)  # type: ignore[arg-type]
        waiting = frozenset({(r.team.id, r.name_of(self.sender))}) if self.waited else frozenset()
        return decide(opts, r, change, msg, waiting, self.started).alert


# kind of message -> the levels that toast it (lead traffic on, the default)
TABLE: dict[str, tuple[Case, set[str]]] = {
    "own inbox: a teammate's text": (Case("user", "researcher"), {"replies", "messages", "all"}),
    "own inbox: the lead's text (its answer from the transcript lands here too)": (
        Case("user", "team-lead", "LEAD-ANSWER"),
        {"replies", "messages", "all"},
    ),
    "own inbox: a frame": (Case("user", "researcher", idle("researcher")), {"all"}),
    "own inbox: an answer frame nobody waited for": (
        Case("user", "researcher", idle("researcher", "done")),
        {"all"},
    ),
    "own inbox: an answer frame after the person wrote": (
        Case("user", "researcher", idle("researcher", "done"), waited=True),
        {"replies", "messages", "all"},
    ),
    "lead's inbox: a teammate's answer frame after the person wrote": (
        Case("team-lead", "researcher", idle("researcher", "test_auth.py"), waited=True),
        {"replies", "messages", "all"},
    ),
    "lead's inbox: a teammate's answer frame nobody waited for": (
        Case("team-lead", "researcher", idle("researcher", "test_auth.py")),
        set(),
    ),
    "lead's inbox: a teammate's bare idle frame after the person wrote": (
        Case("team-lead", "researcher", idle("researcher"), waited=True),
        set(),
    ),
    "lead's inbox: a teammate's text": (Case("team-lead", "researcher"), {"messages", "all"}),
    "lead's inbox: a teammate's text after the person wrote to it (its answer)": (
        Case("team-lead", "researcher", waited=True),
        {"replies", "messages", "all"},
    ),
    "lead's inbox: a teammate's text, by its agent id": (
        Case("team-lead", "researcher@alpha"),
        {"messages", "all"},
    ),
    "lead's inbox: the lead's own note": (Case("team-lead", "team-lead"), set()),
    "a teammate's inbox: another teammate's text": (Case("researcher", "coder"), set()),
    "a teammate's inbox: the lead's text": (Case("researcher", "team-lead"), set()),
    "first look at an inbox: a teammate's text in the own inbox": (
        Case("user", "researcher", initial=True, known_before=False),
        set(),
    ),
    "first look at an inbox: a teammate's text to the lead": (
        Case("team-lead", "researcher", initial=True, known_before=False),
        set(),
    ),
    "a restart's catch-up (the history knew the inbox)": (
        Case("user", "researcher", initial=True, known_before=True),
        {"replies", "messages", "all"},
    ),
    "recovered, written before the sidecar started: a teammate's text in the own inbox": (
        Case("user", "researcher", recovered=True, started=WRITTEN + 1),
        set(),
    ),
    "recovered, written before the sidecar started: a teammate's answer to the lead": (
        Case("team-lead", "researcher", waited=True, recovered=True, started=WRITTEN + 1),
        set(),
    ),
    "recovered, no start time: old news": (Case("user", "researcher", recovered=True), set()),
    "recovered, written after the sidecar started (a stall): a teammate's text in the own inbox": (
        Case("user", "researcher", recovered=True, started=WRITTEN),
        {"replies", "messages", "all"},
    ),
    "recovered, written after the sidecar started: a teammate's text to the lead": (
        Case("team-lead", "researcher", recovered=True, started=WRITTEN - 60),
        {"messages", "all"},
    ),
    "recovered, written after the sidecar started: a teammate's answer to the lead": (
        Case("team-lead", "researcher", waited=True, recovered=True, started=WRITTEN - 60),
        {"replies", "messages", "all"},
    ),
    "a message the person wrote, to a teammate": (Case("researcher", "user"), set()),
    "a message the person wrote, to its own inbox": (Case("user", "user"), set()),
    "a read message in the own inbox": (Case("user", "researcher", read=True), set()),
    "a read frame in the own inbox": (
        Case("user", "researcher", idle("researcher"), read=True),
        set(),
    ),
    "PseudoClaude, the person is the lead: a teammate's text": (
        Case(LEAD_ID, CODER_ID, team="beta"),
        {"replies", "messages", "all"},
    ),
    "PseudoClaude, the person is the lead: a frame": (
        Case(LEAD_ID, CODER_ID, {"type": "shutdown_request", "reason": "done"}, team="beta"),
        {"all"},
    ),
    "PseudoClaude: the lead (the person) writes to a teammate": (
        Case(CODER_ID, "lead", team="beta"),
        set(),
    ),
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind", TABLE)
def test_each_level_by_kind_of_message(rosters: dict[str, Roster], kind: str, level: str) -> None:
    case, toasts = TABLE[kind]
    assert case.run(rosters, level) is (level in toasts)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("kind", TABLE)
def test_lead_traffic_off_leaves_only_the_answers(
    rosters: dict[str, Roster], kind: str, level: str
) -> None:
    """notifyLeadTraffic off: a teammate's text to the lead toasts only as an answer."""
    case, toasts = TABLE[kind]
    plain_lead_traffic = case.inbox == "team-lead" and case.sender != "team-lead"
    plain_lead_traffic = plain_lead_traffic and not case.waited and isinstance(case.text, str)
    expected = level in toasts and not plain_lead_traffic
    assert case.run(rosters, level, lead_traffic=False) is expected


def test_the_levels_are_cumulative(rosters: dict[str, Roster]) -> None:
    for kind, (_, toasts) in TABLE.items():
        got = [lvl for lvl in LEVELS if lvl in toasts]
        assert got == list(LEVELS[len(LEVELS) - len(got) :]), kind
    assert {lvl for _, toasts in TABLE.values() for lvl in toasts} == set(LEVELS) - {"off"}


def _change(r: Roster, inbox: str, msg: Message) -> Change:
    return Change(r.team.id, inbox, InboxDiff([msg]), 1, 1)


def _msg(r: Roster, inbox: str, sender: str, frame: dict[str, Any] | None = None) -> Message:
    return Message(
        id=f"{inbox}-{sender}",
        team=r.team.id,
        inbox=inbox,
        format="claude",
        from_=sender,
        to=inbox,
        type=str(frame["type"]) if frame else "message",
        text=json.dumps(frame) if frame else "hi",
        timestamp="2026-11-30T10:00:00.000Z",
        read=False,
        structured=frame,
    )


@pytest.mark.parametrize("level", ["replies", "messages", "all"])
def test_the_person_writing_starts_a_wait_and_the_answer_frame_ends_it(
    rosters: dict[str, Roster], level: str
) -> None:
    r = rosters["alpha"]
    opts = InitializationOptions(notify=level)  # type: ignore[arg-type]
    wrote = _msg(r, "researcher", "user")
    d = decide(opts, r, _change(r, "researcher", wrote), wrote)
    assert (d.alert, d.waiting) == (False, {("claude:alpha", "researcher")})
    text = _msg(r, "team-lead", "researcher")  # its text to the lead: an answer, the wait goes on
    d = decide(opts, r, _change(r, "team-lead", text), text, d.waiting)
    assert (d.alert, d.waiting) == (True, {("claude:alpha", "researcher")})
    answer = _msg(r, "team-lead", "researcher", idle("researcher", "test_auth.py"))
    d = decide(opts, r, _change(r, "team-lead", answer), answer, d.waiting)
    assert (d.alert, d.waiting) == (True, frozenset())  # once: the wait is over
    again = _msg(r, "team-lead", "researcher", idle("researcher", "idle again"))
    assert decide(opts, r, _change(r, "team-lead", again), again, d.waiting).alert is False


def test_off_still_follows_whom_the_person_waits_on(rosters: dict[str, Roster]) -> None:
    """A level change restarts the sidecar; within a run `off` toasts nothing at all."""
    r = rosters["alpha"]
    off = InitializationOptions(notify="off")
    wrote = _msg(r, "researcher", "user")
    d = decide(off, r, _change(r, "researcher", wrote), wrote)
    answer = _msg(r, "team-lead", "researcher", idle("researcher", "test_auth.py"))
    assert (
        d.waiting
        and decide(off, r, _change(r, "team-lead", answer), answer, d.waiting).alert is False
    )


def test_the_person_writing_to_its_own_inbox_waits_on_nobody(rosters: dict[str, Roster]) -> None:
    r = rosters["alpha"]
    note = _msg(r, "user", "user")
    d = decide(InitializationOptions(), r, _change(r, "user", note), note)
    assert (d.alert, d.waiting) == (False, frozenset())


def test_decide_reads_no_file(rosters: dict[str, Roster], tmp_path: Path) -> None:
    """A roster whose team folder is gone decides the same: the policy touches no disk."""
    r = rosters["alpha"]
    gone = attrs.evolve(r, team=attrs.evolve(r.team, path=str(tmp_path / "gone")))
    for kind, (case, toasts) in TABLE.items():
        if case.team == "alpha":
            assert case.run({"alpha": gone}, "messages") is ("messages" in toasts), kind
