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


def test_a_dying_process_waits_for_a_temp_being_written_then_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signal handler's release (release_all) on one thread, a worker creating its temp
    file on another: the temp is removed whichever comes first, and none is made after."""
    import threading  # noqa: PLC0415 - this test's alone

    monkeypatch.setattr(locks, "_refresher", locks._Refresher())
    monkeypatch.setattr(locks, "DYING_WAIT", 60.0)  # a busy machine's pause never reaches it
    tmp = str(tmp_path / ".x.json.1.teaminbox-tmp")
    locks.track_temp(tmp)
    inside, go_on = threading.Event(), threading.Event()
    real_write = locks.write_temp

    def slow_write(path: str, data: bytes, mode: int | None = None) -> int:
        inside.set()
        assert go_on.wait(30)
        return real_write(path, data, mode)

    monkeypatch.setattr(locks, "write_temp", slow_write)
    worker = threading.Thread(target=locks.write_tracked_temp, args=(tmp, b"[]"))
    worker.start()
    assert inside.wait(30)
    releaser = threading.Thread(target=locks.release_all)
    releaser.start()
    releaser.join(0.5)
    assert releaser.is_alive()  # it waits for the temp being written
    go_on.set()  # the worker creates its file while release_all waits for it
    releaser.join(30)
    worker.join(30)
    assert not os.path.lexists(tmp)
    with pytest.raises(OSError):
        locks.write_tracked_temp(tmp, b"[]")
    assert not os.path.lexists(tmp)


def test_a_temp_is_removed_before_it_is_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A signal handled between the two steps finds the temp still tracked (and removes it)
    or already gone: never forgotten yet still on disk, which the dying process would leave
    beside the inbox."""
    seen: list[bool] = []

    class Temps(set[str]):
        def discard(self, path: str) -> None:
            seen.append(os.path.lexists(path))
            super().discard(path)

    refresher = locks._Refresher()
    refresher.temps = Temps()
    monkeypatch.setattr(locks, "_refresher", refresher)
    tmp = str(tmp_path / ".x.json.1.teaminbox-tmp")
    locks.track_temp(tmp)
    locks.write_tracked_temp(tmp, b"[]")
    locks.drop_temp(tmp)
    assert seen == [False] and not os.path.lexists(tmp) and locks.tracked_temps() == set()
    locks.drop_temp(tmp)  # twice, or never written: no error
