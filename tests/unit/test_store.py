"""Reading broken inboxes, the locked update's commit path, and salvage."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from teaminbox import store
from teaminbox.errors import CorruptInbox, LockLost
from teaminbox.formats.claude import CLAUDE
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.locks import DirLock, ExclFileLock, PeerLock

GOOD = {"from": "a", "text": "hello", "timestamp": "2026-01-01T00:00:00Z"}


def dump(value: Any) -> bytes:
    return json.dumps(value, indent=2, ensure_ascii=False).encode()


@pytest.mark.parametrize(
    ("data", "line", "col"),
    [
        (b'[\n  {"from": "a",\n  "text": }\n]', 3, 11),
        (b'[\n  {\n    "from": "a"\n', 4, 1),  # truncated
        (b"[1, 2,]", 1, 7),
    ],
)
def test_unparsable_claude_file_is_corrupt_with_line_and_column(
    tmp_path: Path, data: bytes, line: int, col: int
) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(data)
    with pytest.raises(CorruptInbox) as info:
        store.read(CLAUDE, str(p))
    assert info.value.path == str(p)
    assert str(p) in info.value.message
    assert f"line {line} column {col}" in info.value.message
    assert "\n" not in info.value.message


def test_not_utf8_is_corrupt(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(b'[{"from": "\xff"}]')
    with pytest.raises(CorruptInbox) as info:
        store.read(CLAUDE, str(p))
    assert "UTF-8" in info.value.message and info.value.path == str(p)


@pytest.mark.parametrize(
    ("fmt", "data", "needle"),
    [
        (CLAUDE, b'{"messages": []}', "expected a JSON array"),
        (CLAUDE, b'"text"', "expected a JSON array"),
        (PSEUDOCLAUDE, b"[]", "expected an object"),
        (PSEUDOCLAUDE, b'{"messages": {}}', "'messages'"),
        (CLAUDE, b"NaN", ""),
        (CLAUDE, b"", ""),
    ],
)
def test_wrong_top_level_is_corrupt(tmp_path: Path, fmt: Any, data: bytes, needle: str) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(data)
    with pytest.raises(CorruptInbox) as info:
        store.read(fmt, str(p))
    assert needle in info.value.message
    assert info.value.path == str(p)


def test_invalid_entry_is_reported_and_skipped_claude(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    bad = [
        GOOD,
        {"from": "b", "timestamp": "t"},
        "a string",
        {"from": 1, "text": "x", "timestamp": "t"},
        GOOD,
    ]
    p.write_bytes(dump(bad))
    snap = store.read(CLAUDE, str(p))
    assert [pr.index for pr in snap.problems] == [1, 2, 3]
    assert "text" in snap.problems[0].reason
    msgs = store.messages(CLAUDE, snap, "claude:t", "x")
    assert [m.text for m in msgs] == ["hello", "hello"]


def test_invalid_entry_is_reported_and_skipped_pseudoclaude(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    ok = {"from": "lead", "timestamp": "t", "content": "c"}
    doc = {"messages": [ok, {"from": "lead", "timestamp": "t", "payload": [1]}, 7, ok]}
    p.write_bytes(dump(doc))
    snap = store.read(PSEUDOCLAUDE, str(p))
    assert [pr.index for pr in snap.problems] == [1, 2]
    msgs = store.messages(PSEUDOCLAUDE, snap, "pseudoclaude:t", "x")
    assert [m.id.split("-")[1] for m in msgs] == ["0", "3"]  # ids keep the file index


def test_append_to_file_with_invalid_entry_keeps_it(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(dump([GOOD, {"junk": True}]))
    store.append(CLAUDE, str(p), [GOOD])
    assert json.loads(p.read_bytes()) == [GOOD, {"junk": True}, GOOD]


@pytest.mark.parametrize("fmt", [CLAUDE, PSEUDOCLAUDE])
def test_update_never_overwrites_corrupt_file(tmp_path: Path, fmt: Any) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(b'[{"from": "a", "te')
    with pytest.raises(CorruptInbox):
        store.append(fmt, str(p), [GOOD])
    with pytest.raises(CorruptInbox):
        store.rewrite(fmt, str(p), lambda s: 1)
    assert p.read_bytes() == b'[{"from": "a", "te'
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.json"]


class BrokenByPeer:
    """A lock that a peer breaks (as stale) and re-takes while we still think we hold it."""

    def __init__(self, inner: PeerLock) -> None:
        self.inner = inner

    def __enter__(self) -> PeerLock:
        lock = self.inner.acquire()
        # Our lock is backdated (we stalled), the peer reclaims it and makes its own.
        os.utime(lock.path, (1_000_000_000, 1_000_000_000))
        if os.path.isdir(lock.path):
            os.rmdir(lock.path)
            os.mkdir(lock.path)
        else:
            os.unlink(lock.path)
            Path(lock.path).write_text("2026-01-01T00:00:00.000000000Z")
        return lock

    def __exit__(self, *exc: object) -> None:
        self.inner.release()


@pytest.mark.parametrize(("fmt", "cls"), [(CLAUDE, DirLock), (PSEUDOCLAUDE, ExclFileLock)])
def test_lock_lost_before_commit_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: Any, cls: type[PeerLock]
) -> None:
    p = tmp_path / "x.json"
    before = dump([GOOD]) if fmt is CLAUDE else dump({"messages": [GOOD]})
    p.write_bytes(before)
    monkeypatch.setattr(fmt, "lock", lambda path, timeout: BrokenByPeer(cls(path, timeout)))
    with pytest.raises(LockLost):
        store.append(fmt, str(p), [GOOD])
    assert p.read_bytes() == before
    # the peer's lock is left alone, and our temp file is gone
    assert os.path.exists(str(p) + ".lock")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.json", "x.json.lock"]


# ---------------------------------------------------------------- salvage


def test_salvage_truncated_claude_file(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    entries = [{**GOOD, "text": f"m{i}", "extra": {"k": [1, {"n": i}]}} for i in range(4)]
    full = dump(entries)
    cut = full[: full.index(b'"m3"') + 2]  # truncated inside the last entry
    p.write_bytes(cut)
    kept, dropped, backup = store.salvage(CLAUDE, str(p))
    assert kept == 3
    assert backup is not None and re.search(r"x\.json\.corrupt-", backup)
    assert Path(backup).read_bytes() == cut
    assert json.loads(p.read_bytes()) == entries[:3]
    assert not os.path.exists(str(p) + ".lock")


def test_salvage_garbled_middle_pseudoclaude(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    msgs = [{"from": "lead", "timestamp": "t", "content": f"m{i}"} for i in range(3)]
    data = dump({"messages": msgs}).replace(b'"m1"', b'"m1\x00garbage', 1)
    p.write_bytes(data)
    with pytest.raises(CorruptInbox):
        store.read(PSEUDOCLAUDE, str(p))
    kept, dropped, backup = store.salvage(PSEUDOCLAUDE, str(p))
    assert kept == 2
    assert backup is not None and Path(backup).read_bytes() == data
    assert json.loads(p.read_bytes()) == {"messages": [msgs[0], msgs[2]]}


def test_salvage_drops_invalid_entries_of_parsable_file(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(dump([GOOD, {"bad": 1}, GOOD]))
    kept, dropped, backup = store.salvage(CLAUDE, str(p))
    assert (kept, dropped) == (2, 1)
    assert backup is not None
    assert json.loads(p.read_bytes()) == [GOOD, GOOD]


def test_salvage_leaves_healthy_file_alone(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    data = dump([GOOD, GOOD])
    p.write_bytes(data)
    assert store.salvage(CLAUDE, str(p)) == (2, 0, None)
    assert p.read_bytes() == data
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.json"]
