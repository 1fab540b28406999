"""Following session transcripts: a pass (one at a time, on the event loop) reads each
followed team's files on a pool thread from their last offsets, and hands what it read
to the state thread (`merge`, then the sends it read to `recover`, a bounded step at a
time); events from watching the session folders, and a poll, say when a pass is due."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from ....tracker import Change, Tracker
from ....transcript_frames import Delivered
from ....transcript_sends import Sent
from ....transcripts import Answer, Price, Session, TeamActivity, valid_session_id
from ...feature import Outgoing
from .recover import recover, recover_delivered
from .spec import BUDGET, FINAL_PASSES, Spec, session_of

if TYPE_CHECKING:  # the engine and features load without pygls
    from ...core import TeamInboxServer

log = logging.getLogger("teaminbox")
COALESCE_SECONDS = 0.02  # events within this are one pass
PASS_SECONDS = 0.3  # passes start at most this often (a busy transcript: one row in many)
SENDS_A_STEP = 500  # sends recovered in one state-thread step (a first read may hold thousands)


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
    sends: list[Sent] = attrs.Factory(list)  # what the SendMessage calls read wrote
    delivered: list[Delivered] = attrs.Factory(list)  # the lead's teammate-message blocks


Merge = Callable[[Tracker, list[Result]], tuple[list[Change], Outgoing]]
Step = Callable[[Tracker, Spec, list[Any]], list[Change]]  # recover, recover_delivered


class Follower:
    """The passes: the event loop's side (what is wanted, the watches) and the reading."""

    def __init__(
        self, server: TeamInboxServer, merge: Merge, prices: Callable[[], Mapping[str, Price]]
    ) -> None:
        self.server = server
        self.merge = merge  # the state thread: a pass's results taken in
        self.prices = prices
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

    # --- the event loop ---------------------------------------------------------------

    def want(self, specs: dict[str, Spec], poll: bool, leftover: list[Spec]) -> None:
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
        if self.server.closing:  # a timer set before the stop: the history may be closed
            return
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
                tracker = self.server.require_tracker()
                changes, out = await self.server.in_state(lambda: self.merge(tracker, results))
                if changes:  # every publisher: notify fires `replied` for each answer
                    await self.server.apply(lambda t: (False, changes))
                for method, params in out:
                    self.server.notify(method, params)
                await self._recover(tracker, results)
            except asyncio.CancelledError:
                raise
            except Exception:  # the next event or poll tries again
                if not self.server.closing:  # a pass the stop cut short is no error
                    log.exception("following session transcripts failed")
                return
        more = {r.spec.team for r in results if r.more}
        if more:
            self.dirty |= more
            self._schedule(0, paced=False)  # a first read goes on at once

    async def _recover(self, tracker: Tracker, results: list[Result]) -> None:
        """The sends each team's files showed, then the entries the lead was handed (matched
        to those), archived where the history lacks them, each step's recovered messages
        handed to the publishers (views update; notify_policy decides a toast)."""
        for res in results:
            steps: tuple[tuple[list[Any], Step], ...] = (
                (res.sends, recover),
                (res.delivered, recover_delivered),
            )
            for rows, step in steps:
                for i in range(0, len(rows), SENDS_A_STEP):
                    chunk = rows[i : i + SENDS_A_STEP]
                    changes = await self.server.in_state(
                        functools.partial(step, tracker, res.spec, chunk)
                    )
                    if changes:
                        await self.server.apply(functools.partial(_publish, changes))

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
                watcher.unwatch_folder(folder)
                del self.by_folder[folder]
        for folder, teams in want.items():
            if folder in self.by_folder or watcher.watch_folder(
                folder, self._on_path, _interesting
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
        return session_of(spec)

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
        return Result(
            f.spec,
            s.activity(self.prices()),
            s.take_answers(),
            baseline,
            ended,
            more,
            s.take_sends(),
            # once every file is read: a block whose send a teammate's file holds matches it
            [] if more else s.take_delivered(),
        )


def _publish(changes: list[Change], tracker: Tracker) -> tuple[bool, list[Change]]:
    return False, changes


def _interesting(path: str) -> bool:
    """On watchdog's thread: a transcript, a meta file, or a session's folders."""
    name = os.path.basename(path)
    return name.endswith((".jsonl", ".meta.json")) or name == "subagents" or valid_session_id(name)
