"""The spool taken in: what the record hook (`python -m teaminbox.hook record`, spool.py)
kept of each `SendMessage`, archived as the inbox entry it wrote.

At the start (or once the hook made its folder), whenever the spool folder changes, and
while sends wait for their team: the files are read from the offsets the history keeps
(a pool thread, a budget a step); each send is matched to the Claude team of its session
(a live team's config, or an ended team's saved session) and archived by its msg_id as a
transcript's send is (activity/recover.py: `History.archive_missing`, `recovered`, never
twice, never over what the history holds under that id). A send whose team is not known
yet waits (in memory, and the saved offset stays before it) up to PENDING_SECONDS; a
line that does not parse, or one the hook cut for size, is skipped and counted in the log.
A rotated file the history holds to its end is then deleted (`_release`: forgotten in the
history first, so its going is no loss; a crash in between reads it again, and the
history archives nothing twice).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from ... import spool
from ...tracker import Change, Tracker
from ...transcript_sends import Sent, from_hook
from ...transcripts import valid_session_id
from ..feature import Feature, Outgoing
from .activity import Spec, spec_of
from .activity.recover import recover

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer

log = logging.getLogger("teaminbox")
BUDGET = 8 * 1024 * 1024  # bytes read a step
PENDING_SECONDS = 600.0  # a send waits this long for its team to be known
MAX_PENDING = 5000
COALESCE_SECONDS = 0.05
ENDED_TEAMS = 200  # ended teams whose sessions a send may belong to
LOOK_AGAIN_SECONDS = 5.0  # a spool folder not made yet is looked for this often


@attrs.define
class Waiting:
    """A spooled send whose session no known team has (yet)."""

    file: str
    at: int  # the line's offset in its file
    t: float  # when the hook ran
    sessions: tuple[str, ...]
    sent: Sent


def _iso(t: float) -> str:
    stamp = datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def sessions_of(payload: dict[str, Any]) -> tuple[str, ...]:
    """The session ids a payload names: its `session_id`, then its transcript's (a
    teammate's file lies under its lead's session folder)."""
    out = [payload.get("session_id")]
    path = payload.get("transcript_path")
    if isinstance(path, str):
        parts = path.replace("\\", "/").split("/")
        out.append(parts[-1].removesuffix(".jsonl"))
        if len(parts) >= 3 and parts[-2] == "subagents":
            out.append(parts[-3])
    return tuple(dict.fromkeys(str(s) for s in out if valid_session_id(s)))


class SpoolIntake(Feature):
    """Takes in the record hook's spool (see the module's description)."""

    server: TeamInboxServer

    name = "spool"

    def __init__(self, server: TeamInboxServer) -> None:
        super().__init__(server)
        self.folder = spool.folder()
        self.scheduled = False
        self.lock: asyncio.Lock | None = None
        self.offsets: dict[str, int] | None = None  # where reading goes on (under lock)
        # --- the state thread
        self.waiting: list[Waiting] = []
        self.skipped = 0
        self.cut = 0
        self.taken = 0

    def started(self) -> None:
        self.lock = asyncio.Lock()
        self._watch()

    def _watch(self) -> None:
        """Watch the spool folder; until the hook has made it, look again now and then."""
        watcher = self.server.watcher
        if watcher is None or self.server.closing:
            return
        if watcher.watch_folder(self.folder, self._on_path, _interesting):
            self._schedule()
        else:
            asyncio.get_running_loop().call_later(LOOK_AGAIN_SECONDS, self._watch)

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        if teams_changed and self.waiting:  # a team came: a waiting send may be its
            watcher = self.server.watcher
            loop = watcher.loop if watcher is not None else None
            if loop is not None and not self.server.closing:
                loop.call_soon_threadsafe(self._schedule)
        return []

    # --- the event loop -----------------------------------------------------------------

    def _on_path(self, path: str) -> None:
        self._schedule()

    def _schedule(self) -> None:
        if self.scheduled or self.server.closing:
            return
        self.scheduled = True
        asyncio.get_running_loop().call_later(COALESCE_SECONDS, self._fire)

    def _fire(self) -> None:
        self.scheduled = False
        if not self.server.closing:
            self.server.spawn(self._intake())

    async def _intake(self) -> None:
        assert self.lock is not None
        async with self.lock:
            try:
                tracker = self.server.require_tracker()
                if self.offsets is None:
                    self.offsets = await self.server.in_state(tracker.history.spool_offsets)
                more = True
                while more and not self.server.closing:
                    offsets = dict(self.offsets)
                    got = await self.server.in_pool(
                        functools.partial(spool.read, self.folder, offsets, BUDGET)
                    )
                    changes = await self.server.in_state(functools.partial(self.take, tracker, got))
                    self.offsets = dict(got.offsets)
                    if changes:
                        await self.server.apply(functools.partial(_publish, changes))
                    more = got.more
                    await self._release(tracker)
            except asyncio.CancelledError:
                raise
            except Exception:  # the next change or start tries again
                if not self.server.closing:
                    log.exception("taking in the spool %s failed", self.folder)

    async def _release(self, tracker: Tracker) -> None:
        """Delete the rotated files the history holds to their end."""
        saved = await self.server.in_state(tracker.history.spool_offsets)
        done = await self.server.in_pool(functools.partial(spool.read_through, self.folder, saved))
        if done:
            await self.server.in_state(
                functools.partial(tracker.history.forget_spool_files, [f for _, f, _ in done])
            )
            await self.server.in_pool(functools.partial(spool.release, self.folder, done))

    # --- the state thread ---------------------------------------------------------------

    def take(self, tracker: Tracker, got: spool.Read) -> list[Change]:
        """One read's records, and the sends that waited, archived where their team is
        known; the offsets saved (held before the oldest send still waiting)."""
        skipped, cut = got.skipped, 0
        seen: dict[str, tuple[float, float]] = {}  # when the hook recorded each session
        for fid, at, doc in got.records:
            payload, t = doc.get("p"), float(doc["t"])
            for sid in sessions_of(payload) if isinstance(payload, dict) else ():
                first, last = seen.get(sid, (t, t))
                seen[sid] = (min(first, t), max(last, t))
            if "cut" in doc:
                cut += 1
                continue
            sent = from_hook(payload, _iso(t)) if isinstance(payload, dict) else None
            if sent is None or not isinstance(payload, dict):
                skipped += 1
                continue
            self.waiting.append(Waiting(fid, at, t, sessions_of(payload), sent))
        if skipped or cut:
            self.skipped += skipped
            self.cut += cut
            log.info(
                "spool %s: %d line(s) skipped (not a send), %d kept without their words"
                " (over %d bytes: the transcript holds them)",
                self.folder,
                skipped,
                cut,
                spool.MAX_RECORD,
            )
        changes = self._match(tracker)
        held = dict(got.offsets)
        for w in self.waiting:
            if w.file in held:
                held[w.file] = min(held[w.file], w.at)
        tracker.history.saw_spooled(seen)
        tracker.history.save_spool_offsets(held)
        return changes

    def _match(self, tracker: Tracker) -> list[Change]:
        if not self.waiting:
            return []
        specs = self._specs(tracker)
        by_team: dict[str, tuple[Spec, list[Sent]]] = {}
        left: list[Waiting] = []
        now = datetime.now(timezone.utc).timestamp()
        for w in self.waiting:
            spec = next((specs[s] for s in w.sessions if s in specs), None)
            if spec is not None:
                by_team.setdefault(spec.team, (spec, []))[1].append(w.sent)
            elif now - w.t < PENDING_SECONDS:
                left.append(w)
        dropped = len(self.waiting) - len(left) - sum(len(s) for _, s in by_team.values())
        if len(left) > MAX_PENDING:
            dropped += len(left) - MAX_PENDING
            left = left[-MAX_PENDING:]
        if dropped:
            log.info("spool: %d send(s) of no known team's session left out", dropped)
        self.waiting = left
        changes: list[Change] = []
        for spec, sends in by_team.values():
            changes += recover(tracker, spec, sends)
            self.taken += len(sends)
        return changes

    def _specs(self, tracker: Tracker) -> dict[str, Spec]:
        """Session id -> the team that session leads: the live teams, then the ended ones
        whose session the history saved."""
        out: dict[str, Spec] = {}
        for tid in sorted(tracker.rosters):
            spec = spec_of(tracker.rosters[tid])
            if spec is not None:
                out.setdefault(spec.session_id, spec)
        for body, _ in tracker.history.ended_teams(ENDED_TEAMS):
            try:
                tid = orjson.loads(body).get("id")
                saved = tracker.history.team_activity(tid) if isinstance(tid, str) else None
                doc = orjson.loads(saved) if saved else None
            except (orjson.JSONDecodeError, AttributeError):
                continue
            spec = Spec.from_body(str(tid), doc.get("session")) if isinstance(doc, dict) else None
            if spec is not None:
                out.setdefault(spec.session_id, spec)
        return out


def _publish(changes: list[Change], tracker: Tracker) -> tuple[bool, list[Change]]:
    return False, changes


def _interesting(path: str) -> bool:
    """On watchdog's thread: a spool file (a temp file becomes one by a link)."""
    name = os.path.basename(path)
    return name == spool.CURRENT or spool.is_rotated(name)
