"""Record every version of every file Claude Code writes under ~/.claude while a session runs.

Claude Code prunes a delivered inbox entry within about a second and deletes the team
folder on exit, so tests cannot look at the files afterwards. The recorder keeps each
distinct content of each file (and each appearance/disappearance of each folder) under
`teams/`, `tasks/` and `projects/`, from two sources: watchdog (inotify) events, and a
20 ms poll that stats everything (the fallback for dropped events and late watches).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

SUBDIRS = ("teams", "tasks", "projects")
WRITE_EVENTS = (
    FileCreatedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileDeletedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    DirDeletedEvent,
)


@dataclass(frozen=True)
class Version:
    t: float  # seconds since the recorder started
    data: bytes | None  # None: the file was gone
    source: str  # "watch", "poll" or "final"

    def json(self) -> Any:
        """The parsed content; raises ValueError for a deleted or half-written file."""
        if self.data is None:
            raise ValueError("deleted")
        return json.loads(self.data)


@dataclass(frozen=True)
class Entry:
    """An inbox entry as first seen in a file."""

    team: str
    inbox: str
    t: float
    value: dict[str, Any]

    @property
    def key(self) -> tuple[str, str, str]:
        v = self.value
        return (str(v.get("from")), str(v.get("timestamp")), str(v.get("text")))

    @property
    def frame(self) -> dict[str, Any] | None:
        """The structured frame serialised into `text`, if it is one."""
        try:
            doc = json.loads(self.value.get("text", ""))
        except (TypeError, ValueError):
            return None
        return doc if isinstance(doc, dict) and isinstance(doc.get("type"), str) else None


class _Handler(FileSystemEventHandler):
    """Capture on every event. A file just created is opened at once and the descriptor
    kept, so a temp file renamed over an inbox (and replaced again a millisecond later)
    can still be read through it when its `moved` event comes."""

    def __init__(self, rec: Recorder) -> None:
        self.rec = rec
        self.held: dict[str, tuple[int, float]] = {}

    def on_any_event(self, event: FileSystemEvent) -> None:
        src = os.fsdecode(event.src_path)
        dest = os.fsdecode(getattr(event, "dest_path", "") or "")
        rec = self.rec
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return
        if rec._rel(src) is None and (not dest or rec._rel(dest) is None):
            return
        if len(rec.events) < 200_000:
            rec.events.append((rec._now(), kind, src, dest))
        if not event.is_directory:
            with rec._lock:
                rec.named.update(r for r in (rec._rel(src), rec._rel(dest) if dest else None) if r)
        if kind == "created" and not event.is_directory:
            with contextlib.suppress(OSError):
                self.held[src] = (os.open(src, os.O_RDONLY), time.monotonic())
        if kind == "moved" and src in self.held:
            fd, _ = self.held.pop(src)
            try:
                rec.capture_fd(fd, dest, "watch")
            finally:
                os.close(fd)
        elif kind == "closed" and src in self.held:
            rec.capture_fd(self.held[src][0], src, "watch")
        if kind == "deleted" and src in self.held:
            os.close(self.held.pop(src)[0])
        for p in (src, dest):
            if p:
                rec.capture(p, "watch")
        now = time.monotonic()
        for p, (fd, t) in list(self.held.items()):
            if now - t > 2.0:
                os.close(fd)
                del self.held[p]

    def close(self) -> None:
        for fd, _ in self.held.values():
            os.close(fd)
        self.held.clear()


class Recorder:
    """Every version of every file under `<claude_dir>/{teams,tasks,projects}`."""

    def __init__(self, claude_dir: Path, poll: float = 0.02) -> None:
        self.base = Path(claude_dir)
        self.poll_interval = poll
        self.files: dict[str, list[Version]] = {}
        self.dirs: dict[str, list[tuple[float, bool]]] = {}
        self._stat: dict[str, tuple[int, int, int]] = {}
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._poller = threading.Thread(target=self._poll_loop, daemon=True, name="rec-poll")
        self._observer: Any = None
        self._handler: _Handler | None = None
        self.t0 = time.monotonic()
        self.polls = 0
        self.watch_error: str | None = None
        self.events: list[tuple[float, str, str, str]] = []  # watchdog's, for debugging
        self.named: set[str] = set()  # every file path watchdog's events named

    # -- lifecycle

    def start(self) -> Recorder:
        self.base.mkdir(parents=True, exist_ok=True)
        try:
            obs = Observer()
            self._handler = _Handler(self)
            # Writes only: reacting to `opened`/`closed_no_write` would feed on our own reads.
            obs.schedule(
                self._handler, str(self.base), recursive=True, event_filter=list(WRITE_EVENTS)
            )
            obs.start()
            self._observer = obs
        except Exception as exc:  # the poll still records everything, only slower
            self.watch_error = repr(exc)
        self._poll_once()
        self._poller.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._poller.join(5)
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(5)
            self._observer = None
        if self._handler is not None:
            self._handler.close()
        self._poll_once("final")

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- capture

    def _rel(self, path: str) -> str | None:
        try:
            rel = os.path.relpath(path, self.base)
        except ValueError:
            return None
        if rel.startswith("..") or rel.split(os.sep, 1)[0] not in SUBDIRS:
            return None
        return rel

    def _now(self) -> float:
        return time.monotonic() - self.t0

    def _set_dir(self, rel: str, exists: bool) -> None:
        hist = self.dirs.setdefault(rel, [])
        if not hist or hist[-1][1] != exists:
            if hist or exists:
                hist.append((self._now(), exists))

    def _set_file(self, rel: str, data: bytes | None, source: str) -> None:
        hist = self.files.setdefault(rel, [])
        if hist and hist[-1].data == data:
            return
        if not hist and data is None:
            del self.files[rel]
            return
        hist.append(Version(self._now(), data, source))

    def capture(self, path: str, source: str) -> None:
        rel = self._rel(path)
        if rel is None:
            return
        with self._lock:
            try:
                st = os.stat(path)
            except OSError:
                self._gone(rel)
                return
            if os.path.isdir(path):
                self._set_dir(rel, True)
                return
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                self._gone(rel)
                return
            self._stat[rel] = (st.st_ino, st.st_mtime_ns, st.st_size)
            self._set_file(rel, data, source)

    def capture_fd(self, fd: int, path: str, source: str) -> None:
        """A version read through a descriptor held since the file was created."""
        rel = self._rel(path)
        if rel is None:
            return
        try:
            size = os.fstat(fd).st_size
            data = os.pread(fd, size + 1, 0)
        except OSError:
            return
        with self._lock:
            self._set_file(rel, data, source)

    def _gone(self, rel: str) -> None:
        if rel in self.files and self.files[rel][-1].data is not None:
            self._set_file(rel, None, "watch")
            self._stat.pop(rel, None)
        if rel in self.dirs and self.dirs[rel][-1][1]:
            self._set_dir(rel, False)

    def _poll_loop(self) -> None:
        while not self._stop.wait(self.poll_interval):
            try:
                self._poll_once()
            except Exception:  # a vanished path mid-walk: the next poll sees the rest
                continue

    def _poll_once(self, source: str = "poll") -> None:
        seen_files: set[str] = set()
        seen_dirs: set[str] = set()
        for sub in SUBDIRS:
            top = self.base / sub
            for dirpath, dirnames, filenames in os.walk(top):
                rel_dir = os.path.relpath(dirpath, self.base)
                seen_dirs.add(rel_dir)
                for d in dirnames:
                    seen_dirs.add(os.path.join(rel_dir, d))
                for name in filenames:
                    rel = os.path.join(rel_dir, name)
                    seen_files.add(rel)
                    try:
                        st = os.stat(os.path.join(dirpath, name))
                    except OSError:
                        continue
                    if self._stat.get(rel) != (st.st_ino, st.st_mtime_ns, st.st_size):
                        self.capture(os.path.join(dirpath, name), source)
        with self._lock:
            self.polls += 1
            for rel in seen_dirs:
                if not self.dirs.get(rel) or not self.dirs[rel][-1][1]:
                    self._set_dir(rel, True)
            for rel, hist in list(self.dirs.items()):
                if hist[-1][1] and rel not in seen_dirs and not (self.base / rel).is_dir():
                    self._set_dir(rel, False)
            for rel, vers in list(self.files.items()):
                if vers[-1].data is not None and rel not in seen_files:
                    if not (self.base / rel).exists():
                        self._set_file(rel, None, source)
                        self._stat.pop(rel, None)

    # -- queries

    def paths(self, pattern: str = "*") -> list[str]:
        """Recorded file paths (relative to ~/.claude) matching a glob, sorted."""
        with self._lock:
            return sorted(p for p in self.files if fnmatchcase(p, pattern))

    def named_paths(self, pattern: str = "*") -> list[str]:
        """Every path (relative to ~/.claude) a recorded version or a watchdog event named,
        sorted. A temp file renamed away before the recorder could read it is only here."""
        with self._lock:
            return sorted(p for p in self.files.keys() | self.named if fnmatchcase(p, pattern))

    def dir_paths(self, pattern: str = "*") -> list[str]:
        with self._lock:
            return sorted(p for p in self.dirs if fnmatchcase(p, pattern))

    def versions(self, rel: str) -> list[Version]:
        with self._lock:
            return list(self.files.get(rel, []))

    def json_versions(self, rel: str) -> list[tuple[float, Any]]:
        """Each version that parses (half-written and deleted ones are skipped)."""
        out: list[tuple[float, Any]] = []
        for v in self.versions(rel):
            with contextlib.suppress(ValueError):
                out.append((v.t, v.json()))
        return out

    def last_json(self, rel: str) -> Any:
        vs = self.json_versions(rel)
        return vs[-1][1] if vs else None

    def existed(self, rel: str) -> bool:
        with self._lock:
            return any(exists for _, exists in self.dirs.get(rel, []))

    def exists_now(self, rel: str) -> bool:
        with self._lock:
            if rel in self.dirs:
                return self.dirs[rel][-1][1]
            return rel in self.files and self.files[rel][-1].data is not None

    def inbox_paths(self) -> list[str]:
        return [p for p in self.paths("teams/*/inboxes/*.json")]

    def entries(self, team: str | None = None) -> list[Entry]:
        """Every distinct inbox entry ever seen (by from|timestamp|text), first sighting first."""
        seen: dict[tuple[str, str, str, str, str], Entry] = {}
        for rel in self.inbox_paths():
            parts = Path(rel).parts  # teams/<team>/inboxes/<inbox>.json
            t_name, inbox = parts[1], Path(parts[3]).stem
            if team is not None and t_name != team:
                continue
            for t, doc in self.json_versions(rel):
                if not isinstance(doc, list):
                    continue
                for item in doc:
                    if not isinstance(item, dict):
                        continue
                    e = Entry(t_name, inbox, t, item)
                    k = (t_name, inbox, *e.key)
                    if k not in seen:
                        seen[k] = e
        return sorted(seen.values(), key=lambda e: e.t)

    def wait_for(self, pred: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pred(self):
                return True
            time.sleep(0.05)
        return bool(pred(self))

    def iter_all(self) -> Iterator[tuple[str, Version]]:
        with self._lock:
            items = [(p, v) for p, vs in self.files.items() for v in vs]
        yield from sorted(items, key=lambda pv: pv[1].t)

    def describe(self, patterns: Iterable[str] = ("teams/*", "tasks/*"), limit: int = 150) -> str:
        """A one-line-per-version timeline (for failure messages)."""
        lines = []
        for p, v in self.iter_all():
            if any(fnmatchcase(p, pat) for pat in patterns):
                size = "deleted" if v.data is None else f"{len(v.data)} B"
                lines.append(f"+{v.t:6.2f}s {v.source:5} {p} {size}")
        return "\n".join(lines[-limit:])
