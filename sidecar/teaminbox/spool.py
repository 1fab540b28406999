"""The spool: what the `PostToolUse` hook (`python -m teaminbox.hook record`) saw of each
`SendMessage`, kept on disk until a sidecar takes it in.

Where: `<user data folder>/spool/` (the history's folder; `TEAMINBOX_SPOOL_DIR` to move
it), 0700, never a link. `sends.jsonl` is appended to; past MAX_FILE bytes it is rotated
to `sends.<stamp>-<id>.jsonl` (its own name: no rotation replaces another file). Each
file's first line is a header, `{"teaminboxSpool": 1, "id": HEX}` (the id names the file
to the reader across renames: the history keeps a byte offset for each id). Every other
line is one record, `{"t": EPOCH, "p": PAYLOAD}`: the hook's stdin as it came, with
`"cut": N` and the words taken out when the line would pass MAX_RECORD bytes (the ids
kept: the sender's transcript still holds the words).

Writing (`append`): one `write()` of a whole line to a file opened `O_APPEND |
O_NOFOLLOW` (Linux holds the inode's lock over such a write: appenders in other processes
never tear each other's lines), then `fsync`; a line that went into a file deleted under
it (`st_nlink` 0) is written again. A file is born whole (a temp file with its header
linked into place). Past MAX_FILE bytes the writer that notices rotates it under a lock;
past MAX_KEPT rotated files the oldest goes, read or not: the only way a line is lost
unread (the history then keeps the loss, for the gaps). The spool stays under about
(MAX_KEPT + 1) x (MAX_FILE + MAX_RECORD) bytes.

Reading (`read`): every spool file, oldest first, from each file's offset, within a
budget; a line that does not parse, or is over MAX_RECORD, is skipped and counted; a last
line without its newline (a writer mid-write) is left for the next read. A sidecar deletes
a rotated file once the history holds it to its end (`read_through`, `release`: what a
late writer added meanwhile is moved to `sends.jsonl`). Links, FIFOs and folders under
spool names are never opened, followed or deleted. Standard library only: the hook's start
is the agent's wait.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
import sys
import time
from collections.abc import Mapping
from typing import Any

CURRENT = "sends.jsonl"
LEGACY = "sends.1.jsonl"  # the one rotated file of earlier versions: the oldest
_PREFIX, _SUFFIX = "sends.", ".jsonl"
LOCK = ".rotate.lock"
MAX_RECORD = 1024 * 1024  # bytes of one line; a bigger payload is kept without its words
MAX_STDIN = 16 * 1024 * 1024  # bytes of stdin read; past it, only the size is kept
MAX_FILE = 8 * 1024 * 1024  # a file past this is rotated
MAX_KEPT = 16  # rotated files kept: past it the oldest goes, read or not
MAX_HEADER = 256
HEADER_KEY = "teaminboxSpool"
VERSION = 1
_WORDS = ("message", "content", "text")  # taken out of a cut record's tool_input/response

_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO planted there never blocks an open


def folder(env: Mapping[str, str] = os.environ) -> str:
    """The spool folder: what platformdirs calls the user data folder (written out here:
    the hook imports nothing it can spare), then `spool`."""
    if env.get("TEAMINBOX_SPOOL_DIR"):
        return env["TEAMINBOX_SPOOL_DIR"]
    home = env.get("HOME") or os.path.expanduser("~")
    if sys.platform == "win32":
        base = env.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(home, "Library", "Application Support")
    else:
        xdg = env.get("XDG_DATA_HOME", "").strip()
        base = xdg if xdg else os.path.join(home, ".local", "share")
    return os.path.join(base, "teaminbox", "spool")


class SpoolError(Exception):
    """The spool cannot be written safely (a link, a stranger's folder, not a file)."""


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def make_folder(path: str) -> None:
    """Make the folder (0700) if missing; refuse a link, a stranger's, or one others may enter."""
    with contextlib.suppress(FileExistsError):
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        os.mkdir(path, 0o700)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise SpoolError(f"{path}: not a folder")
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        raise SpoolError(f"{path}: not this user's")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)  # ours and a real folder (lstat): close it


def _open_append(path: str) -> int:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | _O_NOFOLLOW | _O_CLOEXEC | _O_NONBLOCK)
    st = os.fstat(fd)
    uid = _uid()
    if not stat.S_ISREG(st.st_mode) or (uid is not None and st.st_uid != uid):
        os.close(fd)
        raise SpoolError(f"{path}: not a regular file of this user's")
    return fd


def header() -> bytes:
    return json.dumps({HEADER_KEY: VERSION, "id": os.urandom(8).hex()}).encode() + b"\n"


def _create(path: str) -> None:
    """A new spool file, its header in it before anyone can append (a temp file, linked)."""
    tmp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_CLOEXEC, 0o600)
    try:
        try:
            os.write(fd, header())
            os.fsync(fd)
        finally:
            os.close(fd)
        with contextlib.suppress(FileExistsError):  # another writer made it first
            os.link(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def append(line: bytes, where: str | None = None) -> None:
    """Append one record line (ends with a newline) to the spool; SpoolError or OSError."""
    spool = where or folder()
    make_folder(spool)
    path = os.path.join(spool, CURRENT)
    for _ in range(3):  # a file deleted under the write (read through, or capped): again
        fd = _open_current(path)
        try:
            _write_all(fd, line)
            os.fsync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        if st.st_nlink:
            break
    if st.st_size > MAX_FILE:
        _rotate(spool, path)


def _open_current(path: str) -> int:
    for _ in range(3):
        try:
            return _open_append(path)
        except FileNotFoundError:
            _create(path)
    raise SpoolError(f"{path}: could not be made")


def is_rotated(name: str) -> bool:
    """A rotated spool file's name: `sends.<20 digits>-<hex id>.jsonl`, or the legacy one."""
    if name == LEGACY:
        return True
    middle = name[len(_PREFIX) : -len(_SUFFIX)] if name.startswith(_PREFIX) else ""
    stamp, _, fid = middle.partition("-")
    return (
        name.endswith(_SUFFIX)
        and len(stamp) == 20
        and stamp.isascii()
        and stamp.isdigit()
        and _is_id(fid)
    )


def _is_id(fid: str) -> bool:
    """A file id fit for a rotated name: 1-32 lowercase hex digits."""
    return 0 < len(fid) <= 32 and all(c in "0123456789abcdef" for c in fid)


def rotated(spool: str) -> list[str]:
    """The rotated files' names (regular files only, never a link), oldest first."""
    with os.scandir(spool) as it:
        names = [e.name for e in it if is_rotated(e.name) and e.is_file(follow_symlinks=False)]
    return sorted(names, key=lambda n: (n != LEGACY, n))


def _rotate(spool: str, path: str) -> None:
    """The full file moves aside under its own name, once: under a lock, and only if it
    is still the full one (another writer may have rotated it already); then the oldest
    rotated files past MAX_KEPT go."""
    import fcntl  # noqa: PLC0415 - only at a rotation, never on the hook's usual path

    fd = os.open(
        os.path.join(spool, LOCK), os.O_WRONLY | os.O_CREAT | _O_NOFOLLOW | _O_CLOEXEC, 0o600
    )
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # another writer rotates it now
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return
        if not stat.S_ISREG(st.st_mode) or st.st_size <= MAX_FILE:
            return
        kept = rotated(spool)
        stamp = time.time_ns()
        if kept and kept[-1] != LEGACY:  # after the newest, even if the clock went back
            with contextlib.suppress(ValueError):
                stamp = max(stamp, int(kept[-1][len(_PREFIX) :].split("-", 1)[0]) + 1)
        name = f"{_PREFIX}{stamp:020d}-{_id_of(path)}{_SUFFIX}"
        os.rename(path, os.path.join(spool, name))
        kept.append(name)
        for old in kept[: max(len(kept) - MAX_KEPT, 0)]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(spool, old))
        dfd = os.open(spool, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    finally:
        os.close(fd)


def _id_of(path: str) -> str:
    """The file's id for its rotated name (hex; a file without a header gets a new one)."""
    fd = _open_read(path)
    fid = None
    if fd is not None:
        try:
            fid = file_id(os.pread(fd, MAX_HEADER + 1, 0))
        finally:
            os.close(fd)
    if fid and _is_id(fid):
        return fid
    return os.urandom(8).hex()


def record_line(raw: bytes, now: float | None = None) -> bytes | None:
    """The line to append for one hook payload: None when it is no `SendMessage` payload
    (nothing kept). Past MAX_RECORD, the words are taken out (`cut`: the payload's size)."""
    t = time.time() if now is None else now
    if len(raw) > MAX_STDIN:
        return json.dumps({"t": t, "cut": len(raw)}).encode() + b"\n"
    payload = json.loads(raw)
    if not isinstance(payload, dict) or payload.get("tool_name") != "SendMessage":
        return None
    if payload.get("hook_event_name") not in (None, "PostToolUse"):
        return None
    line = json.dumps({"t": t, "p": payload}, separators=(",", ":")).encode() + b"\n"
    if len(line) <= MAX_RECORD:
        return line
    for part in ("tool_input", "tool_response"):
        value = payload.get(part)
        if isinstance(value, dict):
            payload[part] = {k: v for k, v in value.items() if k not in _WORDS}
            routing = value.get("routing")
            if isinstance(routing, dict):
                payload[part]["routing"] = {k: v for k, v in routing.items() if k not in _WORDS}
    cut = {"t": t, "p": payload, "cut": len(raw)}
    line = json.dumps(cut, separators=(",", ":")).encode() + b"\n"
    if len(line) <= MAX_RECORD:
        return line
    return json.dumps({"t": t, "cut": len(raw)}).encode() + b"\n"


def record(stdin: Any = None, where: str | None = None) -> int:
    """The hook: stdin's payload appended to the spool; nothing printed, always 0."""
    try:
        source = stdin if stdin is not None else sys.stdin.buffer
        raw = source.read(MAX_STDIN + 1)
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogatepass")
        line = record_line(raw)
        if line is not None:
            append(line, where)
    except Exception:  # the agent's send happened: the hook never fails it
        return 0
    return 0


# --- reading (the sidecar) ---------------------------------------------------------------


class Read:
    """What one read found: records (`t`, `p`, `cut`) with the file id and offset each
    began at, each file's offset after it, and how many lines were skipped."""

    def __init__(self) -> None:
        self.records: list[tuple[str, int, dict[str, Any]]] = []
        self.offsets: dict[str, int] = {}
        self.skipped = 0
        self.more = False  # the budget ran out before a file's end


def _open_read(path: str) -> int | None:
    try:
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_CLOEXEC | _O_NONBLOCK)
    except OSError as err:
        if err.errno in (errno.ENOENT, errno.ELOOP, errno.ENXIO):
            return None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def file_id(first: bytes) -> str | None:
    """A spool file's id, from its first line; None for anything else."""
    line = first.split(b"\n", 1)[0]
    if len(line) > MAX_HEADER or len(first) == len(line):
        return None
    try:
        doc = json.loads(line)
    except ValueError:
        return None
    ok = isinstance(doc, dict) and doc.get(HEADER_KEY) == VERSION and isinstance(doc.get("id"), str)
    return str(doc["id"]) if ok else None


def _parse(line: bytes) -> dict[str, Any] | None:
    """One record; a torn line (a writer died mid-line, the next line joined it) yields the
    whole record at its end."""
    joined = line.rfind(b'{"t":')
    for start in (0, joined) if joined > 0 else (0,):
        try:
            doc = json.loads(line[start:])
        except (ValueError, RecursionError):
            continue
        if not isinstance(doc, dict):
            continue
        t = doc.get("t")
        if isinstance(t, (int, float)) and math.isfinite(t) and 0 <= t < 1e11:
            return doc
    return None


def _read_file(fd: int, fid: str, start: int, budget: int, out: Read) -> int:
    """Records from `start` within `budget` bytes; the offset after the last whole line."""
    pos = start
    end = os.fstat(fd).st_size
    while pos < end and budget > 0:
        chunk = os.pread(fd, min(budget, MAX_RECORD + 1, end - pos), pos)
        if not chunk:
            break
        budget -= len(chunk)
        nl = chunk.rfind(b"\n")
        if nl < 0:
            if len(chunk) <= MAX_RECORD:
                break  # a line being written: the next read
            pos = _skip_line(fd, pos + len(chunk), end)  # a line over the bound
            out.skipped += 1
            continue
        at = pos
        for line in chunk[: nl + 1].split(b"\n")[:-1]:
            doc = _parse(line) if line.strip() and len(line) <= MAX_RECORD else None
            if doc is not None:
                out.records.append((fid, at, doc))
            elif line.strip():
                out.skipped += 1
            at += len(line) + 1
        pos += nl + 1
    if pos < end and budget <= 0:
        out.more = True
    return pos


def _skip_line(fd: int, pos: int, end: int) -> int:
    while pos < end:
        chunk = os.pread(fd, min(1024 * 1024, end - pos), pos)
        if not chunk:
            return pos
        nl = chunk.find(b"\n")
        if nl >= 0:
            return pos + nl + 1
        pos += len(chunk)
    return pos


def _names(spool: str) -> list[str]:
    """The spool files to read, oldest first; none when the folder is not a real one."""
    try:
        if not stat.S_ISDIR(os.lstat(spool).st_mode):
            return []
        return [*rotated(spool), CURRENT]
    except OSError:
        return []


def read(spool: str, offsets: Mapping[str, int], budget: int = 32 * 1024 * 1024) -> Read:
    """Every file's records after the offsets (by file id; a file not in them from its
    start), oldest file first, within `budget` bytes."""
    out = Read()
    # the current file opened before the others are listed: rotated meanwhile, it is
    # listed under its new name or still read through this descriptor, never missed
    current = _open_read(os.path.join(spool, CURRENT)) if _names(spool) else None
    fds = [_open_read(os.path.join(spool, n)) for n in _names(spool)[:-1]] + [current]
    try:
        for fd in fds:
            if fd is None:
                continue
            first = os.pread(fd, MAX_HEADER + 1, 0)
            fid = file_id(first)
            if fid is None:
                out.skipped += 1 if first else 0
                continue
            if fid in out.offsets:  # the current file, rotated since it was opened
                continue
            start = max(offsets.get(fid, 0), first.index(b"\n") + 1)
            out.offsets[fid] = _read_file(fd, fid, start, budget, out)
            # a file left before its end: no later file's line before the rest of it
            budget = 0 if out.more else budget - (out.offsets[fid] - start)
    finally:
        for fd in fds:
            if fd is not None:
                os.close(fd)
    return out


def read_through(spool: str, offsets: Mapping[str, int]) -> list[tuple[str, str, int]]:
    """The rotated files read to their end by these offsets (what the history holds):
    (name, id, size) each, for `release`."""
    out: list[tuple[str, str, int]] = []
    for name in _names(spool)[:-1]:
        fd = _open_read(os.path.join(spool, name))
        if fd is None:
            continue
        try:
            fid = file_id(os.pread(fd, MAX_HEADER + 1, 0))
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if fid is not None and offsets.get(fid, -1) >= size:
            out.append((name, fid, size))
    return out


def release(spool: str, done: list[tuple[str, str, int]]) -> None:
    """Delete the files `read_through` found (the history no longer waits for them).
    A writer that opened one before its rotation may still append to it: what the file
    holds past the size read, after it is unlinked, is appended to `sends.jsonl` (a writer
    whose line lands after the unlink writes it again itself)."""
    for name, fid, size in done:
        path = os.path.join(spool, name)
        fd = _open_read(path)
        if fd is None:
            continue
        try:
            st = os.fstat(fd)
            if file_id(os.pread(fd, MAX_HEADER + 1, 0)) != fid or os.lstat(path).st_ino != (
                st.st_ino
            ):
                continue
            os.unlink(path)
            end = os.fstat(fd).st_size
            if end > size:
                late = os.pread(fd, end - size, size)
                append(late if late.endswith(b"\n") else late + b"\n", spool)
        except FileNotFoundError:
            continue
        finally:
            os.close(fd)
