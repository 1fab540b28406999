"""watchdog glue: events become path hints, coalesced, for the tracker to re-read.

File events are hints only: each names an inbox to re-read unless its
signature is unchanged. The kernel's queue can overflow: when inotify says so
the server rescans at once, and it also rescans on a timer for what is lost
without a word. Each format says which paths are inboxes and which are temp
files (formats/*.hint), so this module knows no format.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Iterator

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import DEFAULT_OBSERVER_TIMEOUT, BaseObserver, ObservedWatch
from watchdog.observers.polling import PollingObserver

from .formats import InboxFormat
from .formats.tasks_base import board_hint

log = logging.getLogger("teaminbox")

try:  # Linux: watchdog's emitter, with a buffer that holds nothing back (below)
    from watchdog.observers.inotify import InotifyEmitter
    from watchdog.observers.inotify_buffer import InotifyBuffer
except ImportError:  # other platforms' observers have no such buffer
    InotifyEmitter = None  # type: ignore[assignment,misc]
else:

    class _NoHoldBuffer(InotifyBuffer):
        """watchdog holds a rename's unpaired first half 0.5 s to pair it, and nothing
        queued behind it is delivered meanwhile; Claude Code prunes within that time, so a
        message could come and go unseen. Hints need no pairing: deliver at once."""

        delay = 0.0

    class _HintEmitter(InotifyEmitter):
        """watchdog's inotify emitter on a `_NoHoldBuffer` (its own start, with that class)."""

        def on_thread_start(self) -> None:
            path = os.fsencode(self.watch.path)
            mask = self.get_event_mask_from_filter()
            self._inotify = _NoHoldBuffer(path, recursive=self.watch.is_recursive, event_mask=mask)


def _observer() -> BaseObserver:
    """The platform's observer; on Linux, watchdog's inotify observer with `_HintEmitter`."""
    if InotifyEmitter is None:
        return Observer()
    return BaseObserver(_HintEmitter, timeout=DEFAULT_OBSERVER_TIMEOUT)


# inotify says when its queue overflowed (events were dropped); watchdog skips that record.
# Each RootWatcher is told (watchdog's thread) and asks for a full rescan at once. A wrap,
# not a subclass: `Inotify.read_events` calls `Inotify._parse_event_buffer` by the class's
# own name, so an override in a subclass would never run.
_overflow_listeners: list[Callable[[], None]] = []
try:
    from watchdog.observers.inotify_c import Inotify, InotifyConstants

    def _noting_overflow(
        parse: Callable[[bytes], Iterator[tuple[int, int, int, bytes]]],
    ) -> Callable[[bytes], Iterator[tuple[int, int, int, bytes]]]:
        def parse_events(buffer: bytes) -> Iterator[tuple[int, int, int, bytes]]:
            for event in parse(buffer):
                if event[0] == -1 and event[1] & InotifyConstants.IN_Q_OVERFLOW:
                    log.warning("inotify's queue overflowed: rescanning")
                    for listener in list(_overflow_listeners):
                        listener()
                yield event

        return parse_events

    Inotify._parse_event_buffer = staticmethod(  # type: ignore[method-assign,assignment]
        _noting_overflow(Inotify._parse_event_buffer)
    )
except ImportError:
    pass


def classify(path: str, formats: Iterable[InboxFormat]) -> tuple[str, str] | None:
    """("inbox", inbox path) or ("team", path), or None for a temp file or a lock;
    ("tasks", board) for a task board's file (tasks.py), which never needs a rescan."""
    found: tuple[str, str] | None = None
    boards = []
    for fmt in formats:
        hint = fmt.hint(path)
        if hint is None:
            return None  # some format's temp file: never news by itself
        if found is None or hint[0] == "inbox":
            found = hint
        boards.append(fmt.tasks)
    if found is not None and found[0] == "team":  # an inbox is never a board's: no cost there
        claimed, board = board_hint(path, boards)
        if claimed:
            return None if board is None else ("tasks", board)
    return found


class Hints(FileSystemEventHandler):
    """Runs on watchdog's thread: classifies paths, never touches state or stdout."""

    def __init__(self, formats: Iterable[InboxFormat], forward: Callable[[str, str], None]) -> None:
        self.formats = tuple(formats)
        self.forward = forward

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type == "modified":
            return  # a folder's listing changed: its files' own events say how
        for p in (event.src_path, getattr(event, "dest_path", "")):
            if p:
                hint = classify(os.fsdecode(p), self.formats)
                if hint is not None:
                    self.forward(hint[0], hint[1])


class RootWatcher:
    """One observer over the planned folders; falls back to polling when inotify can't."""

    def __init__(self, handler: Hints) -> None:
        self.handler = handler
        self.observer: BaseObserver = _observer()
        self.observer.start()
        self.watched: set[tuple[str, bool]] = set()
        self.polling = False
        # Folders watched for a feature, each with its own handler (`watch_folder`).
        self.loop = _running_loop()
        self.taps: dict[str, Tap] = {}
        self._tap_watches: dict[str, ObservedWatch] = {}
        _overflow_listeners.append(self._overflowed)

    def _overflowed(self) -> None:  # watchdog's thread
        self.handler.forward("team", "")  # a "team" hint: a full rescan

    def ensure(self, plan: Iterable[tuple[str, bool]]) -> None:
        for folder, recursive in plan:
            if (folder, recursive) in self.watched or not os.path.isdir(folder):
                continue
            try:
                self.observer.schedule(self.handler, folder, recursive=recursive)
            except OSError as err:  # inotify's watch or instance limit
                log.warning("watching %s failed (%s): polling instead", folder, err)
                self._poll_instead()
                self.observer.schedule(self.handler, folder, recursive=recursive)
            self.watched.add((folder, recursive))

    def _poll_instead(self) -> None:
        if self.polling:
            return
        old, self.polling = self.observer, True
        self.observer = PollingObserver(timeout=1)
        self.observer.start()
        for folder, recursive in self.watched:
            self.observer.schedule(self.handler, folder, recursive=recursive)
        for folder, tap in self.taps.items():
            self._tap_watches[folder] = self.observer.schedule(tap, folder, recursive=False)
        old.stop()

    def watch_folder(
        self, folder: str, on_path: Callable[[str], None], wanted: Callable[[str], bool]
    ) -> bool:
        """Watch one more folder, not recursively, for a feature: `on_path(path)` runs on
        the event loop the watcher was made on, for each event on a `wanted` path. From
        that loop only. False when the folder is not there (or the watcher has no loop)."""
        if folder in self.taps:
            return True
        if self.loop is None or not os.path.isdir(folder):
            return False
        tap = Tap(self.loop, on_path, wanted)
        try:
            watch = self.observer.schedule(tap, folder, recursive=False)
        except OSError as err:  # inotify's watch or instance limit
            log.warning("watching %s failed (%s): polling instead", folder, err)
            self._poll_instead()
            watch = self.observer.schedule(tap, folder, recursive=False)
        self.taps[folder] = tap
        self._tap_watches[folder] = watch
        return True

    def unwatch_folder(self, folder: str) -> None:
        """Stop watching a folder `watch_folder` added (from the watcher's loop)."""
        self.taps.pop(folder, None)
        watch = self._tap_watches.pop(folder, None)
        if watch is not None:
            try:
                self.observer.unschedule(watch)
            except (KeyError, OSError):  # its folder went away: the emitter is gone already
                pass

    def stop(self) -> None:
        if self._overflowed in _overflow_listeners:
            _overflow_listeners.remove(self._overflowed)
        self.observer.stop()
        self.observer.join(timeout=2)


class Debouncer:
    """Coalesces hints into flushes, one at a time: the hints of one read of inotify's
    buffer go in one flush on the loop's next turn (a timer would only add its own delay to
    every change), and those that come while a flush runs wait for it to end, kept as a set
    of paths. A flood of writes then is as many flushes as the state thread has time for,
    each inbox re-read once in each, never a queue of them that requests wait behind."""

    def __init__(
        self,
        flush: Callable[[set[str], bool], Awaitable[None]],
        spawn: Callable[[Awaitable[None]], None],
    ) -> None:
        self._flush, self._spawn = flush, spawn
        self._paths: set[str] = set()
        self._full = False
        self._scheduled = False
        self._running = False

    def hint(self, kind: str, path: str) -> None:
        """Called on the event loop (watchdog's thread hops here with call_soon_threadsafe)."""
        if kind == "team":
            self._full = True
        else:
            self._paths.add(path)
        self._schedule()

    def _schedule(self) -> None:
        if not self._scheduled and not self._running:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._fire)

    def _fire(self) -> None:
        self._scheduled = False
        paths, self._paths = self._paths, set()
        full, self._full = self._full, False
        self._running = True
        self._spawn(self._run(paths, full))

    async def _run(self, paths: set[str], full: bool) -> None:
        try:
            await self._flush(paths, full)
        finally:
            self._running = False
            if self._paths or self._full:
                self._schedule()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class Tap(FileSystemEventHandler):
    """One folder's events for a feature: each wanted path is handed to `on_path` on the
    event loop (never on watchdog's thread)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_path: Callable[[str], None],
        wanted: Callable[[str], bool],
    ) -> None:
        self.loop, self.on_path, self.wanted = loop, on_path, wanted

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        for p in (event.src_path, getattr(event, "dest_path", "")):
            path = os.fsdecode(p) if p else ""
            if path and self.wanted(path):
                self.loop.call_soon_threadsafe(self.on_path, path)
