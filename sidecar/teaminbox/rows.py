"""An inbox's valid entries as the tracker keeps them: ids, read flags, and bytes or dicts.

When a peer only appended, only the new tail is read and parsed (Rows.layout, grow_rows).
"""

from __future__ import annotations

import ctypes
import os
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator
from typing import Any

import attrs
import orjson

from .formats import InboxFormat
from .jsonio import skip_space_back
from .model import Message
from .store import parse, read_appended

CHUNK = 1000
ID_SEP = "\x00"  # ids never hold it (formats.claude falls back to the hash id)
_M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
_malloc_steadied = False


def steady_malloc() -> None:
    """Keep glibc's mmap threshold at its default (128 KiB) instead of letting it grow.

    Freeing a big file's bytes (an inbox reread on every append) raises glibc's
    threshold to that size, and its trim threshold to twice it: from then on every
    mid-sized buffer (parsed chunks, answers) is carved from the heap and, freed,
    stays resident; with 27 MB inboxes that kept ~30 MB more at rest and at peak.
    Setting the threshold once turns that adjustment off (mallopt(3)). Process-wide.
    """
    global _malloc_steadied
    if _malloc_steadied:
        return
    _malloc_steadied = True
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return
        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError, TypeError):
        return  # not glibc: nothing to do
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    mallopt(_M_MMAP_THRESHOLD, 128 * 1024)


@attrs.frozen
class Prefix:
    """An inbox's ids and read flags as they were (Rows.prefix)."""

    count: int
    read: bytes
    chunks: tuple[str, ...]


class Rows:
    """An inbox's valid entries as the tracker keeps them.

    Ids, read flags and array indices live in memory; the entries themselves
    stay spans of the file's bytes when the file has Claude Code's own layout
    (100,000 entries then cost their bytes, not a million Python objects), or
    parsed dicts otherwise. Ids are kept joined, a chunk to a string: 100,000
    small strings that outlive a load would pin the heap it fragmented.
    A pure append adds its tail as a piece of its own (`tails`, from the comma after
    the entries before, at file offset `tail_at`), never a new copy of the whole file.
    """

    def __init__(self, data: bytes = b"", spans: bool = True) -> None:
        self.data = data
        self.tails: list[bytes] = []
        self.tail_at: list[int] = []
        self._id_chunks: list[str] = []  # ids joined by ID_SEP, up to CHUNK a string
        self._pending: list[str] = []
        self.read = bytearray()
        self._unread: int | None = None
        self.index = array("q")
        self.starts = array("q")
        self.ends = array("q")
        self.dicts: list[dict[str, Any]] | None = None if spans else []

    def __len__(self) -> int:
        return len(self.read)

    def iter_ids(self, start: int = 0) -> Iterator[str]:
        """The ids in order, from entry `start` on."""
        for chunk in self._id_chunks:
            if start:
                n = chunk.count(ID_SEP) + 1
                if start >= n:
                    start -= n
                    continue
                yield from chunk.split(ID_SEP)[start:]
                start = 0
                continue
            yield from chunk.split(ID_SEP)
        yield from self._pending[start:]

    def prefix(self) -> Prefix:
        """What `extends` compares, without holding on to these rows (or their bytes)."""
        self.seal()
        return Prefix(len(self), bytes(self.read), tuple(self._id_chunks))

    def extends(self, other: Prefix) -> bool:
        """Are `other`'s ids and read flags, in order, the first of ours (a file that only
        grew)? Cheap: the read flags compare as bytes, the ids a joined chunk at a time."""
        n = other.count
        if n > len(self) or self.read[:n] != other.read:
            return False
        self.seal()
        mine, theirs = self._id_chunks, other.chunks
        if len(theirs) > len(mine):
            return False
        last = len(theirs) - 1
        for i, chunk in enumerate(theirs):
            if mine[i] == chunk:
                continue
            # the last chunk may have been topped up since (seal), never changed
            if i == last and mine[i].startswith(chunk) and mine[i][len(chunk)] == ID_SEP:
                continue
            return False
        return True

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
        # counted once: rows only change while a load adds to them (add() forgets it);
        # every `teams` answer and publisher step asks, and 100,000 flags take a while
        if self._unread is None:
            self._unread = self.read.count(0)
        return self._unread

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
        self._unread = None
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
        start, end = self.starts[i], self.ends[i]
        k = bisect_right(self.tail_at, start) - 1
        buf, at = (self.tails[k], self.tail_at[k]) if k >= 0 else (self.data, 0)
        value: dict[str, Any] = orjson.loads(buf[start - at : end - at])
        return value

    def layout(self) -> tuple[list[tuple[bytes, int]], int, int] | None:
        """The file these rows were read from, up to just past its last entry, as pieces
        (buffer, how much of it counts); that end and the file's size. None: no entry."""
        bufs, at = [self.data, *self.tails], [0, *self.tail_at]
        last = bufs[-1]
        close = skip_space_back(last, len(last)) - 1
        end = at[-1] + skip_space_back(last, close) if close > 0 else 0
        if self.dicts is not None or end <= 1:
            return None
        stops = [*at[1:], end]
        pieces = [(b, stop - start) for b, start, stop in zip(bufs, at, stops, strict=True)]
        return pieces, end, at[-1] + len(last)

    def appended_at(self, data: bytes) -> int | None:
        """Where the tail starts (its comma) if `data` is our file with entries appended."""
        layout = self.layout()
        if layout is None:
            return None
        pieces, end, size = layout
        if len(data) <= size or data[end : end + 1] != b",":
            return None
        at = 0
        for buf, length in pieces:
            if not data.startswith(memoryview(buf)[:length], at):
                return None
            at += length
        return end

    def message(self, fmt: InboxFormat, i: int, team: str, inbox: str) -> Message:
        return fmt.message(self.raw(i), self.index[i], team, inbox)

    def extended(self, tail: bytes, at: int) -> Rows:
        """A copy with `tail` appended at file offset `at` (a pure append): the known spans
        still hold. Tails are merged while the one before is no bigger (a binary counter:
        few pieces, each byte copied a few times)."""
        rows = Rows(self.data)
        rows.tails, rows.tail_at = [*self.tails, tail], [*self.tail_at, at]
        tails, tail_at = rows.tails, rows.tail_at
        while len(tails) > 1 and len(tails[-2]) <= len(tails[-1]):
            last, last_at = tails.pop(), tail_at.pop()
            tails[-1] = tails[-1][: last_at - tail_at[-1]] + last
        self.seal()
        rows._id_chunks = list(self._id_chunks)
        rows.read, rows.index = bytearray(self.read), array("q", self.index)
        rows.starts, rows.ends = array("q", self.starts), array("q", self.ends)
        return rows


class _Mismatch(Exception):
    """The spans did not parse as the entries they seemed to be: parse the file whole."""


Feed = Callable[[list[Message], bool], None]


def load_rows(
    fmt: InboxFormat,
    path: str,
    data: bytes | None,
    team: str,
    inbox: str,
    feed: Feed,
    grown_from: Rows | None = None,
) -> Rows:
    """Parse an inbox into Rows, feeding every valid entry's Message to `feed` a chunk at a time.

    With `grown_from` (rows of a file that `data` extends by a pure append), only
    the appended tail is parsed and fed. Raises CorruptInbox.
    """
    if data is not None and grown_from is not None:
        start = grown_from.appended_at(data)
        if start is not None:
            grown = _grow(fmt, grown_from, data[start:], start, team, inbox, feed)
            if grown is not None:
                return grown
    spans = fmt.entry_spans(data) if data is not None else None
    if spans is not None:
        rows = Rows(data or b"")
        try:
            _load_spans(fmt, rows, rows.data, 0, spans, 0, team, inbox, lambda b: feed(b, False))
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


def grow_rows(
    fmt: InboxFormat, path: str, rows: Rows, team: str, inbox: str, feed: Feed
) -> Rows | None:
    """`rows` plus what a pure append added to the file at `path` since, only that parsed
    and fed; None if the file changed otherwise (load it whole). The file is compared
    with the rows' own bytes, not read into a new copy (store.read_appended)."""
    layout = rows.layout()  # span rows: one file laid out as a JSON array
    if layout is None:
        return None
    pieces, end, size = layout
    tail = read_appended(path, pieces, size)
    return _grow(fmt, rows, tail, end, team, inbox, feed) if tail is not None else None


def _grow(
    fmt: InboxFormat, rows: Rows, tail: bytes, at: int, team: str, inbox: str, feed: Feed
) -> Rows | None:
    spans = fmt.entry_spans(tail)
    if spans is None:
        return None
    grown = rows.extended(tail, at)
    feed([], True)
    try:
        first = grown_from_count(rows)
        _load_spans(fmt, grown, tail, at, spans, first, team, inbox, lambda b: feed(b, True))
    except _Mismatch:
        return None
    return grown


def grown_from_count(rows: Rows) -> int:
    """The array index the next appended entry gets."""
    return rows.index[-1] + 1 if len(rows.index) else 0


def _load_spans(
    fmt: InboxFormat,
    rows: Rows,
    data: bytes,
    shift: int,
    spans: tuple[array[int], array[int]],
    first_index: int,
    team: str,
    inbox: str,
    feed: Callable[[list[Message]], None],
) -> None:
    """Parse the entries at `spans` of `data` (at file offset `shift`) into `rows`."""
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
            index = first_index + c + k
            msg = fmt.message(entry, index, team, inbox)
            rows.add(msg.id, msg.read, index, (span[0] + shift, span[1] + shift), entry)
            batch.append(msg)
        rows.seal()
        feed(batch)
