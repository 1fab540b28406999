"""Gaps: where nobody read an inbox whose reader takes messages away, and nothing else keeps
them, the record says so (gaps.py). Two ways to find a time nobody read: at the start,
since the history last noted reading the inbox (another sidecar on the same history keeps
that note current); a wake of the watch thread far later than asked (the process stopped,
starved or suspended, the clock moved on), unless another sidecar noted reading meanwhile.
Both are checked against the inbox's modification time: one nothing touched shows none. A
Claude team whose session transcripts are there shows none: its sends are recovered from
them (activity/recover.py). Nor does one whose sends the record hook kept over that time
(`_spooled`): the spool is taken in by features/spool.py."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from functools import partial
from typing import TYPE_CHECKING

from ... import spool
from ...diff import InboxDiff
from ...discovery import Roster
from ...gaps import GAP_SECONDS, gap_message, unread_while
from ...tracker import Change, Tracker
from ...transcripts.paths import find_lead_transcript
from ..feature import Feature, Outgoing
from .activity.spec import spec_of

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer

log = logging.getLogger("teaminbox")
WAKE_SECONDS = 0.25  # the watch thread's pace: a stall is a wake this much later and more
NOTE_SECONDS = 2.0  # the history's "read until" moved on this often
COVER_SECONDS = 60.0  # transcripts not found: looked for again this often

Key = tuple[str, str]  # team id, inbox


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


class Gaps(Feature):
    server: TeamInboxServer

    name = "gaps"

    def __init__(self, server: TeamInboxServer) -> None:
        super().__init__(server)
        self.covered: dict[str, tuple[bool, float]] = {}  # team -> (its transcripts, looked)
        self.started_at: float | None = None  # the state thread: the start's check done
        self.risky: tuple[dict[Key, str], float] | None = None  # at_risk's, and when made
        self.noted = 0.0  # this sidecar's last note of reading
        self.spool_folder = spool.folder()
        self._stop = threading.Event()

    # --- which inboxes (the state thread)

    def _covered(self, r: Roster, now: float) -> bool:
        """Do the team's session transcripts keep what its inboxes lose (they are there)?"""
        tid = r.team.id
        known = self.covered.get(tid)
        if known is not None and (known[0] or now - known[1] < COVER_SECONDS):
            return known[0]  # found once: a session's transcripts stay
        spec = spec_of(r) if self.server.options.read_transcripts else None
        found = spec is not None and (
            find_lead_transcript(spec.projects, spec.cwd, spec.session_id) is not None
        )
        self.covered[tid] = (found, now)
        return found

    def _spooled(self, tracker: Tracker, tid: str, start: float, end: float) -> bool:
        """Did the record hook keep the team's sends from `start` to `end`? It recorded a
        send of the team's lead session by `start` (Claude Code takes a session's hooks
        once, at its start: a session it fired in runs it to its end), and no spool file
        went unread meanwhile (rotated away)."""
        r = tracker.rosters.get(tid)
        spec = spec_of(r) if r is not None else None
        first = tracker.history.spooled_since(spec.session_id) if spec is not None else None
        if first is None or first > start:
            return False
        try:
            present = spool.read(self.spool_folder, {}, budget=0).offsets  # the headers alone
        except OSError as err:  # a spool that cannot be read keeps nothing for sure
            log.info("spool %s: %s", self.spool_folder, err)
            return False
        return not tracker.history.spool_lost(start, end, present)

    def at_risk(self, tracker: Tracker, now: float) -> dict[Key, str]:
        """The inboxes read now whose reader takes messages away unkept: their paths (made
        again when the teams change, and now and then for transcripts that appeared)."""
        if self.risky is not None and now - self.risky[1] < COVER_SECONDS:
            return self.risky[0]
        out: dict[Key, str] = {}
        for tid, r in tracker.rosters.items():
            if not r.team.fmt.takes_away:
                continue
            for m in r.members:
                state = tracker.inboxes.get((tid, m.inbox))
                if m.consumed and state is not None and not self._covered(r, now):
                    out[(tid, m.inbox)] = state.path
        self.risky = (out, now)
        return out

    # --- hooks

    def started(self) -> None:  # the event loop, after the first scan
        loop = asyncio.get_running_loop()
        self.server.spawn(self.server.apply(self._at_start, background=True))
        threading.Thread(target=self._watch, args=(loop,), name="gaps", daemon=True).start()

    def stopping(self) -> None:
        self._stop.set()

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        if teams_changed:
            self.risky = None
        return []

    # --- the state thread's steps

    def _at_start(self, tracker: Tracker) -> tuple[bool, list[Change]]:
        """Each inbox since the history last noted reading it, until now."""
        now = time.time()
        risky = self.at_risk(tracker, now)
        changes: list[Change] = []
        for key, path in risky.items():
            until = tracker.history.read_until(*key)
            if until is not None and unread_while(until, now, _mtime(path)):
                if not self._spooled(tracker, key[0], until, now):
                    changes += self._record(tracker, key, until, now)
        tracker.history.reading(risky, now)
        self.started_at = self.noted = now
        return False, changes

    def _stalled(self, start: float, end: float, tracker: Tracker) -> tuple[bool, list[Change]]:
        changes: list[Change] = []
        for key, path in self.at_risk(tracker, end).items():
            other = tracker.history.read_until(*key)
            if other is not None and other > max(self.noted, start):
                continue  # another sidecar on this history read it meanwhile (it noted so)
            if unread_while(start, end, _mtime(path)) and not self._spooled(
                tracker, key[0], start, end
            ):
                changes += self._record(tracker, key, start, end)
        return False, changes

    def _note(self, tracker: Tracker) -> None:
        if self.started_at is not None:  # before it, the start's check needs the old note
            now = time.time()
            tracker.history.reading(self.at_risk(tracker, now), now)
            self.noted = now

    def _record(self, tracker: Tracker, key: Key, start: float, end: float) -> list[Change]:
        tid, inbox = key
        state = tracker.inboxes.get(key)
        if state is None:
            return []
        if any(s <= end and start <= e for s, e in tracker.history.gaps(tid, inbox)):
            return []  # said already (another sidecar on this history stalled with this one)
        log.warning(
            "%s %s: not read for %.1f s while its reader takes messages away; a gap is shown",
            tid,
            inbox,
            end - start,
        )
        gap = gap_message(tid, inbox, state.fmt.name, start, end)
        fresh = tracker.history.archive_missing(tid, inbox, [gap])
        if not fresh:
            return []
        return [Change(tid, inbox, InboxDiff(added=fresh), len(state.rows), state.rows.unread)]

    # --- the watch thread: a wake far later than asked is a time nobody read

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        last = noted = time.time()
        while not self._stop.wait(WAKE_SECONDS):
            now = time.time()
            try:
                if now - last > GAP_SECONDS + WAKE_SECONDS:
                    loop.call_soon_threadsafe(self._spawn, partial(self._stalled, last, now))
                if now - noted >= NOTE_SECONDS:
                    noted = now
                    loop.call_soon_threadsafe(self._spawn_note)
            except RuntimeError:  # the loop is closed: the server is gone
                return
            last = now

    def _spawn(self, step: partial[tuple[bool, list[Change]]]) -> None:
        if not self.server.closing:
            self.server.spawn(self.server.apply(step, background=True))

    def _spawn_note(self) -> None:
        tracker = self.server.tracker
        if tracker is not None and not self.server.closing:
            self.server.spawn(self.server.in_state(partial(self._note, tracker), background=True))
