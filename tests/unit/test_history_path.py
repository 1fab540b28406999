"""`historyPath` names the person's file: only a Team Inbox history is opened, written or
moved aside there. Anything else is left exactly as it was and the history is kept in
memory for the run (said once); the live view goes on."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from teaminbox.formats.claude import CLAUDE
from teaminbox.history import History


def message(text: str) -> object:
    entry = {"from": "a", "text": text, "timestamp": "2026-11-29T10:00:00.000Z", "msg_id": text}
    return CLAUDE.message(entry, 0, "claude:t", "user")


def text_file(p: Path) -> None:
    p.write_text("# My project\n\nSome notes the person keeps.\n")


def other_db(p: Path) -> None:
    db = sqlite3.connect(p)
    db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    db.execute("INSERT INTO notes(body) VALUES ('keep me')")
    db.commit()
    db.close()


def folder(p: Path) -> None:
    p.mkdir()
    (p / "inside.txt").write_text("x")


def fifo(p: Path) -> None:
    os.mkfifo(p)


def symlink(p: Path) -> None:
    target = p.parent / "target.md"
    text_file(target)
    p.symlink_to(target)


def symlink_to_history(p: Path) -> None:
    target = p.parent / "real.db"
    History(str(target)).close()
    p.symlink_to(target)


def wal_symlink(p: Path) -> None:
    """A history of ours, but its -wal points elsewhere: SQLite would write there."""
    History(str(p)).close()
    target = p.parent / "target.md"
    text_file(target)
    Path(str(p) + "-wal").symlink_to(target)


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes | None]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            data = None
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as f:
                    data = f.read()
            out[p] = (st.st_ino, st.st_mode, data)
    return out


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (text_file, "is not a SQLite database"),
        (other_db, "another program's SQLite database (tables: notes)"),
        (folder, "is a folder"),
        (fifo, "is not a regular file"),
        (symlink, "is a symbolic link"),
        (symlink_to_history, "is a symbolic link"),
        (wal_symlink, "has a symbolic link beside it (README.md-wal)"),
    ],
)
def test_history_path_that_is_not_a_history_is_never_touched(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    make: Callable[[Path], None],
    why: str,
) -> None:
    work = tmp_path / "workspace"
    work.mkdir()
    path = work / "README.md"
    make(path)
    before = snapshot(work)
    with caplog.at_level(logging.WARNING, logger="teaminbox"):
        h = History(str(path))
        # it still works, in memory: archive, search, seen
        h.record("claude:t", "user", [message("hello")], [])  # type: ignore[list-item]
        assert [m.id for m in h.search("hello")] == ["hello"]
        assert h.mark_seen("claude:t", "user", ["hello"]) == 1
        h.close()
    assert snapshot(work) == before  # the same files, bytes, modes and inodes; nothing beside
    assert h.refused is not None and why in h.refused
    said = [r.getMessage() for r in caplog.records if str(path) in r.getMessage()]
    assert len(said) == 1 and why in said[0] and "memory" in said[0]


def test_a_history_from_before_the_mark_is_still_ours(tmp_path: Path) -> None:
    """Histories written before PRAGMA application_id: known by their tables, kept."""
    path = tmp_path / "somewhere" / "history.db"
    h = History(str(path))
    h.record("claude:t", "user", [message("old words")], [])  # type: ignore[list-item]
    h.db.execute("PRAGMA application_id=0")
    h.close()
    again = History(str(path))
    assert again.refused is None
    assert [m.id for m in again.search("old")] == ["old words"]
    assert again.db.execute("PRAGMA application_id").fetchone()[0] != 0  # marked now
    again.close()


def test_an_empty_file_becomes_a_history(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    path.touch()
    h = History(str(path))
    assert h.refused is None
    h.record("claude:t", "user", [message("kept")], [])  # type: ignore[list-item]
    h.close()
    assert [m.id for m in History(str(path)).search("kept")] == ["kept"]
