"""The in-memory inbox model: every watched team's roster and inbox rows, and the
queries the features ask of them. Used from one thread only (the server's state
thread, or the CLI's main thread).

Loads are diffed against what the sidecar last saw (across restarts: against
the history), so a prune, a peer's rewrite or a restart never yields a
duplicate or a missed message. Every new message is archived as it is seen.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attrs
import orjson

from .diff import UNKNOWN, InboxDiff, compare, gone
from .discovery import (
    Roster,
    Settings,
    TeamDir,
    describe,
    find_teams,
    pick_team,
    pid_alive,
    roster,
    scan_key,
)
from .dress import dress
from .errors import (
    CorruptInbox,
    InvalidParams,
    TeamEnded,
    TeamInboxError,
    UnknownInbox,
    UnknownTeam,
    error_for,
)
from .history import History
from .inbox_state import InboxState
from .model import Member, Message, Problem, Team, converter
from .protocol import ForgetResult
from .rows import Rows, grow_rows, load_rows, steady_malloc
from .tasks import Boards

log = logging.getLogger("teaminbox")
CONFIG_GRACE = 1.0  # Claude Code writes config.json in place: a torn read is not corruption
ENDED_LISTED = 50  # ended teams in a `teams` answer, most recent first


@attrs.define
class Change:
    team: str
    inbox: str
    diff: InboxDiff
    total: int
    unread: int
    initial: bool = False  # first look at this inbox in this process
    known_before: bool = True  # the history knew the inbox (else: a baseline, no alerts)


Feed = Callable[[list[Message], bool], None]
Finish = Callable[[Rows], Change | None]


def _by_ts(m: Message) -> str:
    return m.timestamp


def _naming(r: Roster) -> str:
    name = r.team.config.get("name") if r.team.config else None
    return repr((name, sorted(r.info.items())))


class Tracker:
    def __init__(self, settings: Settings, history: History) -> None:
        steady_malloc()  # big inboxes' bytes come and go: see rows.steady_malloc
        self.settings = settings
        self.history = history
        # First loads of inboxes bigger than this are not done in refresh but queued in
        # `deferred` for the caller (the server loads them off the state thread's queue).
        self.defer_bytes: int | None = None
        self.deferred: list[InboxState] = []
        self.teams: dict[str, TeamDir] = {}
        self.rosters: dict[str, Roster] = {}
        self.inboxes: dict[tuple[str, str], InboxState] = {}
        self.by_path: dict[str, tuple[str, str]] = {}
        self._shape: list[tuple[object, str | None]] | None = None
        self._scan_key: tuple[Any, ...] | None = None  # what the last full scan read (scan)
        self._alive: tuple[bool | None, ...] = ()  # each lead's liveness at the last scan
        self._saved: dict[str, bytes] = {}  # each live team as last archived
        self._good_config: dict[str, dict[str, Any]] = {}
        self._bad_since: dict[str, float] = {}
        self.boards = Boards(history)  # each live team's task board (tasks.py)
        # Features add what they derive to each Team the queries give (state thread; a
        # hook replaces members rather than changing the roster's own objects).
        self.team_hooks: list[Callable[[Team], None]] = []

    # --- loading ---------------------------------------------------------------------

    def scan(self) -> tuple[bool, list[Change]]:
        """Re-list teams and members; refresh every inbox. Returns (teams changed, changes)."""
        self.history.catch_up()  # archiving refused earlier (the disk full): try again
        key = self._inputs_key()
        if key is not None and key == self._scan_key:  # the teams and rosters are as read
            self.boards.sync(self.teams, start=False)
            changes: list[Change] = []
        else:
            changes = self._relist()
            # The stats taken before the read vouch for it only if nothing moved while it
            # read: a team made after find_teams listed the root, keyed by a stat taken
            # after, would stay unlisted by every later scan. New or gone teams change the
            # key too: the next scan lists once more and keys that.
            after = self._inputs_key()
            self._scan_key = after if after == key else None
        for state in list(self.inboxes.values()):
            change = self.refresh(state)
            if change:
                changes.append(change)
        self._alive = self._leads_alive()
        return self._teams_changed(), changes

    def tick(self) -> tuple[bool, list[Change]]:
        """The light look between full scans (the server's tick): what no file event tells.
        A torn config's grace running or a lead that died: a full scan. Else only inboxes
        whose last read failed are read again (a corrupt one costs a stat: same bytes), and
        archive writes the disk refused are tried again (nothing to do when none waits)."""
        self.history.catch_up()
        if self._bad_since or self._leads_alive() != self._alive:
            return self.scan()
        failed = [s for s in self.inboxes.values() if s.error is not None]
        changes = [c for s in failed if (c := self.refresh(s))]
        return self._teams_changed(), changes

    def _leads_alive(self) -> tuple[bool | None, ...]:
        return tuple(pid_alive(r.info.get("lead_pid")) for r in self.rosters.values())

    def _relist(self) -> list[Change]:
        """Teams and rosters read again; inboxes added for new members, dropped (and their
        messages archived as gone) for members that left."""
        teams = {t.id: t for t in find_teams(self.settings.roots)}
        for t in teams.values():
            self._steady_config(t)
        rosters = {tid: roster(t, self.settings) for tid, t in teams.items()}
        ended = set(self.teams) - set(teams)
        self.teams, self.rosters = teams, rosters
        self._archive_teams(ended)
        self.boards.sync(teams, start=self._shape is None)
        wanted: set[tuple[str, str]] = set()
        for tid, r in rosters.items():
            for m in r.members:
                key = (tid, m.inbox)
                wanted.add(key)
                if key not in self.inboxes:
                    path = teams[tid].inbox_path(m.inbox)
                    self.inboxes[key] = InboxState(tid, m.inbox, path, teams[tid].fmt)
                    self.by_path[path] = key
        changes: list[Change] = []
        for key in list(self.inboxes):
            if key not in wanted:
                state = self.inboxes.pop(key)
                self.by_path.pop(state.path, None)
                if len(state.rows):
                    removed = state.rows.ids
                    self.history.record(state.team, state.inbox, [], removed)
                    changes.append(
                        Change(state.team, state.inbox, InboxDiff(removed=removed), 0, 0)
                    )
        return changes

    def _inputs_key(self) -> tuple[Any, ...] | None:
        """What a full scan's teams and rosters depend on: the stats of what it read, the
        settings and each lead's liveness (in the archived team). None: scan in full."""
        if self._bad_since:  # a torn config's grace runs on the clock
            return None
        key = scan_key(self.settings.roots, self.teams.values(), time.time_ns())
        if key is None:
            return None
        return key, self._leads_alive(), repr(self.settings)

    def _steady_config(self, t: TeamDir) -> None:
        """Keep the last good config while a fresh parse error is younger than the grace."""
        now = time.monotonic()
        if t.config is not None:
            self._good_config[t.id] = t.config
            self._bad_since.pop(t.id, None)
            return
        if t.config_error is None or t.config_error.code != "corrupt_config":
            return
        since = self._bad_since.setdefault(t.id, now)
        if now - since < CONFIG_GRACE:
            t.config, t.config_error = self._good_config.get(t.id), None

    def _archive_teams(self, ended: set[str]) -> None:
        """Save each live team as it looks now (when it changed); mark vanished ones ended."""
        for tid, r in self.rosters.items():
            if r.team.config is None and (tid in self._saved or self.history.team_body(tid)):
                continue  # a folder being deleted loses its config first: keep the last roster
            body = orjson.dumps(converter.unstructure(describe(r)))
            if self._saved.get(tid) != body:
                self.history.save_team(tid, body)
                self._saved[tid] = body
        if ended or not self._shape:  # and at start: teams that ended while we were away
            for tid in self.history.end_teams(self.rosters):
                self._saved.pop(tid, None)

    def _teams_changed(self) -> bool:
        """Did the set of teams and inboxes, or any of their errors, change since last asked?"""
        inboxes = sorted((k, s.error.message if s.error else None) for k, s in self.inboxes.items())
        teams = sorted(
            (k, t.config_error.message if t.config_error else None) for k, t in self.teams.items()
        )
        # what names a team for people (its title, label, lead): a config that lands after
        # the inboxes, or renames the team, changes no inbox but what the client shows
        named = sorted((("named", k), _naming(r)) for k, r in self.rosters.items())
        # a member the config no longer names keeps its inbox while the file stays: it
        # changes no inbox, but the client shows it as having left
        left = sorted(
            (("left", k), repr([m.name for m in r.members if m.left]))
            for k, r in self.rosters.items()
        )
        shape: list[tuple[object, str | None]] = [*inboxes, *teams, *named, *left]
        # The first scan is no change: no client can have listed teams before it.
        changed = self._shape is not None and shape != self._shape
        self._shape = shape
        return changed

    def refresh_paths(self, paths: Iterable[str]) -> tuple[bool, list[Change]]:
        """Re-read the inboxes named by hints; anything unknown triggers a full scan."""
        paths = set(paths)
        boards = {p for p in paths if p not in self.by_path and self.boards.claims(p)}
        if boards:  # a task board's files (an unknown board is no team's: not a scan)
            self.boards.refresh_locations(boards)
            paths -= boards
        if any(p not in self.by_path for p in paths):
            return self.scan()
        changes = [c for p in paths if (c := self.refresh(self.inboxes[self.by_path[p]]))]
        return self._teams_changed(), changes

    def refresh(self, state: InboxState) -> Change | None:
        if state.loading:
            return None  # `loaded` takes over when the deferred load ends
        fmt = state.fmt
        sig: tuple[int, ...] | None = None
        try:
            sig = fmt.sig(state.path)
            if sig == state.sig and (state.parsed or state.error):
                return None
            if self._defer(state, sig):
                return None
            change = self._load(state, sig is not None)
        except Exception as err:  # any error is this inbox's: the others go on
            self._failed(state, sig, err)
            return None
        state.sig = sig
        return change

    def _failed(self, state: InboxState, sig: tuple[int, ...] | None, err: Exception) -> None:
        if isinstance(err, CorruptInbox):
            state.error = Problem(err.code, err.message, err.path)
            state.sig = sig  # the same bytes stay corrupt: wait for a change
            return  # keep what we had: a corrupt file removes nothing
        # Not recorded as seen: retried on the next hint or rescan (logged once).
        code = err.code if isinstance(err, TeamInboxError) else "read_failed"
        problem = Problem(code, f"{state.path}: {err}", state.path)
        if problem == state.error:
            pass
        elif isinstance(err, (TeamInboxError, OSError, ValueError, RecursionError, MemoryError)):
            log.warning("reading %s failed: %s", state.path, err)
        else:  # a bug somewhere: say where, keep serving the rest
            log.exception("reading %s failed", state.path)
        state.error = problem

    def _defer(self, state: InboxState, sig: tuple[int, ...] | None) -> bool:
        """Leave a first look at an inbox over `defer_bytes` to the caller (`deferred`)."""
        if state.parsed or sig is None or self.defer_bytes is None:
            return False
        try:
            size = os.stat(state.path).st_size
        except OSError:
            return False
        if size <= self.defer_bytes:
            return False
        state.loading = True
        state.error = Problem("loading", f"{state.path}: loading {size:,} bytes", state.path)
        self.deferred.append(state)
        return True

    def loaded(
        self,
        state: InboxState,
        sig: tuple[int, ...] | None,
        finish: Finish,
        result: Rows | Exception,
    ) -> tuple[bool, list[Change]]:
        """A deferred load ended (`begin_load` gave `finish`; `result` from load_rows)."""
        state.loading = False
        change = None
        if self.inboxes.get((state.team, state.inbox)) is not state:
            pass  # gone meanwhile
        elif isinstance(result, Exception):
            state.error = None
            self._failed(state, sig, result)
        else:
            try:
                change = finish(result)
                state.sig = sig
            except Exception as err:
                self._failed(state, sig, err)
        return self._teams_changed(), [change] if change else []

    def _load(self, state: InboxState, exists: bool) -> Change | None:
        feed, finish = self.begin_load(state)
        fmt, path, team, inbox = state.fmt, state.path, state.team, state.inbox
        rows = grow_rows(fmt, path, state.rows, team, inbox, feed) if state.parsed else None
        if rows is None:
            data = fmt.read(path) if exists else None
            rows = load_rows(fmt, path, data, team, inbox, feed)
        return finish(rows)

    def begin_load(self, state: InboxState) -> tuple[Feed, Finish]:
        """`feed` for load_rows (each chunk archived as it comes) and `finish` for its Rows."""
        # Until a first good parse, diff against the history: a file that was corrupt
        # at start-up and is fixed later is no news for what the history already knew.
        initial = not state.parsed
        old = state.rows
        known_before = True
        before: dict[str, int] | None = None
        if initial:
            known_before = self.history.known_inbox(state.team, state.inbox)

        def known() -> dict[str, int]:
            nonlocal before
            if before is None:
                if initial:
                    ids = self.history.known_ids(state.team, state.inbox)
                    before = dict.fromkeys(ids, UNKNOWN)
                else:
                    before = dict(zip(old.ids, old.read, strict=True))
            return before

        diff = InboxDiff()
        tail = False

        def feed(msgs: list[Message], is_tail: bool) -> None:
            nonlocal tail
            tail = is_tail
            added, updated = compare(None if is_tail else known(), msgs)
            diff.updated += updated
            if added:  # archived chunk by chunk: a first look at a huge inbox stays small
                self.history.record(state.team, state.inbox, added, [])
                if known_before:
                    diff.added += added

        def finish(rows: Rows) -> Change | None:
            if not tail:
                diff.removed = gone(known(), rows.iter_ids())
            if diff.removed or initial:
                self.history.record(state.team, state.inbox, [], diff.removed)
            state.error = None
            state.parsed = True
            state.rows = rows
            if initial or diff:
                return Change(
                    state.team,
                    state.inbox,
                    diff,
                    len(rows),
                    rows.unread,
                    initial=initial,
                    known_before=known_before,
                )
            return None

        return feed, finish

    # --- queries -----------------------------------------------------------------------

    def resolve(self, team: str) -> str:
        """A live team's id (by id or unambiguous name)."""
        exact = self.teams.get(team)  # an id: not a look through every team
        return str(pick_team([exact] if exact else self.teams.values(), team).id)

    def find(self, team: str) -> Team:
        """A live or ended team, as the wire shows it."""
        try:
            return self._live_team(self.resolve(team))
        except UnknownTeam as err:
            exact = self.history.team_body(team)
            if exact is not None and exact[1] is not None:
                return self._ended(exact[0])
            # by name: only those teams' bodies (parsing every ended team's is slow)
            ended = [self._ended(b) for b, _ in self.history.ended_teams_named(team)]
            try:
                found: Team = pick_team(ended, team)
            except UnknownTeam:
                raise err from None
            return found

    def roster(self, team: str) -> Roster:
        try:
            return self.rosters[self.resolve(team)]
        except UnknownTeam as err:
            t = self.find(team)
            raise TeamEnded(f"team {t.id} has ended: its messages are archived, read-only") from err

    def member(self, team: str, inbox: str) -> tuple[Roster, Member]:
        r = self.roster(team)
        return r, r.resolve_inbox(inbox)

    def state(self, team: str, inbox: str) -> InboxState:
        r, m = self.member(team, inbox)
        return self.inboxes[(r.team.id, m.inbox)]

    def _live_team(self, tid: str) -> Team:
        team = describe(self.rosters[tid])
        for m in team.members:
            state = self.inboxes.get((tid, m.inbox))
            if state is not None:
                m.total, m.unread, m.error = len(state.rows), state.rows.unread, state.error
        for hook in self.team_hooks:
            hook(team)
        return team

    def _ended(self, body: bytes) -> Team:
        team: Team = converter.structure(orjson.loads(body), Team)
        team.ended, team.lead_alive = True, False
        for m in team.members:
            m.unread = 0
        for hook in self.team_hooks:
            hook(team)
        return team

    def live_path(self, team: str, inbox: str) -> str | None:
        """The inbox's path, None for an ended team."""
        try:
            return self.state(team, inbox).path
        except TeamEnded:
            return None

    def team_list(self, include_ended: bool = True) -> list[Team]:
        out = [self._live_team(tid) for tid in self.rosters]
        if include_ended:
            out += [self._ended(b) for b, _ in self.history.ended_teams(ENDED_LISTED)]
        return out

    def forget(
        self, team: str, *, dry_run: bool = False, expect: int | None = None
    ) -> ForgetResult:
        """Forget an ended team, or (dry_run) say how much that removes. Never a team whose
        folder is still there: another window (other roots, one history) may show it live."""
        t = self.find(team)
        if not t.ended:
            raise InvalidParams(f"team {t.id} is live: only an ended team can be forgotten")
        folder = self.history.live_folder(t.id)
        if folder is not None:
            raise InvalidParams(
                f"team {t.id} has not ended: its folder {folder} is still there (another window"
                " may show it); only a team whose folder is gone can be forgotten"
            )
        if not self.history.catch_up():  # a waiting write would bring some of it back
            raise InvalidParams(
                f"the history cannot be written yet (see the log): team {t.id} is not forgotten"
            )
        messages, inboxes = self.history.team_size(t.id)
        if expect is not None and expect != messages:
            raise InvalidParams(
                f"team {t.id} now has {messages} archived messages, not the {expect} confirmed:"
                " nothing was forgotten; ask again"
            )
        forgotten = 0 if dry_run else self.history.forget_team(t.id)
        return ForgetResult(t.id, messages, inboxes, forgotten)

    def conversation(self, team: str, offset: int = 0, limit: int = 200) -> list[Message]:
        """The team's whole exchange, newest first: every inbox, delivered ones included."""
        t = self.find(team)
        msgs = self.history.team_messages(t.id, offset, limit)
        r = self.rosters.get(t.id)
        read: dict[str, dict[str, int]] = {}
        seen: dict[str, set[str]] = {}
        for m in msgs:
            member = (
                r.member(m.inbox) if r else next((x for x in t.members if x.inbox == m.inbox), None)
            )
            state = self.inboxes.get((t.id, m.inbox))
            if not m.archived and state is not None:
                if m.inbox not in read:
                    read[m.inbox] = dict(zip(state.rows.iter_ids(), state.rows.read, strict=True))
                m.read = bool(read[m.inbox].get(m.id, m.read))
            if m.inbox not in seen:
                seen[m.inbox] = self.history.seen_ids(t.id, m.inbox)
            dress((m,), r, member, seen[m.inbox], t.identity)
        return msgs

    def page(
        self,
        team: str,
        inbox: str,
        *,
        unread_only: bool = False,
        offset: int = 0,
        limit: int = 200,
        archived: bool = False,
    ) -> tuple[list[Message], int, int]:
        """Newest first, parsing only the entries on the page; (messages, total, unread)."""
        try:
            r, member = self.member(team, inbox)
        except TeamEnded:
            return self._ended_page(team, inbox, offset, limit)
        state = self.inboxes[(r.team.id, member.inbox)]
        if state.error:
            raise error_for(state.error)
        seen = self.history.seen_ids(r.team.id, member.inbox)
        rows, fmt = state.rows, state.fmt
        live: Iterator[Message] = (
            rows.message(fmt, i, r.team.id, member.inbox)
            for i in range(len(rows) - 1, -1, -1)
            if not (unread_only and rows.read[i])
        )
        if archived and not unread_only:  # pruned entries were delivered: never unread
            old = self.history.archived(r.team.id, member.inbox, newest=offset + limit)
            live = heapq.merge(live, old, key=_by_ts, reverse=True)
        chosen = list(itertools.islice(live, offset, offset + limit))
        dress(chosen, r, member, seen)
        return chosen, len(rows), rows.unread

    def _ended_page(
        self, team: str, inbox: str, offset: int, limit: int
    ) -> tuple[list[Message], int, int]:
        t = self.find(team)
        member = next((m for m in t.members if inbox in (m.inbox, m.name, m.agent_id)), None)
        if member is None:
            raise UnknownInbox(f"team {t.id} has no inbox {inbox!r}")
        old = self.history.archived(t.id, member.inbox, newest=offset + limit, ended=True)
        seen = self.history.seen_ids(t.id, member.inbox)
        chosen = old[offset : offset + limit]
        dress(chosen, None, member, seen, t.identity)
        return chosen, 0, 0

    def unread(self) -> dict[str, int]:
        """Unread and unseen messages in the person's own inbox of each team."""
        by_team: dict[str, int] = {}
        self.history.check_seen()
        for tid, r in self.rosters.items():
            state = self.inboxes.get((tid, r.own_inbox or ""))
            if state is not None:
                seen = self.history.seen_set(tid, state.inbox, checked=True)
                by_team[tid] = state.unseen(seen)
        return by_team

    def ids(self, team: str, inbox: str) -> list[str]:
        return self.state(team, inbox).rows.ids
