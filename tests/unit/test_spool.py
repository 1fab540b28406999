"""The spool (teaminbox/spool.py): what the record hook appends and the sidecar reads back;
its bounds, links and FIFOs refused, corrupt and torn lines skipped, several processes
appending at once without a torn line, rotation, offsets."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import platformdirs
import pytest

from teaminbox import spool
from teaminbox.transcript_sends import from_hook

REPO = Path(__file__).resolve().parents[2]


def payload(text: str = "hello", msg_id: str = "m-1", **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "5e1d0000-0000-4000-8000-000000000001",
        "agent_type": "helper",
        "hook_event_name": "PostToolUse",
        "tool_name": "SendMessage",
        "tool_input": {"to": "team-lead", "message": text, "summary": "s"},
        "tool_response": {
            "success": True,
            "msg_id": msg_id,
            "routing": {"sender": "helper", "summary": "s", "content": text[:50]},
        },
        **extra,
    }


def feed(where: Path, data: bytes | dict[str, Any]) -> int:
    raw = data if isinstance(data, bytes) else json.dumps(data).encode()
    return spool.record(io.BytesIO(raw), str(where))


def records(where: Path) -> list[dict[str, Any]]:
    return [doc for _, _, doc in spool.read(str(where), {}).records]


def test_the_folder_is_the_user_data_folders_as_platformdirs_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("TEAMINBOX_SPOOL_DIR", raising=False)
    for xdg in ("", "/tmp/xdg-data"):
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
        want = os.path.join(platformdirs.user_data_dir("teaminbox", appauthor=False), "spool")
        assert spool.folder() == want


def test_a_send_is_one_private_line_read_back_whole(tmp_path: Path) -> None:
    where = tmp_path / "data" / "spool"
    assert feed(where, payload("two\nlines \u2028 and \ud800")) == 0
    assert (os.stat(where).st_mode & 0o777, os.stat(where / spool.CURRENT).st_mode & 0o777) == (
        0o700,
        0o600,
    )
    lines = (where / spool.CURRENT).read_bytes().split(b"\n")
    assert len(lines) == 3 and lines[2] == b""  # header, the record, the final newline
    [doc] = records(where)
    assert doc["p"] == payload("two\nlines \u2028 and \ud800")
    sent = from_hook(doc["p"], "2026-12-07T10:00:00.000Z")
    assert sent is not None
    assert (sent.msg_id, sent.to, sent.text, sent.sender) == (
        "m-1",
        "team-lead",
        "two\nlines \u2028 and \ud800",
        "helper",
    )


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not json",
        b"[1, 2]",
        json.dumps(payload() | {"tool_name": "Write"}).encode(),
        json.dumps(payload() | {"hook_event_name": "PreToolUse"}).encode(),
        b"[" * 100_000,
    ],
)
def test_what_is_no_send_is_not_kept_and_the_hook_still_exits_0(
    tmp_path: Path, data: bytes
) -> None:
    assert feed(tmp_path / "spool", data) == 0
    assert records(tmp_path / "spool") == []


def test_a_payload_over_the_bound_is_kept_without_its_words(tmp_path: Path) -> None:
    where = tmp_path / "spool"
    big = "x" * (spool.MAX_RECORD + 10)
    feed(where, payload(big, "m-big"))
    [doc] = records(where)
    assert doc["cut"] > spool.MAX_RECORD
    assert "message" not in doc["p"]["tool_input"]
    assert doc["p"]["tool_response"]["msg_id"] == "m-big"
    assert from_hook(doc["p"], "2026-12-07T10:00:00.000Z") is None  # no words: no message
    # past what stdin is read for: only its size
    feed(where, b"{" + b" " * spool.MAX_STDIN + b"}")
    assert records(where)[1] == {"t": records(where)[1]["t"], "cut": spool.MAX_STDIN + 1}
    assert max(len(x) for x in (where / spool.CURRENT).read_bytes().split(b"\n")) <= (
        spool.MAX_RECORD
    )


def test_no_write_follows_a_link_or_opens_a_fifo(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "victim"
    target.write_text("keep\n")
    # the spool file a link
    where = tmp_path / "a" / "spool"
    where.mkdir(parents=True, mode=0o700)
    (where / spool.CURRENT).symlink_to(target)
    assert feed(where, payload()) == 0
    assert target.read_text() == "keep\n"
    assert records(where) == []
    # the spool folder a link
    linked = tmp_path / "b" / "spool"
    linked.parent.mkdir()
    linked.symlink_to(elsewhere)
    assert feed(linked, payload()) == 0
    assert sorted(os.listdir(elsewhere)) == ["victim"]
    # a FIFO where the file goes: never blocks, nothing written
    fifo_dir = tmp_path / "c" / "spool"
    fifo_dir.mkdir(parents=True, mode=0o700)
    os.mkfifo(fifo_dir / spool.CURRENT)
    assert feed(fifo_dir, payload()) == 0
    assert records(fifo_dir) == []


def test_corrupt_torn_and_half_written_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    where = tmp_path / "spool"
    feed(where, payload("one", "m-1"))
    path = where / spool.CURRENT
    with open(path, "ab") as f:
        f.write(b"garbage\n")
        f.write(b'{"t": "no number", "p": {}}\n')
        f.write(b'{"t": Infinity, "p": {}}\n')
        f.write(b'{"t":1796000000.0,"p":{"tool_na')  # a writer died mid-line
    feed(where, payload("two", "m-2"))  # its line joins the torn one
    with open(path, "ab") as f:
        f.write(b'{"t":1796000000.0,"p":{"half')  # being written now
    got = spool.read(str(where), {})
    assert [doc["p"]["tool_input"]["message"] for _, _, doc in got.records] == ["one", "two"]
    assert got.skipped == 3
    # the half-written line is not consumed: once whole, the next read takes it
    [(fid, end)] = got.offsets.items()
    assert end == path.stat().st_size - len(b'{"t":1796000000.0,"p":{"half')
    with open(path, "ab") as f:
        f.write(b'":1}}\n')
    again = spool.read(str(where), got.offsets)
    assert [doc["p"] for _, _, doc in again.records] == [{"half": 1}]


def test_a_line_over_the_bound_is_skipped_not_read_whole(tmp_path: Path) -> None:
    where = tmp_path / "spool"
    feed(where, payload("before", "m-1"))
    with open(where / spool.CURRENT, "ab") as f:
        f.write(b'{"t":1,"p":"' + b"y" * (3 * spool.MAX_RECORD) + b'"}\n')
    feed(where, payload("after", "m-2"))
    got = spool.read(str(where), {})
    assert [doc["p"]["tool_input"]["message"] for _, _, doc in got.records] == ["before", "after"]
    assert got.skipped == 1


def test_offsets_read_only_what_is_new_and_a_budget_goes_on_later(tmp_path: Path) -> None:
    where = tmp_path / "spool"
    for i in range(50):
        feed(where, payload(f"m{i}", f"id-{i}"))
    first = spool.read(str(where), {}, budget=2000)
    assert first.more and 0 < len(first.records) < 50
    rest = spool.read(str(where), first.offsets)
    assert not rest.more
    texts = [d["p"]["tool_input"]["message"] for _, _, d in first.records + rest.records]
    assert texts == [f"m{i}" for i in range(50)]
    assert spool.read(str(where), rest.offsets).records == []


def test_rotation_keeps_the_spool_bounded_and_loses_nothing_read_in_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool, "MAX_FILE", 4096)
    where = tmp_path / "spool"
    offsets: dict[str, int] = {}
    seen: list[str] = []
    for i in range(200):
        feed(where, payload(f"r{i}", f"id-{i}"))
        if i % 10 == 9:  # read, and the files read through deleted, as the intake does
            got = spool.read(str(where), offsets)
            seen += [d["p"]["tool_input"]["message"] for _, _, d in got.records]
            offsets = got.offsets
            spool.release(str(where), spool.read_through(str(where), offsets))
            sizes = [p.stat().st_size for p in where.iterdir() if p.name.endswith(".jsonl")]
            assert len(sizes) <= 2 and max(sizes, default=0) <= 4096 + spool.MAX_RECORD
    assert seen == [f"r{i}" for i in range(200)]
    assert not [n for n in os.listdir(where) if n.endswith(".tmp")]


WRITER = """
import io, json, sys
from teaminbox import spool
where, me, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    text = f"{me}-{i}-" + "z" * (i * 997 % 20000)
    p = {"session_id": "s", "tool_name": "SendMessage", "hook_event_name": "PostToolUse",
         "tool_input": {"to": "lead", "message": text},
         "tool_response": {"success": True, "msg_id": f"{me}-{i}"}}
    spool.record(io.BytesIO(json.dumps(p).encode()), where)
"""


def test_appenders_in_several_processes_never_tear_a_line(tmp_path: Path) -> None:
    where = tmp_path / "spool"
    env = {**os.environ, "PYTHONPATH": str(REPO / "sidecar")}
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(where), f"w{k}", "150"], env=env)
        for k in range(4)
    ]
    for p in procs:
        assert p.wait(timeout=300) == 0
    got = spool.read(str(where), {})
    assert got.skipped == 0
    ids = [d["p"]["tool_response"]["msg_id"] for _, _, d in got.records]
    assert sorted(ids) == sorted(f"w{k}-{i}" for k in range(4) for i in range(150))
    for _, _, d in got.records:  # each line whole: its words as written
        me, i, rest = d["p"]["tool_input"]["message"].split("-", 2)
        assert rest == "z" * (int(i) * 997 % 20000)
    assert len((where / spool.CURRENT).read_bytes().split(b"\n")[0]) < spool.MAX_HEADER
