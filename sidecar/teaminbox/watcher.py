"""watchdog hints -> rescans -> diffs.

File events are hints only: each names a path whose inbox is re-read, unless
its (inode, size, mtime_ns) is unchanged. A periodic rescan catches what the
kernel's queue dropped. Diffs are computed against what the sidecar last saw
(across restarts: against the history), so a prune, a peer's rewrite or a
restart never yields a duplicate or a missed message.

When a peer only appended, only the new tail is parsed (store.appended_at).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import orjson
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from .discovery import Roster, Settings, TeamDir, find_teams, roster
from .errors import CorruptInbox
from .formats import InboxFormat
from .history import History
from .model import Message, Problem
from .store import TEMP_SUFFIX, appended_at, parse, read_bytes

CHUNK = 1000
ID_SEP = "\x00"  # ids never hold it (formats.claude falls back to the hash id)


class Rows:
    """An inbox's valid entries as the tracker keeps them.

    Ids, read flags and array indices live in memory; the entries themselves
    stay spans of the file's bytes when the file has Claude Code's own layout
    (100,000 entries then cost their bytes, not a million Python objects), or
    parsed dicts otherwise. Ids are kept joined, a chunk to a string: 100,000
    small strings that outlive a load would pin the heap it fragmented.
    """

    def __init__(self, data: bytes = b"", spans: bool = True) -> None:
        self.data = data
        self._id_chunks: list[str] = []  # ids joined by ID_SEP, up to CHUNK a string
        self._pending: list[str] = []
        self.read = bytearray()
        self.index = array("q")
        self.starts = array("q")
        self.ends = array("q")
        self.dicts: list[dict[str, Any]] | None = None if spans else []

    def __len__(self) -> int:
        return len(self.read)

    def iter_ids(self) -> Iterator[str]:
        for chunk in self._id_chunks:
            yield from chunk.split(ID_SEP)
        yield from self._pending

    @property
    def ids(self) -> list[str]:
        return list(self.iter_ids())

    def seal(self) -> None:
        """Join the ids added since the last seal (a short last chunk is topped up)."""
        if not self._pending:
            return
        if self._id_chunks and self._id_chunks[-1].count(ID_SEP) + 1 < CHUNK:
            self._pending[:0] = self._id_chunks.pop().split(ID_SEP)
        self._id_chunks.append(ID_SEP.join(self._pending))
        self._pending = []

    @property
    def unread(self) -> int:
        return self.read.count(0)

    def add(
        self,
        entry_id: str,
        read: bool,
        index: int,
        span: tuple[int, int] | None,
        entry: dict[str, Any],
    ) -> None:
        self._pending.append(entry_id)
        self.read.append(1 if read else 0)
        self.index.append(index)
        if self.dicts is None:
            assert span is not None
            self.starts.append(span[0])
            self.ends.append(span[1])
        else:
            self.dicts.append(entry)

    def raw(self, i: int) -> dict[str, Any]:
        if self.dicts is not None:
            return self.dicts[i]
        value: dict[str, Any] = orjson.loads(self.data[self.starts[i] : self.ends[i]])
        return value

    def message(self, fmt: InboxFormat, i: int, team: str, inbox: str) -> Message:
        return fmt.message(self.raw(i), self.index[i], team, inbox)

    def extended(self, data: bytes) -> Rows:
        """A copy over `data`, a file that only grew: the known spans still hold."""
        rows = Rows(data, spans=self.dicts is None)
        self.seal()
        rows._id_chunks = list(self._id_chunks)
        rows.read, rows.index = bytearray(self.read), array("q", self.index)
        rows.starts, rows.ends = array("q", self.starts), array("q", self.ends)
        return rows


class _Mismatch(Exception):
    """The spans did not parse as the entries they seemed to be: parse the file whole."""


class Diff:
    """What a load changed against what we knew: ids with read flags (-1: flag unknown)."""

    def __init__(
        self,
        history: History,
        team: str,
        inbox: str,
        before: Callable[[], dict[str, int]],
        keep_added: bool,
    ) -> None:
        self.history, self.team, self.inbox = history, team, inbox
        self._before_fn = before
        self._before: dict[str, int] | None = None
        self.keep_added = keep_added
        self.tail = False  # only an appended tail was loaded: nothing can have gone
        self.added: list[Message] = []
        self.updated: list[Message] = []

    @property
    def before(self) -> dict[str, int]:
        if self._before is None:
            self._before = self._before_fn()
        return self._before

    def feed(self, msgs: list[Message], tail: bool = False) -> None:
        self.tail = tail
        fresh = []
        for m in msgs:
            prev = None if tail else self.before.get(m.id)
            if prev is None:
                fresh.append(m)
            elif prev >= 0 and prev != m.read:
                self.updated.append(m)
        if fresh:  # archived chunk by chunk: a first look at a huge inbox stays small
            self.history.record(self.team, self.inbox, fresh, [])
            if self.keep_added:
                self.added += fresh

    def removed(self, rows: Rows) -> list[str]:
        if self.tail or not self.before:
            return []
        present = set(rows.iter_ids())
        return [i for i in self.before if i not in present]


def load_rows(
    fmt: InboxFormat,
    path: str,
    data: bytes | None,
    team: str,
    inbox: str,
    feed: Callable[[list[Message], bool], None],
    grown_from: Rows | None = None,
) -> Rows:
    """Parse an inbox into Rows, feeding every valid entry's Message to `feed` a chunk at a time.

    With `grown_from` (rows of a file that `data` extends by a pure append), only
    the appended tail is parsed and fed. Raises CorruptInbox.
    """
    if data is not None and grown_from is not None and grown_from.dicts is None:
        start = appended_at(grown_from.data, data)
        spans = fmt.entry_spans(data, start) if start is not None else None
        if spans is not None:
            rows = grown_from.extended(data)
            feed([], True)
            try:
                _load_spans(
                    fmt,
                    rows,
                    spans,
                    grown_from_count(grown_from),
                    team,
                    inbox,
                    lambda batch: feed(batch, True),
                )
                return rows
            except _Mismatch:
                pass
    spans = fmt.entry_spans(data) if data is not None else None
    if spans is not None:
        rows = Rows(data or b"")
        try:
            _load_spans(fmt, rows, spans, 0, team, inbox, lambda batch: feed(batch, False))
            return rows
        except _Mismatch:
            pass
    snap = parse(fmt, path, data)
    rows = Rows(data or b"", spans=False)
    bad = {p.index for p in snap.problems}
    batch: list[Message] = []
    for i, entry in enumerate(snap.entries):
        if i in bad:
            continue
        msg = fmt.message(entry, i, team, inbox)
        rows.add(msg.id, msg.read, i, None, entry)
        batch.append(msg)
        if len(batch) >= CHUNK:
            rows.seal()
            feed(batch, False)
            batch = []
    rows.seal()
    feed(batch, False)
    rows.data = b""  # dict rows need no bytes
    return rows


def grown_from_count(rows: Rows) -> int:
    """The array index the next appended entry gets."""
    return rows.index[-1] + 1 if len(rows.index) else 0


def _load_spans(
    fmt: InboxFormat,
    rows: Rows,
    spans: tuple[array[int], array[int]],
    first_index: int,
    team: str,
    inbox: str,
    feed: Callable[[list[Message]], None],
) -> None:
    data = rows.data
    starts, ends = spans
    for c in range(0, len(starts), CHUNK):
        chunk = list(zip(starts[c : c + CHUNK], ends[c : c + CHUNK], strict=True))
        try:
            entries = orjson.loads(b"[" + b",".join(data[s:e] for s, e in chunk) + b"]")
        except orjson.JSONDecodeError as err:
            raise _Mismatch from err
        if len(entries) != len(chunk):
            raise _Mismatch
        batch = []
        for k, (span, entry) in enumerate(zip(chunk, entries, strict=True)):
            if fmt.invalid(entry) is not None:
                continue
            msg = fmt.message(entry, first_index + c + k, team, inbox)
            rows.add(msg.id, msg.read, first_index + c + k, span, entry)
            batch.append(msg)
        rows.seal()
        feed(batch)


@attrs.define
class InboxState:
    team: str
    inbox: str
    path: str
    fmt: InboxFormat
    sig: tuple[int, int, int] | None = None
    rows: Rows = attrs.Factory(Rows)
    error: Problem | None = None
    parsed: bool = False  # parsed once in this process: later diffs are against memory

    @property
    def unread(self) -> int:
        return self.rows.unread


@attrs.define
class Change:
    team: str
    inbox: str
    added: list[Message]
    removed: list[str]
    updated: list[Message]
    total: int
    unread: int
    initial: bool = False  # first look at this inbox in this process
    known_before: bool = True  # the history knew the inbox (else: a baseline, no alerts)


def _sig(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


class Tracker:
    """All inbox state; used from one thread at a time (the server's state thread)."""

    def __init__(self, settings: Settings, history: History) -> None:
        self.settings = settings
        self.history = history
        self.teams: dict[str, TeamDir] = {}
        self.rosters: dict[str, Roster] = {}
        self.inboxes: dict[tuple[str, str], InboxState] = {}
        self.by_path: dict[str, tuple[str, str]] = {}
        self._shape: list[tuple[object, str | None]] | None = None

    def scan(self) -> tuple[bool, list[Change]]:
        """Re-list teams and members; refresh every inbox. Returns (teams changed, changes)."""
        teams = {t.id: t for t in find_teams(self.settings.roots)}
        rosters = {tid: roster(t, self.settings) for tid, t in teams.items()}
        self.teams, self.rosters = teams, rosters
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
                    changes.append(Change(state.team, state.inbox, [], removed, [], 0, 0))
        for state in list(self.inboxes.values()):
            change = self.refresh(state)
            if change:
                changes.append(change)
        return self._teams_changed(), changes

    def _teams_changed(self) -> bool:
        """Did the set of teams and inboxes, or any of their errors, change since last asked?"""
        inboxes = sorted((k, s.error.message if s.error else None) for k, s in self.inboxes.items())
        teams = sorted(
            (k, t.config_error.message if t.config_error else None) for k, t in self.teams.items()
        )
        shape: list[tuple[object, str | None]] = [*inboxes, *teams]
        changed = shape != self._shape
        self._shape = shape
        return changed

    def refresh_paths(self, paths: set[str]) -> tuple[bool, list[Change]]:
        """Re-read the inboxes named by hints; anything unknown triggers a full scan."""
        if any(p not in self.by_path for p in paths):
            return self.scan()
        changes = [c for p in paths if (c := self.refresh(self.inboxes[self.by_path[p]]))]
        return self._teams_changed(), changes

    def refresh(self, state: InboxState) -> Change | None:
        sig = _sig(state.path)
        if sig == state.sig and (state.parsed or state.error):
            return None
        # Until a first good parse, diff against the history: a file that was corrupt
        # at start-up and is fixed later is no news for what the history already knew.
        initial = not state.parsed
        state.sig = sig
        data = read_bytes(state.path) if sig is not None else None
        old = state.rows
        if initial:
            known_before = self.history.known_inbox(state.team, state.inbox)

            def before() -> dict[str, int]:
                return dict.fromkeys(self.history.known_ids(state.team, state.inbox), -1)
        else:
            known_before = True

            def before() -> dict[str, int]:
                return dict(zip(old.ids, old.read, strict=True))

        diff = Diff(self.history, state.team, state.inbox, before, keep_added=known_before)
        grown = old if state.parsed else None
        try:
            rows = load_rows(state.fmt, state.path, data, state.team, state.inbox, diff.feed, grown)
        except CorruptInbox as err:
            state.error = Problem(err.code, err.message, err.path)
            return None  # keep what we had: a corrupt file removes nothing
        state.error = None
        state.parsed = True
        state.rows = rows
        removed = diff.removed(rows)
        if removed or initial:
            self.history.record(state.team, state.inbox, [], removed)
        if initial or diff.added or removed or diff.updated:
            return Change(
                state.team,
                state.inbox,
                diff.added,
                removed,
                diff.updated,
                len(rows),
                rows.unread,
                initial=initial,
                known_before=known_before,
            )
        return None


IGNORED_SUFFIXES = (".lock", TEMP_SUFFIX)


def hint_kind(path: str) -> str | None:
    """'inbox' for an inbox file, 'team' for something that may change the team list, or None."""
    name = os.path.basename(path)
    if name.endswith(IGNORED_SUFFIXES) or ".json.tmp." in name or ".corrupt-" in name:
        return None
    if name.startswith(".tmp-") or name.startswith("."):
        return None
    if name.endswith(".json") and os.path.basename(os.path.dirname(path)) == "inboxes":
        return "inbox"
    return "team"


class Hints(FileSystemEventHandler):
    """Runs on watchdog's thread: forwards paths, never touches state or stdout."""

    def __init__(self, forward: Callable[[str], None]) -> None:
        self.forward = forward

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type == "modified":
            return  # a folder's listing changed: its files' own events say how
        for p in (event.src_path, getattr(event, "dest_path", "")):
            if p:
                self.forward(os.fsdecode(p))


class RootWatcher:
    """A watchdog observer over the roots that exist; re-checked on each rescan."""

    def __init__(self, handler: Hints) -> None:
        self.handler = handler
        self.observer = Observer()
        self.watched: set[str] = set()
        self.observer.start()

    def ensure(self, roots: list[str]) -> None:
        for root in roots:
            if root not in self.watched and os.path.isdir(root):
                self.observer.schedule(self.handler, root, recursive=True)
                self.watched.add(root)

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join(timeout=2)
