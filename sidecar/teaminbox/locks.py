"""The peers' own lock protocols, on the exact path they use: `<inbox>.json.lock`.

Claude Code (npm proper-lockfile): the lock is a DIRECTORY made by mkdir.
PseudoClaude: the lock is a FILE made with O_EXCL, an RFC 3339 time inside.
Each excludes the other (mkdir fails on a file, O_EXCL on a directory).
Either is stale when its mtime is older than 10 s; a holder refreshes the
mtime while it holds, and checks before committing that the lock is still
the one it made, so a peer that broke it early never sees a lost update.
"""

from __future__ import annotations

import errno
import os
import random
import threading
import time
from types import TracebackType

from .errors import LockLost, LockTimeout
from .formats.pseudoclaude import now_rfc3339_nano
from .model import Format

STALE_SECONDS = 10.0
REFRESH_SECONDS = 5.0
DEFAULT_TIMEOUT = 30.0
# Peers retry every 5-100 ms; polling faster would starve them into giving up.
RETRY_MIN, RETRY_MAX = 0.005, 0.05


def lock_path(inbox_path: str) -> str:
    return inbox_path + ".lock"


class PeerLock:
    """Base: acquire/refresh/verify/release; subclasses make and remove the lock."""

    def __init__(self, inbox_path: str, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.path = lock_path(inbox_path)
        self.timeout = timeout
        self.acquired_at = 0.0
        self._ident: tuple[int, int] | None = None  # (inode, mtime_ns) we last saw
        self._mutex = threading.Lock()

    def _create(self) -> None:
        raise NotImplementedError

    def _remove(self) -> None:
        raise NotImplementedError

    def _ident_now(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return st.st_ino, st.st_mtime_ns

    def acquire(self) -> PeerLock:
        deadline = time.monotonic() + self.timeout
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
                self._ident = self._ident_now()
                self.acquired_at = time.monotonic()
                _refresher.add(self)
                return self
            if self._remove_if_stale():
                continue
            if time.monotonic() >= deadline:
                raise LockTimeout(
                    f"{self.path}: lock held by another writer for over {self.timeout:.0f} s",
                    path=self.path,
                )
            time.sleep(random.uniform(RETRY_MIN, RETRY_MAX))

    def _remove_if_stale(self) -> bool:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return True
        if time.time() - st.st_mtime <= STALE_SECONDS:
            return False
        # Re-check right before removing: a fresh lock may have replaced it.
        try:
            again = os.stat(self.path)
        except FileNotFoundError:
            return True
        if (again.st_ino, again.st_mtime_ns) != (st.st_ino, st.st_mtime_ns):
            return True
        try:
            if os.path.isdir(self.path):
                os.rmdir(self.path)
            else:
                os.unlink(self.path)
        except FileNotFoundError:
            pass
        except OSError as err:
            if err.errno != errno.ENOTEMPTY:
                raise
            return False
        return True

    def refresh(self) -> None:
        with self._mutex:
            if self._ident is None or self._ident_now() != self._ident:
                return  # lost; verify() reports it
            os.utime(self.path)
            self._ident = self._ident_now()

    def verify(self) -> None:
        """Raise LockLost unless the lock at the path is still the one we made."""
        with self._mutex:
            if self._ident is None or self._ident_now() != self._ident:
                raise LockLost(
                    f"{self.path}: lock was broken by another writer; nothing was written",
                    path=self.path,
                )

    def release(self) -> None:
        _refresher.discard(self)
        with self._mutex:
            mine = self._ident is not None and self._ident_now() == self._ident
            self._ident = None
            if mine:
                try:
                    self._remove()
                except FileNotFoundError:
                    pass

    def __enter__(self) -> PeerLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


class DirLock(PeerLock):
    """proper-lockfile's protocol, as Claude Code uses it."""

    def _create(self) -> None:
        os.mkdir(self.path)

    def _remove(self) -> None:
        os.rmdir(self.path)


class ExclFileLock(PeerLock):
    """PseudoClaude's protocol: O_EXCL create, a timestamp inside."""

    def _create(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, now_rfc3339_nano().encode())
        finally:
            os.close(fd)

    def _remove(self) -> None:
        os.unlink(self.path)


def peer_lock(fmt: Format, inbox_path: str, timeout: float = DEFAULT_TIMEOUT) -> PeerLock:
    cls = DirLock if fmt == "claude" else ExclFileLock
    return cls(inbox_path, timeout)


class _Refresher:
    """One daemon thread for the process: touches locks held for over 4 s."""

    def __init__(self) -> None:
        self._held: set[PeerLock] = set()
        self._cond = threading.Condition()
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
                    lock.acquired_at = time.monotonic()
                except OSError:
                    pass


_refresher = _Refresher()
