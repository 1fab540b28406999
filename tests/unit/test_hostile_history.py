"""The history file: private to its user, and a corrupt one moved aside rather than
blinding the sidecar."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

from support.hostile import GOOD
from teaminbox.formats.claude import CLAUDE
from teaminbox.history import History


def test_history_is_private(tmp_path: Path, umask022: None) -> None:
    path = tmp_path / "data" / "teaminbox" / "history.db"
    h = History(str(path))
    h.record("claude:t", "user", [CLAUDE.message({**GOOD, "msg_id": "m"}, 0, "claude:t", "u")], [])
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    for suffix in ("", "-wal", "-shm"):
        f = Path(str(path) + suffix)
        assert f.exists() and stat.S_IMODE(f.stat().st_mode) == 0o600, suffix
    h.close()
    for f in path.parent.iterdir():
        f.chmod(0o644)
    History(str(path)).close()
    for f in path.parent.iterdir():
        if f.name.startswith("history.db"):
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f.name


def test_corrupt_history_is_moved_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In its own data folder; elsewhere (historyPath) such a file is left alone:
    test_history_path.py."""
    from teaminbox.history import store

    path = tmp_path / "history.db"
    monkeypatch.setattr(store, "default_path", lambda: str(path))
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    with caplog.at_level(logging.WARNING):
        h = History()
    h.record("claude:t", "user", [CLAUDE.message({**GOOD, "msg_id": "m"}, 0, "claude:t", "u")], [])
    assert h.known_ids("claude:t", "user") == {"m"}
    [aside] = [x for x in tmp_path.iterdir() if x.name.startswith("history.db.corrupt-")]
    assert aside.read_bytes() == garbage
    assert any("corrupt" in r.getMessage() and str(path) in r.getMessage() for r in caplog.records)


def test_malformed_history_page_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    h = History(str(path))
    many = [
        CLAUDE.message({**GOOD, "text": "x" * 500, "msg_id": f"m{i}"}, i, "t", "u")
        for i in range(300)
    ]
    h.record("claude:t", "user", many, [])
    h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    h.close()
    data = bytearray(path.read_bytes())
    data[4096 * 3 : 4096 * 6] = b"\xff" * (4096 * 3)  # trash some b-tree pages
    path.write_bytes(bytes(data))
    h2 = History(str(path))
    assert h2.known_ids("claude:t", "user") == set()
    assert [x for x in tmp_path.iterdir() if ".corrupt-" in x.name]
