"""The redo under the lock parses only what a peer appended (store/tail.py, `extended`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.entries import at, claude_entry
from teaminbox import store
from teaminbox.formats.claude import CLAUDE
from teaminbox.locks import PeerLock
from teaminbox.store import tail


def entry(i: int) -> dict[str, object]:
    return claude_entry(text=f"m{i}", ts=at(i))


def test_extended_parses_a_peer_append_and_keeps_earlier_entries(tmp_path: Path) -> None:
    path = tmp_path / "user.json"
    old = json.dumps([entry(0), entry(1)], indent=2).encode()
    new = json.dumps([entry(0), entry(1), entry(2), {"bad": 1}], indent=2).encode()
    snap = store.parse(CLAUDE, str(path), old)
    grown = tail.extended(CLAUDE, snap, new)
    assert grown is not None
    assert grown.entries[:2] is not None and grown.entries[0] is snap.entries[0]
    assert [e.get("text") for e in grown.entries] == ["m0", "m1", "m2", None]
    assert [(p.index, "from" in p.reason) for p in grown.problems] == [(3, True)]


def test_extended_refuses_a_rewrite(tmp_path: Path) -> None:
    old = json.dumps([entry(0), entry(1)], indent=2).encode()
    pruned = json.dumps([entry(1), entry(2)], indent=2).encode()
    snap = store.parse(CLAUDE, str(tmp_path / "user.json"), old)
    assert tail.extended(CLAUDE, snap, pruned) is None


def test_append_after_a_peer_append_keeps_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A peer appends between our pre-read and our lock: its entry survives ours."""
    path = tmp_path / "user.json"
    path.write_bytes(json.dumps([entry(0)], indent=2).encode())
    real_lock = CLAUDE.lock

    def lock_after_peer_write(*args: object, **kwargs: object) -> PeerLock:
        path.write_bytes(json.dumps([entry(0), entry(1)], indent=2).encode())
        return real_lock(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(CLAUDE, "lock", lock_after_peer_write)
    index = store.append(CLAUDE, str(path), [entry(2)])
    assert index == 2
    assert [e["text"] for e in json.loads(path.read_bytes())] == ["m0", "m1", "m2"]
