"""Reading inboxes, and the locked read-modify-write that never loses a message.

A write takes the peer's own lock, re-reads the file, changes it, writes a
temp file in the same folder (a name no peer treats as an inbox), fsyncs it,
checks the lock is still ours and far from stale, checks the inbox is still
the file it read, swaps the temp file in, fsyncs the folder and verifies.

Peers give up after about 1 s of waiting, so the lock is held for as little
as possible: the file is parsed and the new one written and fsynced BEFORE
the lock is taken; under the lock the current bytes are compared with the
ones that were parsed, and only if another writer changed them in between is
the work redone inside the lock.

The lease: a peer may break a lock whose mtime is 10 s old, so a writer that
is paused (SIGSTOP, swap, a laptop lid) between its last check and its
rename could overwrite what that peer appended. The swap is
renameat2(RENAME_EXCHANGE) where the filesystem has it: the file it replaced
lands at the temp name and is compared with the one the write was built on;
if a peer's write was displaced, or the lock was no longer ours at the
rename, the write is reconciled under a fresh lock (a three-way merge of
entries: what the peer added or marked comes back, what it delivered stays
gone, and our own change is applied if it is missing). docs/lease-window.md
has the measured windows.

Symlinks: reading follows an inbox that is a symlink, as the peers do; a
write first refuses any link inside the team (the team's folder, `inboxes/`,
the inbox, its lock: safeio.refuse_links), so nothing is ever written
through one, and a temp file is opened O_NOFOLLOW. Nothing here ever opens
a FIFO, socket or device: such a path is NotRegularFile.

Modes: a rewrite keeps the inbox's mode (PseudoClaude's are 0600); a new
inbox gets the mode its peer would give it (`mode=`, else the format's `new_file_mode`).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import secrets
import signal
import stat
import threading
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import Any, TypeVar

import attrs
import orjson

from .errors import CorruptInbox, TooLarge, WriteNotVerified
from .fileio import (
    TEMP_NAME,
    check_no_links,
    open_regular,
    read_all,
    read_regular,
    temp_path,
    unlink_quietly,
)
from .fileio import fsync_dir as _fsync_dir  # bench/bench_store.py times these two here
from .fileio import write_temp as _write_temp
from .formats.base import EntryProblem, InboxFormat
from .jsonio import dumps_indented, skip_space_back
from .locks import DEFAULT_TIMEOUT, PeerLock, track_temp, tracked_temps, untrack_temp
from .model import Message

MAX_MESSAGE_BYTES = 1024 * 1024
# A temp file this old whose writer is gone is garbage. Longer than any live write keeps
# one (the default lock timeout is 30 s), for writers in another pid namespace.
DEAD_TEMP_SECONDS = 60.0
MAX_ATTEMPTS = 3
T = TypeVar("T")


@attrs.define
class Snapshot:
    """One parse of an inbox file (or of its absence)."""

    path: str
    data: bytes | None  # None: the file does not exist
    doc: Any
    entries: list[Any]
    problems: list[EntryProblem]


# ------------------------------------------------------------------ reading, never blocking


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


# ------------------------------------------------------------------ no links on a write


# ------------------------------------------------------------------ temp files


def dead_temp_files(folder: str, min_age: float = DEAD_TEMP_SECONDS) -> list[str]:
    """Our kind of temp file (`.<inbox>.<pid>.<rand>.teaminbox-tmp`) whose writer is gone.

    Gone: its pid is not running, or was started after the file was last
    written (the pid was reused), or it is this process and the file is not
    one it is writing. Only files older than `min_age` count: a pid from
    another pid namespace (a container sharing the folder) looks dead here.
    """
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    now = time.time()
    out = []
    for name in names:
        m = TEMP_NAME.match(name)
        if m is None:
            continue
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < min_age:
            continue
        if not _writer_alive(int(m["pid"]), st.st_mtime, path):
            out.append(path)
    return sorted(out)


def _writer_alive(pid: int, written: float, path: str) -> bool:
    if pid == os.getpid():
        return path in tracked_temps()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process, alive
    except (OverflowError, ValueError):
        return False
    started = _process_start(pid)
    return started is None or started <= written + 1.0


_boot_time: float | None = None


def _process_start(pid: int) -> float | None:
    """When a process started (epoch seconds), from /proc; None where there is no /proc."""
    global _boot_time
    try:
        if _boot_time is None:
            with open("/proc/stat", "rb") as f:
                for line in f:
                    if line.startswith(b"btime "):
                        _boot_time = float(line.split()[1])
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
    if _boot_time is None:
        return None
    return _boot_time + int(fields[19]) / ticks  # field 22, starttime


def _remove_dead_temps(path: str) -> None:
    """Our own dead temp files for this inbox (a killed send leaves a full copy)."""
    base = os.path.basename(path)
    for dead in dead_temp_files(os.path.dirname(path)):
        m = TEMP_NAME.match(os.path.basename(dead))
        if m is not None and m["inbox"] == base:
            unlink_quietly(dead)


# ------------------------------------------------------------------ the commit


def _verify(path: str, inode: int, data: bytes) -> None:
    """The file at `path` is the one written, or a later one (a peer's write on top)."""
    tail = min(len(data), 65536)
    fd = open_regular(path)
    if fd is None:
        raise WriteNotVerified(f"{path}: the inbox vanished right after the write", path=path)
    try:
        st = os.fstat(fd)
        if st.st_ino != inode:
            return  # replaced since: the lock was ours at the rename, so a peer read our file
        if st.st_size == len(data):
            os.lseek(fd, len(data) - tail, os.SEEK_SET)
            if read_all(fd, path) == data[len(data) - tail :]:
                return
    finally:
        os.close(fd)
    raise WriteNotVerified(f"{path}: the file after the write is not the one written", path=path)


FileId = tuple[int, int, int, int, int]


def _file_id(st: os.stat_result) -> FileId:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _same_file(a: FileId | None, b: FileId | None) -> bool:
    """Same inode, size and mtime (a rename changes the ctime, not the file)."""
    return a is not None and b is not None and a[:4] == b[:4]


def _open_snapshot(path: str) -> tuple[int | None, bytes | None, FileId | None, int | None]:
    """Read a file and keep it open: its inode cannot be reused while we hold it.

    Returns (fd, bytes, identity, permission bits); all None when there is no file.
    """
    fd = open_regular(path)
    if fd is None:
        return None, None, None, None
    try:
        st = os.fstat(fd)
        data = read_all(fd, path, None, st.st_size)
        return fd, data, _file_id(st), stat.S_IMODE(st.st_mode) & 0o777
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


_RENAME_NOREPLACE, _RENAME_EXCHANGE = 1, 2
_AT_FDCWD = -100


def _load_renameat2() -> Any:
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError, TypeError):
        return None  # no such libc call (macOS, old glibc): plain rename
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    fn.restype = ctypes.c_int
    return fn


_renameat2 = _load_renameat2()


def _rename2(src: str, dst: str, flags: int) -> bool:
    """renameat2(2) with `flags`; False when the kernel or filesystem cannot."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), flags) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(err, os.strerror(err), dst)


class _Changed(Exception):
    """The inbox is not the file the write was built on: build again (nothing written)."""


@attrs.define
class CommitReport:
    """What a commit found out about the file it replaced (filled in by _commit)."""

    displaced: bytes | None = None  # a file it replaced that was not the one it read
    lock_lost: bool = False  # the lock was no longer ours at the rename
    written: bool = False

    @property
    def clean(self) -> bool:
        return self.written and self.displaced is None and not self.lock_lost


_PAUSE_ENV = "TEAMINBOX_TEST_PAUSE_AT"
_paused: set[str] = set()


def _pause_point(name: str) -> None:
    """Test hook: SIGSTOP this process here, once, if $TEAMINBOX_TEST_PAUSE_AT is `name`.

    Points: in_lock (just acquired), before_rename (checks done), after_rename.
    Tests pause a writer there and play the peer that breaks its lock.
    """
    if os.environ.get(_PAUSE_ENV) == name and name not in _paused:
        _paused.add(name)
        # to this thread: a process-wide SIGSTOP may be taken by another (the event loop's,
        # asleep), and on a busy machine this one ran on, committed and unlocked first
        signal.pthread_kill(threading.get_ident(), signal.SIGSTOP)


def _swap(tmp: str, path: str, base: FileId | None, report: CommitReport) -> None:
    """Put `tmp` at `path`; whatever it replaced that is not `base` goes in the report.

    With RENAME_EXCHANGE the replaced file lands at `tmp`, so no peer's write
    can slip between the check and the rename unnoticed. Without it, the
    file at `path` is opened just before a plain rename: the microseconds in
    between are the only window left (docs/lease-window.md).
    """
    if base is None:
        try:
            if _rename2(tmp, path, _RENAME_NOREPLACE):
                return
        except FileExistsError:
            raise _Changed() from None
        try:  # no renameat2: link(2) also refuses to replace
            os.link(tmp, path)
        except FileExistsError:
            raise _Changed() from None
        except OSError:
            if os.path.lexists(path):
                raise _Changed() from None
            os.rename(tmp, path)
        return
    if _rename2(tmp, path, _RENAME_EXCHANGE):
        st = os.lstat(tmp)
        if stat.S_ISLNK(st.st_mode):  # a symlinked inbox: we read (and compare) its target
            st = os.stat(tmp)
        if not _same_file(_file_id(st), base):
            report.displaced = read_regular(tmp) or b""
        return
    fd = open_regular(path)
    if fd is None:
        raise _Changed()
    try:
        if not _same_file(_file_id(os.fstat(fd)), base):
            raise _Changed()
        os.rename(tmp, path)
    finally:
        os.close(fd)


def _commit(
    lock: Any,
    path: str,
    tmp: str,
    inode: int,
    data: bytes,
    *,
    base: FileId | None = None,
    report: CommitReport | None = None,
) -> None:
    """Swap the written temp file in, under checks that bound the lease window.

    Raises LockLost (nothing written) if the lock is gone or near stale, and
    _Changed if the inbox is no longer `base`. Fills `report`: a displaced
    file or a lock lost at the rename means the write must be reconciled.
    """
    report = report if report is not None else CommitReport()
    peer = lock if isinstance(lock, PeerLock) else None
    with peer.critical() if peer is not None else nullcontext():
        if peer is not None:
            peer.check_lease()
        if not _unchanged(path, base):
            raise _Changed()
        _pause_point("before_rename")
        _swap(tmp, path, base, report)
        report.written = True
        _pause_point("after_rename")
        report.lock_lost = peer is not None and not peer.is_mine()
    _fsync_dir(os.path.dirname(path))
    if report.clean:
        _verify(path, inode, data)


# ------------------------------------------------------------------ reconciling


def _fingerprint(entry: Any, with_read: bool) -> bytes:
    """An entry's content as bytes, keys sorted, `read` left out unless asked for."""
    if isinstance(entry, dict) and not with_read and "read" in entry:
        entry = {k: v for k, v in entry.items() if k != "read"}
    try:
        return orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # lone surrogates, deep nesting, huge ints
        return dumps_indented(entry)


def _keyed(entries: list[Any]) -> dict[tuple[bytes, int], Any]:
    """Entries by content (without `read`) and occurrence, in order."""
    seen: dict[bytes, int] = {}
    out = {}
    for e in entries:
        fp = _fingerprint(e, with_read=False)
        n = seen[fp] = seen.get(fp, -1) + 1
        out[(fp, n)] = e
    return out


def merge_entries(base: list[Any], theirs: list[Any], ours: list[Any]) -> list[Any] | None:
    """Three-way merge of entry lists by content; None when `ours` already has it all.

    `theirs` replaced `base` by a peer's write that ours then overwrote. What
    they added comes back (after ours); what they removed (delivered and
    pruned) and we left alone stays removed; what they marked and we left
    alone takes their version.
    """
    kb, kt, ko = _keyed(base), _keyed(theirs), _keyed(ours)
    out: list[Any] = []
    changed = False
    for k, e in ko.items():
        if k in kb and _fingerprint(e, True) == _fingerprint(kb[k], True):
            if k not in kt:
                changed = True
                continue
            if _fingerprint(kt[k], True) != _fingerprint(kb[k], True):
                e = kt[k]
                changed = True
        out.append(e)
    for k, e in kt.items():
        if k not in kb and k not in ko:
            out.append(e)
            changed = True
    return out if changed else None


def _backup_path(path: str) -> str:
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return f"{path}.corrupt-{stamp}-{secrets.token_hex(2)}"


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
            _write_temp(_backup_path(path), report.displaced, 0o600)

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


# ------------------------------------------------------------------ the locked update


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
        fd, seen, seen_id, seen_mode = _open_snapshot(path)
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
        inode = _write_temp(tmp, pre[0], want) if pre is not None and pre[0] is not None else None
        with fmt.lock(path, timeout) as lock:
            _pause_point("in_lock")
            for _ in range(MAX_ATTEMPTS):
                if pre is not None and _unchanged(path, seen_id):
                    new, result = pre
                    base_data, base_id = seen, seen_id
                else:
                    fd, current, base_id, cur_mode = _open_snapshot(path)
                    if fd is not None:
                        fds.append(fd)
                    snap = None
                    if appends_only and pre_snap is not None and current is not None:
                        snap = _extended(fmt, pre_snap, current)
                    new, result = build(snap or parse(fmt, path, current))
                    base_data = current
                    want = cur_mode if cur_mode is not None else new_mode
                    inode = _write_temp(tmp, new, want) if new is not None else None
                if new is None or inode is None:
                    return result
                try:
                    _commit(lock, path, tmp, inode, new, base=base_id, report=report)
                    break
                except _Changed:
                    pre = None  # the inbox changed under our lock (a lockless writer): redo
            else:
                raise WriteNotVerified(
                    f"{path}: the inbox kept changing under the lock; nothing was written",
                    path=path,
                )
    finally:
        untrack_temp(tmp)
        unlink_quietly(tmp)
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
    _remove_dead_temps(path)
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
        first = _fingerprint(new_entries[0], with_read=False)
        where = [i for i, e in enumerate(snap.entries) if _fingerprint(e, False) == first]
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


# An object where an array element can start: a line's start (any indented layout), or
# after `[` or `,` (a file written on one line, as JSON.stringify without indent does).
_ENTRY_START = re.compile(r"(?:^|[\[,])[ \t\r\n]*\{", re.MULTILINE)


def _scan_objects(data: bytes) -> list[Any]:
    """Every JSON object that starts a line or follows `[` or `,` and decodes: what
    survives in a broken file (objects inside one already taken are skipped)."""
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
        except (ValueError, RecursionError):  # RecursionError: nested too deep to keep
            continue
        found.append(value)
    return found


def salvage(fmt: InboxFormat, path: str) -> tuple[int, int, str | None]:
    """Keep the valid entries of a broken inbox; the original bytes go to `.corrupt-<time>`.

    Returns (kept, dropped, backup path); a healthy file is left alone. A
    symlinked inbox is refused as on every write (its target could be any
    file, which the backup would copy). The backup and the new file keep the
    original's mode.
    """
    check_no_links(path)
    if not os.path.lexists(path):
        return 0, 0, None
    tmp = temp_path(path)
    track_temp(tmp)
    try:
        with fmt.lock(path, DEFAULT_TIMEOUT) as lock:
            fd = open_regular(path, follow=False)
            if fd is None:
                return 0, 0, None
            try:
                st = os.fstat(fd)
                data = read_all(fd, path, None, st.st_size)
            finally:
                os.close(fd)
            mode = stat.S_IMODE(st.st_mode) & 0o777
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
            backup = _backup_path(path)
            _write_temp(backup, data, mode)
            new = fmt.serialize(doc)
            report = CommitReport()
            try:
                _commit(
                    lock,
                    path,
                    tmp,
                    _write_temp(tmp, new, mode),
                    new,
                    base=_file_id(st),
                    report=report,
                )
            except _Changed:
                raise WriteNotVerified(
                    f"{path} changed during the repair; nothing was written: run it again",
                    path=path,
                ) from None
            if report.displaced is not None:
                _write_temp(_backup_path(path), report.displaced, mode)
            if not report.clean:
                raise WriteNotVerified(
                    f"{path}: another writer broke the lock during the repair; its version"
                    " is kept beside the inbox: run the repair again",
                    path=path,
                )
            return len(good), dropped, backup
    finally:
        untrack_temp(tmp)
        unlink_quietly(tmp)
