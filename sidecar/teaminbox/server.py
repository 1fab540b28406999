"""The pygls JSON-RPC server: the `teamInbox/*` methods and notifications (docs/protocol.md).

All inbox state lives in one Tracker touched only by a single "state"
thread; sends and mark-reads run in the default pool (they may wait on a
peer's lock); the event loop only routes messages and never parses a file.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)

from . import __version__, actions
from .discovery import Settings, default_roots, describe, parse_root, pick_team
from .errors import InvalidParams, TeamInboxError, check_name, error_for
from .history import History
from .model import FORMATS, Message, Team, converter
from .watcher import Change, Hints, RootWatcher, Tracker, hint_kind

log = logging.getLogger("teaminbox")
T = TypeVar("T")
RESCAN_SECONDS = 2.0
PRUNE_SECONDS = 3600.0  # the history forgets old archived messages hourly (and at start)
COALESCE_SECONDS = 0.002
NOTIFY_MODES = ("replies", "messages", "all")


def plain_converter() -> cattrs.Converter:
    """Leave custom methods' params and results as plain dicts (pygls makes namedtuples)."""
    conv: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]

    def keep(obj: dict[str, Any], cls: type) -> Any:
        return cls(**obj)

    conv.register_structure_hook(JsonRPCRequestMessage, keep)
    conv.register_structure_hook(JsonRPCNotification, keep)
    conv.register_structure_hook(JsonRPCResponseMessage, keep)
    return conv


def _timestamp(m: Message) -> str:
    return m.timestamp


def rpc_error(err: TeamInboxError) -> JsonRpcException:
    code = -32602 if isinstance(err, InvalidParams) else -32001
    return JsonRpcException(code=code, message=err.message, data={"code": err.code})


class Params:
    """Typed access to a request's params; anything malformed is InvalidParams."""

    def __init__(self, raw: Any) -> None:
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise InvalidParams("params must be an object")
        self.raw = raw

    def get(self, key: str, kind: type[T] | tuple[type, ...], default: Any = None) -> Any:
        value = self.raw.get(key, default)
        if value is None:
            return default
        if kind is int and isinstance(value, bool):
            raise InvalidParams(f"{key} must be an integer")
        if not isinstance(value, kind):
            raise InvalidParams(f"{key} has the wrong type")
        return value

    def need(self, key: str, kind: type[T]) -> T:
        value = self.get(key, kind)
        if value is None:
            raise InvalidParams(f"missing {key}")
        return value  # type: ignore[no-any-return]


class TeamInboxServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("teaminbox", __version__, converter_factory=plain_converter)
        self.settings = Settings()
        self.history_path: str | None = None
        self.history_days: float = 90
        self.notify_mode = "replies"
        self.state_pool = ThreadPoolExecutor(1, thread_name_prefix="teaminbox-state")
        self.tracker: Tracker | None = None
        self.watcher: RootWatcher | None = None
        self.ready: asyncio.Event | None = None
        self._pending: set[str] = set()
        self._full_scan = False
        self._flush_scheduled = False
        self._last_unread: Any = None
        self._tasks: set[asyncio.Task[Any]] = set()

    # --- configuration and start-up -------------------------------------------------

    def configure(self, options: Any) -> None:
        opts = Params(options)
        roots = default_roots() if opts.get("defaultRoots", bool, True) else []
        roots += [parse_root(r) for r in opts.get("roots", list, []) if isinstance(r, str)]
        self.settings = Settings(roots=roots)
        identity = opts.get("identity", (dict, str), {})
        if isinstance(identity, str):
            identity = {f: identity for f in FORMATS}
        for fmt in FORMATS:
            name = identity.get(fmt)
            if isinstance(name, str) and name:
                self.settings.identity[fmt] = check_name(name, "identity")
        self.history_path = opts.get("historyPath", str)
        self.history_days = opts.get("historyDays", (int, float), 90)
        mode = opts.get("notify", str, "replies")
        if mode not in NOTIFY_MODES:
            raise InvalidParams(f"notify must be one of {', '.join(NOTIFY_MODES)}")
        self.notify_mode = mode

    async def start(self) -> None:
        self.ready = asyncio.Event()
        loop = asyncio.get_running_loop()
        self.tracker = await self.in_state(
            lambda: Tracker(self.settings, History(self.history_path, self.history_days))
        )

        def forward(path: str) -> None:
            # Filtered here: writing a 27 MB temp file raises hundreds of events.
            kind = hint_kind(path)
            if kind is not None:
                loop.call_soon_threadsafe(self.hint, path, kind)

        hints = Hints(forward)
        self.watcher = RootWatcher(hints)
        self.watcher.ensure([r.path for r in self.settings.roots])
        await self.rescan()
        self.ready.set()
        self._spawn(self._periodic())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def ensure_ready(self) -> Tracker:
        if self.ready is None:
            await self.start()
        assert self.ready is not None
        await self.ready.wait()
        assert self.tracker is not None
        return self.tracker

    async def in_state(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.state_pool, fn)

    async def in_pool(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.thread_pool, fn)

    # --- watching ----------------------------------------------------------------------

    def hint(self, path: str, kind: str) -> None:
        if kind == "team":
            self._full_scan = True
        else:
            self._pending.add(path)
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_later(
                COALESCE_SECONDS, lambda: self._spawn(self._flush())
            )

    async def _flush(self) -> None:
        self._flush_scheduled = False
        paths, self._pending = self._pending, set()
        full, self._full_scan = self._full_scan, False
        tracker = self.tracker
        if tracker is None:
            return
        if full:
            await self.rescan()
        elif paths:
            await self.apply(lambda t: t.refresh_paths(paths))

    async def apply(self, step: Callable[[Tracker], tuple[bool, list[Change]]]) -> None:
        """Run a tracker step on the state thread, then publish what it changed."""
        tracker = self.tracker
        assert tracker is not None

        def run() -> tuple[bool, list[Change], dict[str, Any] | None]:
            changed, changes = step(tracker)
            return changed, changes, self._unread() if changed or changes else None

        self.publish(*await self.in_state(run))

    async def rescan(self) -> None:
        await self.apply(lambda t: t.scan())
        if self.watcher:
            self.watcher.ensure([r.path for r in self.settings.roots])

    async def _periodic(self) -> None:
        pruned = time.monotonic()
        while True:
            await asyncio.sleep(RESCAN_SECONDS)
            try:
                await self.rescan()
                if time.monotonic() - pruned > PRUNE_SECONDS and self.tracker:
                    pruned = time.monotonic()
                    await self.in_state(self.tracker.history.prune)
            except Exception:  # keep watching whatever one scan hit
                log.exception("rescan failed")

    async def refresh(self, paths: set[str]) -> None:
        if paths:
            await self.apply(lambda t: t.refresh_paths(paths))

    # --- notifications -----------------------------------------------------------------

    def _alert(self, change: Change, msg: Message) -> bool:
        tracker = self.tracker
        assert tracker is not None
        r = tracker.rosters.get(change.team)
        if r is None or msg.read or msg.from_ == r.identity:
            return False
        if change.initial and not change.known_before:
            return False  # first sight of this inbox: a baseline, not news
        if change.inbox == r.own_inbox:
            return self.notify_mode == "all" or msg.structured is None
        lead = next((m for m in r.members if m.lead), None)
        return (
            self.notify_mode == "messages"
            and lead is not None
            and change.inbox == lead.inbox
            and msg.structured is None
        )

    def publish(
        self, teams_changed: bool, changes: list[Change], unread: dict[str, Any] | None
    ) -> None:
        for c in changes:
            if not c.initial:
                self.protocol.notify(
                    "teamInbox/didChange",
                    {
                        "team": c.team,
                        "inbox": c.inbox,
                        "added": converter.unstructure(c.added),
                        "removed": c.removed,
                        "updated": converter.unstructure(c.updated),
                        "total": c.total,
                        "unread": c.unread,
                    },
                )
            for msg in c.added:
                if self._alert(c, msg):
                    self.protocol.notify(
                        "teamInbox/replied", {"message": converter.unstructure(msg)}
                    )
        if teams_changed:
            self.protocol.notify("teamInbox/teamsChanged", {})
        self.send_unread(unread)

    def send_unread(self, unread: dict[str, Any] | None) -> None:
        if unread is not None and unread != self._last_unread:
            self._last_unread = unread
            self.protocol.notify("teamInbox/unread", unread)

    def _unread(self) -> dict[str, Any]:
        """Unread and unseen messages in the person's own inboxes (state thread)."""
        tracker = self.tracker
        assert tracker is not None
        by_team: dict[str, int] = {}
        for tid, r in tracker.rosters.items():
            state = tracker.inboxes.get((tid, r.own_inbox or ""))
            if state is None:
                continue
            seen = tracker.history.seen_ids(tid, state.inbox)
            rows = state.rows
            by_team[tid] = (
                sum(
                    1
                    for i, read in zip(rows.iter_ids(), rows.read, strict=True)
                    if not read and i not in seen
                )
                if seen
                else rows.unread
            )
        return {"total": sum(by_team.values()), "byTeam": by_team}

    # --- request helpers (state thread) --------------------------------------------------

    def resolve(self, team: str) -> str:
        tracker = self.tracker
        assert tracker is not None
        return pick_team(list(tracker.teams.values()), team).id

    def teams(self) -> list[Team]:
        tracker = self.tracker
        assert tracker is not None
        out = []
        for tid, team_dir in tracker.teams.items():
            team = describe(team_dir, self.settings, counts=False)
            for m in team.members:
                state = tracker.inboxes.get((tid, m.inbox))
                if state is not None:
                    m.total, m.unread, m.error = len(state.rows), state.unread, state.error
            out.append(team)
        return out


server = TeamInboxServer()


def _handler(fn: Callable[[TeamInboxServer, Params], Any]) -> Callable[..., Any]:
    """Wrap a handler: parse params, wait for the first scan, map errors to JSON-RPC errors."""

    async def run(ls: TeamInboxServer, raw: Any) -> Any:
        try:
            await ls.ensure_ready()
            return await fn(ls, Params(raw))
        except TeamInboxError as err:
            raise rpc_error(err) from err

    return run


@server.feature(types.INITIALIZE)
def initialize(ls: TeamInboxServer, params: types.InitializeParams) -> None:
    try:
        ls.configure(params.initialization_options)
    except TeamInboxError as err:
        raise rpc_error(err) from err


@server.feature(types.INITIALIZED)
async def initialized(ls: TeamInboxServer, params: types.InitializedParams) -> None:
    await ls.ensure_ready()


@server.feature("teamInbox/teams")
@_handler
async def teams(ls: TeamInboxServer, p: Params) -> Any:
    await ls.rescan()
    return {"teams": converter.unstructure(await ls.in_state(ls.teams))}


@server.feature("teamInbox/messages")
@_handler
async def messages(ls: TeamInboxServer, p: Params) -> Any:
    team, inbox = p.need("team", str), p.need("inbox", str)
    unread_only = p.get("unreadOnly", bool, False)
    offset, limit = p.get("offset", int, 0), p.get("limit", int, 200)
    archived = p.get("includeArchived", bool, False)
    if offset < 0 or limit < 0:
        raise InvalidParams("offset and limit must not be negative")
    tracker = ls.tracker
    assert tracker is not None

    def locate() -> str:
        tid = ls.resolve(team)
        return tracker.teams[tid].inbox_path(tracker.rosters[tid].resolve_inbox(inbox).inbox)

    await ls.refresh({await ls.in_state(locate)})

    def page() -> dict[str, Any]:
        tid = ls.resolve(team)
        r = tracker.rosters[tid]
        member = r.resolve_inbox(inbox)
        state = tracker.inboxes[(tid, member.inbox)]
        if state.error:
            raise error_for(state.error)
        seen = tracker.history.seen_ids(tid, member.inbox)
        rows, fmt = state.rows, state.fmt
        # Newest first, parsing only the entries on the page.
        live: Iterable[Message] = (
            rows.message(fmt, i, tid, member.inbox)
            for i in range(len(rows) - 1, -1, -1)
            if not (unread_only and rows.read[i])
        )
        if archived and not unread_only:  # pruned entries were delivered: never unread
            old = sorted(tracker.history.archived(tid, member.inbox), key=_timestamp, reverse=True)
            live = heapq.merge(live, old, key=_timestamp, reverse=True)
        chosen = list(itertools.islice(live, offset, offset + limit))
        for m in chosen:
            m.seen = m.id in seen or (member.owned and m.read)
        return {
            "messages": converter.unstructure(chosen),
            "total": len(rows),
            "unread": rows.unread,
        }

    return await ls.in_state(page)


@server.feature("teamInbox/send")
@_handler
async def send(ls: TeamInboxServer, p: Params) -> Any:
    team, to, text = p.need("team", str), p.need("to", str), p.get("text", str, "")
    results = await ls.in_pool(
        lambda: actions.send(
            ls.settings,
            team,
            to,
            text,
            summary=p.get("summary", str),
            type=p.get("type", str),
            color=p.get("color", str),
            payload=p.get("payload", dict),
        )
    )
    tracker = ls.tracker
    assert tracker is not None
    r = await ls.in_state(lambda: tracker.rosters[ls.resolve(team)])
    await ls.refresh({r.team.inbox_path(res.inbox) for res in results if res.ok and res.inbox})
    return {"results": converter.unstructure(results)}


@server.feature("teamInbox/markRead")
@_handler
async def mark_read(ls: TeamInboxServer, p: Params) -> Any:
    team, inbox = p.need("team", str), p.need("inbox", str)
    ids = p.get("ids", list, [])
    if not all(isinstance(i, str) for i in ids):
        raise InvalidParams("ids must be strings")
    marked = await ls.in_pool(
        lambda: actions.mark_read(
            ls.settings,
            team,
            inbox,
            ids,
            all=p.get("all", bool, False),
            deliver=p.get("deliver", bool, False),
        )
    )
    await ls.rescan()
    return {"marked": marked}


@server.feature("teamInbox/markSeen")
@_handler
async def mark_seen(ls: TeamInboxServer, p: Params) -> Any:
    team, inbox = p.need("team", str), p.need("inbox", str)
    ids = p.get("ids", list, [])
    every = p.get("all", bool, False)
    if not every and not ids:
        raise InvalidParams("give ids or all")
    tracker = ls.tracker
    assert tracker is not None

    def run() -> int:
        tid = ls.resolve(team)
        member = tracker.rosters[tid].resolve_inbox(inbox)
        chosen = ids
        if every:
            chosen = list(tracker.inboxes[(tid, member.inbox)].rows.ids)
        return tracker.history.mark_seen(tid, member.inbox, [str(i) for i in chosen])

    marked = await ls.in_state(run)
    ls.send_unread(await ls.in_state(ls._unread))
    return {"marked": marked}


@server.feature("teamInbox/search")
@_handler
async def search(ls: TeamInboxServer, p: Params) -> Any:
    query = p.need("query", str)
    team = p.get("team", str)
    limit = p.get("limit", int, 50)
    tracker = ls.tracker
    assert tracker is not None

    def run() -> list[Message]:
        tid = ls.resolve(team) if team else None
        return tracker.history.search(query, tid, limit)

    return {"messages": converter.unstructure(await ls.in_state(run))}


@server.feature("teamInbox/compact")
@_handler
async def compact(ls: TeamInboxServer, p: Params) -> Any:
    team = p.need("team", str)
    inbox = p.get("inbox", str)
    tracker = ls.tracker
    assert tracker is not None
    await ls.rescan()  # the history must hold every entry before any is pruned
    result = await ls.in_state(
        lambda: actions.compact(
            ls.settings,
            team,
            inbox,
            lambda tid, ib: tracker.history.known_ids(tid, ib),
        )
    )
    await ls.rescan()
    return converter.unstructure(result)


@server.feature("teamInbox/doctor")
@_handler
async def doctor(ls: TeamInboxServer, p: Params) -> Any:
    findings = await ls.in_pool(lambda: actions.doctor(ls.settings))
    return {"findings": converter.unstructure(findings)}


@server.feature("teamInbox/inboxPath")
@_handler
async def inbox_path(ls: TeamInboxServer, p: Params) -> Any:
    team, inbox = p.need("team", str), p.need("inbox", str)
    r = await ls.in_pool(lambda: actions.team_roster(ls.settings, team))
    return {"path": r.team.inbox_path(r.resolve_inbox(inbox).inbox)}


def serve(tcp: str | None = None) -> None:
    logging.basicConfig(
        level=os.environ.get("TEAMINBOX_LOG", "WARNING").upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )  # stderr: stdout carries the protocol
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
