"""The locked read-modify-write that never loses a message: update, append, rewrite, and a
delivery the format's way.

A write takes the peer's own lock, re-reads the file, changes it, writes a
temp file in the same folder (a name no peer treats as an inbox), fsyncs it,
checks the lock is still ours and far from stale, checks the inbox is still
the file it read, swaps the temp file in, fsyncs the folder and verifies
(commit.py).

Peers give up after about 1 s of waiting, so the lock is held for as little
as possible: the file is parsed and the new one written and fsynced BEFORE
the lock is taken; under the lock the current bytes are compared with the
ones that were parsed, and only if another writer changed them in between is
the work redone inside the lock.

The lease: a peer may break a lock whose mtime is 10 s old, so a writer that
is paused (SIGSTOP, swap, a laptop lid) between its last check and its
rename could overwrite what that peer appended. If the swap displaced a
peer's write, or the lock was no longer ours at the rename, the write is
reconciled under a fresh lock (a three-way merge of entries, merge.py: what
the peer added or marked comes back, what it delivered stays gone, and our
own change is applied if it is missing).

Symlinks: a write first refuses any link inside the team (the team's folder,
`inboxes/`, the inbox, its lock: safeio.refuse_links), so nothing is ever
written through one, and a temp file is opened O_NOFOLLOW.

Modes: a rewrite keeps the inbox's mode (PseudoClaude's are 0600); a new
inbox gets the mode its peer would give it (`mode=`, else the format's `new_file_mode`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import CorruptInbox, WriteNotVerified
from ..fileio import backup_path, check_no_links, temp_path, write_temp
from ..formats.base import InboxFormat
from ..locks import DEFAULT_TIMEOUT, drop_temp, track_temp, write_tracked_temp
from .commit import Changed, CommitReport, commit, open_snapshot, pause_point, unchanged
from .merge import fingerprint, merge_entries
from .snapshot import Snapshot, parse
from .tail import extended
from .temps import remove_dead_temps

MAX_ATTEMPTS = 3
T = TypeVar("T")


def _reconcile(
    fmt: InboxFormat,
    path: str,
    base_data: bytes | None,
    new_data: bytes,
    report: CommitReport,
    *,
    timeout: float,
    mode: int | None,
    attempt: int,
    on_reconcile: Callable[[Snapshot], None] | None,
) -> None:
    """Repair a write whose lease ran out, under a fresh lock: merge back what the
    displaced peer write changed, then our own change unless it is there already.

    Both are three-way merges against the file the write was built on, so a
    peer's additions come back, what it delivered stays gone, and our change
    is applied as a change (mark-read --all does not mark the peer's new entry).
    """
    if attempt >= MAX_ATTEMPTS:
        raise WriteNotVerified(
            f"{path}: other writers kept breaking the lock; the write may be incomplete",
            path=path,
        )
    base = parse(fmt, path, base_data).entries if base_data is not None else []
    changes = [parse(fmt, path, new_data).entries]
    if report.displaced is not None:
        try:
            changes.insert(0, parse(fmt, path, report.displaced).entries)
        except CorruptInbox:  # not ours to judge: kept beside the inbox
            write_temp(backup_path(path), report.displaced, 0o600)

    def build(snap: Snapshot) -> tuple[bytes | None, None]:
        changed = False
        for other in changes:
            merged = merge_entries(base, other, snap.entries)
            if merged is not None:
                snap.entries[:] = merged
                changed = True
        if on_reconcile is not None:
            on_reconcile(snap)
        return (fmt.serialize(snap.doc) if changed else None), None

    update(
        fmt,
        path,
        build,
        timeout=timeout,
        mode=mode,
        _attempt=attempt + 1,
        _on_reconcile=on_reconcile,
    )


def update(
    fmt: InboxFormat,
    path: str,
    build: Callable[[Snapshot], tuple[bytes | None, T]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    appends_only: bool = False,
    mode: int | None = None,
    _attempt: int = 0,
    _on_reconcile: Callable[[Snapshot], None] | None = None,
) -> T:
    """Locked read-modify-write. `build` returns the new bytes (None: no change) and a result.

    `build` may run twice (optimistically before the lock, again under it if
    the file changed meanwhile), so it must not have side effects. With
    `appends_only` (build only adds entries, never changes the snapshot's),
    the redo under the lock parses only what peers appended meanwhile.
    A file that does not parse raises CorruptInbox and is never overwritten.

    A write whose lease ran out (this process was paused with the lock held
    and a peer broke it) is reconciled afterwards (_reconcile). `mode`: a new
    inbox's mode (an existing one keeps its own).
    """
    check_no_links(path)
    tmp = temp_path(path)
    track_temp(tmp)
    fds: list[int] = []
    report = CommitReport()
    base_data: bytes | None = None
    new: bytes | None = None
    new_mode = mode if mode is not None else fmt.new_file_mode
    try:
        fd, seen, seen_id, seen_mode = open_snapshot(path)
        if fd is not None:
            fds.append(fd)
        pre_snap: Snapshot | None
        pre: tuple[bytes | None, T] | None
        try:
            pre_snap = parse(fmt, path, seen)
            pre = build(pre_snap)
        except CorruptInbox:
            pre_snap = pre = None  # re-checked under the lock: a peer may have just fixed it
        want = seen_mode if seen_mode is not None else new_mode
        first = pre[0] if pre is not None else None
        inode = write_tracked_temp(tmp, first, want) if first is not None else None
        with fmt.lock(path, timeout) as lock:
            pause_point("in_lock")
            for _ in range(MAX_ATTEMPTS):
                if pre is not None and unchanged(path, seen_id):
                    new, result = pre
                    base_data, base_id = seen, seen_id
                else:
                    fd, current, base_id, cur_mode = open_snapshot(path)
                    if fd is not None:
                        fds.append(fd)
                    snap = None
                    if appends_only and pre_snap is not None and current is not None:
                        snap = extended(fmt, pre_snap, current)
                    new, result = build(snap or parse(fmt, path, current))
                    base_data = current
                    want = cur_mode if cur_mode is not None else new_mode
                    inode = write_tracked_temp(tmp, new, want) if new is not None else None
                if new is None or inode is None:
                    return result
                try:
                    commit(lock, path, tmp, inode, new, base=base_id, report=report)
                    break
                except Changed:
                    pre = None  # the inbox changed under our lock (a lockless writer): redo
            else:
                raise WriteNotVerified(
                    f"{path}: the inbox kept changing under the lock; nothing was written",
                    path=path,
                )
    finally:
        drop_temp(tmp)
        for fd in fds:
            os.close(fd)  # after the lock: freeing the replaced file's blocks is slow
    if not report.clean and new is not None:
        _reconcile(
            fmt,
            path,
            base_data,
            new,
            report,
            timeout=timeout,
            mode=new_mode,
            attempt=_attempt,
            on_reconcile=_on_reconcile,
        )
    remove_dead_temps(path)
    return result


def append(
    fmt: InboxFormat,
    path: str,
    new_entries: list[dict[str, Any]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    mode: int | None = None,
) -> int:
    """Append entries; return the index of the first. Earlier entries keep their bytes."""
    moved: list[int] = []  # where a reconciliation left the first entry

    def build(snap: Snapshot) -> tuple[bytes | None, int]:
        index = len(snap.entries)
        if snap.data is not None:
            spliced = fmt.append_bytes(snap.data, new_entries)
            if spliced is not None:
                return spliced, index
        snap.entries.extend(new_entries)
        return fmt.serialize(snap.doc), index

    def find(snap: Snapshot) -> None:
        first = fingerprint(new_entries[0], with_read=False)
        where = [i for i, e in enumerate(snap.entries) if fingerprint(e, False) == first]
        moved[:] = where[-1:]

    index = update(
        fmt, path, build, timeout=timeout, appends_only=True, mode=mode, _on_reconcile=find
    )
    return moved[0] if moved else index


def deliver(
    fmt: InboxFormat, path: str, entry: dict[str, Any], *, timeout: float = DEFAULT_TIMEOUT
) -> int:
    """Deliver one message: the format's way, appended to its inbox file unless it says
    otherwise (the file bus writes a file per message). The entry's index."""
    return fmt.deliver(path, entry, timeout, append)


def rewrite(
    fmt: InboxFormat,
    path: str,
    change: Callable[[Snapshot], T | None],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    mode: int | None = None,
) -> T | None:
    """Change the parsed entries in place; `change` returns None for "nothing to write".

    `change` may run more than once on fresh snapshots, so it must have no
    other side effects.
    """

    def build(snap: Snapshot) -> tuple[bytes | None, T | None]:
        result = change(snap)
        if result is None or snap.data is None:
            return None, result
        return fmt.serialize(snap.doc), result

    return update(fmt, path, build, timeout=timeout, mode=mode)
