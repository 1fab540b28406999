"""Reading a transcript safely: regular files only, from a byte offset, a line at a time
within bounds (`Tail`, `Transcript`)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator

from .limits import MAX_FILE, MAX_LINE, MAX_META, READ_CHUNK
from .rows import Stats, _parse

# --- files -------------------------------------------------------------------------------


class NotFollowed(OSError):
    """A path that is not a regular file (FIFO, device, folder), or one too big to follow."""


def open_regular(path: str) -> int | None:
    """A read descriptor on a regular file, None when there is none; never blocks.

    stat first, so a FIFO or a device is never opened; then O_NONBLOCK and fstat, in
    case it was swapped in between. A symlink loop is an OSError (ELOOP).
    """
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):
        raise NotFollowed(errno.EINVAL, "not a regular file", path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotFollowed(errno.EINVAL, "not a regular file", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_small(path: str, limit: int = MAX_META) -> bytes | None:
    fd = open_regular(path)
    if fd is None:
        return None
    try:
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotFollowed(errno.EFBIG, "too large", path)
    return data


class Tail:
    """The complete lines appended to a file since the last read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0  # bytes consumed: complete lines, and skipped ones
        self.partial = b""  # an incomplete last line, from `offset`
        self.skipping = False  # inside a line over MAX_LINE: dropped up to its newline
        self.ident: tuple[int, int] | None = None
        self.seen: tuple[int, int, int] | None = None  # (ino, size, mtime) at the last read
        self.restarted = False  # replaced or truncated: the reader starts over

    @property
    def position(self) -> int:
        return self.offset + len(self.partial)

    def unchanged(self) -> bool:
        try:
            st = os.stat(self.path)
        except OSError:
            return self.seen is None
        return (st.st_ino, st.st_size, st.st_mtime_ns) == self.seen

    def read(self, budget: int) -> Iterator[list[bytes]]:
        """Batches of complete lines, up to about `budget` bytes; `restarted` is set
        before the first batch when the file was replaced or truncated."""
        fd = open_regular(self.path)
        if fd is None:
            return
        try:
            st = os.fstat(fd)
            ident = (st.st_dev, st.st_ino)
            if (self.ident is not None and ident != self.ident) or st.st_size < self.position:
                self.offset, self.partial, self.skipping = 0, b"", False
                self.restarted = True
            self.ident = ident
            if st.st_size > MAX_FILE:
                raise NotFollowed(errno.EFBIG, f"over {MAX_FILE} bytes", self.path)
            end = min(st.st_size, self.position + budget)
            pos = self.position
            while pos < end:
                chunk = os.pread(fd, min(READ_CHUNK, end - pos), pos)
                if not chunk:
                    break
                pos += len(chunk)
                lines = self._cut(chunk)
                if lines:
                    yield lines
            self.seen = (st.st_ino, pos, st.st_mtime_ns) if pos == st.st_size else None
        finally:
            os.close(fd)

    def _cut(self, chunk: bytes) -> list[bytes]:
        if self.skipping:
            nl = chunk.find(b"\n")
            if nl < 0:
                self.offset += len(chunk)
                return []
            self.offset += nl + 1
            chunk = chunk[nl + 1 :]
            self.skipping = False
        data = self.partial + chunk if self.partial else chunk
        last = data.rfind(b"\n")
        lines: list[bytes] = []
        if last < 0:
            self.partial = data
        else:
            lines = [ln for ln in data[:last].split(b"\n") if ln.strip() and len(ln) <= MAX_LINE]
            self.offset += last + 1
            self.partial = data[last + 1 :]
        if len(self.partial) > MAX_LINE:
            self.offset += len(self.partial)
            self.partial = b""
            self.skipping = True
        return lines

    def rest(self) -> bytes | None:
        """The incomplete last line when it parses whole (a session that ended without
        the newline), else None."""
        if self.skipping or not self.partial.strip():
            return None
        return self.partial if _parse(self.partial) is not None else None


class Transcript:
    """One transcript file followed: its tail and what its rows said."""

    def __init__(self, path: str, person: str | None = None) -> None:
        self.path = path
        self.person = person
        self.tail = Tail(path)
        self.stats = Stats(person)
        self.error: str | None = None

    def poll(self, budget: int) -> bool:
        """Read what was appended (at most about `budget` bytes); True when more is left."""
        if (self.error is not None or self.tail.seen is not None) and self.tail.unchanged():
            return False  # not a syscall more than a stat for a file that did not change
        try:
            for lines in self.tail.read(budget):
                self._restart()
                self.stats.feed(lines)
            self._restart()
            self.error = None
        except OSError as err:
            self.error = f"{self.path}: {err.strerror or err}"
            return False
        return self.tail.seen is None and self.tail.ident is not None

    def finish(self) -> None:
        """The session ended: take in a last line written without its newline."""
        rest = self.tail.rest()
        if rest is not None:
            self.stats.feed([rest])
            self.tail.offset += len(rest)
            self.tail.partial = b""

    def _restart(self) -> None:
        if self.tail.restarted:
            self.tail.restarted = False
            answers = self.stats.answers  # found already: kept (their ids are stable)
            sends = self.stats.sends.found
            delivered = self.stats.delivered
            self.stats = Stats(self.person)
            self.stats.delivered = delivered
            self.stats.answers = answers
            self.stats.sends.found = sends
