"""The server's core: lifecycle, the state thread, watching, and handler registration.

No pygls here: the first answers leave before pygls is imported (router.py), and pygls
(lsp.py) takes over the same core once it is loaded.

All inbox state lives in one Tracker touched only by the single "state" thread
(`in_state`); work that may wait on a peer's lock runs in the pool (`in_pool`)
and never on the state thread; the event loop only routes messages. Requests'
work goes before the watch's (hinted inboxes re-read a few at a time, the
periodic look, big first loads): a flood of writes never queues a request behind
its backlog. Features (features/, each a `Feature`: feature.py) register their handlers
through `request`; the core calls their hooks in their declared order, each feature's call
on its own (`call_features`): one that raises is logged and the others go on.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, Protocol, TypeVar

from ..discovery import Settings, watch_plan, watch_roots
from ..errors import InvalidParams, TeamInboxError
from ..formats import registry
from ..history import History
from ..inbox_state import InboxState
from ..model import Message, Team
from ..protocol import METHODS, InitializationOptions, structure
from ..render import wire_converter
from ..rows import Rows, load_rows
from ..tracker import Change, Tracker
from ..watch import Debouncer, Hints, RootWatcher
from .encoder import frame
from .feature import Feature, NotStarted, Outgoing, feature_name, order

log = logging.getLogger("teaminbox")
T = TypeVar("T")
F = TypeVar("F", bound=Feature)
# File events are hints; two clocks stand in for what they miss. Each tick (no inbox is
# stat'ed): failed reads retried, a torn config's grace, leads that died, a root or task
# folder that appeared; and the publishers run (states move on with time: with many teams
# that is real work, so a server left alone QUIET_SECONDS ticks every
# QUIET_TICK_SECONDS until the next event, change or request). A full scan (every team's
# and inbox's stat) only every RESCAN_SECONDS, for events lost without a word; inotify's
# own overflow asks for one at once (watch.py).
TICK_SECONDS = 2.0
QUIET_SECONDS = 30.0
QUIET_TICK_SECONDS = 15.0
RESCAN_SECONDS = 60.0
PRUNE_SECONDS = 3600.0  # the history forgets old archived messages hourly (and at start)
# A first look at a bigger inbox is parsed on a pool thread, each chunk archived as its own
# state-thread step: other teams' requests go between the chunks (`_load_big`).
BIG_INBOX_BYTES = 8 * 1024 * 1024
BIG_STEP = 200  # messages compared and archived in one state-thread step
# Hinted inboxes re-read in one state-thread step: a request waits for one such step at most.
FLUSH_STEP = 8


Handler = Callable[[Any], Awaitable[Any]]  # raw params -> the plain result (TeamInboxError)


class Writer(Protocol):
    """Where framed messages go (stdout, or the TCP connection); pygls's writer too."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class StateThread:
    """The one thread the tracker is touched on. Each job is a request's (first come,
    first served) or the watch's (`background`: served when no request's job waits)."""

    def __init__(self) -> None:
        self._jobs: queue.PriorityQueue[tuple[int, int, Callable[[], Any], Future[Any]]] = (
            queue.PriorityQueue()
        )
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[[], T], background: bool = False) -> Future[T]:
        return self._put(1 if background else 0, fn)

    def close(self, last: Callable[[], T]) -> Future[T]:
        """`last` runs next, after the job running now; every other job not yet run, and
        any submitted later, is cancelled: nothing touches what `last` closes."""
        self._closed = True
        return self._put(-1, last)

    def _put(self, rank: int, fn: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._thread is None:  # daemon: a job stuck in a peer's file never holds up exit
                self._thread = threading.Thread(
                    target=self._run, name="teaminbox-state", daemon=True
                )
                self._thread.start()
        self._jobs.put((rank, next(self._order), fn, future))
        return future

    def _run(self) -> None:
        while True:
            rank, _, fn, future = self._jobs.get()
            if self._closed and rank >= 0:
                future.cancel()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as err:  # the caller's await raises it
                future.set_exception(err)


def error_of(err: TeamInboxError) -> dict[str, Any]:
    """A TeamInboxError as a JSON-RPC error: invalid params, or -32001 with its code."""
    code = -32602 if isinstance(err, InvalidParams) else -32001
    return {"code": code, "message": err.message, "data": {"code": err.code}}


class TeamInboxServer:
    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}
        self.writer: Writer | None = None
        self.pool = ThreadPoolExecutor(thread_name_prefix="teaminbox-pool")
        self.options = InitializationOptions()
        self.settings = Settings()
        self.state = StateThread()
        self.tracker: Tracker | None = None
        self.watcher: RootWatcher | None = None
        self._starting: asyncio.Future[None] | None = None
        self._added: list[Feature] = []
        self._ordered: list[Feature] | None = None
        self._with: dict[str, list[Feature]] = {}  # hook -> the features that define it
        self._tasks: set[asyncio.Task[Any]] = set()
        self._big = asyncio.Lock()  # one big first load at a time (memory)
        self._stirred = time.monotonic()  # the last event, change or request (the ticks)
        self._wake: asyncio.Event | None = None
        self.closing = False
        self._halted = False
        self._closed: Future[None] | None = None  # the history's close (`halt`)
        # A person answers permission prompts through this server's client: the hook's
        # socket listens. Off for a server that has nobody to ask (`teaminbox mcp`).
        self.answers_prompts = True

    # --- registration ---------------------------------------------------------------------

    def request(
        self, method: str
    ) -> Callable[[Callable[[TeamInboxServer, Any], Awaitable[Any]]], Any]:
        """Register a handler: raw params structured to the method's class, the result made
        plain for the wire; a TeamInboxError is the caller's to answer (`error_of`)."""
        spec = METHODS[method]

        def register(fn: Callable[[TeamInboxServer, Any], Awaitable[Any]]) -> Any:
            async def run(raw: Any) -> Any:
                self.stir()
                params = structure(raw, spec.params)
                await self.ensure_ready()
                return wire_converter.unstructure(await fn(self, params))

            self.handlers[method] = run
            return fn

        return register

    def notify(self, method: str, params: Any) -> None:
        """Send a notification (the event loop only: one writer, whole frames)."""
        self.write(
            {"jsonrpc": "2.0", "method": method, "params": wire_converter.unstructure(params)}
        )

    def write(self, message: dict[str, Any]) -> None:
        if self.writer is not None:
            self.writer.write(frame(message))

    # --- features -------------------------------------------------------------------------

    def add_feature(self, feature: Feature) -> None:
        """Add a feature (its handlers registered now); its place among the others is
        decided by the dependencies declared, when first needed (`features`)."""
        feature.register()
        self._added.append(feature)
        self._ordered = None
        self._with = {}

    @property
    def features(self) -> list[Feature]:
        """The features, each after those it depends on (FeatureOrderError if impossible)."""
        if self._ordered is None:
            self._ordered = order(self._added)
        return self._ordered

    def get_feature(self, kind: type[F]) -> F:
        found = next((f for f in self._added if isinstance(f, kind)), None)
        if found is None:
            raise LookupError(f"no {kind.__name__} feature was added")
        return found

    def with_hook(self, hook: str) -> list[Feature]:
        """The features, in order, whose class defines `hook` (the others' is a no-op)."""
        found = self._with.get(hook)
        if found is None:
            base = getattr(Feature, hook)
            found = self._with[hook] = [
                f for f in self.features if getattr(type(f), hook) is not base
            ]
        return found

    def each_feature(self, hook: str, *args: Any) -> Iterator[tuple[Feature, Any]]:
        """Call `hook` on every feature in order, each on its own: an error is logged with
        the feature's name and the others are called still. Yields (feature, what it
        returned) as each call returns, so a caller can act on it before the next runs."""
        for feature in self.with_hook(hook):
            try:
                out = getattr(feature, hook)(*args)
            except Exception:
                log.exception("feature %s: %s failed", feature_name(feature), hook)
                continue
            yield feature, out

    def call_features(self, hook: str, *args: Any) -> list[tuple[Feature, Any]]:
        """`each_feature`, every call made: (feature, what it returned) for each."""
        return list(self.each_feature(hook, *args))

    def require_tracker(self) -> Tracker:
        """The tracker; NotStarted before the server started."""
        tracker = self.tracker
        if tracker is None:
            raise NotStarted("the server has not started")
        return tracker

    def _decorate(self, team: Team) -> None:  # the tracker's team hook (the state thread)
        self.call_features("decorate_team", team)

    # --- lifecycle ----------------------------------------------------------------------

    def configure(self, raw: Any) -> None:
        opts: InitializationOptions = structure(raw, InitializationOptions)
        identity = opts.identity
        if isinstance(identity, dict):  # a format this sidecar lacks: no one to be there
            identity = {f: name for f, name in identity.items() if f in registry()}
        self.settings = Settings.build(opts.roots, defaults=opts.default_roots, identity=identity)
        self.options = opts

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        opts = self.options
        # the features' order: a cycle or a missing dependency is this start's error
        log.debug("features: %s", ", ".join(feature_name(f) for f in self.features))

        def make() -> Tracker:
            tracker = Tracker(self.settings, History(opts.history_path, opts.history_days))
            tracker.defer_bytes = BIG_INBOX_BYTES
            tracker.team_hooks.append(self._decorate)
            return tracker

        self.tracker = await self.in_state(make)
        debouncer = Debouncer(self._flush, self.spawn)

        def forward(kind: str, path: str) -> None:  # watchdog's thread
            loop.call_soon_threadsafe(debouncer.hint, kind, path)

        self.watcher = RootWatcher(Hints(registry().values(), forward))
        try:
            # watched before the first scan reads: a team made while it reads (the extension
            # host's first test, on a loaded machine) is an event and a rescan, not a wait
            # for the periodic full scan a minute later
            self.watcher.ensure(watch_plan(self.settings.roots))
            await self.rescan()
        except Exception:  # whatever the first scan hit, serve; the periodic rescan retries
            log.exception("the first scan failed")
        self.spawn(self._periodic())
        self.call_features("started")

    def shutdown(self) -> None:  # the client is gone (or exit)
        self.closing = True
        self.pool.shutdown(wait=False, cancel_futures=True)

    def halt(self) -> None:
        """Stop all that acts on its own: a start still going, the features' threads, the
        tasks, the watch; the history closes after the state thread's running job. At
        `shutdown`, and whenever the event loop ends (exit, the client gone) before it
        closes: no thread then calls into a closed loop or a closed history. Once only."""
        if self._halted:
            return
        self.closing = self._halted = True
        if self._starting is not None:  # it would make the watch after this
            self._starting.cancel()
        if self.tracker is not None:  # started: the features were ordered then
            self.call_features("stopping")
        for task in list(self._tasks):
            task.cancel()
        if self.watcher:
            self.watcher.stop()  # watchdog calls no handler once this returns
        tracker = self.tracker
        if tracker is not None:  # a watch step already queued would find the history closed
            self._closed = self.state.close(tracker.history.close)

    async def stop(self) -> None:
        self.halt()
        if self._closed is not None:
            await asyncio.wrap_future(self._closed)

    def spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def ensure_ready(self) -> Tracker:
        """The first caller starts the server; every caller waits for that start. A start
        that failed (the watcher's inotify limit, say) is each waiting caller's error, and
        the next request tries again instead of waiting for ever."""
        if self._halted:
            raise NotStarted("the server is stopping")
        if self._starting is None:
            self._starting = asyncio.ensure_future(self.start())
        starting = self._starting
        try:
            await asyncio.shield(starting)
        except Exception:
            if self._starting is starting:
                self._starting = None
            raise
        return self.require_tracker()

    async def in_state(self, fn: Callable[[], T], background: bool = False) -> T:
        return await asyncio.wrap_future(self.state.submit(fn, background))

    async def in_pool(self, fn: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn)

    def on_state(self, fn: Callable[[], T], background: bool = False) -> T:
        """From a pool thread: run `fn` on the state thread and wait for it."""
        return self.state.submit(fn, background).result()

    # --- watching -----------------------------------------------------------------------

    def stir(self) -> None:
        """Something happened (the event loop only): tick at the busy pace again."""
        self._stirred = time.monotonic()
        if self._wake is not None:
            self._wake.set()

    async def _flush(self, paths: set[str], full: bool) -> None:
        self.stir()
        if full:
            await self.rescan(background=True)
            return
        ordered = sorted(paths)
        for i in range(0, len(ordered), FLUSH_STEP):  # requests go between the steps
            await self.refresh(set(ordered[i : i + FLUSH_STEP]), background=True)

    async def apply(
        self, step: Callable[[Tracker], tuple[bool, list[Change]]], background: bool = False
    ) -> None:
        """Run a tracker step on the state thread, then let each feature publish what to
        tell the client; `background`: the watch's step, after every request's job that waits."""
        tracker = self.require_tracker()
        loop = asyncio.get_running_loop()

        def run() -> list[InboxState]:
            teams_changed, changes = step(tracker)
            if teams_changed or changes:
                loop.call_soon_threadsafe(self.stir)
            for _, out in self.each_feature("publish", teams_changed, changes):
                # each feature's news leaves at once (didChange first): the next one's work
                # (attention, member states) is no reason for a row to wait
                if out:
                    loop.call_soon_threadsafe(self._send, out)
                    loop.call_soon_threadsafe(self.stir)
            big, tracker.deferred = tracker.deferred, []
            return big

        big = await self.in_state(run, background)  # resolved after the sends: out by now
        for state in big:
            self.spawn(self._load_big(state))

    def _send(self, out: Outgoing) -> None:  # the event loop only
        for method, params in out:
            self.notify(method, params)

    async def _load_big(self, state: InboxState) -> None:
        """A deferred first load: bytes parsed on a pool thread into new Rows, each chunk's
        messages compared and archived on the state thread, the Rows handed over at the end."""
        tracker = self.require_tracker()
        fmt, path, team, inbox = state.fmt, state.path, state.team, state.inbox  # never change
        async with self._big:
            feed, finish = await self.in_state(lambda: tracker.begin_load(state))

            def on_chunk(msgs: list[Message], tail: bool) -> None:  # the pool thread
                for i in range(0, max(len(msgs), 1), BIG_STEP):  # a short step of archiving
                    if self.closing:
                        raise asyncio.CancelledError  # shutting down: stop at once
                    self.on_state(partial(feed, msgs[i : i + BIG_STEP], tail), background=True)

            def load() -> tuple[tuple[int, ...] | None, Rows | Exception]:
                sig = None
                try:
                    sig = fmt.sig(path)
                    data = fmt.read(path) if sig is not None else None
                    return sig, load_rows(fmt, path, data, team, inbox, on_chunk)
                except Exception as err:  # reported on the inbox by `loaded`
                    return sig, err

            sig, result = await self.in_pool(load)
            await self.apply(lambda t: t.loaded(state, sig, finish, result), background=True)

    async def rescan(self, background: bool = False) -> None:
        await self.apply(lambda t: t.scan(), background)
        if self.watcher:
            self.watcher.ensure(watch_plan(self.settings.roots))

    async def refresh(self, paths: set[str], background: bool = False) -> None:
        if paths:
            await self.apply(lambda t: t.refresh_paths(paths), background)

    def _unwatched(self) -> bool:
        """A root or task folder that exists now and is not watched yet (it appeared)."""
        watcher = self.watcher
        if watcher is None:
            return False
        watched = {folder for folder, _ in watcher.watched}
        return any(p not in watched and os.path.isdir(p) for p in watch_roots(self.settings.roots))

    async def _periodic(self) -> None:
        pruned = scanned = time.monotonic()
        self._wake = wake = asyncio.Event()
        while True:
            wake.clear()
            if time.monotonic() - self._stirred < QUIET_SECONDS:
                await asyncio.sleep(TICK_SECONDS)
            else:
                try:
                    await asyncio.wait_for(wake.wait(), QUIET_TICK_SECONDS)
                    continue  # stirred: the busy pace from now on
                except asyncio.TimeoutError:
                    pass
            try:
                if time.monotonic() - scanned >= RESCAN_SECONDS or self._unwatched():
                    scanned = time.monotonic()
                    await self.rescan(background=True)
                else:
                    await self.apply(lambda t: t.tick(), background=True)
                if time.monotonic() - pruned > PRUNE_SECONDS and self.tracker:
                    pruned = time.monotonic()
                    await self.in_state(self.tracker.history.prune)
            except Exception:  # keep watching whatever one scan hit
                log.exception("rescan failed")
