"""Teams that lived while no sidecar ran: a Claude Code session that started and ended
with the editor closed (its team folder deleted at exit, never seen by the history) is
rebuilt from its transcripts as an ended team, once, in the background after the start:
its members from the teammates' meta.json, every `SendMessage` of the lead and the
teammates archived as the entry it wrote (`recovered`, as the follow passes do), then the
entries of the lead's inbox only its turns show (idle, shutdown and plan frames), the lead's
answers to the person, its activity, and its task list where `tasks/<team>/` outlived it.

Bounded: the sessions are found by their meta files (`transcripts.discover`), never by
reading a transcript; only a session with a team is read, one at a time on a pool thread;
each session looked at is remembered in the history with its files' signature
(`History.save_scan`), so a later start reads only the sessions that changed. A team whose
folder is there is live: the follow passes read it (from its start: what was said before
the sidecar started is archived there). A session whose team the history knows from another
session (a reused team name) is left alone."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from ....discovery import Settings, TeamDir, describe, roster
from ....formats import get, registry
from ....formats.base import InboxFormat
from ....model import Task, Team, converter
from ....timestamps import epoch
from ....tracker import Tracker
from ....transcript_frames import Delivered
from ....transcript_sends import Sent
from ....transcripts import Answer, Price, Session, TeamActivity, Transcript
from ....transcripts.discover import Found, find_sessions, head
from .recover import recover, recover_delivered
from .spec import BUDGET, Spec, answer_message, spec_of

if TYPE_CHECKING:  # the engine and features load without pygls
    from ...core import TeamInboxServer

log = logging.getLogger("teaminbox")
SENDS_A_STEP = 500  # sends archived in one state-thread step
MAX_PASSES = 64  # budgets read of one session (its files to their end, within bounds)
TEAMS_CHANGED_SECONDS = 1.0  # teamsChanged at most this often while teams are rebuilt


@attrs.define
class Rebuilt:
    """One session read (a pool thread), for the state thread."""

    found: Found
    team: Team
    spec: Spec
    sends: list[Sent]
    answers: list[Answer]
    activity: TeamActivity | None
    tasks: list[Task]
    started: float
    ended: float
    delivered: list[Delivered] = attrs.Factory(list)  # the lead's teammate-message blocks


def _session_format() -> InboxFormat | None:
    return next((f for f in registry().values() if f.claude_sessions), None)


def projects_dirs(settings: Settings) -> list[str]:
    """Where Claude Code keeps transcripts: `projects/` beside each `teams/` root of a format
    with sessions (the settings' roots only: a test's or a custom root's, not the home's)."""
    out = []
    for root in settings.roots:
        path = root.path.rstrip(os.sep)
        if os.path.basename(path) != "teams":
            continue
        if root.format is None or get(root.format).claude_sessions:
            out.append(os.path.join(os.path.dirname(path), "projects"))
    return list(dict.fromkeys(out))


def team_dir(f: Found) -> tuple[str, str]:
    """(teams root, team folder) the session's team had: `<claude dir>/teams/<team>`."""
    assert f.team is not None
    claude = os.path.dirname(os.path.dirname(os.path.dirname(f.lead_path)))
    root = os.path.join(claude, "teams")
    return root, os.path.join(root, f.team)


def config_of(f: Found, cwd: str | None, created: float | None) -> dict[str, Any]:
    """The team's config.json as Claude Code would have written it."""
    team = f.team
    lead: dict[str, Any] = {"agentId": f"team-lead@{team}", "name": "team-lead"}
    lead |= {"agentType": "team-lead"} | ({"cwd": cwd} if cwd else {})
    members = [lead]
    for name, kind, color in f.members:
        if name == "team-lead":
            continue
        m: dict[str, Any] = {"agentId": f"{name}@{team}", "name": name}
        m |= ({"agentType": kind} if kind else {}) | ({"color": color} if color else {})
        members.append(m | ({"cwd": cwd} if cwd else {}))
    out: dict[str, Any] = {
        "name": team,
        "leadAgentId": f"team-lead@{team}",
        "leadSessionId": f.session_id,
        "members": members,
    }
    if created is not None:
        out["createdAt"] = int(created * 1000)
    return out


def read_session(
    f: Found, settings: Settings, prices: Mapping[str, Price], fmt: InboxFormat
) -> Rebuilt | None:
    """A pool thread: the session's team as its config would have said, and its files read
    to their end (within MAX_PASSES budgets)."""
    if f.team is None:
        return None
    root, folder = team_dir(f)
    cwd, first = head(f.lead_path)
    created = epoch(first)
    t = TeamDir(
        f"{fmt.name}:{f.team}", fmt.name, f.team, folder, root, config_of(f, cwd, created), None
    )
    r = roster(t, settings)
    spec = spec_of(r)
    if spec is None:
        return None
    s = Session(
        [os.path.dirname(os.path.dirname(f.lead_path))],
        f.session_id,
        cwd,
        r.lead,
        r.identity,
        spec.names,
        dict(spec.models),
    )
    s.lead_file = Transcript(f.lead_path, r.identity)  # found already: no search
    n = 0
    while s.poll(BUDGET) and n < MAX_PASSES:
        n += 1
    s.finish()
    activity = s.activity(prices)
    times = [a.last_active for a in activity.members.values() if a.last_active] if activity else []
    ended = max(times, default=None) or created or time.time()
    tasks: list[Task] = []
    board = fmt.tasks
    location = board.location(folder, f.team) if board is not None else None
    if board is not None and location is not None:
        try:
            tasks = board.read(location, t.id).tasks
        except Exception as err:  # a board that cannot be read: the rest still counts
            log.info("the task list of %s: %s", t.id, err)
    return Rebuilt(
        f,
        describe(r),
        spec,
        s.take_sends(),
        s.take_answers(),
        activity,
        tasks,
        created or ended,
        ended,
        s.take_delivered(),
    )


def _held_session(tracker: Tracker, tid: str) -> tuple[str | None, bool]:
    """The session the history's record of a team's activity names, and whether that
    record was made by reading the session to its end."""
    body = tracker.history.team_activity(tid)
    try:
        doc = orjson.loads(body) if body else None
        sid = doc.get("session", {}).get("sessionId") if isinstance(doc, dict) else None
    except (orjson.JSONDecodeError, AttributeError):
        return None, False
    final = isinstance(doc, dict) and doc.get("final") is True
    return (sid if isinstance(sid, str) else None), final


def _older_than_kept(tracker: Tracker, path: str) -> bool:
    """Last written before the history's retention: a team it would forget at once."""
    days = tracker.history.keep_days
    try:
        return bool(days) and os.stat(path).st_mtime < time.time() - days * 86400
    except OSError:
        return True


def wanted(tracker: Tracker, tid: str, f: Found, folder: str, first: bool) -> bool | None:
    """The state thread, before reading: True to read the session, False to remember it as
    looked at, None to leave it (a live team: the follow passes read it). `first`: the
    history has no record of looking at it."""
    if tid in tracker.rosters or os.path.lexists(folder):
        return None
    if tracker.history.team_body(tid) is None:
        return not _older_than_kept(tracker, f.lead_path)
    sid, final = _held_session(tracker, tid)
    if sid != f.session_id:
        return False  # a team name another session used
    return not (first and final)  # followed to its end while it lived: nothing to add


def save(tracker: Tracker, rb: Rebuilt) -> bool:
    """The state thread: the team kept as ended (unless the history holds it), its activity
    and board; True when the team is new to the history."""
    tid = rb.team.id
    if tid in tracker.rosters:
        return False
    h = tracker.history
    body = orjson.dumps(converter.unstructure(rb.team))
    new = h.save_ended_team(tid, body, rb.started, rb.ended)
    if rb.activity is not None:
        doc = rb.activity.persisted()
        doc["session"], doc["final"] = rb.spec.body(), True
        h.save_activity(tid, orjson.dumps(doc))
    if rb.tasks and h.board(tid) is None:
        h.save_board(tid, orjson.dumps([converter.unstructure(t) for t in rb.tasks]))
    if rb.answers:
        msgs = [answer_message(rb.spec, a) for a in rb.answers]
        h.archive_new(tid, msgs[0].inbox, msgs)
    return new


class Unseen:
    """The rebuilding, once a start (the event loop drives; pool and state threads work)."""

    def __init__(
        self,
        server: TeamInboxServer,
        prices: Callable[[], Mapping[str, Price]],
        forget: Callable[[str], object],
    ) -> None:
        self.server = server
        self.prices = prices
        self.forget = forget  # the state thread: a team's cached activity is stale
        self.known: dict[str, str] = {}

    async def run(self) -> None:
        try:
            await self._run()
        except asyncio.CancelledError:
            raise
        except Exception:
            if not self.server.closing:
                log.exception("rebuilding teams from session transcripts failed")

    async def _run(self) -> None:
        server = self.server
        fmt = _session_format()
        tracker = server.require_tracker()
        if fmt is None:
            return
        dirs = projects_dirs(tracker.settings)
        known = await server.in_state(tracker.history.session_scans, background=True)
        self.known = known
        found = await server.in_pool(lambda: find_sessions(dirs, known))
        told = time.monotonic()
        pending = False
        for f in found:
            if server.closing:
                return
            if f.team is None:
                await server.in_state(
                    functools.partial(tracker.history.save_scan, f.lead_path, f.sig, None),
                    background=True,
                )
                continue
            try:
                pending = await self._one(tracker, fmt, f) or pending
            except asyncio.CancelledError:
                raise
            except Exception:  # this session's problem (looked at again next start)
                if server.closing:
                    return
                log.exception("rebuilding the team of %s failed", f.lead_path)
            if pending and time.monotonic() - told >= TEAMS_CHANGED_SECONDS:
                await server.apply(_teams_changed)
                told, pending = time.monotonic(), False
        if pending:
            await server.apply(_teams_changed)

    async def _one(self, tracker: Tracker, fmt: InboxFormat, f: Found) -> bool:
        server = self.server
        tid = f"{fmt.name}:{f.team}"
        want = await server.in_state(
            lambda: wanted(tracker, tid, f, team_dir(f)[1], f.lead_path not in self.known),
            background=True,
        )
        if want is None:
            return False
        new = False
        if want:
            prices = self.prices()
            rb = await server.in_pool(lambda: read_session(f, tracker.settings, prices, fmt))
            if rb is None:
                return False
            new = await server.in_state(functools.partial(save, tracker, rb), background=True)
            for i in range(0, len(rb.sends), SENDS_A_STEP):
                chunk = rb.sends[i : i + SENDS_A_STEP]
                await server.in_state(
                    functools.partial(recover, tracker, rb.spec, chunk), background=True
                )
            for i in range(0, len(rb.delivered), SENDS_A_STEP):
                part = rb.delivered[i : i + SENDS_A_STEP]
                await server.in_state(
                    functools.partial(recover_delivered, tracker, rb.spec, part), background=True
                )
            await server.in_state(functools.partial(self.forget, tid), background=True)
        await server.in_state(
            functools.partial(tracker.history.save_scan, f.lead_path, f.sig, tid), background=True
        )
        return new


def _teams_changed(tracker: Tracker) -> tuple[bool, list[Any]]:
    return True, []
