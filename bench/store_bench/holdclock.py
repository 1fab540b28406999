"""Our writer timed under its lock, step by step, by patching the bench process's teaminbox."""

from __future__ import annotations

import collections
import time
from typing import Any

from teaminbox import store
from teaminbox.locks import DirLock, PeerLock


class HoldClock:
    """Times our lock from mkdir succeeding to rmdir done, with the steps in between.

    Installed by monkeypatching the bench process's teaminbox (store and locks
    are not edited): DirLock._create marks the acquisition, DirLock._remove the
    end (the path is free for a peer), PeerLock.release the return to the writer, and
    the store's helpers mark the steps taken under the lock.
    """

    def __init__(self) -> None:
        self.holds: list[float] = []  # ms
        self.steps: dict[str, list[float]] = collections.defaultdict(list)  # ms
        self.redone = 0  # appends whose pre-work was stale and redone under the lock
        self.appends = 0
        self._marks: dict[str, float] | None = None

    def _mark(self, name: str) -> None:
        if self._marks is not None and name not in self._marks:
            self._marks[name] = time.perf_counter()

    def install(self) -> None:
        clock = self
        orig_create = DirLock._create
        orig_remove = DirLock._remove
        orig_release = PeerLock.release
        orig_verify = PeerLock.verify
        # Under the lock the store re-reads the file (`_read_bytes`), or (later stores) only
        # checks that it is still the file it read (`_unchanged`) and re-reads it if not.
        # The write's helpers are looked up where it calls them: store/write.py and
        # store/commit.py, or (an old build) the one store.py under private names.
        try:
            from teaminbox.store import commit as at_commit
            from teaminbox.store import write as at_write
        except ImportError:
            at_commit = at_write = store
        old = at_write is store
        read_name = (
            ("_read_bytes" if hasattr(store, "_read_bytes") else "_unchanged")
            if old
            else "unchanged"
        )
        write_name, commit_name, fsync_name = (
            ("_write_temp", "_commit", "_fsync_dir")
            if old
            else ("write_temp", "commit", "fsync_dir")
        )
        orig_read = getattr(at_write, read_name)
        orig_parse = at_write.parse
        orig_write = getattr(at_write, write_name)
        orig_commit = getattr(at_write, commit_name)
        orig_fsync = getattr(at_commit, fsync_name)
        orig_check = at_commit._verify

        def create(self: DirLock) -> None:
            orig_create(self)
            clock._marks = {"acquired": time.perf_counter()}

        def remove(self: DirLock) -> None:
            orig_remove(self)
            clock._mark("removed")  # the path is free: a peer's mkdir succeeds from here

        def release(self: PeerLock) -> None:
            clock._mark("release_start")
            orig_release(self)
            clock._mark("released")
            clock._finish()

        def verify(self: PeerLock) -> None:
            orig_verify(self)
            clock._mark("lock_verified")

        def read_bytes(*a: Any, **k: Any) -> Any:
            data = orig_read(*a, **k)
            clock._mark("reread")
            return data

        def parse(*a: Any, **k: Any) -> Any:
            clock._mark("redo")
            return orig_parse(*a, **k)

        def write_temp(*a: Any, **k: Any) -> Any:
            clock._mark("write_start")
            inode = orig_write(*a, **k)
            clock._mark("written")
            return inode

        def commit(*a: Any, **k: Any) -> None:
            clock._mark("commit_start")
            orig_commit(*a, **k)
            clock._mark("committed")

        def fsync_dir(folder: str) -> None:
            clock._mark("renamed")
            orig_fsync(folder)
            clock._mark("dir_fsynced")

        def check(*a: Any, **k: Any) -> None:
            orig_check(*a, **k)
            clock._mark("verified")

        DirLock._create = create  # type: ignore[method-assign]
        DirLock._remove = remove  # type: ignore[method-assign]
        PeerLock.release = release  # type: ignore[method-assign]
        PeerLock.verify = verify  # type: ignore[method-assign]
        setattr(at_write, read_name, read_bytes)
        if not old:  # the commit checks the file again right before its swap
            setattr(at_commit, read_name, read_bytes)
        at_write.parse = parse
        setattr(at_write, write_name, write_temp)
        setattr(at_write, commit_name, commit)
        setattr(at_commit, fsync_name, fsync_dir)
        at_commit._verify = check

    def _finish(self) -> None:
        m = self._marks
        self._marks = None
        if not m or "released" not in m:
            return
        self.appends += 1
        self.holds.append((m.get("removed", m["released"]) - m["acquired"]) * 1000)
        if "redo" in m:
            self.redone += 1
        seq = [
            ("re-read file", "acquired", "reread"),
            ("compare / redo", "reread", "commit_start"),
            ("redo: parse+build", "redo", "write_start"),
            ("redo: write+fsync temp", "write_start", "written"),
            ("lock check", "commit_start", "lock_verified"),
            ("rename", "lock_verified", "renamed"),
            ("fsync dir", "renamed", "dir_fsynced"),
            ("verify file", "dir_fsynced", "verified"),
            # until the lock dir is gone (what a peer waits for), and all of release()
            ("release", "release_start", "removed"),
            ("release()", "release_start", "released"),
        ]
        for name, a, b in seq:
            if a in m and b in m:
                self.steps[name].append((m[b] - m[a]) * 1000)

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]
