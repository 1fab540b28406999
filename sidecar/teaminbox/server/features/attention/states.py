"""Each member's state (member_state.py) derived from its team's recent messages and its
inbox as the tracker holds it; the last answer kept while no time it depends on passes."""

from __future__ import annotations

import time

import attrs

from .... import member_state as ms
from ....model import MemberState, Team
from ....tracker import Tracker
from .unread import InboxScans
from .views import TeamView, owner_of


def ended(team: Team) -> None:
    """An ended team's members: gone (but the person's own), and no orphan."""
    team.orphan = False
    team.members = [
        attrs.evolve(m, state=MemberState("gone", None, "the team ended"))
        if not (m.owned and not m.lead)
        else m
        for m in team.members
    ]


def derive(
    tracker: Tracker,
    scans: InboxScans,
    v: TeamView,
    evs: list[ms.Event],
    team: Team,
    stall: float,
) -> tuple[dict[str, MemberState], list[ms.Request]]:
    """(each member's state by inbox, the requests nobody answered) for a live team."""
    inbox_owner = owner_of(team)
    names = tuple((m.inbox, m.name) for m in team.members)
    if v.pending is None or v.pending[0] is not evs or v.pending[1] != names:
        v.pending = (evs, names, ms.pending(evs, inbox_owner))
    requests = v.pending[2]
    if v.index is None or v.index.evs is not evs:
        v.index = ms.Index(evs)
    now = time.time()
    facts: list[ms.Facts] = []
    for m in team.members:
        if m.phantom or (m.owned and not m.lead):
            continue  # nobody's (phantom), or the person's own (Claude's user.json)
        undelivered, oldest = scans.undelivered(tracker, team.id, m.inbox, m.consumed)
        facts.append(
            ms.Facts(
                name=m.name,
                inbox=m.inbox,
                lead=m.lead,
                left=m.left,
                is_active=m.is_active,
                lead_alive=team.lead_alive,
                activity=m.activity,
                undelivered=undelivered,
                oldest_undelivered=oldest,
                idles=not m.lead,
            )
        )
    key = (requests, tuple(facts), stall)
    memo = v.derived
    if memo is not None and memo[0] is evs and memo[1] == key and memo[2] <= now < memo[3]:
        states = dict(memo[4])  # the same facts, and no time they depend on has passed
    else:
        states = {f.inbox: ms.derive(f, evs, requests, now, stall, v.index) for f in facts}
        olds = sorted(f.oldest_undelivered for f in facts if f.oldest_undelivered is not None)
        until = [ms.steady_until(t, now, stall) for t in (v.index.times, olds)]
        v.derived = None
        if None not in until:
            v.derived = (evs, key, now, min(u for u in until if u is not None), states)
    v.states = states
    return states, requests
