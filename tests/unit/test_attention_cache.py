"""Member states and attention items kept per inbox (features/attention/): a change to an inbox
changes the answer, whether the file grew (the scan goes on where it stopped) or was
rewritten (scanned again), and the answer is always the one a fresh derivation gives."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from support.entries import claude_entry
from support.world import CLAUDE_TEAM, Teams, write_json
from teaminbox import member_state as ms
from teaminbox.formats.claude import CLAUDE
from teaminbox.history import History
from teaminbox.model import converter
from teaminbox.protocol import InitializationOptions
from teaminbox.rows import Rows, load_rows
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.features.attention import Attention
from teaminbox.server.features.attention import states as states_module
from teaminbox.server.features.attention import unread as unread_module
from teaminbox.server.features.permissions import Prompts
from teaminbox.timestamps import epoch
from teaminbox.tracker import Tracker

IDLE = "2026-02-09T17:20:00.000Z"
OLD = "2026-02-09T17:30:00.000Z"  # long past any stall time


def attention(tracker: Tracker) -> Attention:
    namespace = SimpleNamespace(tracker=tracker, options=InitializationOptions())
    server = cast(TeamInboxServer, namespace)
    return Attention(server, Prompts(server))


class World:
    def __init__(self, teams: Teams, tmp_path: Path) -> None:
        self.teams = teams
        self.tracker = Tracker(teams.settings, History(str(tmp_path / "history.db")))
        self.att = attention(self.tracker)
        self.tracker.team_hooks.append(self.att.decorate_team)  # as the core does
        self.step()

    def step(self) -> tuple[dict[str, Any], list[Any]]:
        """Scan and publish, as the server does; (states by member, attention items)."""
        changed, changes = self.tracker.scan()
        self.att.publish(changed, changes)
        team = self.tracker.find(CLAUDE_TEAM)
        got = ({m.name: m.state for m in team.members}, self.att.all_items())
        # The same answer as an Attention that never saw the inboxes before.
        hooks = self.tracker.team_hooks
        saved = list(hooks)
        fresh = attention(self.tracker)
        try:
            hooks[:] = [fresh.decorate_team]
            fresh.publish(True, [])
            again = self.tracker.find(CLAUDE_TEAM)
        finally:
            hooks[:] = saved
        assert got[0] == {m.name: m.state for m in again.members}
        assert converter.unstructure(got[1]) == converter.unstructure(fresh.all_items())
        return got

    def rows(self, inbox: str) -> Any:
        return self.tracker.inboxes[(self.tracker.resolve(CLAUDE_TEAM), inbox)].rows


def entries(path: Path) -> list[dict[str, Any]]:
    value: list[dict[str, Any]] = json.loads(path.read_bytes())
    return value


def stalled(items: list[Any]) -> list[int]:
    return [
        i.count for i in items if (i.kind, i.team, i.member) == ("stalled", "claude:alpha", "coder")
    ]


def test_a_stalled_member_follows_its_inbox(teams: Teams, tmp_path: Path) -> None:
    # coder said something (the world's lead inbox), then went idle: not working
    lead = teams.cinbox("team-lead")
    idle = {"type": "idle_notification", "from": "coder", "idleReason": "available"}
    write_json(lead, [*entries(lead), claude_entry("coder", json.dumps(idle), IDLE, read=True)])
    w = World(teams, tmp_path)
    inbox = teams.cinbox("coder")
    write_json(inbox, [claude_entry("team-lead", "first", OLD, read=False, msg_id="c-1")])
    states, items = w.step()
    assert (
        states["coder"].kind == "stalled" and states["coder"].detail == "1 message waiting unread"
    )
    assert stalled(items) == [1]

    # Pure appends: the scan goes on from where it stopped, and sees them.
    for n, mid in ((2, "c-2"), (3, "c-3")):
        before = w.rows("coder").prefix()
        write_json(inbox, [*entries(inbox), claude_entry("team-lead", mid, OLD, msg_id=mid)])
        states, items = w.step()
        assert w.rows("coder").extends(before)
        assert states["coder"].kind == "stalled"
        assert states["coder"].detail == f"{n} messages waiting unread"
        assert stalled(items) == [n]

    # Taken in (read: true): no longer stalled.
    write_json(inbox, [{**e, "read": True} for e in entries(inbox)])
    states, items = w.step()
    assert states["coder"].kind != "stalled"
    assert stalled(items) == []


def test_an_unanswered_message_follows_the_persons_inbox(teams: Teams, tmp_path: Path) -> None:
    w = World(teams, tmp_path)
    inbox = teams.cinbox("user")
    ts = ("2026-02-09T18:00:00.000Z", "2026-02-09T18:01:00.000Z")
    write_json(inbox, [claude_entry("researcher", "a question", ts[0], read=False, msg_id="u-1")])
    _, items = w.step()
    assert [(i.kind, i.member, i.count) for i in items if i.kind == "unanswered"] == [
        ("unanswered", "researcher", 1)
    ]

    before = w.rows("user").prefix()
    write_json(inbox, [*entries(inbox), claude_entry("researcher", "and another", ts[1])])
    _, items = w.step()
    assert w.rows("user").extends(before)
    assert [i.count for i in items if i.kind == "unanswered"] == [2]

    # Read in the person's own file: nothing waits any more.
    write_json(inbox, [{**e, "read": True} for e in entries(inbox)])
    _, items = w.step()
    assert not [i for i in items if i.kind == "unanswered"]


def test_read_flags_scan_only_what_they_must(
    teams: Teams, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = World(teams, tmp_path)
    starts: list[int] = []
    real = unread_module.flags_of

    def spy(rows: Rows, ids: set[str], start: int) -> dict[str, int]:
        starts.append(start)
        return real(rows, ids, start)

    monkeypatch.setattr(unread_module, "flags_of", spy)

    def load(n: int, grown: Rows | None = None) -> Rows:
        data = json.dumps(
            [claude_entry("a", f"m{i}", OLD, read=i % 2 == 1, msg_id=f"m{i}") for i in range(n)],
            indent=2,
        ).encode()
        return load_rows(CLAUDE, "x.json", data, "t", "x", lambda m, t: None, grown)

    def flags(rows: Rows, wanted: set[str]) -> dict[str, int]:
        got = w.att.scans.read_flags(("t", "x"), rows, wanted)
        return {k: v for k, v in got.items() if k in wanted}  # it may hold more

    one = load(3)
    assert flags(one, {"m1", "m9"}) == {"m1": 1}
    assert starts == [0]
    assert flags(one, {"m1"}) == {"m1": 1} and starts == [0]  # kept
    # the same rows, an id more wanted: it may be anywhere, so a full scan
    assert flags(one, {"m0", "m1"}) == {"m0": 0, "m1": 1}
    assert starts == [0, 3, 0]
    # grown: the new id is among the new entries, only they are scanned
    two = load(5, one)
    assert two.extends(one.prefix())
    starts.clear()
    assert flags(two, {"m1", "m4"}) == {"m1": 1, "m4": 0}
    assert starts == [3]
    # grown again, and an old id wanted that was never looked for: a full scan
    three = load(6, two)
    starts.clear()
    assert flags(three, {"m2", "m5"}) == {"m2": 0, "m5": 1}
    assert starts == [5, 0]


def test_a_state_kept_while_no_time_it_depends_on_passes(
    teams: Teams, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lead = teams.cinbox("team-lead")
    idle = {"type": "idle_notification", "from": "coder", "idleReason": "available"}
    write_json(lead, [*entries(lead), claude_entry("coder", json.dumps(idle), IDLE, read=True)])
    write_json(teams.cinbox("coder"), [claude_entry("team-lead", "new work", OLD, msg_id="c-1")])
    sent = epoch(OLD)
    assert sent is not None
    clock = [sent + 1.0]
    monkeypatch.setattr(states_module.time, "time", lambda: clock[0])
    w = World(teams, tmp_path)
    stall = w.att.stall_seconds
    view = w.att.view("claude:alpha")
    # young and unread: taken in soon, so coder works on it
    assert w.step()[0]["coder"].kind == "working"
    kept = view.derived
    assert kept is not None
    clock[0] = sent + stall - 1.0  # nothing crossed: the answer is kept, not derived again
    assert w.step()[0]["coder"].kind == "working"
    assert view.derived is kept
    clock[0] = sent + stall + 1.0  # the message is now past the stall time, still unread
    states, items = w.step()
    assert states["coder"].kind == "stalled" and stalled(items) == [1]
    assert view.derived is not kept
    clock[0] = sent + stall - 10.0  # the clock went back: derived again, as fresh
    assert w.step()[0]["coder"].kind == "working"


def test_steady_until() -> None:
    times = [100.0, 200.0, 300.0]
    assert ms.steady_until(times, 150.0, 10.0) == pytest.approx(210.0 - ms.MARGIN)
    assert ms.steady_until(times, 400.0, 10.0) == math.inf
    assert ms.steady_until([], 400.0, 10.0) == math.inf
    assert ms.steady_until(times, 210.0, 10.0) is None  # right at one: no telling
    assert ms.steady_until(times, 50.0, 10.0) == pytest.approx(110.0 - ms.MARGIN)


def test_the_oldest_unread_follows_the_inbox(teams: Teams, tmp_path: Path) -> None:
    lead = teams.cinbox("team-lead")
    idle = {"type": "idle_notification", "from": "coder", "idleReason": "available"}
    write_json(lead, [*entries(lead), claude_entry("coder", json.dumps(idle), IDLE, read=True)])
    early = "2026-02-09T17:10:00.000Z"  # before the idle notification
    inbox = teams.cinbox("coder")
    write_json(
        inbox,
        [
            claude_entry("team-lead", "early", early, read=False, msg_id="c-0"),
            claude_entry("team-lead", "late", OLD, read=False, msg_id="c-1"),
        ],
    )
    w = World(teams, tmp_path)
    states, _ = w.step()
    assert (states["coder"].kind, states["coder"].since) == ("stalled", epoch(early))
    # the early one taken in (before its idle note: still idle), the late one waits
    write_json(inbox, [{**entries(inbox)[0], "read": True}, entries(inbox)[1]])
    states, items = w.step()
    assert (states["coder"].kind, states["coder"].since) == ("stalled", epoch(OLD))
    assert stalled(items) == [1]
