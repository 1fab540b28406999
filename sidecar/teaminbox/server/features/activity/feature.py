"""The activity feature: its publish (which live Claude teams have a session to follow,
handed to the follower), a pass's results taken in on the state thread (answers archived
and published, activity kept and saved), `teamInbox/activity`, and its team hook."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from ....diff import InboxDiff
from ....model import Activity, FileChange, Member, Team
from ....protocol import (
    ActivityParams,
    ChangeContent,
    ChangeContentParams,
    ChangesParams,
    ChangesResult,
)
from ....tracker import Change, Tracker
from ....transcripts import PRICES, WORKING_SECONDS, Price, TeamActivity
from ...feature import Feature, Outgoing
from ..permissions import Permissions, Prompts
from .follow import Follower, Result
from .spec import Spec, answer_message, spec_of
from .unseen import Unseen

if TYPE_CHECKING:  # the engine and features load without pygls
    from ...core import TeamInboxServer

log = logging.getLogger("teaminbox")
POLL_SECONDS = 2.0  # a stat of every followed file at most this often (lost events)
NOTIFY_SECONDS = 1.0  # teamInbox/activity at most this often a team, unless a step changed
SAVE_SECONDS = 10.0  # a live team's activity saved in the history at most this often


def _prices(server: TeamInboxServer) -> dict[str, Price]:
    table = dict(PRICES)
    for part, p in server.options.token_prices.items():
        table[part] = Price(
            p.input,
            p.output,
            p.input / 10 if p.cache_read is None else p.cache_read,
            p.input * 1.25 if p.cache_write is None else p.cache_write,
        )
    return table


def _working(a: Activity, now: float) -> Activity:
    working = a.last_active is not None and now - a.last_active < WORKING_SECONDS
    return a if a.working == working else attrs.evolve(a, working=working)


def _shown(a: Activity, now: float, waiting: bool) -> Activity:
    """A live member's activity as sent: working or not by now, its step waiting for a
    permission answer or not."""
    a = _working(a, now)
    step = a.doing
    if step is not None and step.waiting != waiting:
        a = attrs.evolve(a, doing=attrs.evolve(step, waiting=waiting))
    return a


def new_step(sent: ActivityParams, due: ActivityParams) -> bool:
    """A member began a step, or ended one, since `sent`: what a person watching it waits for
    goes out with the pass that read it (the passes are paced), the rest at most once a second."""

    def step(p: ActivityParams, name: str) -> str | None:
        a = p.members.get(name)
        return a.doing.tool_use_id if a is not None and a.doing is not None else None

    return any(step(sent, n) != step(due, n) for n in sent.members.keys() | due.members.keys())


class Transcripts(Feature):
    """Follows the live Claude teams' session transcripts (see the package's description)."""

    server: TeamInboxServer

    name = "activity"

    def __init__(self, server: TeamInboxServer) -> None:
        super().__init__(server)
        self.prices: Mapping[str, Price] = PRICES
        # --- the state thread
        self.hooked = False
        self.specs: dict[str, Spec] = {}  # as last handed to the loop
        self.live: dict[str, TeamActivity] = {}
        self.ended: dict[str, TeamActivity | None] = {}  # from the history, cached
        self.known: dict[str, bool] = {}  # the history had the team's activity at first sight
        self.at_start: set[str] | None = None  # the teams live at the first scan
        self.saved: dict[str, tuple[bytes, float]] = {}
        self.sent: dict[str, tuple[ActivityParams, float]] = {}  # teamInbox/activity, last
        self.due: dict[str, ActivityParams] = {}  # to send (at most once a second a team)
        self.polled = 0.0
        self.finalized = False  # teams that ended while the sidecar was away: read once
        self.follower = Follower(server, self.merge, lambda: self.prices)
        self.unseen = Unseen(server, lambda: self.prices, lambda tid: self.ended.pop(tid, None))
        self._prompts: Prompts | None = None

    @property
    def on(self) -> bool:
        return self.server.options.read_transcripts

    def register(self) -> None:
        self.request("teamInbox/changes", self.changes)
        self.request("teamInbox/changeContent", self.change_content)

    async def changes(self, p: ChangesParams) -> ChangesResult:
        def run() -> ChangesResult:
            act = self._activity(p.team)
            found = act.changes if act is not None else []
            if p.member is not None:
                found = [c for c in found if c.member == p.member]
            return ChangesResult(list(found))

        return await self.server.in_state(run)

    async def change_content(self, p: ChangeContentParams) -> ChangeContent:
        def run() -> ChangeContent:
            act = self._activity(p.team)
            w = act.written.get(p.tool_use_id) if act is not None else None
            if w is None or not w.kept:
                return ChangeContent(p.tool_use_id, False)
            return ChangeContent(p.tool_use_id, True, w.path, w.tool, w.before, w.after, w.cut)

        return await self.server.in_state(run)

    def live_changes(self, tid: str) -> list[FileChange]:
        """A live team's files changed, newest first (the state thread)."""
        act = self.live.get(tid) if self.on else None
        return act.changes if act is not None else []

    def _activity(self, tid: str) -> TeamActivity | None:
        """A team's activity: the live one's, else what the history kept of an ended one."""
        if not self.on:
            return None
        live = self.live.get(tid)
        if live is not None:
            return live
        if tid not in self.ended and self.tracker.history.team_activity(tid) is None:
            return None  # nothing cached for a name the history does not hold
        return self._ended_activity(tid)

    def prompts(self) -> Prompts | None:
        """The permission prompts open (none when the server runs without that feature)."""
        if self._prompts is None:
            try:
                self._prompts = self.server.get_feature(Permissions).prompts
            except LookupError:
                return None
        return self._prompts

    def _waiting(self, tid: str) -> set[str]:
        prompts = self.prompts()
        return prompts.waiting(tid) if prompts is not None else set()

    def started(self) -> None:
        prompts = self.prompts()
        if prompts is not None and self.on:
            prompts.on_change.append(self._prompts_changed)
        if self.on:  # teams that lived while no sidecar ran, beside the requests
            self.server.spawn(self.unseen.run())

    def _prompts_changed(self) -> None:
        """The event loop: a prompt came or went; a step may wait, or no longer."""
        server = self.server

        async def go() -> None:
            out = await server.in_state(self._notifications)
            for method, params in out:
                server.notify(method, params)

        server.spawn(go())

    # --- the state thread -------------------------------------------------------------

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        if not self.on:
            return []
        tracker = self.tracker
        if not self.hooked:  # from now on decorate_team adds the activity
            self.hooked = True
            self.prices = _prices(self.server)
        specs: dict[str, Spec] = {}
        for tid, r in tracker.rosters.items():
            spec = spec_of(r)
            if spec is None and tid in self.specs:
                spec = self.specs[tid]  # a torn config.json says nothing: keep the last
            if spec is not None:
                specs[tid] = spec
        specs = self._one_team_a_session(specs)
        if self.at_start is None:
            self.at_start = set(specs)
        leftover = [] if self.finalized else self._leftover(tracker, specs)
        self.finalized = True
        now = time.monotonic()
        poll = now - self.polled >= POLL_SECONDS
        if specs != self.specs or poll or leftover:
            self.polled = now if poll else self.polled
            self.specs = specs
            self._to_loop(self.follower.want, dict(specs), poll, leftover)
        return self._notifications()

    def _one_team_a_session(self, specs: dict[str, Spec]) -> dict[str, Spec]:
        """A session's transcripts belong to one team: the one followed already, else one
        whose folder is named as its config says, else the first."""
        by_session: dict[str, list[Spec]] = {}
        for spec in specs.values():
            by_session.setdefault(spec.session_id, []).append(spec)
        out = {}
        for group in by_session.values():
            best = min(
                group,
                key=lambda sp: (sp.team not in self.specs, len(sp.names) > 1, sp.team),
            )
            out[best.team] = best
        return out

    def _leftover(self, tracker: Tracker, live: dict[str, Spec]) -> list[Spec]:
        """Ended teams whose last reading was not a final one (the sidecar was away)."""
        out = []
        for body, _ in tracker.history.ended_teams(200):
            try:
                tid = orjson.loads(body).get("id")
                saved = tracker.history.team_activity(tid) if isinstance(tid, str) else None
                doc = orjson.loads(saved) if saved else None
            except (orjson.JSONDecodeError, AttributeError):
                continue
            if isinstance(doc, dict) and not doc.get("final") and tid not in live:
                spec = Spec.from_body(str(tid), doc.get("session"))
                if spec is not None:
                    out.append(spec)
        return out

    def _to_loop(self, fn: Any, *args: Any) -> None:
        watcher = self.server.watcher
        loop = watcher.loop if watcher is not None else None
        if loop is not None and not self.server.closing:
            loop.call_soon_threadsafe(fn, *args)

    def merge(self, tracker: Tracker, results: list[Result]) -> tuple[list[Change], Outgoing]:
        """What a pass read, taken in; returns the changes for the publishers (answers) and,
        when there are none, the activity notifications due (sent without the others)."""
        changes: list[Change] = []
        for res in results:
            tid = res.spec.team
            if tid not in self.known:
                self.known[tid] = tracker.history.team_activity(tid) is not None
            if res.activity is not None:
                if res.ended:
                    self.live.pop(tid, None)
                    self.ended[tid] = TeamActivity.restored(res.activity.persisted())
                else:
                    self.live[tid] = res.activity
                    self.ended.pop(tid, None)
                self._save(tracker, res)
                self._check(tid, time.time())
            elif res.ended:
                self.live.pop(tid, None)
            if res.answers:
                changes += self._answers(tracker, res)
        return changes, [] if changes else self._notifications()

    def _answers(self, tracker: Tracker, res: Result) -> list[Change]:
        spec, tid = res.spec, res.spec.team
        msgs = [answer_message(spec, a) for a in res.answers]
        inbox = msgs[0].inbox
        fresh = tracker.history.archive_new(tid, inbox, msgs)
        # The first read of a team that was there when the sidecar started is a baseline
        # (unless the history followed it before); a team that came later has no old answers.
        news = self.known[tid] or not res.baseline or tid not in (self.at_start or set())
        if not fresh or not news or tid not in tracker.rosters:
            return []  # archived either way: the conversation shows it
        state = tracker.inboxes.get((tid, inbox))
        total, unread = (len(state.rows), state.rows.unread) if state else (0, 0)
        return [Change(tid, inbox, InboxDiff(added=fresh), total, unread)]

    def _save(self, tracker: Tracker, res: Result) -> None:
        assert res.activity is not None
        tid = res.spec.team
        doc = res.activity.persisted()
        doc["session"] = res.spec.body()
        doc["final"] = res.ended
        body = orjson.dumps(doc)
        last, at = self.saved.get(tid, (b"", 0.0))
        now = time.monotonic()
        if body != last and (res.ended or not last or now - at >= SAVE_SECONDS):
            tracker.history.save_activity(tid, body)
            self.saved[tid] = (body, now)

    def _check(self, tid: str, now: float) -> None:
        """Is a teamInbox/activity due for the team (its activity differs from the last sent)?"""
        act = self.live.get(tid) or self.ended.get(tid)
        if act is None:
            self.due.pop(tid, None)
            return
        waiting = self._waiting(tid) if tid in self.live else set()
        members = {name: _shown(a, now, name in waiting) for name, a in act.members.items()}
        params = ActivityParams(tid, act.tokens, act.branch, members)
        last = self.sent.get(tid)
        if last is not None and last[0] == params:
            self.due.pop(tid, None)
        else:
            self.due[tid] = params

    def _notifications(self) -> Outgoing:
        now, mono = time.time(), time.monotonic()
        for tid in self.live:  # a member may have stopped working meanwhile
            self._check(tid, now)
        out: Outgoing = []
        for tid, params in sorted(self.due.items()):
            last = self.sent.get(tid)
            if last is None or mono - last[1] >= NOTIFY_SECONDS or new_step(last[0], params):
                out.append(("teamInbox/activity", params))
                self.sent[tid] = (params, mono)
                del self.due[tid]
        return out

    def decorate_team(self, team: Team) -> None:
        """A Team as the queries give it, with what was derived (once publish ran)."""
        if not self.hooked:
            return
        try:
            act = self._ended_activity(team.id) if team.ended else self.live.get(team.id)
            if act is None:
                return
            now = time.time()
            waiting = set() if team.ended else self._waiting(team.id)
            team.tokens, team.branch = act.tokens, act.branch
            members = []
            for m in team.members:
                a = act.members.get(m.name)
                members.append(
                    m
                    if a is None
                    else attrs.evolve(
                        m,
                        activity=a if team.ended else _shown(a, now, m.name in waiting),
                        branch=m.branch or act.branches.get(m.name),
                    )
                )
            # A teammate whose config entry and inbox file are gone (Claude Code 2.1.197
            # deletes a finished teammate's inbox): still a member that worked, one that left.
            named = {m.name for m in members}
            for name, a in act.members.items():
                if name not in named:
                    members.append(
                        Member(
                            name=name,
                            inbox=name,
                            left=True,
                            activity=a if team.ended else _shown(a, now, name in waiting),
                            branch=act.branches.get(name),
                        )
                    )
            team.members = members
        except Exception:  # a bug here must not take the team listing down
            log.exception("adding transcript activity to %s failed", team.id)

    def _ended_activity(self, tid: str) -> TeamActivity | None:
        if tid not in self.ended:
            body = self.tracker.history.team_activity(tid)
            try:
                self.ended[tid] = TeamActivity.restored(orjson.loads(body)) if body else None
            except orjson.JSONDecodeError:
                self.ended[tid] = None
        return self.ended[tid]
