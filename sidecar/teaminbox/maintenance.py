"""Keeping inboxes healthy: compact (archive + prune), repair (salvage), doctor (report)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from typing import Protocol

from .discovery import Roster, Settings, TeamDir, find_teams, roster
from .errors import CorruptInbox, InvalidParams, NotOwned, TeamInboxError
from .locks import DEFAULT_TIMEOUT, STALE_SECONDS
from .model import Finding, Member, Message
from .protocol import CompactResult
from .store import Snapshot, messages, read, rewrite, salvage

LEFTOVER_SECONDS = 60.0
BIG_INBOX_ENTRIES = 1000
BIG_INBOX_BYTES = 1024 * 1024


class Archive(Protocol):
    """The part of the history compact needs (the server hops these to its state thread)."""

    def record(
        self, team: str, inbox: str, added: Iterable[Message], removed: Iterable[str]
    ) -> None: ...
    def known_ids(self, team: str, inbox: str) -> set[str]: ...


def compact(
    r: Roster, member: Member, archive: Archive, *, timeout: float = DEFAULT_TIMEOUT
) -> CompactResult:
    """Archive the person's own inbox, then prune its read entries that the archive holds.

    Big inboxes make the agents' own writers give up, so keeping this one small
    protects everyone. Only where the format allows it: PseudoClaude identifies
    entries by index, and pruning would shift what its runner marks read.
    """
    if not member.owned:
        raise NotOwned(f"{member.inbox} is {member.name}'s inbox; only your own is compacted")
    fmt = r.team.fmt
    if not fmt.compactable:
        raise InvalidParams(f"{r.team.format} inboxes are not compacted")
    path, tid = r.team.inbox_path(member.inbox), r.team.id
    archive.record(tid, member.inbox, messages(fmt, read(fmt, path), tid, member.inbox), [])
    keep = archive.known_ids(tid, member.inbox)
    pruned: list[str] = []

    def change(snap: Snapshot) -> tuple[list[str], int] | None:
        bad = {p.index for p in snap.problems}
        kept, gone = [], []
        for i, e in enumerate(snap.entries):
            entry_id = None if i in bad else fmt.entry_id(e, i)
            if entry_id is not None and e.get("read") is True and entry_id in keep:
                gone.append(entry_id)
            else:
                kept.append(e)
        snap.entries[:] = kept
        return (gone, len(kept)) if gone else None

    done = rewrite(fmt, path, change, timeout=timeout)
    if done:
        pruned, kept = done
        archive.record(tid, member.inbox, [], pruned)  # now served as archived
    else:
        kept = len(read(fmt, path).entries)
    return CompactResult(tid, member.inbox, len(pruned), len(pruned), kept)


def repair(r: Roster, member: Member) -> tuple[str, int, int, str | None]:
    """Salvage the valid entries of a broken inbox; the original is kept beside it."""
    if not r.team.fmt.has_read_flag:
        raise InvalidParams(f"{r.team.format} keeps a file per message: nothing to repair")
    path = r.team.inbox_path(member.inbox)
    kept, dropped, backup = salvage(r.team.fmt, path)
    return path, kept, dropped, backup


def doctor(settings: Settings) -> list[Finding]:
    """Stale locks, corrupt files, unread inboxes, leftover temp files, oversized inboxes."""
    out: list[Finding] = []
    now = time.time()
    for team in find_teams(settings.roots):
        try:
            out.extend(_check_team(team, settings, now))
        except (TeamInboxError, OSError) as err:  # one odd team never hides the others
            out.append(Finding("unreadable", team.path, str(err)))
    return out


def _check_team(team: TeamDir, settings: Settings, now: float) -> list[Finding]:
    out: list[Finding] = []
    if team.config_error:
        out.append(
            Finding("config", team.config_error.path or team.path, team.config_error.message)
        )
    r = roster(team, settings)
    out.extend(_scan_folders(team, r, now))
    out.extend(Finding("bad_name", team.path, m.error.message) for m in r.skipped if m.error)
    fmt = team.fmt
    for m in r.members:
        path = team.inbox_path(m.inbox)
        if m.phantom:
            out.append(
                Finding(
                    "phantom",
                    path,
                    f"{team.id}: inbox {m.inbox!r} belongs to no member in config.json;"
                    " nobody reads it",
                )
            )
        if fmt.sig(path) is None:
            continue
        try:
            snap = read(fmt, path)
        except CorruptInbox as err:
            out.append(
                Finding(
                    "corrupt", path, f"{err.message}; run `teaminbox repair {team.id} {m.inbox}`"
                )
            )
            continue
        except (TeamInboxError, OSError) as err:
            out.append(Finding("unreadable", path, str(err)))
            continue
        for p in snap.problems:
            out.append(Finding("invalid_entry", path, f"entry {p.index}: {p.reason}"))
        size = len(snap.data or b"")
        if len(snap.entries) > BIG_INBOX_ENTRIES or size > BIG_INBOX_BYTES:
            out.append(
                Finding(
                    "big",
                    path,
                    f"{len(snap.entries)} entries, {size} bytes:"
                    " agents' own writers give up on big inboxes",
                )
            )
    return out


def _scan_folders(team: TeamDir, r: Roster, now: float) -> list[Finding]:
    """Locks and temp files beside the inboxes."""
    out: list[Finding] = []
    fmt = team.fmt
    folders = {os.path.dirname(fmt.inbox_path(team.path, "_"))}
    for m in r.members:  # the file bus keeps a folder per inbox, its temp files inside
        path = team.inbox_path(m.inbox)
        folders.add(path if os.path.isdir(path) else os.path.dirname(path))
    for folder in sorted(folders):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            path = os.path.join(folder, name)
            try:
                age = now - os.lstat(path).st_mtime
            except FileNotFoundError:
                continue
            if name.endswith(".json.lock") and age > STALE_SECONDS:
                out.append(
                    Finding(
                        "stale_lock",
                        path,
                        f"lock untouched for {age:.0f} s; the next writer reclaims it",
                    )
                )
            elif team.fmt.is_temp(name) and not name.endswith(".lock"):
                out.append(_temp_finding(path, age))
    return out


def _temp_finding(path: str, age: float) -> Finding:
    """A temp file beside an inbox. A young one may be a send in progress, or the full copy
    a killed send left (the next write removes that once it is old): listed, never touched."""
    if age > LEFTOVER_SECONDS:
        return Finding(
            "leftover_temp",
            path,
            f"temp file left by a crashed writer {age:.0f} s ago; safe to delete",
        )
    return Finding(
        "young_temp",
        path,
        f"temp file written {max(age, 0):.0f} s ago: it may belong to a send in progress, so it"
        " is left alone; if it stays, it was a killed send's",
    )
