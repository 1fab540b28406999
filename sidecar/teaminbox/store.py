"""Reading inboxes, and the locked read-modify-write that never loses a message.

A write takes the peer's own lock, re-reads the file, changes it, writes a
temp file in the same folder (a name no peer treats as an inbox), fsyncs it,
checks the lock is still ours, renames it over the inbox, fsyncs the folder
and verifies that the file now at the path is the one it wrote.

Peers give up after about 1 s of waiting, so the lock is held for as little
as possible: the file is parsed and the new one written and fsynced BEFORE
the lock is taken; under the lock the current bytes are compared with the
ones that were parsed, and only if another writer changed them in between is
the work redone inside the lock.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

import attrs

from .errors import CorruptInbox, TooLarge, WriteNotVerified
from .formats import EntryProblem, InboxFormat, skip_space_back
from .locks import DEFAULT_TIMEOUT, PeerLock
from .model import Message

MAX_MESSAGE_BYTES = 1024 * 1024
TEMP_SUFFIX = ".teaminbox-tmp"
T = TypeVar("T")


@attrs.define
class Snapshot:
    """One parse of an inbox file (or of its absence)."""

    path: str
    data: bytes | None  # None: the file does not exist
    doc: Any
    entries: list[Any]
    problems: list[EntryProblem]


def read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def parse(fmt: InboxFormat, path: str, data: bytes | None) -> Snapshot:
    if data is None:
        doc = fmt.empty()
        return Snapshot(path, None, doc, fmt.entries(doc), [])
    doc, entries = fmt.parse(data, path)
    problems = []
    for i, entry in enumerate(entries):
        reason = fmt.invalid(entry)
        if reason is not None:
            problems.append(EntryProblem(i, reason))
    return Snapshot(path, data, doc, entries, problems)


def read(fmt: InboxFormat, path: str) -> Snapshot:
    """Parse an inbox without locking (writers replace it atomically)."""
    return parse(fmt, path, fmt.read(path))


def messages(fmt: InboxFormat, snap: Snapshot, team: str, inbox: str) -> list[Message]:
    """The valid entries as normalized messages, oldest first."""
    bad = {p.index for p in snap.problems}
    return [
        fmt.message(entry, i, team, inbox) for i, entry in enumerate(snap.entries) if i not in bad
    ]


def check_size(text: str, *others: str | None) -> None:
    size = len(text.encode("utf-8", "surrogatepass")) + sum(
        len(o.encode("utf-8", "surrogatepass")) for o in others if o
    )
    if size > MAX_MESSAGE_BYTES:
        raise TooLarge(f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}")


def temp_path(path: str) -> str:
    """Beside the inbox, hidden, and not `*.json`: no peer mistakes it for an inbox."""
    return os.path.join(
        os.path.dirname(path),
        f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}",
    )


def _write_temp(tmp: str, data: bytes) -> int:
    """Write and fsync a temp file; return its inode."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)


def _fsync_dir(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _verify(path: str, inode: int, data: bytes) -> None:
    tail = min(len(data), 65536)
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_ino == inode and st.st_size == len(data):
            f.seek(len(data) - tail)
            if f.read(tail) == data[len(data) - tail :]:
                return
    raise WriteNotVerified(f"{path}: the file after the write is not the one written", path=path)


def _commit(lock: PeerLock, path: str, tmp: str, inode: int, data: bytes) -> None:
    lock.verify()
    os.rename(tmp, path)
    _fsync_dir(os.path.dirname(path))
    _verify(path, inode, data)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


FileId = tuple[int, int, int, int, int]


def _file_id(st: os.stat_result) -> FileId:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _open_snapshot(path: str) -> tuple[int | None, bytes | None, FileId | None]:
    """Read a file and keep it open: its inode cannot be reused while we hold it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None, None, None
    try:
        st = os.fstat(fd)
        chunks = []
        while chunk := os.read(fd, max(st.st_size, 65536)):
            chunks.append(chunk)
        return fd, b"".join(chunks), _file_id(st)
    except BaseException:
        os.close(fd)
        raise


def _unchanged(path: str, seen: FileId | None) -> bool:
    """Is the file at `path` still the one we read?

    Every peer replaces an inbox by rename (a new inode), and the inode we
    read cannot be reused while our descriptor is open, so the same inode
    with the same size and times is the same bytes; this spares re-reading
    27 MB under the lock.
    """
    try:
        return _file_id(os.stat(path)) == seen
    except FileNotFoundError:
        return seen is None


def appended_at(old: bytes, new: bytes) -> int | None:
    """Where the tail starts (its comma) if `new` is `old` with entries appended, else None.

    Peers re-serialize earlier entries byte for byte, so a pure append leaves
    the old file, up to its last entry, as a prefix of the new one.
    """
    close = skip_space_back(old, len(old)) - 1  # the closing bracket
    end = skip_space_back(old, close)  # just past the last entry
    if end <= 1 or len(new) <= len(old):
        return None
    if not new.startswith(memoryview(old)[:end]) or new[end : end + 1] != b",":
        return None
    return end


def tail_entries(fmt: InboxFormat, old: bytes, new: bytes, path: str) -> list[Any] | None:
    """The entries appended to the array `old` to make `new`, or None if it was not an append."""
    end = appended_at(old, new)
    if end is None:
        return None
    try:
        tail, _ = fmt.parse(b"[" + new[end + 1 :], path)
    except CorruptInbox:
        return None
    return list(tail)


def _extended(fmt: InboxFormat, snap: Snapshot, data: bytes) -> Snapshot | None:
    """`snap` plus what a peer appended since, parsing only the appended tail."""
    if snap.data is None or not isinstance(snap.doc, list):
        return None
    tail = tail_entries(fmt, snap.data, data, snap.path)
    if tail is None:
        return None
    entries = snap.entries + tail
    base = len(snap.entries)
    problems = snap.problems + [
        EntryProblem(base + i, reason)
        for i, e in enumerate(tail)
        if (reason := fmt.invalid(e)) is not None
    ]
    return Snapshot(snap.path, data, entries, entries, problems)


def update(
    fmt: InboxFormat,
    path: str,
    build: Callable[[Snapshot], tuple[bytes | None, T]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    appends_only: bool = False,
) -> T:
    """Locked read-modify-write. `build` returns the new bytes (None: no change) and a result.

    `build` may run twice (optimistically before the lock, again under it if
    the file changed meanwhile), so it must not have side effects. With
    `appends_only` (build only adds entries, never changes the snapshot's),
    the redo under the lock parses only what peers appended meanwhile.
    A file that does not parse raises CorruptInbox and is never overwritten.
    """
    tmp = temp_path(path)
    fd, seen, seen_id = _open_snapshot(path)
    try:
        try:
            first = parse(fmt, path, seen)
            pre_snap: Snapshot | None = first
            pre: tuple[bytes | None, T] | None = build(first)
        except CorruptInbox:
            pre_snap = pre = None  # re-checked under the lock: a peer may have just fixed it
        inode = _write_temp(tmp, pre[0]) if pre is not None and pre[0] is not None else None
        with fmt.lock(path, timeout) as lock:
            if pre is not None and _unchanged(path, seen_id):
                new, result = pre
            else:
                current = read_bytes(path)
                snap = None
                if appends_only and pre_snap is not None and current is not None:
                    snap = _extended(fmt, pre_snap, current)
                new, result = build(snap or parse(fmt, path, current))
                inode = _write_temp(tmp, new) if new is not None else None
            if new is not None and inode is not None:
                _commit(lock, path, tmp, inode, new)
            return result
    finally:
        _unlink(tmp)
        if fd is not None:
            os.close(fd)  # after the lock: freeing the replaced file's blocks is slow


def ensure_claude_inbox(path: str) -> None:
    """Create a missing Claude inbox as `[]` with exclusive create, as Claude Code does."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    try:
        os.write(fd, b"[]")
    finally:
        os.close(fd)


def append(
    fmt: InboxFormat,
    path: str,
    new_entries: list[dict[str, Any]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> int:
    """Append entries; return the index of the first. Earlier entries keep their bytes."""

    def build(snap: Snapshot) -> tuple[bytes | None, int]:
        index = len(snap.entries)
        if snap.data is not None:
            spliced = fmt.append_bytes(snap.data, new_entries)
            if spliced is not None:
                return spliced, index
        snap.entries.extend(new_entries)
        return fmt.serialize(snap.doc), index

    return update(fmt, path, build, timeout=timeout, appends_only=True)


def rewrite(
    fmt: InboxFormat,
    path: str,
    change: Callable[[Snapshot], T | None],
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> T | None:
    """Change the parsed entries in place; `change` returns None for "nothing to write"."""

    def build(snap: Snapshot) -> tuple[bytes | None, T | None]:
        result = change(snap)
        if result is None or snap.data is None:
            return None, result
        return fmt.serialize(snap.doc), result

    return update(fmt, path, build, timeout=timeout)


_ENTRY_START = re.compile(r"^[ \t]*\{", re.MULTILINE)


def _scan_objects(data: bytes) -> list[Any]:
    """Every JSON object that starts a line and decodes: what survives in a broken file."""
    text = data.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    found: list[Any] = []
    pos = 0
    for match in _ENTRY_START.finditer(text):
        start = match.end() - 1
        if start < pos:
            continue  # inside an object already taken
        try:
            value, pos = decoder.raw_decode(text, start)
        except ValueError:
            continue
        found.append(value)
    return found


def salvage(fmt: InboxFormat, path: str) -> tuple[int, int, str | None]:
    """Keep the valid entries of a broken inbox; the original bytes go to `.corrupt-<time>`.

    Returns (kept, dropped, backup path); a healthy file is left alone.
    """
    tmp = temp_path(path)
    with fmt.lock(path, DEFAULT_TIMEOUT) as lock:
        data = read_bytes(path)
        if data is None:
            return 0, 0, None
        try:
            snap = parse(fmt, path, data)
            if not snap.problems:
                return len(snap.entries), 0, None
            bad = {p.index for p in snap.problems}
            good = [e for i, e in enumerate(snap.entries) if i not in bad]
            doc = snap.doc
            snap.entries[:] = good
            dropped = len(bad)
        except CorruptInbox:
            found = _scan_objects(data)
            good = [e for e in found if fmt.invalid(e) is None]
            dropped = len(found) - len(good)
            doc = fmt.empty()
            fmt.entries(doc).extend(good)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        backup = f"{path}.corrupt-{stamp}-{secrets.token_hex(2)}"
        _write_temp(backup, data)
        new = fmt.serialize(doc)
        try:
            _commit(lock, path, tmp, _write_temp(tmp, new), new)
        finally:
            _unlink(tmp)
        return len(good), dropped, backup
