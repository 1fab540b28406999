"""Hostile JSON: nesting past any recursion limit and lone surrogates, in inbox files and in
the history. Nothing may crash; what is written is what JSON.stringify writes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.hostile import GOOD, dump
from teaminbox import sending, store
from teaminbox.errors import CorruptInbox
from teaminbox.formats.claude import CLAUDE
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.history import History
from teaminbox.jsonio import dumps_indented, dumps_line, js_order, loads

STRINGIFY = (
    "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>"
    "process.stdout.write(JSON.stringify(JSON.parse(s),null,2)))"
)


COMPACT = (
    "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>"
    "process.stdout.write(JSON.stringify(JSON.parse(s))))"
)


def node(script: str, stdin: bytes = b"") -> bytes:
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node is not on PATH: these checks compare with Node's JSON.stringify")
    return subprocess.run(
        [exe, "-e", script], input=stdin, capture_output=True, check=True, timeout=60
    ).stdout


def nested(depth: int, leaf: str = "") -> bytes:
    return b"[" * depth + json.dumps(leaf).encode() + b"]" * depth


@pytest.mark.parametrize("depth", [1025, 5000, 200_000])
def test_too_deep_is_corrupt_not_recursion_error(depth: int) -> None:
    with pytest.raises(CorruptInbox) as info:
        loads(nested(depth), "/x.json")
    assert "nested deeper than 1024" in info.value.message
    assert "/x.json" in info.value.message and "\n" not in info.value.message


def test_too_deep_entry_in_inbox_is_corrupt(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    data = b"[" + json.dumps(GOOD).encode()[:-1] + b', "deep": ' + nested(1100) + b"}]"
    p.write_bytes(data)
    with pytest.raises(CorruptInbox):
        store.read(CLAUDE, str(p))
    with pytest.raises(CorruptInbox):
        store.append(CLAUDE, str(p), [GOOD])
    assert p.read_bytes() == data
    kept, dropped, backup = store.salvage(CLAUDE, str(p))  # no RecursionError either
    assert backup is not None and Path(backup).read_bytes() == data


def test_deep_but_allowed_with_lone_surrogate_parses() -> None:
    """The stdlib fallback (lone surrogates) recursed: 1,000 deep raised RecursionError."""
    value = loads(nested(1024, "\ud83d"), "/x.json")
    for _ in range(1024):
        value = value[0]
    assert value == "\ud83d"


@pytest.mark.parametrize("depth", [300, 1024, 20_000])
def test_serialize_any_depth(depth: int) -> None:
    value: Any = "\ud83d"
    opens, closes = [], []
    for i in range(depth):  # built inside out; the text is laid out outside in
        value = [value] if i % 2 else {"k": value}
    for i in range(depth):
        ind = "  " * i
        if (depth - 1 - i) % 2:
            opens.append("[\n" + ind + "  ")
            closes.append("\n" + ind + "]")
        else:
            opens.append("{\n" + ind + '  "k": ')
            closes.append("\n" + ind + "}")
    expected = "".join(opens) + '"\\ud83d"' + "".join(reversed(closes))
    assert dumps_indented(value) == expected.encode()
    assert js_order(value) is value  # nothing to change, at any depth


def test_one_line_is_json_stringify_at_any_depth() -> None:
    """A line-delimited message (MCP's stdio) with lone surrogates, nested past orjson's 255:
    one line, byte for byte what JSON.stringify writes."""
    value: Any = ["half \ud83d", "\udc00\ud83d", {"a": 1.5, "b": None, "c": [True, {}, []]}]
    for i in range(1000):
        value = [value, "x"] if i % 2 else {"k": value, "e": "\ud83d\ude00"}
    ours = dumps_line(value)
    assert b"\n" not in ours
    assert ours == node(COMPACT, ours)
    assert json.loads(dumps_line({"big": 2**70, "s": "\ud83d"})) == {"big": 2**70, "s": "\ud83d"}


def test_deep_layout_is_json_stringify() -> None:
    """Index-like keys first and integral floats, 1,000 deep (past the recursion limit)."""
    value: Any = "x"
    for i in range(1000):
        value = [value, float(i)] if i % 2 else {"b": value, "1": i, "0": 2.5}
    ours = dumps_indented(value)
    assert ours == node(STRINGIFY, ours)
    leaf = loads(ours, "/x.json")
    for i in reversed(range(1000)):
        if i % 2:
            assert len(leaf) == 2 and leaf[1] == i and type(leaf[1]) is int
            leaf = leaf[0]
        else:
            assert list(leaf) == ["0", "1", "b"]
            leaf = leaf["b"]
    assert leaf == "x"


SURROGATE_CASES = [
    "\ud83d",
    "\ude00",
    "a\ud83db",
    "\ude00\ud83d",
    "é\u2028\x7f\x01 \ud83d\ude00",  # a pair spelled as two code points is one character in JS
    "😀 emoji \ud800",
]


def test_lone_surrogates_written_as_json_stringify_does() -> None:
    doc = [{"from": "a", "text": s, "timestamp": "t", "é": s} for s in SURROGATE_CASES]
    doc.append({"from": "b", "text": "😀", "timestamp": "t", "n": [1.5, 0.000001, 1e-7, 2**64]})
    # Node reads the doc from ASCII JSON (escapes survive) and prints it with stringify.
    expected = node(STRINGIFY, json.dumps(doc).encode())
    assert b"\\ud83d" in expected and "é".encode() in expected
    assert dumps_indented(doc) == expected.replace(b"18446744073709552000", b"18446744073709551616")


def test_node_writes_lone_surrogate_as_lowercase_escape() -> None:
    out = node("process.stdout.write(JSON.stringify(['😀'.slice(0,1)]))")
    assert out == b'["\\ud83d"]'
    assert dumps_indented(["\ud83d"]) == b'[\n  "\\ud83d"\n]'


@pytest.mark.parametrize("fmt", [CLAUDE, PSEUDOCLAUDE])
def test_file_with_lone_surrogate_round_trips_on_append(tmp_path: Path, fmt: Any) -> None:
    p = tmp_path / "x.json"
    entry = {"from": "a", "text": "half \ud83d of an emoji, é and 中文", "timestamp": "t"}
    doc: Any = [entry] if fmt is CLAUDE else {"messages": [entry], "extra": "ü"}
    before = node(STRINGIFY, json.dumps(doc).encode())
    p.write_bytes(before)
    new = {"from": "b", "text": "second", "timestamp": "t2"}
    store.append(fmt, str(p), [new])
    after = p.read_bytes()
    if fmt is CLAUDE:
        assert after.startswith(before[:-2])
    else:
        head = before[: before.index(b"\n  ],")]
        assert after.startswith(head)
    full = json.loads(after)
    assert (full if fmt is CLAUDE else full["messages"])[-1] == new
    assert store.read(fmt, str(p)).entries[0]["text"] == entry["text"]
    sending.check_size(entry["text"], "\udfff")


def test_history_keeps_lone_surrogates_and_deep_entries(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    deep: Any = "leaf"
    for _ in range(600):
        deep = [deep]
    entry = {"from": "a", "text": "x \ud83d y", "timestamp": "t", "msg_id": "m1", "deep": deep}
    msg = CLAUDE.message(entry, 0, "claude:t", "user")
    h.record("claude:t", "user", [msg], [])
    h.record("claude:t", "user", [], ["m1"])
    [old] = h.archived("claude:t", "user")
    assert old.text == "x \ud83d y" and old.raw["deep"] == deep
    assert [m.id for m in h.search("y")] == ["m1"]


def test_history_ids_and_names_with_lone_surrogates(tmp_path: Path) -> None:
    """Undecodable file names and hostile msg_ids reach the archive as lone surrogates."""
    h = History(str(tmp_path / "h.db"))
    team, inbox = "claude:t\udcff", "us\udce9r"
    entry = {"from": "a\ud800", "text": "t", "timestamp": "t", "msg_id": "id\udcfe"}
    msg = CLAUDE.message(entry, 0, team, inbox)
    h.record(team, inbox, [msg], [])
    assert h.known_inbox(team, inbox) and h.known_ids(team, inbox) == {"id\udcfe"}
    assert h.mark_seen(team, inbox, ["id\udcfe"]) == 1
    assert h.seen_ids(team, inbox) == {"id\udcfe"}
    h.record(team, inbox, [], ["id\udcfe"])
    [old] = h.archived(team, inbox)
    assert old.from_ == "a\ud800" and old.id == "id\udcfe"


def test_history_keeps_an_entry_as_deep_as_an_inbox_may_be(tmp_path: Path) -> None:
    """An entry 1,022 deep is a 1,024-deep inbox; wrapped in the archive's record it is
    deeper than orjson reads: it must still come back."""
    h = History(str(tmp_path / "h.db"))
    deep: Any = "leaf"
    for _ in range(1021):
        deep = [deep]
    data = b"[" + json.dumps({**GOOD, "msg_id": "m1"}).encode()[:-1] + b', "deep": '
    data += b"[" * 1021 + b'"leaf"' + b"]" * 1021 + b"}]"
    [entry] = loads(data, "/x.json")  # as deep as an inbox may be
    h.record("claude:t", "user", [CLAUDE.message(entry, 0, "claude:t", "user")], ["m1"])
    [old] = h.archived("claude:t", "user")
    value = old.raw["deep"]
    for _ in range(1021):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == "leaf"


@pytest.mark.parametrize("kind", ["[]", "{}", '["idle_notification"]'])
def test_a_frame_type_that_is_no_string_is_words_not_a_dead_inbox(
    tmp_path: Path, kind: str
) -> None:
    """A text `{"type": []}` raised TypeError (an unhashable key) and hid the whole inbox."""
    p = tmp_path / "team-lead.json"
    odd = {**GOOD, "text": f'{{"type": {kind}}}'}
    p.write_bytes(dump([odd, GOOD]))
    msgs = store.messages(CLAUDE, store.read(CLAUDE, str(p)), "claude:t", "team-lead")
    assert [(m.text, m.type, m.structured) for m in msgs] == [
        (odd["text"], "message", None),
        ("hello", "message", None),
    ]
