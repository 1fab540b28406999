"""What a peer appended to an inbox since it was read: found by comparing bytes, and only
the appended tail parsed (a redo under the lock, a watched inbox that grew)."""

from __future__ import annotations

import os
from typing import Any

from ..errors import CorruptInbox
from ..fileio import open_regular, read_all
from ..formats.base import EntryProblem, InboxFormat
from ..jsonio import skip_space_back
from .snapshot import Snapshot


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


COMPARE_BYTES = 256 * 1024  # small enough to stay in the CPU's cache between read and compare


def read_appended(path: str, prefix: list[tuple[bytes, int]], size_before: int) -> bytes | None:
    """The file's bytes from just past `prefix` on (a comma first) if the file starts with
    `prefix` (pieces `buffer[:length]`, in order) and grew past `size_before`: what a pure
    append added. None otherwise (or no file): read it whole.

    Compared through one small buffer rather than a copy of the file: a fresh buffer the
    size of a big inbox is mapped and faulted in page by page on every append.
    """
    fd = open_regular(path)
    if fd is None:
        return None
    try:
        size = os.fstat(fd).st_size
        if size <= size_before:
            return None
        view = memoryview(bytearray(COMPARE_BYTES))
        at = 0
        for buf, length in prefix:
            done = 0
            while done < length:
                n = os.readv(fd, [view[: min(len(view), length - done)]])
                if not n or not buf.startswith(view[:n], done):
                    return None
                done += n
            at += length
        rest = read_all(fd, path, None, size - at)
    finally:
        os.close(fd)
    return rest if rest[:1] == b"," else None


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


def extended(fmt: InboxFormat, snap: Snapshot, data: bytes) -> Snapshot | None:
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
