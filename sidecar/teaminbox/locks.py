"""The peers' own lock protocols, on the exact path they use: `<inbox>.json.lock`.

Claude Code (npm proper-lockfile): the lock is a DIRECTORY made by mkdir.
PseudoClaude: the lock is a FILE made with O_EXCL, an RFC 3339 time inside.
Each excludes the other (mkdir fails on a file, O_EXCL on a directory).
Either is stale when its mtime is older than 10 s; a holder refreshes the
mtime while it holds, and checks before committing that the lock is still
the one it made, so a peer that broke it early never sees a lost update.
The holder keeps a descriptor on the lock it made: that inode cannot be
reused while it is open, so "the lock at the path is still ours" is an
inode comparison that no replacement can fool, and a refresh (futimens on
the descriptor) can only ever touch our own lock, never a peer's. It is
closed after the lock is removed: with it open, rmdir or unlink only unlinks,
and freeing the inode, the slow part, waits until peers can take the lock.

Anything else at the lock path (a symlink, dangling or not, a FIFO...) is
neither peer's lock: it counts as held by someone unknown and is never
removed, so a writer waits for it and then times out naming it. proper-lockfile
does the same (its mkdir says EEXIST, its rmdir of a stale one fails). Our own
write paths refuse a link there before they lock (safeio.refuse_links), and
neither mkdir nor O_EXCL|O_NOFOLLOW ever creates through one.

A process that dies of SIGTERM or SIGHUP first removes the locks it holds and
its temp files (install_signal_handlers); SIGINT already unwinds through
`finally`. SIGKILL cannot be caught: those locks go stale in 10 s.
"""

from __future__ import annotations

import errno
import os
import random
import signal
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any

from .errors import LockLost, LockTimeout
from .fileio import file_kind, lock_path, write_temp
from .timestamps import now_rfc3339_nano

STALE_SECONDS = 10.0
REFRESH_SECONDS = 5.0
DEFAULT_TIMEOUT = 30.0
# Peers retry every 5-100 ms; polling faster would starve them into giving up.
RETRY_MIN, RETRY_MAX = 0.005, 0.05
# Right before a commit the lock is refreshed when older than this ...
COMMIT_REFRESH_AGE = 1.0
# ... and refused (LockLost, nothing written) when this close to going stale:
# a peer may be breaking it at this very moment.
LEASE_MARGIN = 3.0


class PeerLock:
    """Base: acquire/refresh/verify/release; subclasses make and remove the lock."""

    def __init__(self, inbox_path: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = lock_path(inbox_path)
        self.timeout = timeout
        self.acquired_at = 0.0  # monotonic time of the last acquire or refresh
        self._ident: tuple[int, int] | None = None  # (device, inode) of the lock we made
        self._fd: int | None = None  # open on it while held: the inode stays ours
        # Reentrant: the signal handler runs on the main thread, maybe inside a commit.
        self._mutex = threading.RLock()
        self._foreign: str | None = None  # what squats the path, if not a peer's lock

    def _create(self) -> None:
        raise NotImplementedError

    def _remove(self) -> None:
        raise NotImplementedError

    def _ident_now(self) -> tuple[int, int] | None:
        try:
            st = os.lstat(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return st.st_dev, st.st_ino

    def _hold(self) -> None:
        """Open what we just created; a peer cannot have replaced a lock this fresh."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(self.path, flags)
        st = os.fstat(fd)
        with self._mutex:
            self._fd, self._ident = fd, (st.st_dev, st.st_ino)
            self.acquired_at = time.monotonic()

    def _let_go(self) -> int | None:
        """Forget the lock (mutex held); returns the descriptor, for the caller to close
        once it has removed the lock (or found it lost)."""
        self._ident = None
        fd, self._fd = self._fd, None
        return fd

    def acquire(self) -> PeerLock:
        """Take the lock, waiting up to `timeout`. Every pass through the loop either
        returns, raises, or sleeps; at most one immediate retry follows a removal."""
        install_signal_handlers()
        deadline = time.monotonic() + self.timeout
        may_hurry = True
        while True:
            try:
                self._create()
            except FileExistsError:
                pass
            except OSError as err:
                # A lock of the other kind at the same path: still "taken".
                if err.errno not in (errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                    raise
            else:
                self._hold()
                _refresher.add(self)
                return self
            freed = self._remove_if_stale()
            now = time.monotonic()
            if now >= deadline:
                raise LockTimeout(self._timeout_message(), path=self.path)
            if freed and may_hurry:
                may_hurry = False
                continue
            may_hurry = True
            time.sleep(min(random.uniform(RETRY_MIN, RETRY_MAX), deadline - now))

    def _timeout_message(self) -> str:
        if self._foreign is not None:
            return (
                f"{self.path}: a {self._foreign} is at the lock path, not a lock either peer"
                " makes; nobody will ever release it: remove it if nothing of yours put it there"
            )
        return f"{self.path}: lock held by another writer for over {self.timeout:.0f} s"

    def _remove_if_stale(self) -> bool:
        """Remove a peer's lock older than STALE_SECONDS; True if the path is free now."""
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            return True
        if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
            self._foreign = file_kind(st.st_mode)
            return False
        self._foreign = None
        if time.time() - st.st_mtime <= STALE_SECONDS:
            return False
        # Re-check right before removing: a fresh lock may have replaced it.
        try:
            again = os.lstat(self.path)
        except FileNotFoundError:
            return True
        if (again.st_ino, again.st_mtime_ns, again.st_mode) != (
            st.st_ino,
            st.st_mtime_ns,
            st.st_mode,
        ):
            return False
        try:
            if stat.S_ISDIR(st.st_mode):
                os.rmdir(self.path)
            else:
                os.unlink(self.path)
        except FileNotFoundError:
            pass
        except OSError as err:
            if err.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                raise
            return False
        return True

    def refresh(self) -> None:
        with self._mutex:
            if not self.is_mine() or self._fd is None:
                return  # lost; verify() reports it
            if os.utime in os.supports_fd:
                os.utime(self._fd)  # our inode, whatever the path holds by now
            else:
                os.utime(self.path)
            self.acquired_at = time.monotonic()

    def verify(self) -> None:
        """Raise LockLost unless the lock at the path is still the one we made."""
        with self._mutex:
            if not self.is_mine():
                raise LockLost(
                    f"{self.path}: lock was broken by another writer; nothing was written",
                    path=self.path,
                )

    def is_mine(self) -> bool:
        """Is the lock at the path the one we made (or last refreshed)?"""
        with self._mutex:
            return self._ident is not None and self._ident_now() == self._ident

    def check_lease(self) -> None:
        """Right before a commit: the lock is ours and far from stale, or LockLost.

        Peers judge staleness by the lock's mtime against their wall clock, so
        that is what is measured here (a monotonic clock misses a suspend). A
        lock over COMMIT_REFRESH_AGE old is refreshed first, so the commit has
        most of the 10 s ahead of it; one within LEASE_MARGIN of stale is given
        up: this process was paused and a peer may be breaking it right now.
        """
        with self._mutex:
            self.verify()
            assert self._fd is not None
            age = time.time() - os.fstat(self._fd).st_mtime
            if age > STALE_SECONDS - LEASE_MARGIN:
                raise LockLost(
                    f"{self.path}: lock unrefreshed for {age:.1f} s (was this process paused?);"
                    " a peer may take it any moment, so nothing was written",
                    path=self.path,
                )
            if age > COMMIT_REFRESH_AGE:
                self.refresh()
                self.verify()

    @contextmanager
    def critical(self) -> Iterator[None]:
        """Hold off the signal handler's release while a commit renames."""
        with self._mutex:
            yield

    def release(self) -> None:
        _refresher.discard(self)
        fd = None
        try:
            with self._mutex:
                mine = self.is_mine()
                fd = self._let_go()
                if mine:
                    try:
                        self._remove()
                    except FileNotFoundError:
                        pass
        finally:
            _close_after_removal(fd)

    def _abandon(self) -> None:
        """release() for a dying process: waits a little for a commit in progress."""
        got = self._mutex.acquire(timeout=2.0)
        fd = None
        try:
            mine = self.is_mine()
            fd = self._let_go()
            if mine:
                self._remove()
        except OSError:
            pass
        finally:
            if got:
                self._mutex.release()
            _close_after_removal(fd)

    def __enter__(self) -> PeerLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _close_after_removal(fd: int | None) -> None:
    """Close the descriptor on a lock only once the path is free: while it is open, rmdir
    or unlink only unlinks, and freeing the inode (tens of microseconds on ext4, far more
    while the journal is busy) happens here, when peers can already take the lock."""
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


class DirLock(PeerLock):
    """proper-lockfile's protocol, as Claude Code uses it."""

    def _create(self) -> None:
        os.mkdir(self.path)

    def _remove(self) -> None:
        os.rmdir(self.path)


class ExclFileLock(PeerLock):
    """PseudoClaude's protocol: O_EXCL create, a timestamp inside."""

    def _create(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, now_rfc3339_nano().encode())
        finally:
            os.close(fd)

    def _remove(self) -> None:
        os.unlink(self.path)


class _Refresher:
    """One daemon thread for the process: touches locks held for over 4 s.

    Also the registry of what a dying process must clean up (held locks, temp files).
    """

    def __init__(self) -> None:
        self._held: set[PeerLock] = set()
        self.temps: set[str] = set()
        self.writing = 0  # temp files being written now (by any thread)
        self.dying = False  # a signal is ending the process: no new temp file
        # Reentrant: the signal handler may run while this thread of control holds it.
        self._cond = threading.Condition(threading.RLock())
        self._thread: threading.Thread | None = None

    def add(self, lock: PeerLock) -> None:
        with self._cond:
            self._held.add(lock)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="teaminbox-lock-refresh", daemon=True
                )
                self._thread.start()

    def discard(self, lock: PeerLock) -> None:
        with self._cond:
            self._held.discard(lock)

    def held(self) -> list[PeerLock]:
        with self._cond:
            return list(self._held)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait(timeout=1.0)
                due = [
                    lk
                    for lk in self._held
                    if time.monotonic() - lk.acquired_at > REFRESH_SECONDS - 1.0
                ]
            for lock in due:
                try:
                    lock.refresh()
                except OSError:
                    pass


_refresher = _Refresher()


def track_temp(path: str) -> None:
    """A temp file this process is writing: removed if a signal ends the process."""
    with _refresher._cond:
        _refresher.temps.add(path)


def drop_temp(path: str) -> None:
    """Remove a tracked temp file, then forget it. Forgotten first, a signal handled in
    between would find nothing to remove and the process die before the unlink, leaving
    the file (after a rename-exchange, the inbox's old bytes) beside the inbox."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    with _refresher._cond:
        _refresher.temps.discard(path)


DYING_WAIT = 2.0  # seconds a dying process waits for a temp file another thread is writing


def write_tracked_temp(path: str, data: bytes, mode: int | None = None) -> int:
    """`fileio.write_temp` for a tracked temp file, so that a dying process removes it
    even when another thread was creating it: after the signal no thread starts one, and
    the handler waits for those already started before it removes them."""
    with _refresher._cond:
        if _refresher.dying:
            raise OSError(errno.ECANCELED, "the process is ending", path)
        _refresher.writing += 1
    try:
        return write_temp(path, data, mode)
    finally:
        with _refresher._cond:
            _refresher.writing -= 1
            _refresher._cond.notify_all()


def tracked_temps() -> set[str]:
    with _refresher._cond:
        return set(_refresher.temps)


def release_all() -> None:
    """Remove every lock this process holds, and its temp files: for a dying process.

    Safe from a signal handler and from any thread; a commit in progress on
    another thread gets up to 2 s to finish its rename first.
    """
    for lock in _refresher.held():
        lock._abandon()
    with _refresher._cond:
        _refresher.dying = True
        _refresher._cond.wait_for(lambda: _refresher.writing == 0, timeout=DYING_WAIT)
    for path in tracked_temps():
        try:
            os.unlink(path)
        except OSError:
            pass


_HANDLED = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))
_previous: dict[int, Any] = {}


def install_signal_handlers() -> bool:
    """Release held locks on SIGTERM and SIGHUP, then die of the signal as before.

    Only the main thread may install handlers (CPython's rule); locks.py calls
    this at import and on every acquire, so a server whose locks are taken in
    worker threads is covered from its first import. A signal the parent set
    to be ignored (nohup) stays ignored; a handler someone installed earlier is
    called after the release. Returns whether the handlers are in place.
    """
    if threading.current_thread() is not threading.main_thread():
        return bool(_previous)
    for sig in _HANDLED:
        current = signal.getsignal(sig)
        if current is _on_signal or current is signal.SIG_IGN or current is None:
            continue
        signal.signal(sig, _on_signal)
        _previous[sig] = current
    return True


def _on_signal(signum: int, frame: FrameType | None) -> None:
    release_all()
    previous = _previous.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)  # the default action: the exit status says "killed by"


install_signal_handlers()
