"""Releasing a lock: the path is freed first, then our descriptor on it is closed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from teaminbox import locks
from teaminbox.locks import DirLock, ExclFileLock, PeerLock


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
@pytest.mark.parametrize("kind", [DirLock, ExclFileLock])
def test_release_frees_the_path_then_closes_the_descriptor(
    kind: type[PeerLock], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = open_fds()
    order: list[str] = []
    lock = kind(str(tmp_path / "x.json"), timeout=1)
    real_remove, real_close = lock._remove, locks._close_after_removal

    def remove() -> None:
        assert lock._fd is None  # forgotten first: a refresh can no longer touch it
        real_remove()
        order.append("removed")

    def close(fd: int | None) -> None:
        assert fd is not None and str(fd) in open_fds()
        order.append("closed")
        real_close(fd)

    monkeypatch.setattr(lock, "_remove", remove)
    monkeypatch.setattr(locks, "_close_after_removal", close)
    for _ in range(3):
        lock.acquire()
        assert lock.is_mine()
        lock.release()
        assert not os.path.lexists(lock.path)
    assert order == ["removed", "closed"] * 3
    assert open_fds() == before  # nothing leaks


def test_a_lost_lock_is_closed_and_left_alone(tmp_path: Path) -> None:
    before = open_fds() if os.path.isdir("/proc/self/fd") else set()
    lock = DirLock(str(tmp_path / "x.json"), timeout=1).acquire()
    os.rmdir(lock.path)
    os.mkdir(lock.path)  # a peer broke it and took it
    lock.release()
    assert os.path.isdir(lock.path)  # the peer's lock stays
    if before:
        assert open_fds() == before
