"""Primitive file I/O, the bottom layer under locks, formats and store.

Regular files read without ever blocking (a FIFO would, forever), temp names
no peer lists, fsyncs, listings that treat a missing folder as empty, and the
check every inbox write makes first (no link inside the team: safeio).
Imports only errors and safeio.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import stat
import time

from .errors import NotRegularFile, TooLarge
from .safeio import makedirs, refuse_links, refused

TEMP_SUFFIX = ".teaminbox-tmp"


def file_kind(mode: int) -> str:
    """What a stat mode is, in words for an error message."""
    for test, name in (
        (stat.S_ISREG, "regular file"),
        (stat.S_ISDIR, "directory"),
        (stat.S_ISLNK, "symbolic link"),
        (stat.S_ISFIFO, "FIFO (named pipe)"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return name
    return "special file"


def listdir(path: str) -> list[str]:
    """A folder's names, sorted; none where it is missing or unreadable."""
    try:
        return sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


def lock_path(inbox_path: str) -> str:
    return inbox_path + ".lock"


def not_regular(path: str, mode: int, what: str = "") -> NotRegularFile:
    return NotRegularFile(f"{path} is a {file_kind(mode)}, not a regular file{what}", path=path)


def open_regular(path: str, *, follow: bool = True) -> int | None:
    """A read descriptor on a regular file (None: no file), without ever blocking.

    stat first, so a FIFO or a device is never even opened; then O_NONBLOCK
    and fstat, in case it was swapped in between; blocking mode is restored
    for the read (a regular file never blocks anyway).
    """
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        if follow and os.path.lexists(path):
            raise NotRegularFile(f"{path} is a symbolic link to nothing", path=path) from None
        return None
    if not stat.S_ISREG(st.st_mode):
        raise not_regular(path, st.st_mode)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags if follow else flags | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as err:
        if err.errno in (errno.ENXIO, errno.ELOOP):  # a socket, or a link under O_NOFOLLOW
            raise not_regular(path, os.lstat(path).st_mode) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise not_regular(path, st.st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_all(fd: int, path: str, limit: int | None = None, size_hint: int = 0) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        want = max(size_hint + 1 - total, 65536)
        if limit is not None:
            want = min(want, limit + 1 - total)
        chunk = os.read(fd, want)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if limit is not None and total > limit:
            raise TooLarge(f"{path} is over the limit of {limit} bytes", path=path)


def read_regular(path: str, limit: int | None = None) -> bytes | None:
    """The bytes of a regular file, None if there is none, NotRegularFile for anything else.

    Never blocks (a FIFO would, forever), never reads more than `limit` bytes
    (TooLarge past it). Follows a symlink to a regular file.
    """
    fd = open_regular(path)
    if fd is None:
        return None
    try:
        return read_all(fd, path, limit, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def read_bytes(path: str) -> bytes | None:
    return read_regular(path)


# ------------------------------------------------------------------ no links on a write


def team_of(path: str) -> str:
    """The team folder of an inbox: every format keeps it at `<team>/<folder>/<name>`
    (`inboxes/<stem>.json`, the file bus's `inbox/<agent>`)."""
    return os.path.dirname(os.path.dirname(path))


def check_no_links(path: str) -> None:
    """Before any write to an inbox: no symbolic link at the team's folder, the inboxes
    folder, the inbox or its lock (SymlinkInTeam, naming the link; nothing written)."""
    refuse_links(team_of(path), path, lock_path(path))


def make_inbox_folder(path: str) -> None:
    """`mkdir -p` the folder an inbox goes in, as the peers do, through no link."""
    check_no_links(path)
    makedirs(team_of(path), os.path.dirname(path))


# ------------------------------------------------------------------ temp files


TEMP_NAME = re.compile(
    r"^\.(?P<inbox>.+)\.(?P<pid>[0-9]{1,10})\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + "$"
)


def temp_path(path: str) -> str:
    """Beside the inbox, hidden, and not `*.json`: no peer mistakes it for an inbox."""
    return os.path.join(
        os.path.dirname(path),
        f".{os.path.basename(path)}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}",
    )


def backup_path(path: str) -> str:
    """Beside the file, for bytes that must not be lost: `<path>.corrupt-<time>-<rand>`."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    return f"{path}.corrupt-{stamp}-{secrets.token_hex(2)}"


def write_temp(tmp: str, data: bytes, mode: int | None = None) -> int:
    """Write and fsync a temp file with the inbox's mode; return its inode.

    `mode` None: 0666 & ~umask, what Node's writeFile gives a new file. The
    file is made 0600 and then chmodded, so it is never more open than meant.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(tmp, flags, 0o666 if mode is None else 0o600)
    except OSError as err:
        if err.errno == errno.ELOOP and os.path.islink(tmp):  # planted: never written through
            raise refused(tmp) from None
        raise
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)


def unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def fsync_dir(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
