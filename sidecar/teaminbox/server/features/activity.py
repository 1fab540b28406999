"""Session transcripts (Claude Code): the lead's answers to the person, and each member's
activity and token use. teaminbox.transcripts reads the files; this module decides when.

- The publisher (state thread, after every tracker step) says which live Claude teams
  have a session to follow, and hands that to the event loop; at most every
  POLL_SECONDS it also asks for a look at every followed file (a stat each: the fallback
  for lost events). Events come from watching, not recursively, the project folder, the
  session's folder and its subagents folder of each followed team only.
- A follow pass (one at a time) reads on a pool thread from each file's last offset, then
  merges on the state thread: each answer is archived under the person's own inbox
  (id `t-<row uuid>`, `archived: true`) and handed to the publishers as an added message
  (so notify fires `teamInbox/replied` for it, once across restarts); the team's activity
  is kept for the `teams` answers (a tracker hook) and `teamInbox/activity` is sent at
  most once a second a team.
- A team that ends is read to its end once more, its activity saved in the history
  (timestamps and token counts) and no longer followed; so is one that ended while the
  sidecar was away (the transcripts outlive the team folder).
- `readTranscripts: false`: nothing here opens a file.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Mapping
from typing import Any

import attrs
import orjson

from ...diff import InboxDiff
from ...discovery import Roster
from ...model import Activity, Member, Message, Team
from ...protocol import ActivityParams
from ...tracker import Change, Tracker
from ...transcripts import (
    PRICES,
    WORKING_SECONDS,
    Answer,
    Price,
    Session,
    TeamActivity,
    default_claude_dir,
    valid_session_id,
)
from ...watch import unwatch_folder, watch_folder
from ..core import Outgoing, TeamInboxServer
from ..feature import Feature

log = logging.getLogger("teaminbox")
POLL_SECONDS = 2.0  # a stat of every followed file at most this often (lost events)
COALESCE_SECONDS = 0.02  # events within this are one pass
PASS_SECONDS = 0.3  # passes start at most this often (a busy transcript: one row in many)
NOTIFY_SECONDS = 1.0  # teamInbox/activity at most this often a team
SAVE_SECONDS = 10.0  # a live team's activity saved in the history at most this often
BUDGET = 16 * 1024 * 1024  # bytes read a pass a team: a big first read is several passes
FINAL_PASSES = 64  # an ended team's files are read to their end, within this many budgets


@attrs.define(frozen=True)
class Spec:
    """What a team's config says about its session (the state thread hands it over)."""

    team: str
    session_id: str
    cwd: str | None
    lead: str | None
    person: str
    own_inbox: str | None
    names: tuple[str, ...]
    projects: tuple[str, ...]

    def body(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "lead": self.lead,
            "person": self.person,
            "ownInbox": self.own_inbox,
            "names": list(self.names),
            "projects": list(self.projects),
        }

    @classmethod
    def from_body(cls, team: str, body: Any) -> Spec | None:
        if not isinstance(body, dict) or not valid_session_id(body.get("sessionId")):
            return None

        def text(key: str) -> str | None:
            v = body.get(key)
            return v if isinstance(v, str) else None

        def texts(key: str) -> tuple[str, ...]:
            v = body.get(key)
            return tuple(x for x in v if isinstance(x, str)) if isinstance(v, list) else ()

        return cls(
            team,
            str(body["sessionId"]),
            text("cwd"),
            text("lead"),
            text("person") or "user",
            text("ownInbox"),
            texts("names"),
            texts("projects"),
        )


def spec_of(r: Roster) -> Spec | None:
    if r.team.format != "claude" or ".deleted-" in r.team.name:
        return None  # Claude Code renames a team's folder so before removing it
    sid = r.info.get("session_id")
    if not valid_session_id(sid):
        return None
    config = r.team.config or {}
    name = config.get("name")
    projects = (
        os.path.join(os.path.dirname(r.team.root), "projects"),
        os.path.join(default_claude_dir(), "projects"),
    )
    return Spec(
        r.team.id,
        str(sid),
        r.info.get("cwd") if isinstance(r.info.get("cwd"), str) else None,
        r.lead,
        r.identity,
        r.own_inbox,
        tuple(dict.fromkeys(n for n in (r.team.name, name) if isinstance(n, str) and n)),
        tuple(dict.fromkeys(projects)),
    )


@attrs.define
class Follow:
    spec: Spec
    session: Session


@attrs.define
class Result:
    """One team after a pass: the pool thread's reading, for the state thread."""

    spec: Spec
    activity: TeamActivity | None
    answers: list[Answer]
    baseline: bool  # found by the first read of the files (not news unless known before)
    ended: bool
    more: bool


def answer_message(spec: Spec, a: Answer) -> Message:
    """The lead's answer as a message to the person; `raw` holds only what is shown."""
    lead = spec.lead or "team-lead"
    inbox = spec.own_inbox or spec.person
    return Message(
        id=f"t-{a.uuid}",
        team=spec.team,
        inbox=inbox,
        format="claude",
        from_=lead,
        to=inbox,
        type="message",
        text=a.text,
        timestamp=a.timestamp,
        read=False,
        raw={"from": lead, "text": a.text, "timestamp": a.timestamp},
        archived=True,
        from_name=lead,
    )


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


class Transcripts(Feature):
    """Follows the live Claude teams' session transcripts (see the module's description)."""

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
        # --- the event loop (and the pass, which holds `lock`)
        self.lock = asyncio.Lock()
        self.wanted: dict[str, Spec] | None = None
        self.leftover: list[Spec] = []
        self.dirty: set[str] = set()
        self.everything = False
        self.scheduled = False
        self.last_pass = float("-inf")
        self.session_of: dict[str, str] = {}
        self.by_folder: dict[str, set[str]] = {}
        # --- the pass (pool thread, under `lock`)
        self.follows: dict[str, Follow] = {}

    @property
    def on(self) -> bool:
        return self.server.options.read_transcripts

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
            self._to_loop(self._want, dict(specs), poll, leftover)
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
        members = {name: _working(a, now) for name, a in act.members.items()}
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
            if last is None or mono - last[1] >= NOTIFY_SECONDS:
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
            team.tokens, team.branch = act.tokens, act.branch
            members = []
            for m in team.members:
                a = act.members.get(m.name)
                members.append(
                    m
                    if a is None
                    else attrs.evolve(
                        m,
                        activity=a if team.ended else _working(a, now),
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
                            activity=a if team.ended else _working(a, now),
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

    # --- the event loop ---------------------------------------------------------------

    def _want(self, specs: dict[str, Spec], poll: bool, leftover: list[Spec]) -> None:
        self.wanted = specs
        self.leftover += leftover
        self.everything = self.everything or poll
        self._schedule()

    def _on_path(self, path: str) -> None:
        teams = self.by_folder.get(os.path.dirname(path))
        if not teams:
            return
        name = os.path.basename(path)
        if not name.startswith(("agent-", "subagents")):
            # the project folder: other sessions' transcripts write there too
            teams = {t for t in teams if name.startswith(self.session_of.get(t, name))}
        if teams:
            self.dirty |= teams
            self._schedule()

    def _schedule(self, delay: float = COALESCE_SECONDS, paced: bool = True) -> None:
        if self.scheduled or self.server.closing:
            return
        self.scheduled = True
        loop = asyncio.get_running_loop()
        wait = max(delay, self.last_pass + PASS_SECONDS - loop.time()) if paced else delay
        loop.call_later(wait, self._fire)

    def _fire(self) -> None:
        self.scheduled = False
        self.last_pass = asyncio.get_running_loop().time()
        self.server.spawn(self._pass())

    async def _pass(self) -> None:
        async with self.lock:
            wanted, self.wanted = self.wanted, None
            leftover, self.leftover = self.leftover, []
            dirty, self.dirty = self.dirty, set()
            everything, self.everything = self.everything, False
            if wanted is None and not leftover and not dirty and not everything:
                return
            try:
                results = await self.server.in_pool(
                    lambda: self._read(wanted, leftover, dirty, everything)
                )
                self._sync_watches()
                tracker = self.tracker
                changes, out = await self.server.in_state(lambda: self.merge(tracker, results))
                if changes:  # every publisher: notify fires `replied` for each answer
                    await self.server.apply(lambda t: (False, changes))
                for method, params in out:
                    self.server.notify(method, params)
            except asyncio.CancelledError:
                raise
            except Exception:  # the next event or poll tries again
                log.exception("following session transcripts failed")
                return
        more = {r.spec.team for r in results if r.more}
        if more:
            self.dirty |= more
            self._schedule(0, paced=False)  # a first read goes on at once

    def _sync_watches(self) -> None:
        """Watch the folders of the teams followed, and only those (the loop, under lock)."""
        watcher = self.server.watcher
        if watcher is None:
            return
        want: dict[str, set[str]] = {}
        for tid, f in self.follows.items():
            for folder in f.session.folders():
                want.setdefault(folder, set()).add(tid)
        self.session_of = {tid: f.spec.session_id for tid, f in self.follows.items()}
        for folder in list(self.by_folder):
            if folder not in want:
                unwatch_folder(watcher, folder)
                del self.by_folder[folder]
        for folder, teams in want.items():
            if folder in self.by_folder or watch_folder(
                watcher, folder, self._on_path, _interesting
            ):
                self.by_folder[folder] = teams

    # --- the pass's reading (a pool thread, under `lock`) --------------------------------

    def _read(
        self,
        wanted: dict[str, Spec] | None,
        leftover: list[Spec],
        dirty: set[str],
        everything: bool,
    ) -> list[Result]:
        ending: set[str] = set()
        if wanted is not None:
            ending = set(self.follows) - set(wanted)
            for tid, spec in wanted.items():
                f = self.follows.get(tid)
                if f is None or f.spec.session_id != spec.session_id:
                    self.follows[tid] = Follow(spec, self._session(spec))
                    dirty.add(tid)
                elif f.spec != spec:
                    f.spec, f.session.lead = spec, spec.lead
        for spec in leftover:  # ended while the sidecar was away: one final read
            if spec.team not in self.follows:
                self.follows[spec.team] = Follow(spec, self._session(spec))
                ending.add(spec.team)
        results = []
        for tid, f in list(self.follows.items()):
            ended = tid in ending
            if not (ended or everything or tid in dirty):
                continue
            try:
                results.append(self._poll(f, ended))
            except Exception:  # this team's problem: the others go on
                log.exception("reading the transcripts of %s failed", tid)
            if ended:
                del self.follows[tid]
        return results

    def _session(self, spec: Spec) -> Session:
        return Session(
            list(spec.projects), spec.session_id, spec.cwd, spec.lead, spec.person, spec.names
        )

    def _poll(self, f: Follow, ended: bool) -> Result:
        s = f.session
        baseline = not s.caught_up
        if ended:
            passes = 0
            while s.poll(BUDGET) and passes < FINAL_PASSES:
                passes += 1
            s.finish()
            more = False
        else:
            more = s.poll(BUDGET)
        for t in s.files():
            if t.error:
                log.debug("%s", t.error)
        return Result(f.spec, s.activity(self.prices), s.take_answers(), baseline, ended, more)


def _interesting(path: str) -> bool:
    """On watchdog's thread: a transcript, a meta file, or a session's folders."""
    name = os.path.basename(path)
    return name.endswith((".jsonl", ".meta.json")) or name == "subagents" or valid_session_id(name)
