"""watchdog hints -> rescans -> diffs.

File events are hints only: each names a path whose inbox is re-read, unless
its (inode, size, mtime_ns) is unchanged. A periodic rescan catches what the
kernel's queue dropped. Diffs are computed against what the sidecar last saw
(across restarts: against the history), so a prune, a peer's rewrite or a
restart never yields a duplicate or a missed message.

When a peer only appended, only the new tail is parsed (store.tail_entries).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import attrs
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from .discovery import Roster, Settings, TeamDir, find_teams, roster
from .errors import CorruptInbox
from .formats import InboxFormat
from .history import History
from .model import Message, Problem
from .store import TEMP_SUFFIX, messages, parse, tail_entries


@attrs.define
class InboxState:
    team: str
    inbox: str
    path: str
    fmt: InboxFormat
    sig: tuple[int, int, int] | None = None
    data: bytes | None = None  # kept for the tail parse (Claude only)
    messages: list[Message] = attrs.Factory(list)
    error: Problem | None = None
    parsed: bool = False  # parsed once in this process: later diffs are against memory

    @property
    def unread(self) -> int:
        return sum(1 for m in self.messages if not m.read)


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
        self._shape: Any = None

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
                if state.messages:
                    removed = [m.id for m in state.messages]
                    self.history.record(state.team, state.inbox, [], removed)
                    changes.append(Change(state.team, state.inbox, [], removed, [], 0, 0))
        for state in list(self.inboxes.values()):
            change = self.refresh(state)
            if change:
                changes.append(change)
        shape = self._team_shape()
        changed = shape != self._shape
        self._shape = shape
        return changed, changes

    def _team_shape(self) -> Any:
        return sorted(
            (key, s.error.message if s.error else None) for key, s in self.inboxes.items()
        ) + sorted(
            (tid, t.config_error and t.config_error.message) for tid, t in self.teams.items()
        )

    def refresh_paths(self, paths: set[str]) -> tuple[bool, list[Change]]:
        """Re-read the inboxes named by hints; anything unknown triggers a full scan."""
        if any(p not in self.by_path for p in paths):
            return self.scan()
        changes = [c for p in paths if (c := self.refresh(self.inboxes[self.by_path[p]]))]
        shape = self._team_shape()
        changed = shape != self._shape
        self._shape = shape
        return changed, changes

    def refresh(self, state: InboxState) -> Change | None:
        sig = _sig(state.path)
        if sig == state.sig and (state.parsed or state.error):
            return None
        # Until a first good parse, diff against the history: a file that was corrupt
        # at start-up and is fixed later is no news for what the history already knew.
        initial = not state.parsed
        state.sig = sig
        data: bytes | None = None
        if sig is not None:
            try:
                with open(state.path, "rb") as f:
                    data = f.read()
            except FileNotFoundError:
                data = None
        old = state.messages
        try:
            new = self._parse(state, data)
        except CorruptInbox as err:
            state.error = Problem(err.code, err.message, err.path)
            return None  # keep what we had: a corrupt file removes nothing
        state.error = None
        state.parsed = True
        state.messages = new
        state.data = data if state.fmt.name == "claude" else None
        if initial:
            known_before = self.history.known_inbox(state.team, state.inbox)
            old_ids = self.history.known_ids(state.team, state.inbox)
            added = [m for m in new if m.id not in old_ids]
            new_ids = {m.id for m in new}
            removed = [i for i in old_ids if i not in new_ids]
            updated: list[Message] = []
        else:
            known_before = True
            before = {m.id: m for m in old}
            new_ids = {m.id for m in new}
            added = [m for m in new if m.id not in before]
            removed = [i for i in before if i not in new_ids]
            updated = [m for m in new if m.id in before and before[m.id].read != m.read]
        if added or removed or initial:
            self.history.record(state.team, state.inbox, added, removed)
        if initial or added or removed or updated:
            return Change(
                state.team,
                state.inbox,
                added,
                removed,
                updated,
                len(new),
                state.unread,
                initial=initial,
                known_before=known_before,
            )
        return None

    def _parse(self, state: InboxState, data: bytes | None) -> list[Message]:
        fmt = state.fmt
        if data is not None and state.data is not None and fmt.name == "claude":
            tail = tail_entries(fmt, state.data, data, state.path)
            if tail is not None:
                base = len(state.messages)
                extra = [
                    fmt.message(e, base + i, state.team, state.inbox)
                    for i, e in enumerate(tail)
                    if fmt.invalid(e) is None
                ]
                return state.messages + extra
        snap = parse(fmt, state.path, data)
        return messages(fmt, snap, state.team, state.inbox)


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
