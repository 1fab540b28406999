"""Member states, what needs the person, and answering a plan.

Each member's state (member_state.py) is derived from its team's recent messages (the
history's, then every change's new ones) and its inbox as the tracker holds it, and set
on the members of every Team a query gives (`Member.state`; `Team.orphan` for an ended
team is false). `teamInbox/memberState` carries a team's states when any changed;
`teamInbox/attention` lists what waits on the person and `teamInbox/attentionChanged`
pushes it when it changes:

- plan / permission: a request nobody answered (from a member that is not gone);
- stalled: a member whose inbox holds messages unread past the stall time;
- unanswered: text messages in the person's own inbox that the person has neither
  answered (written to their sender since) nor read or marked seen, one item a sender.

`teamInbox/answerPlan`: PseudoClaude lets the person answer as the lead (a
`plan_approval_response` to the member); Claude Code refuses that frame from anyone but
its lead, so there it is a message to the lead quoting the request (effect `asked_lead`).
Time-based states (stalled, a quiet lead) are re-derived at least once a second, on the
server's tick (every 2 s; every 15 s once the server has been left alone 30 s, core.py).
"""

from __future__ import annotations

import contextlib
import os
import time
import weakref
from collections.abc import Callable
from typing import Any

import attrs
import orjson

from ... import member_state as ms
from ... import sending
from ...discovery import Roster
from ...errors import InvalidParams, TeamEnded, TeamInboxError
from ...model import MemberState, Message, Team, converter
from ...protocol import (
    AnswerPlanParams,
    AnswerPlanResult,
    AttentionItem,
    AttentionResult,
    DismissParams,
    DismissResult,
    Empty,
    MemberStateItem,
    MemberStateParams,
    PlanEffect,
)
from ...rows import Prefix, Rows
from ...timestamps import epoch
from ...tracker import Change
from ..core import Outgoing, TeamInboxServer
from ..feature import Feature
from . import permissions

RECENT = 400  # messages of a team the states are derived from
FULL_EVERY = 1.0  # seconds: every team re-derived at least this often (time moves on)
UNREAD_SCAN = 1000  # undelivered entries looked at in one inbox
DISMISSED_FILE = "attention-dismissed.json"  # beside the history database
MAX_DISMISSED = 5000


Ref = weakref.ref[Rows]
Names = tuple[tuple[str, str], ...]


class UnknownRequest(TeamInboxError):
    code = "unknown_request"


def _key(e: ms.Event) -> tuple[str, str]:
    return e.msg.inbox, e.msg.id


class TeamView:
    """One team's recent messages as events, and what was derived from them last."""

    def __init__(self, msgs: list[Message]) -> None:
        self.msgs = msgs
        self.evs: list[ms.Event] | None = None
        self.states: dict[str, MemberState] = {}
        self.items: list[AttentionItem] = []
        # What the last derivation found that the time cannot change, with what it came
        # from (`evs` first: a new list whenever messages come): reused while all match.
        self.pending: tuple[list[ms.Event], Names, list[ms.Request]] | None = None
        self.index: ms.Index | None = None
        # (evs, inputs, derived at, valid until, states): derive's last answer
        self.derived: tuple[list[ms.Event], Any, float, float, dict[str, MemberState]] | None = None
        self.wanted: tuple[list[ms.Event], str, set[str]] | None = None
        self.unanswered: tuple[list[ms.Event], dict[str, int], set[str], Any, list[Any]] | None = (
            None
        )

    def add(self, msgs: list[Message]) -> None:
        self.msgs.extend(msgs)
        if len(self.msgs) > 2 * RECENT:
            self.msgs.sort(key=lambda m: epoch(m.timestamp) or 0.0)
            del self.msgs[:-RECENT]
        self.evs = None


class Attention(Feature):
    """Member states (its team hook), what needs the person, and answering a plan."""

    name = "attention"
    # notify: a step's didChange leaves first, its messages named; activity: its team hook
    # fills in the members' activity the states are derived from; permissions: its prompts
    depends = ("notify", "activity", "permissions")

    def __init__(self, server: TeamInboxServer, prompts: permissions.Prompts | None = None) -> None:
        super().__init__(server)
        self._prompts = prompts
        self.views: dict[str, TeamView] = {}
        self.sent_states: dict[str, dict[str, MemberState]] = {}
        self.sent_items: list[Any] | None = None
        self.last_full = 0.0
        self._dismissed: dict[str, float] | None = None
        # Per inbox, what a scan of its rows found, and which rows (replaced, never changed
        # in place, on every load; held weakly: not their bytes) as of which prefix.
        self._unread: dict[tuple[str, str], tuple[Ref, Prefix, list[str], frozenset[str]]] = {}
        self._flags: dict[tuple[str, str], tuple[Ref, Prefix, set[str], dict[str, int]]] = {}
        self._oldest: dict[tuple[str, str], tuple[Ref, int, float | None]] = {}

    @property
    def prompts(self) -> permissions.Prompts:
        """The permission prompts (the permissions feature's, unless given)."""
        if self._prompts is None:
            self._prompts = self.server.get_feature(permissions.Permissions).prompts
        return self._prompts

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
            v.evs = ms.events(v.msgs, r.name_of if r else _same)
        return v.evs

    # --- states (the tracker's team hook) ----------------------------------------------

    def decorate_team(self, team: Team) -> None:
        """Set each member's state on a Team a query built (copies: the roster keeps its own)."""
        if team.ended:
            team.orphan = False
            team.members = [
                attrs.evolve(m, state=MemberState("gone", None, "the team ended"))
                if not (m.owned and not m.lead)
                else m
                for m in team.members
            ]
            return
        states = self.derive(team)
        team.members = [
            attrs.evolve(m, state=states[m.inbox]) if m.inbox in states else m for m in team.members
        ]

    def derive(self, team: Team) -> dict[str, MemberState]:
        tracker = self.tracker
        r = tracker.rosters.get(team.id)
        evs = self.events(team.id, r)
        v = self.view(team.id)
        inbox_owner = _owner(team)
        names = tuple((m.inbox, m.name) for m in team.members)
        if v.pending is None or v.pending[0] is not evs or v.pending[1] != names:
            v.pending = (evs, names, ms.pending(evs, inbox_owner))
        requests = v.pending[2]
        if v.index is None or v.index.evs is not evs:
            v.index = ms.Index(evs)
        now = time.time()
        stall = self.stall_seconds
        facts: list[ms.Facts] = []
        for m in team.members:
            if m.phantom or (m.owned and not m.lead):
                continue  # nobody's (phantom), or the person's own (Claude's user.json)
            undelivered, oldest = self._undelivered(team.id, m.inbox, m.consumed)
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
        v.items = self._items(team, r, v, evs, requests, states)
        return states

    def _undelivered(
        self, tid: str, inbox: str, consumed: bool
    ) -> tuple[frozenset[str], float | None]:
        """Entries still unread in an inbox an agent consumes, and the oldest one's time."""
        state = self.tracker.inboxes.get((tid, inbox))
        if state is None or not consumed or not state.rows.unread:
            return frozenset(), None
        rows = state.rows
        first = rows.read.find(0)
        ids = self._first_unread((tid, inbox), rows)
        hit = self._oldest.get((tid, inbox))
        if hit is not None and hit[0]() is rows and hit[1] == first:
            return ids, hit[2]
        try:
            oldest = epoch(rows.message(state.fmt, first, tid, inbox).timestamp)
        except Exception:  # an entry that no longer parses: no age to tell
            oldest = None
        self._oldest[(tid, inbox)] = (weakref.ref(rows), first, oldest)
        return ids, oldest

    def _first_unread(self, key: tuple[str, str], rows: Rows) -> frozenset[str]:
        """The first UNREAD_SCAN unread ids; kept per inbox, as its rows only grow
        (a pure append) the scan goes on from where it stopped, not from the start."""
        hit = self._unread.get(key)
        if hit is not None and hit[0]() is rows:
            return hit[3]
        ids: list[str] = []
        start = 0
        if hit is not None and rows.extends(hit[1]):
            ids, start = list(hit[2]), hit[1].count
        if len(ids) < UNREAD_SCAN:
            flags = memoryview(rows.read)[start:]
            for rid, read in zip(rows.iter_ids(start), flags, strict=True):
                if not read:
                    ids.append(rid)
                    if len(ids) >= UNREAD_SCAN:
                        break
        frozen = frozenset(ids)
        self._unread[key] = (weakref.ref(rows), rows.prefix(), ids, frozen)
        return frozen

    def _read_flags(self, key: tuple[str, str], rows: Rows, wanted: set[str]) -> dict[str, int]:
        """The read flag of each `wanted` id the rows hold (the last, if one is there twice).

        Kept per inbox like _first_unread: after a pure append only the new entries are
        scanned; an id newly wanted must turn up among them (a new message does), else
        it might be further up and the whole inbox is scanned again.
        """
        hit = self._flags.get(key)
        if hit is not None and len(hit[2]) <= 4 * RECENT:
            ref, prefix, checked, found = hit
            same = ref() is rows
            if same and wanted <= checked:
                return found
            if same or rows.extends(prefix):
                look = checked | wanted
                tail = _flags_of(rows, look, prefix.count)
                if (wanted - checked) <= tail.keys():
                    found = {**found, **tail}
                    self._flags[key] = (weakref.ref(rows), rows.prefix(), look, found)
                    return found
        found = _flags_of(rows, wanted, 0)
        self._flags[key] = (weakref.ref(rows), rows.prefix(), set(wanted), found)
        return found

    # --- what needs the person -----------------------------------------------------------

    def _items(
        self,
        team: Team,
        r: Roster | None,
        v: TeamView,
        evs: list[ms.Event],
        requests: list[ms.Request],
        states: dict[str, MemberState],
    ) -> list[AttentionItem]:
        if team.ended or team.lead_alive is False or team.orphan:
            return []  # nobody is there to act on anything
        by_name = {m.name: m for m in team.members}
        items: list[AttentionItem] = []
        for q in requests:
            m = by_name.get(q.member)
            st = states.get(m.inbox) if m else None
            if st is not None and st.kind == "gone":
                continue
            items.append(request_item(team, q, m.inbox if m else None))
        for m in team.members:
            st = states.get(m.inbox)
            if st is not None and st.kind == "stalled":
                undelivered, _ = self._undelivered(team.id, m.inbox, m.consumed)
                items.append(
                    AttentionItem(
                        kind="stalled",
                        team=team.id,
                        member=m.name,
                        inbox=m.inbox,
                        since=st.since,
                        summary=f"{m.name}: {st.detail}",
                        count=len(undelivered),
                        action="openInbox",
                        key=f"stalled:{team.id}:{m.inbox}:{st.since}",
                    )
                )
        if r is not None:
            items += self._unanswered(team, r, v, evs)
            items += answers_after(team, r, evs, self.tracker.history.seen_ids)
            if team.format == "claude":
                inbox_of = {m.name: m.inbox for m in team.members}
                items += self.prompts.terminal_items(r, inbox_of)
        return items

    def _unanswered(
        self, team: Team, r: Roster, v: TeamView, evs: list[ms.Event]
    ) -> list[AttentionItem]:
        own = r.own_inbox
        state = self.tracker.inboxes.get((team.id, own or ""))
        if own is None or state is None or not len(state.rows):
            return []
        member = r.member(own)
        consumed = member is not None and member.consumed
        if v.wanted is None or v.wanted[0] is not evs or v.wanted[1] != own:
            v.wanted = (evs, own, {e.msg.id for e in evs if e.inbox == own})
        live = self._read_flags((team.id, own), state.rows, v.wanted[2])
        seen = self.tracker.history.seen_ids(team.id, own)
        me = r.identity
        # Nothing here depends on the time: the same inputs give the same items.
        key = (
            own,
            consumed,
            me,
            tuple((m.inbox, m.name) for m in team.members),
            tuple((m.name, m.inbox) for m in r.members),
        )
        memo = v.unanswered
        if memo is not None and memo[0] is evs and memo[1] is live and memo[2:4] == (seen, key):
            return list(memo[4])
        items = self._waiting(team, r, evs, own, consumed, live, seen)
        v.unanswered = (evs, live, seen, key, items)
        return list(items)

    def _waiting(
        self,
        team: Team,
        r: Roster,
        evs: list[ms.Event],
        own: str,
        consumed: bool,
        live: dict[str, int],
        seen: set[str],
    ) -> list[AttentionItem]:
        inbox_owner = _owner(team)
        me = r.identity
        last_answer: dict[str, float] = {}
        for e in evs:
            if e.sender == me and e.inbox != own:
                to = inbox_owner(e.inbox)
                last_answer[to] = max(last_answer.get(to, 0.0), e.ts)
        waiting: dict[str, list[ms.Event]] = {}
        for e in evs:
            if e.inbox != own or e.msg.structured is not None or e.sender in (me, "user"):
                continue
            if e.msg.id not in live or e.msg.id in seen:
                continue
            if live[e.msg.id] and not consumed:
                continue  # read in the person's own file
            if last_answer.get(e.sender, 0.0) >= e.ts:
                continue
            waiting.setdefault(e.sender, []).append(e)
        items = []
        for sender, got in waiting.items():
            last = got[-1]
            said = last.msg.summary or last.msg.text.strip().split("\n", 1)[0]
            if len(said) > 120:
                said = said[:119] + "\u2026"
            sm = next((x for x in r.members if x.name == sender), None)
            items.append(
                AttentionItem(
                    kind="unanswered",
                    team=team.id,
                    member=sender,
                    inbox=sm.inbox if sm else None,
                    since=got[0].ts,
                    summary=f"{sender}: {said}",
                    message_id=last.msg.id,
                    count=len(got),
                    action="reply",
                    key=f"unanswered:{team.id}:{sender}:{last.msg.id}",
                )
            )
        return items

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

    # --- dismissed items (a small file beside the history) ----------------------------

    def _dismissed_path(self) -> str:
        return os.path.join(
            os.path.dirname(os.path.abspath(self.tracker.history.path)), DISMISSED_FILE
        )

    def dismissed(self) -> dict[str, float]:
        if self._dismissed is None:
            self._dismissed = load_dismissed(self._dismissed_path())
        return self._dismissed

    def dismiss(self, key: str) -> bool:
        """Hide an item for good (a hook's prompt: see the handler)."""
        have = self.dismissed()
        if key in have:
            return False
        # another window may have dismissed others since: merge with the file
        merged = {**load_dismissed(self._dismissed_path()), **have, key: time.time()}
        newest = sorted(merged.items(), key=lambda kv: kv[1])[-MAX_DISMISSED:]
        self._dismissed = dict(newest)
        save_dismissed(self._dismissed_path(), self._dismissed)
        return True

    # --- pushing -------------------------------------------------------------------------

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        tracker = self.tracker
        for tid in list(self.views):
            if tid not in tracker.rosters:
                del self.views[tid]
                self.sent_states.pop(tid, None)
        for cache in (self._unread, self._flags, self._oldest):
            for key in [k for k in cache if k not in tracker.inboxes]:
                del cache[key]
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

    # --- answering a plan ----------------------------------------------------------------

    def plan_target(self, p: AnswerPlanParams) -> tuple[Roster, str, str | None, str, str | None]:
        """(roster, member, request id, format, who answered it already) for an answer, from
        the request or the member. An answered request is answered again when asked (the
        peer decides what a second answer does: Claude Code's teammates drop it)."""
        tracker = self.tracker
        t = tracker.find(p.team)
        if t.ended:
            raise TeamEnded(f"team {t.id} has ended: nobody is there to answer")
        r = tracker.roster(t.id)
        if p.request_id is None and not p.member:
            raise InvalidParams("give requestId (the plan_approval_request's) or member")
        evs = self.events(t.id, r)
        asked = [e for e in evs if e.type == "plan_approval_request"]
        member = p.member
        if p.request_id is not None:
            hits = [e for e in asked if e.request_id == p.request_id]
            if hits:
                member = member or hits[-1].sender
            elif member is None:
                raise UnknownRequest(
                    f"team {t.id} has no plan approval request {p.request_id!r}"
                    " (give member to answer it anyway)"
                )
        assert member is not None
        m = r.resolve_inbox(member)
        rid = p.request_id
        if rid is None:  # the member's latest unanswered one, if any
            open_ = ms.pending(evs, _owner(t))
            mine = [q for q in open_ if q.kind == "plan" and q.member == m.name]
            rid = mine[-1].request_id if mine else None
        answers = [
            e for e in evs if e.type == "plan_approval_response" and rid and e.request_id == rid
        ]
        done = None
        if answers:
            verdict = answers[-1].fields.get("approved", answers[-1].fields.get("approve"))
            said = "approved" if verdict is True else "rejected" if verdict is False else "answered"
            done = f"{answers[-1].sender} {said} this request already"
        return r, m.name, rid, t.format, done

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
        if p.key.startswith(permissions.HOOK_KEY):  # back to the terminal's own prompt
            return DismissResult(self.prompts.release(p.key[len(permissions.HOOK_KEY) :]))
        done = await self.server.in_state(lambda: self.dismiss(p.key))
        self.pushed()
        return DismissResult(done)

    async def answer_plan(self, p: AnswerPlanParams) -> AnswerPlanResult:
        ls = self.server
        r, member, rid, fmt, done = await ls.in_state(lambda: self.plan_target(p))
        effect: PlanEffect
        if fmt == "claude":
            if r.lead is None:
                raise InvalidParams(f"team {r.team.id} has no lead to ask")
            to, effect = r.lead, "asked_lead"
            text = ask_lead_text(member, rid, p.approved, p.feedback)
            verdict = "approve" if p.approved else "reject"

            def write() -> Any:
                return sending.send(r, to, text, summary=f"please {verdict} the plan of {member}")

            note = "Claude Code takes a plan approval only from its lead: the lead was asked"
        elif fmt == "pseudoclaude":
            to, effect = member, "answered"
            payload: dict[str, Any] = {"approved": p.approved}
            if p.feedback:
                payload["feedback"] = p.feedback
            if rid:
                payload["request_id"] = rid
            text = "Plan approved" if p.approved else "Plan rejected"
            text += f": {p.feedback}" if p.feedback else ""

            def write() -> Any:
                return sending.send(r, to, "", type="plan_approval_response", payload=payload)

            note = None
        else:
            raise InvalidParams(f"{fmt} teams have no plan approvals")
        if done:
            note = f"{done}; {note}" if note else done
        results = await ls.in_pool(write)  # may wait on a peer's lock
        res = results[0]
        await ls.refresh({r.team.inbox_path(res.inbox)} if res.inbox else set())
        return AnswerPlanResult(
            effect=effect,
            team=r.team.id,
            member=member,
            to=res.recipient,
            request_id=rid,
            message_id=res.message_id,
            text=text,
            note=note,
        )


def _flags_of(rows: Rows, ids: set[str], start: int) -> dict[str, int]:
    """The read flags of those of `ids` at entry `start` and after (the last one wins)."""
    flags = memoryview(rows.read)[start:]
    return {rid: read for rid, read in zip(rows.iter_ids(start), flags, strict=True) if rid in ids}


def _by_name(r: Roster, name: str) -> Any:
    return next((m for m in r.members if m.name == name), None)


def _same(name: str) -> str:
    return name


def _owner(team: Team) -> Callable[[str], str]:
    """An inbox stem -> its member's name."""
    names = {m.inbox: m.name for m in team.members}

    def owner(inbox: str) -> str:
        return names.get(inbox, inbox)

    return owner


def ask_lead_text(member: str, rid: str | None, approved: bool, feedback: str | None) -> str:
    """The message to a Claude Code lead: only the lead may answer a plan approval."""
    verb = "APPROVE" if approved else "REJECT"
    which = f" (plan approval request {rid})" if rid else ""
    frame: dict[str, Any] = {
        "type": "plan_approval_response",
        "request_id": rid or "<the request's id>",
        "approve": approved,
    }
    if feedback or not approved:
        frame["feedback"] = feedback or "Plan needs revision"
    lines = [
        f"Please {verb} the plan of {member}{which}.",
        f"Only you, the team lead, can answer it: send {member} the message"
        f" {orjson.dumps(frame).decode()}",
    ]
    if feedback:
        lines.append(f"Feedback for {member}: {feedback}")
    return "\n".join(lines)


def request_item(team: Team, q: ms.Request, inbox: str | None) -> AttentionItem:
    """A plan or permission request frame as an item. A Claude Code teammate's plan is
    approved by its lead within a second: information only. A pane teammate's
    permission_request is answered in the lead's terminal (never by a frame from here)."""
    claude = team.format == "claude"
    if q.kind == "plan":
        summary = f"{q.member} asks for approval of its plan"
        if claude:
            summary = f"{q.member} sent its plan to the lead"
        action: Any = None if claude else "answerPlan"
    else:
        summary = f"{q.member} asks {q.words()}"
        action = "showTerminal" if claude else "openInbox"
    return AttentionItem(
        kind=q.kind,
        team=team.id,
        member=q.member,
        inbox=inbox,
        since=q.since,
        summary=summary,
        request_id=q.request_id,
        tool_name=q.tool_name,
        detail=q.description,
        action=action,
        info=claude and q.kind == "plan",
        key=f"{q.kind}:{team.id}:{q.member}:{q.request_id or q.since}",
    )


ANSWER_CHARS = 120


def answers_after(
    team: Team, r: Roster, evs: list[ms.Event], seen_ids: Callable[[str, str], set[str]]
) -> list[AttentionItem]:
    """A teammate's answer after the person wrote to it: its next text message to the lead,
    or (Claude Code 2.1.332) the `result` of its next idle notification. One item a
    teammate (that first one: what follows is the team's own traffic), until the person
    writes to it again or marks it seen."""
    me, own = r.identity, r.own_inbox
    lead = _by_name(r, r.lead) if r.lead else None
    lead_inbox = lead.inbox if lead is not None else None
    if lead_inbox is None or lead_inbox == own:
        return []  # the lead's inbox is the person's own: _unanswered covers it
    owner = _owner(team)
    wrote: dict[str, float] = {}
    for e in evs:
        if e.sender == me and e.inbox not in (own, lead_inbox):
            wrote[owner(e.inbox)] = e.ts
    if not wrote:
        return []
    seen = seen_ids(team.id, lead_inbox)
    found: dict[str, tuple[ms.Event, str]] = {}
    for e in evs:
        t0 = wrote.get(e.sender)
        if t0 is None or e.ts <= t0 or e.inbox != lead_inbox or e.msg.id in seen:
            continue
        said: Any = None
        if e.msg.structured is None:
            said = e.msg.summary or e.msg.text
        elif e.type == ms.IDLE:
            said = e.fields.get("result")
        if isinstance(said, str) and said.strip() and e.sender not in found:
            found[e.sender] = (e, said.strip().split("\n", 1)[0])  # the first: the answer
    items = []
    for sender, (e, said) in found.items():
        if len(said) > ANSWER_CHARS:
            said = said[: ANSWER_CHARS - 1] + "\u2026"
        m = _by_name(r, sender)
        items.append(
            AttentionItem(
                kind="unanswered",
                team=team.id,
                member=sender,
                inbox=m.inbox if m else None,
                since=e.ts,
                summary=f"{sender} answered you: {said}",
                message_id=e.msg.id,
                action="reply",
                key=f"answer:{team.id}:{sender}:{e.msg.id}",
            )
        )
    return items


def load_dismissed(path: str) -> dict[str, float]:
    """Dismissed keys and when; a file that is missing or does not parse is no keys (it is
    rewritten whole on the next dismissal: it holds nothing but these keys)."""
    try:
        with open(path, "rb") as f:
            doc = orjson.loads(f.read(4 * 1024 * 1024))
    except (OSError, orjson.JSONDecodeError):
        return {}
    got = doc.get("dismissed") if isinstance(doc, dict) else None
    if not isinstance(got, dict):
        return {}
    return {
        k: float(v)
        for k, v in got.items()
        if isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def save_dismissed(path: str, keys: dict[str, float]) -> None:
    tmp = f"{path}.{os.getpid()}.teaminbox-tmp"
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
        with os.fdopen(fd, "wb") as f:
            f.write(orjson.dumps({"dismissed": keys}))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
