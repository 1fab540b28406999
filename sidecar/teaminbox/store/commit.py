"""Putting a written temp file in an inbox's place, under the checks that bound the lease.

Right before the swap: the lock is still ours and far from stale, and the inbox is still
the file the write was built on (same inode, size and times). The swap is
renameat2(RENAME_EXCHANGE) where the filesystem has it: the file it replaced lands at the
temp name and is compared with the one the write was built on, so a peer's write that
slipped in is caught (`CommitReport`), never silently overwritten. Then the folder is
fsynced and the file verified. docs/lease-window.md has the measured windows.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import stat
import threading
from contextlib import nullcontext
from typing import Any

import attrs

from ..errors import WriteNotVerified
from ..fileio import fsync_dir, open_regular, read_all, read_regular
from ..locks import PeerLock


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


def file_id(st: os.stat_result) -> FileId:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _same_file(a: FileId | None, b: FileId | None) -> bool:
    """Same inode, size and mtime (a rename changes the ctime, not the file)."""
    return a is not None and b is not None and a[:4] == b[:4]


def open_snapshot(path: str) -> tuple[int | None, bytes | None, FileId | None, int | None]:
    """Read a file and keep it open: its inode cannot be reused while we hold it.

    Returns (fd, bytes, identity, permission bits); all None when there is no file.
    """
    fd = open_regular(path)
    if fd is None:
        return None, None, None, None
    try:
        st = os.fstat(fd)
        data = read_all(fd, path, None, st.st_size)
        return fd, data, file_id(st), stat.S_IMODE(st.st_mode) & 0o777
    except BaseException:
        os.close(fd)
        raise


def unchanged(path: str, seen: FileId | None) -> bool:
    """Is the file at `path` still the one we read?

    Every peer replaces an inbox by rename (a new inode), and the inode we
    read cannot be reused while our descriptor is open, so the same inode
    with the same size and times is the same bytes; this spares re-reading
    a big inbox under the lock.
    """
    try:
        return file_id(os.stat(path)) == seen
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


class Changed(Exception):
    """The inbox is not the file the write was built on: build again (nothing written)."""


@attrs.define
class CommitReport:
    """What a commit found out about the file it replaced (filled in by commit)."""

    displaced: bytes | None = None  # a file it replaced that was not the one it read
    lock_lost: bool = False  # the lock was no longer ours at the rename
    written: bool = False

    @property
    def clean(self) -> bool:
        return self.written and self.displaced is None and not self.lock_lost


_PAUSE_ENV = "TEAMINBOX_TEST_PAUSE_AT"
_paused: set[str] = set()


def pause_point(name: str) -> None:
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
            raise Changed() from None
        try:  # no renameat2: link(2) also refuses to replace
            os.link(tmp, path)
        except FileExistsError:
            raise Changed() from None
        except OSError:
            if os.path.lexists(path):
                raise Changed() from None
            os.rename(tmp, path)
        return
    if _rename2(tmp, path, _RENAME_EXCHANGE):
        st = os.lstat(tmp)
        if stat.S_ISLNK(st.st_mode):  # a symlinked inbox: we read (and compare) its target
            st = os.stat(tmp)
        if not _same_file(file_id(st), base):
            report.displaced = read_regular(tmp) or b""
        return
    fd = open_regular(path)
    if fd is None:
        raise Changed()
    try:
        if not _same_file(file_id(os.fstat(fd)), base):
            raise Changed()
        os.rename(tmp, path)
    finally:
        os.close(fd)


def commit(
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
    Changed if the inbox is no longer `base`. Fills `report`: a displaced
    file or a lock lost at the rename means the write must be reconciled.
    """
    report = report if report is not None else CommitReport()
    peer = lock if isinstance(lock, PeerLock) else None
    with peer.critical() if peer is not None else nullcontext():
        if peer is not None:
            peer.check_lease()
        if not unchanged(path, base):
            raise Changed()
        pause_point("before_rename")
        _swap(tmp, path, base, report)
        report.written = True
        pause_point("after_rename")
        report.lock_lost = peer is not None and not peer.is_mine()
    fsync_dir(os.path.dirname(path))
    if report.clean:
        _verify(path, inode, data)
