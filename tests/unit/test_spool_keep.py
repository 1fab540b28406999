"""The spool's rotation never deletes a file no sidecar read to its end (teaminbox/spool.py):
writers in several processes past many rotations with no reader, then every line read
once; a reader mid-file across rotations; the cap (MAX_KEPT) dropping the oldest unread
file and only it; a late writer's line in a file being released; links, FIFOs and folders
under rotated names never followed, hung on or deleted. MAX_FILE is made small here (in
the writer processes too) so that rotations happen."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from teaminbox import spool

REPO = Path(__file__).resolve().parents[2]


def feed(where: Path, text: str) -> None:
    p = {
        "session_id": "s",
        "tool_name": "SendMessage",
        "hook_event_name": "PostToolUse",
        "tool_input": {"to": "lead", "message": text},
        "tool_response": {"success": True, "msg_id": text},
    }
    assert spool.record(io.BytesIO(json.dumps(p).encode()), str(where)) == 0


def read_all(where: Path, offsets: dict[str, int]) -> tuple[list[str], dict[str, int]]:
    """Everything after the offsets, a budget at a time as the intake reads."""
    texts: list[str] = []
    more = True
    while more:
        got = spool.read(str(where), offsets, budget=64 * 1024)
        texts += [d["p"]["tool_input"]["message"] for _, _, d in got.records]
        offsets, more = dict(got.offsets), got.more
    return texts, offsets


def rotated(where: Path) -> list[str]:
    names = os.listdir(where) if where.exists() else []
    return [n for n in sorted(names) if spool.is_rotated(n)]


def feed_until(where: Path, prefix: str, start: int, done: Callable[[], bool]) -> int:
    """Sends `prefix0`, `prefix1`... from `start` until `done()` (a bounded number): the
    number after the last one sent."""
    n = start
    while not done():
        assert n < start + 5000, "never came"
        feed(where, f"{prefix}{n}")
        n += 1
    return n


WRITER = """
import io, json, sys
from teaminbox import spool
where, me, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
spool.MAX_FILE, spool.MAX_KEPT = int(sys.argv[4]), int(sys.argv[5])
for i in range(n):
    text = f"{me}-{i}-" + "z" * (i * 997 % 3000)
    p = {"session_id": "s", "tool_name": "SendMessage", "hook_event_name": "PostToolUse",
         "tool_input": {"to": "lead", "message": text},
         "tool_response": {"success": True, "msg_id": f"{me}-{i}"}}
    spool.record(io.BytesIO(json.dumps(p).encode()), where)
"""


def test_writers_in_several_processes_past_many_rotations_lose_nothing(tmp_path: Path) -> None:
    where = tmp_path / "spool"
    env = {**os.environ, "PYTHONPATH": str(REPO / "sidecar")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(where), f"w{k}", "200", "65536", "1000"], env=env
        )
        for k in range(4)
    ]
    for p in procs:
        assert p.wait(timeout=300) == 0
    texts, offsets = read_all(where, {})
    ids = ["-".join(t.split("-", 2)[:2]) for t in texts]
    assert len(ids) == len(set(ids))  # none twice
    assert sorted(ids) == sorted(f"w{k}-{i}" for k in range(4) for i in range(200))  # none lost
    for k in range(4):  # each writer's lines in its order: files read oldest first
        mine = [int(i.split("-")[1]) for i in ids if i.startswith(f"w{k}-")]
        assert mine == sorted(mine)
    assert len(rotated(where)) >= 10  # ~1.3 MiB written: many rotations, no reader
    # read through and released: only the file being appended to stays; nothing read again
    spool.release(str(where), spool.read_through(str(where), offsets))
    assert rotated(where) == []
    assert read_all(where, offsets)[0] == []


def test_a_reader_mid_file_goes_on_across_rotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "MAX_FILE", 4096)
    where = tmp_path / "spool"
    for i in range(5):
        feed(where, f"a{i}")
    first, offsets = read_all(where, {})
    assert first == [f"a{i}" for i in range(5)]
    # the file read halfway is rotated, then two more
    i = feed_until(where, "b", 0, lambda: len(rotated(where)) >= 3)
    rest, offsets = read_all(where, offsets)
    assert rest == [f"b{n}" for n in range(i)]
    # a file not read through is not released
    feed(where, "c0")
    spool.release(str(where), spool.read_through(str(where), {}))
    assert len(rotated(where)) == 3
    assert read_all(where, offsets)[0] == ["c0"]


def test_past_the_cap_the_oldest_unread_file_goes_and_only_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "MAX_FILE", 4096)
    monkeypatch.setattr(spool, "MAX_KEPT", 3)
    where = tmp_path / "spool"
    n = feed_until(where, "m", 0, lambda: len(rotated(where)) >= 3)
    texts, _ = read_all(where, {})
    assert texts == [f"m{i}" for i in range(n)]  # three rotated files: all kept
    first = rotated(where)[0]
    n = feed_until(where, "m", n, lambda: first not in rotated(where))
    assert len(rotated(where)) == 3
    texts, _ = read_all(where, {})
    lost = n - len(texts)
    # only the oldest file's lines went: what is left runs to the newest, nothing between
    assert 0 < lost < n and texts == [f"m{i}" for i in range(lost, n)]


def test_a_line_a_late_writer_adds_to_a_released_file_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer opened the file before its rotation and writes after the read: the release
    moves its line to `sends.jsonl`."""
    monkeypatch.setattr(spool, "MAX_FILE", 4096)
    where = tmp_path / "spool"
    feed_until(where, "m", 0, lambda: bool(rotated(where)))
    texts, offsets = read_all(where, {})
    done = spool.read_through(str(where), offsets)
    [(name, _, _)] = done
    line = json.dumps({"t": 1796000000.0, "p": {"tool_input": {"message": "late"}}})
    with open(where / name, "ab") as f:  # the late writer
        f.write(line.encode() + b"\n")
    spool.release(str(where), done)
    assert rotated(where) == []
    assert read_all(where, offsets)[0] == ["late"]


def test_links_fifos_and_folders_under_rotated_names_are_never_followed_or_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "MAX_FILE", 4096)
    monkeypatch.setattr(spool, "MAX_KEPT", 1)
    where = tmp_path / "spool"
    feed(where, "first")
    victim = tmp_path / "victim.jsonl"  # a spool file elsewhere, read through by the offsets
    victim.write_bytes(spool.header() + b'{"t":1796000000.0,"p":{"tool_input":{"message":"x"}}}\n')
    planted: dict[str, Any] = {
        f"sends.{1:020d}-aa.jsonl": lambda p: p.symlink_to(victim),
        f"sends.{2:020d}-bb.jsonl": os.mkfifo,
        f"sends.{3:020d}-cc.jsonl": os.mkdir,
    }
    for name, make in planted.items():
        make(where / name)
    before = victim.read_bytes()
    for n in range(200):  # rotations, each past the cap of one
        feed(where, f"m{n}")
    assert len([x for x in rotated(where) if x not in planted]) == 1
    texts, offsets = read_all(where, {})
    assert "x" not in texts and texts[-1] == "m199"
    victim_id = spool.file_id(before)
    assert victim_id is not None
    spool.release(str(where), spool.read_through(str(where), {**offsets, victim_id: 10**9}))
    assert victim.read_bytes() == before
    assert all(os.path.lexists(where / name) for name in planted)
    assert (where / f"sends.{1:020d}-aa.jsonl").is_symlink()


def test_a_reader_releasing_while_writers_rotate_misses_nothing(tmp_path: Path) -> None:
    """The intake's round (read, then release what is read through) again and again while
    writers in other processes rotate: every line is read, and no file a read knew goes
    before it was read through (a file gone so is what the history counts as a loss)."""
    where = tmp_path / "spool"
    env = {**os.environ, "PYTHONPATH": str(REPO / "sidecar")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(where), f"w{k}", "150", "16384", "1000"], env=env
        )
        for k in range(3)
    ]
    seen: set[str] = set()
    offsets: dict[str, int] = {}
    released: set[str] = set()

    def round_() -> None:
        nonlocal offsets
        texts, after = read_all(where, offsets)
        seen.update("-".join(t.split("-", 2)[:2]) for t in texts)
        vanished = set(offsets) - set(after) - released
        assert not vanished, "a file went before it was read through"
        offsets = after
        done = spool.read_through(str(where), offsets)
        released.update(fid for _, fid, _ in done)
        spool.release(str(where), done)

    while any(p.poll() is None for p in procs):
        round_()
    for p in procs:
        assert p.wait(timeout=300) == 0
    round_()
    assert seen == {f"w{k}-{i}" for k in range(3) for i in range(150)}
    assert len(released) >= 3 and rotated(where) == []
