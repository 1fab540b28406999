"""Hostile files: FIFOs, devices, sockets, directories and links where an inbox or a config
should be, and inboxes' modes. Nothing may hang, crash, write through a link or change a
mode. A test that would hang on a regression runs the risky call with a deadline."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support import cli
from support.hostile import GOOD, dump, within
from support.world import Teams
from teaminbox import fileio, store
from teaminbox.errors import NotRegularFile, TooLarge
from teaminbox.formats.claude import CLAUDE, ensure_claude_inbox
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE


def fifo_unblocker(path: Path) -> Callable[[], None]:
    def unblock() -> None:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass

    return unblock


@pytest.mark.parametrize("fmt", [CLAUDE, PSEUDOCLAUDE])
def test_fifo_inbox_is_refused_without_blocking(tmp_path: Path, fmt: Any) -> None:
    p = tmp_path / "x.json"
    os.mkfifo(p)
    for call in (
        lambda: store.read(fmt, str(p)),
        lambda: store.append(fmt, str(p), [GOOD], timeout=1),
        lambda: fileio.read_bytes(str(p)),
    ):
        with pytest.raises(NotRegularFile) as info:
            within(30, call, fifo_unblocker(p))
        assert info.value.code == "not_regular_file"
        assert str(p) in info.value.message and "FIFO" in info.value.message
    assert stat.S_ISFIFO(os.lstat(p).st_mode)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.json"]


def test_fifo_config_is_refused_by_read_regular(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    os.mkfifo(p)
    with pytest.raises(NotRegularFile) as info:
        within(30, lambda: fileio.read_regular(str(p)), fifo_unblocker(p))
    assert str(p) in info.value.message and "FIFO" in info.value.message


def test_directory_inbox_names_the_path(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.mkdir()
    with pytest.raises(NotRegularFile) as info:
        store.read(CLAUDE, str(p))
    assert info.value.message == f"{p} is a directory, not a regular file"
    assert info.value.path == str(p)
    with pytest.raises(NotRegularFile):
        store.append(CLAUDE, str(p), [GOOD], timeout=1)


def test_device_and_socket_are_refused(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile) as info:
        fileio.read_regular("/dev/zero")
    assert "character device" in info.value.message
    sock_path = tmp_path / "s.json"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(sock_path))
        with pytest.raises(NotRegularFile) as info:
            fileio.read_regular(str(sock_path))
        assert "socket" in info.value.message and str(sock_path) in info.value.message
    finally:
        s.close()


def test_read_regular_limit_and_missing(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    assert fileio.read_regular(str(p)) is None
    p.write_bytes(b"x" * 100)
    assert fileio.read_regular(str(p), limit=100) == b"x" * 100
    with pytest.raises(TooLarge):
        fileio.read_regular(str(p), limit=99)


def test_fifo_config_and_inbox_do_not_hang_the_cli(teams: Teams) -> None:
    cfg = teams.claude_dir / "config.json"
    cfg.unlink()
    os.mkfifo(cfg)
    teams.cinbox("researcher").unlink()
    os.mkfifo(teams.cinbox("researcher"))
    try:
        proc = cli.run("teams", "--json", env=teams.env(), timeout=20)
    except subprocess.TimeoutExpired:
        for fifo in (cfg, teams.cinbox("researcher")):
            fifo_unblocker(fifo)()
        pytest.fail("a FIFO blocked the CLI")
    assert proc.returncode == 0, proc.stderr
    assert f"{cfg} is a FIFO" in proc.stdout
    assert proc.stdout.count("FIFO") >= 1


def test_symlinked_inbox_is_read_but_never_written(tmp_path: Path) -> None:
    """Reading follows the link, as the peers do; a write refuses it (no link inside a
    team is written through or replaced: tests/unit/test_symlinks.py) and changes
    nothing, the link and its target included."""
    target = tmp_path / "elsewhere.json"
    target.write_bytes(dump([GOOD]))
    target.chmod(0o600)
    p = tmp_path / "x.json"
    p.symlink_to(target)
    assert store.read(CLAUDE, str(p)).entries == [GOOD]
    with pytest.raises(NotRegularFile) as refused:
        store.append(CLAUDE, str(p), [GOOD])
    assert refused.value.code == "symlink_in_team" and str(p) in refused.value.message
    assert p.is_symlink() and json.loads(target.read_bytes()) == [GOOD]
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(x.name for x in tmp_path.iterdir()) == ["elsewhere.json", "x.json"]
    dangling = tmp_path / "d.json"
    dangling.symlink_to(tmp_path / "missing")
    with pytest.raises(NotRegularFile) as info:
        store.read(CLAUDE, str(dangling))
    assert "symbolic link to nothing" in info.value.message


def test_salvage_refuses_symlinked_inbox(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_bytes(b'[{"from": "a", "te')
    secret.chmod(0o600)
    p = tmp_path / "inboxes" / "x.json"
    p.parent.mkdir()
    p.symlink_to(secret)
    with pytest.raises(NotRegularFile) as info:
        store.salvage(CLAUDE, str(p))
    assert "symbolic link" in info.value.message and str(p) in info.value.message
    assert sorted(x.name for x in p.parent.iterdir()) == ["x.json"]
    assert secret.read_bytes() == b'[{"from": "a", "te' and os.path.islink(p)


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_salvage_keeps_the_mode(tmp_path: Path, mode: int) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(b'[\n  {"from": "a", "text": "t", "timestamp": "t"},\n  {"from": "b", "te')
    p.chmod(mode)
    kept, dropped, backup = store.salvage(CLAUDE, str(p))
    assert kept == 1 and backup is not None
    assert stat.S_IMODE(os.stat(backup).st_mode) == mode
    assert stat.S_IMODE(os.stat(p).st_mode) == mode


@pytest.mark.parametrize("fmt", [CLAUDE, PSEUDOCLAUDE])
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664])
def test_rewrites_keep_the_inbox_mode(tmp_path: Path, fmt: Any, mode: int, umask022: None) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(dump([GOOD]) if fmt is CLAUDE else dump({"messages": [GOOD]}))
    p.chmod(mode)
    store.append(fmt, str(p), [GOOD])
    assert stat.S_IMODE(os.stat(p).st_mode) == mode
    store.rewrite(fmt, str(p), lambda s: s.entries.append(GOOD) or 1)
    assert stat.S_IMODE(os.stat(p).st_mode) == mode


def test_new_inbox_modes_follow_each_peer(tmp_path: Path) -> None:
    old = os.umask(0o002)
    try:
        c = tmp_path / "c.json"
        ensure_claude_inbox(str(c))  # Node's writeFile: 0666 & ~umask
        assert stat.S_IMODE(os.stat(c).st_mode) == 0o664
        c2 = tmp_path / "c2.json"
        store.append(CLAUDE, str(c2), [GOOD])
        assert stat.S_IMODE(os.stat(c2).st_mode) == 0o664
        pc = tmp_path / "p.json"
        store.append(PSEUDOCLAUDE, str(pc), [GOOD])  # Go's os.CreateTemp: 0600
        assert stat.S_IMODE(os.stat(pc).st_mode) == 0o600
        explicit = tmp_path / "e.json"
        store.append(PSEUDOCLAUDE, str(explicit), [GOOD], mode=0o640)
        assert stat.S_IMODE(os.stat(explicit).st_mode) == 0o640
    finally:
        os.umask(old)
