"""watchdog glue: events become path hints, coalesced, for the tracker to re-read.

File events are hints only: each names an inbox to re-read unless its
signature is unchanged. The kernel's queue can overflow silently, so the
server also rescans on a timer. Each format says which paths are inboxes and
which are temp files (formats/*.hint), so this module knows no format.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Iterable

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserver

from .formats import InboxFormat

log = logging.getLogger("teaminbox")
COALESCE_SECONDS = 0.002


def classify(path: str, formats: Iterable[InboxFormat]) -> tuple[str, str] | None:
    """("inbox", inbox path) or ("team", path), or None for a temp file or a lock."""
    found: tuple[str, str] | None = None
    for fmt in formats:
        hint = fmt.hint(path)
        if hint is None:
            return None  # some format's temp file: never news by itself
        if found is None or hint[0] == "inbox":
            found = hint
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
        self.observer: BaseObserver = Observer()
        self.observer.start()
        self.watched: set[tuple[str, bool]] = set()
        self.polling = False

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
        old.stop()

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=2)


class Debouncer:
    """Coalesces hints that arrive within a few ms into one flush on the event loop."""

    def __init__(
        self,
        flush: Callable[[set[str], bool], Awaitable[None]],
        spawn: Callable[[Awaitable[None]], None],
        delay: float = COALESCE_SECONDS,
    ) -> None:
        self._flush, self._spawn, self.delay = flush, spawn, delay
        self._paths: set[str] = set()
        self._full = False
        self._scheduled = False

    def hint(self, kind: str, path: str) -> None:
        """Called on the event loop (watchdog's thread hops here with call_soon_threadsafe)."""
        if kind == "team":
            self._full = True
        else:
            self._paths.add(path)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_later(self.delay, self._fire)

    def _fire(self) -> None:
        self._scheduled = False
        paths, self._paths = self._paths, set()
        full, self._full = self._full, False
        self._spawn(self._flush(paths, full))
