"""The attention feature: its hooks (the team hook sets member states, publish pushes
them and the items), its requests, and what it keeps between steps."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import attrs

from .... import member_state as ms
from ....discovery import Roster
from ....model import MemberState, Team, converter
from ....protocol import (
    AnswerPlanParams,
    AnswerPlanResult,
    AttentionItem,
    AttentionResult,
    DismissParams,
    DismissResult,
    Empty,
    MemberStateItem,
    MemberStateParams,
)
from ....tracker import Change
from ...feature import Feature, Outgoing
from ..activity import Transcripts
from ..permissions import HOOK_KEY, Permissions, Prompts
from . import plans, rules, states
from .dismissals import Dismissals, dismissed_path
from .unread import InboxScans
from .views import RECENT, TeamView, same

if TYPE_CHECKING:  # the engine and features load without pygls
    from ...core import TeamInboxServer

FULL_EVERY = 1.0  # seconds: every team re-derived at least this often (time moves on)


class Attention(Feature):
    """Member states (its team hook), what needs the person, and answering a plan."""

    server: TeamInboxServer

    name = "attention"
    # notify: a step's didChange leaves first, its messages named; activity: its team hook
    # fills in the members' activity the states are derived from; permissions: its prompts
    depends = ("notify", "activity", "permissions")

    def __init__(self, server: TeamInboxServer, prompts: Prompts | None = None) -> None:
        super().__init__(server)
        self._prompts = prompts
        self._activity: Transcripts | None = None
        self.views: dict[str, TeamView] = {}
        self.sent_states: dict[str, dict[str, MemberState]] = {}
        self.sent_items: list[Any] | None = None
        self.last_full = 0.0
        self.hooked = False  # decorate_team derives once publish ran (it keeps the views)
        self.scans = InboxScans()
        self.dismissals = Dismissals(lambda: dismissed_path(self.tracker.history.path))

    @property
    def prompts(self) -> Prompts:
        """The permission prompts (the permissions feature's, unless given)."""
        if self._prompts is None:
            self._prompts = self.server.get_feature(Permissions).prompts
        return self._prompts

    @property
    def activity(self) -> Transcripts | None:
        """The activity feature (its files changed), where the server runs it."""
        if self._activity is None:
            try:
                self._activity = self.server.get_feature(Transcripts)
            except (LookupError, AttributeError):  # without it, or a host with no features
                return None
        return self._activity

    @property
    def stall_seconds(self) -> float:
        return max(0.0, self.server.options.stall_minutes * 60)

    # --- the team's messages ------------------------------------------------------------

    def view(self, tid: str) -> TeamView:
        v = self.views.get(tid)
        if v is None:
            v = self.views[tid] = TeamView(self.tracker.history.team_messages(tid, 0, RECENT))
        return v

    def events(self, tid: str, r: Roster | None) -> list[ms.Event]:
        v = self.view(tid)
        if v.evs is None:
            v.evs = ms.events(v.msgs, r.name_of if r else same)
        return v.evs

    # --- states (the tracker's team hook) ----------------------------------------------

    def decorate_team(self, team: Team) -> None:
        """Set each member's state on a Team a query built (copies: the roster keeps its own)."""
        if not self.hooked:
            return
        if team.ended:
            states.ended(team)
            return
        found = self.derive(team)
        team.members = [
            attrs.evolve(m, state=found[m.inbox]) if m.inbox in found else m for m in team.members
        ]

    def derive(self, team: Team) -> dict[str, MemberState]:
        """A live team's states, and its items (kept on its view for `all_items`)."""
        tracker = self.tracker
        r = tracker.rosters.get(team.id)
        evs = self.events(team.id, r)
        v = self.view(team.id)
        found, requests = states.derive(tracker, self.scans, v, evs, team, self.stall_seconds)
        changes = self.activity.live_changes(team.id) if self.activity is not None else []
        v.items = rules.items(
            tracker, self.scans, self.prompts, team, r, v, evs, requests, found, changes
        )
        return found

    # --- what needs the person -----------------------------------------------------------

    def all_items(self) -> list[AttentionItem]:
        gone = self.dismissed()
        out = [i for tid in self.tracker.rosters for i in self.view(tid).items]
        out += self.prompts.hook_items()  # live: they come and go between derivations
        out = [i for i in out if i.key not in gone]
        out.sort(key=lambda i: (i.info, i.since or 0.0, i.team, i.member))
        return out

    def result(self) -> AttentionResult:
        items = self.all_items()
        return AttentionResult(items, sum(1 for i in items if not i.info))

    def dismissed(self) -> dict[str, float]:
        return self.dismissals.keys()

    def dismiss(self, key: str) -> bool:
        """Hide an item for good (a hook's prompt: see the handler)."""
        return self.dismissals.dismiss(key)

    # --- pushing -------------------------------------------------------------------------

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        tracker = self.tracker
        self.hooked = True
        for tid in list(self.views):
            if tid not in tracker.rosters:
                del self.views[tid]
                self.sent_states.pop(tid, None)
        self.scans.forget(tracker.inboxes)
        dirty: set[str] = set()
        for c in changes:
            if c.team in self.views and c.diff.added:
                self.views[c.team].add(list(c.diff.added))
            dirty.add(c.team)
        now = time.monotonic()
        if teams_changed or now - self.last_full >= FULL_EVERY or self.sent_items is None:
            dirty |= set(tracker.rosters)
            self.last_full = now
        out: Outgoing = []
        for tid in sorted(dirty):
            if tid not in tracker.rosters:
                continue
            team = tracker.find(tid)  # runs the hooks: states and items derived
            states = {m.inbox: m.state for m in team.members if m.state is not None}
            if states != self.sent_states.get(tid):
                self.sent_states[tid] = states
                members = [
                    MemberStateItem(m.name, m.inbox, m.state)
                    for m in team.members
                    if m.state is not None
                ]
                out.append(("teamInbox/memberState", MemberStateParams(tid, members)))
        self.prompts.forget(set(tracker.rosters))
        res = self.result()
        body = [converter.unstructure(i) for i in res.items]
        if body != self.sent_items:
            self.sent_items = body
            out.append(("teamInbox/attentionChanged", res))
        return out

    # --- the hooks and requests -------------------------------------------------------

    def register(self) -> None:
        self.request("teamInbox/attention", self.attention)
        self.request("teamInbox/dismissAttention", self.dismiss_attention)
        self.request("teamInbox/answerPlan", self.answer_plan)

    def started(self) -> None:
        self.prompts.on_change.append(self.pushed)

    def pushed(self) -> None:
        """The event loop: a hook's prompt came or went, or an item was dismissed."""
        server = self.server

        async def go() -> None:
            out = await server.in_state(lambda: self.publish(False, []))
            for method, params in out:
                server.notify(method, params)

        server.spawn(go())

    async def attention(self, p: Empty) -> AttentionResult:
        def run() -> AttentionResult:
            tracker = self.tracker
            for tid in tracker.rosters:
                tracker.find(tid)  # derives afresh
            return self.result()

        return await self.server.in_state(run)

    async def dismiss_attention(self, p: DismissParams) -> DismissResult:
        if p.key.startswith(HOOK_KEY):  # back to the terminal's own prompt
            return DismissResult(self.prompts.release(p.key[len(HOOK_KEY) :]))
        done = await self.server.in_state(lambda: self.dismiss(p.key))
        self.pushed()
        return DismissResult(done)

    async def answer_plan(self, p: AnswerPlanParams) -> AnswerPlanResult:
        tracker = self.tracker
        return await plans.answer_plan(
            self.server, p, lambda: plans.plan_target(tracker, self.events, p)
        )
