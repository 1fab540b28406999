"""Appends read against the rows' own bytes (grow_rows): never a stale entry, never a
missed rewrite."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support.entries import claude_entry
from teaminbox.formats.claude import CLAUDE
from teaminbox.rows import Rows, grow_rows, load_rows
from teaminbox.store import tail


def entry(i: int, read: bool = False, text: str | None = None) -> dict[str, object]:
    words = f"m{i} " + "x" * (i % 50) if text is None else text
    return claude_entry(text=words, read=read, msg_id=f"id-{i}")


def write(path: Path, entries: list[dict[str, object]]) -> bytes:
    data = json.dumps(entries, indent=2).encode()
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return data


def fresh(data: bytes) -> Rows:
    return load_rows(CLAUDE, "user.json", data, "claude:a", "user", lambda m, t: None)


def same(rows: Rows, data: bytes) -> None:
    """`rows` say what a fresh load of the file's bytes says, entry by entry."""
    want = fresh(data)
    assert rows.ids == want.ids and rows.read == want.read
    assert list(rows.index) == list(want.index)
    assert [rows.raw(i) for i in range(len(rows))] == [want.raw(i) for i in range(len(want))]


def grow(path: Path, rows: Rows) -> tuple[Rows | None, list[str]]:
    fed: list[str] = []

    def feed(msgs: list[object], tail: bool) -> None:
        assert tail
        fed.extend(m.id for m in msgs)  # type: ignore[attr-defined]

    return grow_rows(CLAUDE, str(path), rows, "claude:a", "user", feed), fed


def test_many_appends_read_only_their_tails_and_match_a_fresh_load(tmp_path: Path) -> None:
    path = tmp_path / "user.json"
    entries = [entry(i) for i in range(3)]
    rows = fresh(write(path, entries))
    most = 1
    for k in range(3, 60):
        added = [entry(i, read=i % 3 == 0) for i in range(k * 10, k * 10 + 1 + k % 3)]
        entries += added
        data = write(path, entries)
        grown, fed = grow(path, rows)
        assert grown is not None, k
        assert fed == [e["msg_id"] for e in added]
        same(grown, data)
        most = max(most, len(grown.tails))
        rows = grown
    assert 1 < most <= 8  # tails merged as they come: a few pieces, not one per append
    assert rows.data == fresh(json.dumps(entries[:3], indent=2).encode()).data


@pytest.mark.parametrize(
    "change",
    ["base byte", "tail byte", "last entry", "truncated", "same size", "not grown", "gone"],
)
def test_anything_but_a_pure_append_is_no_growth(tmp_path: Path, change: str) -> None:
    path = tmp_path / "user.json"
    entries = [entry(i) for i in range(20)]
    rows = fresh(write(path, entries))
    for i in range(20, 25):  # some tails
        entries.append(entry(i))
        write(path, entries)
        grown, _ = grow(path, rows)
        assert grown is not None
        rows = grown
    assert rows.tails
    changed = [dict(e) for e in entries] + [entry(99)]
    if change == "base byte":  # same length, one character of an early entry
        changed[2]["text"] = "M" + str(changed[2]["text"])[1:]
    elif change == "tail byte":
        changed[22]["text"] = "M" + str(changed[22]["text"])[1:]
    elif change == "last entry":
        changed[24]["read"] = True
    elif change == "truncated":
        changed = changed[:10]
    elif change == "same size":
        changed = changed[:-1]
    elif change == "not grown":
        changed = changed[:-1]
        changed[24]["text"] = "y"
    if change == "gone":
        path.unlink()
    else:
        write(path, changed)
    grown, fed = grow(path, rows)
    assert grown is None and not fed


def test_a_stale_piece_is_caught(tmp_path: Path) -> None:
    """The bytes the rows keep are the comparison: a piece made stale on purpose (what a
    cache that forgot an append would hold) makes the next append a full load."""
    path = tmp_path / "user.json"
    entries = [entry(i) for i in range(10)]
    rows = fresh(write(path, entries))
    entries.append(entry(10))
    write(path, entries)
    grown, _ = grow(path, rows)
    assert grown is not None
    grown.tails[-1] = grown.tails[-1].replace(b"m10", b"mXX")
    entries.append(entry(11))
    data = write(path, entries)
    again, _ = grow(path, grown)
    assert again is None
    # and the bytes path (load_rows with the rows grown from) falls back to a whole parse
    tails: list[bool] = []
    whole = load_rows(CLAUDE, "u", data, "claude:a", "user", lambda m, t: tails.append(t), grown)
    assert not any(tails)
    same(whole, data)


def test_the_bytes_path_grows_segmented_rows(tmp_path: Path) -> None:
    path = tmp_path / "user.json"
    entries = [entry(i) for i in range(5)]
    rows = fresh(write(path, entries))
    for i in range(5, 12):
        entries.append(entry(i))
        write(path, entries)
        grown, _ = grow(path, rows)
        assert grown is not None
        rows = grown
    entries.append(entry(12))
    data = write(path, entries)
    fed: list[tuple[list[str], bool]] = []
    again = load_rows(
        CLAUDE, "u", data, "claude:a", "user", lambda m, t: fed.append(([x.id for x in m], t)), rows
    )
    assert [ids for ids, tail in fed if ids] == [["id-12"]] and all(t for _, t in fed)
    same(again, data)


def test_compare_reads_past_its_buffer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tail, "COMPARE_BYTES", 7)  # many short reads across pieces
    path = tmp_path / "user.json"
    entries = [entry(i) for i in range(4)]
    rows = fresh(write(path, entries))
    for i in range(4, 9):
        entries.append(entry(i))
        data = write(path, entries)
        grown, _ = grow(path, rows)
        assert grown is not None
        same(grown, data)
        rows = grown
    entries[1]["text"] = "changed"
    write(path, entries + [entry(20)])
    assert grow(path, rows)[0] is None
