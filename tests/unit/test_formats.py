"""Both inbox formats through the model: round trips, unknown keys, frames, stable ids."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from teaminbox import store
from teaminbox.formats import get
from teaminbox.formats.claude import CLAUDE, KNOWN_FRAMES
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.model import Draft

# ---------------------------------------------------------------- strategies

# Unicode text without lone surrogates (which JSON.stringify escapes but UTF-8 cannot carry).
text_st = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)),
    max_size=40,
) | st.sampled_from(['line1\nline2\r\n"quoted"', "emoji 😀🎉 \\ back", "\u2028\u2029\t\x00\x1f"])
key_st = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
scalar_st = st.none() | st.booleans() | st.integers(min_value=-(2**53), max_value=2**53) | text_st
json_st = st.recursive(
    scalar_st,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(key_st, children, max_size=4),
    max_leaves=12,
)
CLAUDE_KNOWN = ("from", "text", "timestamp", "read", "color", "summary", "type", "msg_id")
PSEUDO_KNOWN = ("from", "to", "type", "summary", "content", "payload", "timestamp", "read")


@st.composite
def claude_entry_st(draw: st.DrawFn) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "from": draw(text_st),
        "text": draw(text_st),
        "timestamp": draw(st.sampled_from(["2026-02-09T17:12:32.316Z", "2026-01-01T00:00:00Z"])),
    }
    if draw(st.booleans()):
        entry["read"] = draw(st.booleans())
    if draw(st.booleans()):
        entry["summary"] = draw(text_st)
    if draw(st.booleans()):  # newer writers
        entry["type"] = "message"
        entry["msg_id"] = draw(st.uuids()).hex
    extra = draw(
        st.dictionaries(key_st.filter(lambda k: k not in CLAUDE_KNOWN), json_st, max_size=3)
    )
    entry.update(extra)
    return entry


@st.composite
def pseudo_entry_st(draw: st.DrawFn) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "from": draw(text_st),
        "to": draw(text_st),
        "type": draw(st.sampled_from(["text", "shutdown_request", "plan_approval_response", "x"])),
        "summary": draw(text_st),
    }
    if draw(st.booleans()):
        entry["content"] = draw(text_st)
    if draw(st.booleans()):
        entry["payload"] = draw(st.dictionaries(key_st, json_st, min_size=1, max_size=3))
    entry["timestamp"] = "2026-11-29T10:00:00.123456789Z"
    entry["read"] = draw(st.booleans())
    extra = draw(
        st.dictionaries(key_st.filter(lambda k: k not in PSEUDO_KNOWN), json_st, max_size=3)
    )
    entry.update(extra)
    return entry


claude_doc_st = st.lists(claude_entry_st(), max_size=5)
pseudo_doc_st = st.builds(
    lambda msgs, extra: {"messages": msgs, **extra},
    st.lists(pseudo_entry_st(), max_size=5),
    st.dictionaries(key_st.filter(lambda k: k != "messages"), json_st, max_size=3),
)


def _js_object(value: Any) -> Any:
    """Objects as JavaScript holds them: array-index keys ("0", "15", < 2**32 - 1) first,
    ascending, then the others in insertion order (tests/interop checks this against node)."""
    if isinstance(value, dict):
        index = sorted(
            (k for k in value if re.fullmatch(r"0|[1-9][0-9]*", k) and int(k) < 2**32 - 1),
            key=int,
        )
        rest = [k for k in value if k not in index]
        return {k: _js_object(value[k]) for k in index + rest}
    if isinstance(value, list):
        return [_js_object(v) for v in value]
    return value


def js_stringify(value: Any) -> bytes:
    """What JSON.stringify(value, null, 2) writes, for the values generated here."""
    return json.dumps(_js_object(value), indent=2, ensure_ascii=False).encode()


HS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ---------------------------------------------------------------- round trips


@HS
@given(claude_doc_st)
def test_claude_parse_serialize_parse_is_identity(doc: list[dict[str, Any]]) -> None:
    data = js_stringify(doc)
    parsed, entries = CLAUDE.parse(data, "x.json")
    assert parsed == doc
    again, _ = CLAUDE.parse(CLAUDE.serialize(parsed), "x.json")
    assert again == doc
    # What the format writes is what JSON.stringify writes: no churn on rewrite.
    assert CLAUDE.serialize(parsed) == data
    for i, entry in enumerate(entries):
        assert CLAUDE.invalid(entry) is None
        msg = CLAUDE.message(entry, i, "claude:t", "inbox")
        assert msg.raw == doc[i]  # unknown keys survive into the model
        assert msg.text == doc[i]["text"] and msg.from_ == doc[i]["from"]
        assert msg.read is (doc[i].get("read") is True)


@HS
@given(pseudo_doc_st)
def test_pseudoclaude_parse_serialize_parse_is_identity(doc: dict[str, Any]) -> None:
    data = js_stringify(doc)
    parsed, entries = PSEUDOCLAUDE.parse(data, "x.json")
    assert parsed == doc
    assert PSEUDOCLAUDE.parse(PSEUDOCLAUDE.serialize(parsed), "x.json")[0] == doc
    assert PSEUDOCLAUDE.serialize(parsed) == data
    for i, entry in enumerate(entries):
        assert PSEUDOCLAUDE.invalid(entry) is None
        msg = PSEUDOCLAUDE.message(entry, i, "pseudoclaude:t", "inbox")
        assert msg.raw == doc["messages"][i]
        assert msg.text == entry.get("content", "")
        assert msg.payload == entry.get("payload")
        if entry["type"] != "text":
            assert msg.structured == {"type": entry["type"], "payload": entry.get("payload") or {}}
        else:
            assert msg.structured is None


@HS
@given(claude_doc_st, st.lists(claude_entry_st(), min_size=1, max_size=3))
def test_claude_append_bytes_equals_full_serialization(
    doc: list[dict[str, Any]], new: list[dict[str, Any]]
) -> None:
    data = CLAUDE.serialize(doc)
    spliced = CLAUDE.append_bytes(data, new)
    assert spliced == CLAUDE.serialize(doc + new)
    assert spliced == js_stringify(doc + new)


@HS
@given(claude_doc_st, st.lists(claude_entry_st(), min_size=1, max_size=2))
def test_store_append_keeps_earlier_entries_byte_identical_claude(
    tmp_path_factory: pytest.TempPathFactory, doc: list[dict[str, Any]], new: list[dict[str, Any]]
) -> None:
    path = tmp_path_factory.mktemp("c") / "inbox.json"
    before = js_stringify(doc)
    path.write_bytes(before)
    index = store.append(CLAUDE, str(path), new)
    after = path.read_bytes()
    assert index == len(doc)
    head = before[:-1].rstrip()  # everything before the closing bracket
    assert after[: len(head)] == head
    assert json.loads(after) == doc + new
    assert after == js_stringify(doc + new)
    assert not (path.parent / "inbox.json.lock").exists()
    assert sorted(p.name for p in path.parent.iterdir()) == ["inbox.json"]


@HS
@given(pseudo_doc_st, st.lists(pseudo_entry_st(), min_size=1, max_size=2))
def test_store_append_keeps_earlier_entries_pseudoclaude(
    tmp_path_factory: pytest.TempPathFactory, doc: dict[str, Any], new: list[dict[str, Any]]
) -> None:
    path = tmp_path_factory.mktemp("p") / "inbox.json"
    path.write_bytes(js_stringify(doc))
    index = store.append(PSEUDOCLAUDE, str(path), new)
    after = json.loads(path.read_bytes())
    assert index == len(doc["messages"])
    assert after == {**doc, "messages": doc["messages"] + new}  # top-level unknown keys kept
    # every earlier entry serializes to exactly the same bytes as before
    for old in doc["messages"]:
        assert js_stringify(old) in path.read_bytes().replace(b"\n    ", b"\n")
    assert sorted(p.name for p in path.parent.iterdir()) == ["inbox.json"]


def test_append_to_missing_file_and_to_empty_array(tmp_path: Path) -> None:
    entry = {"from": "user", "text": "hi", "timestamp": "t"}
    p = tmp_path / "a.json"
    assert store.append(CLAUDE, str(p), [entry]) == 0
    assert p.read_bytes() == js_stringify([entry])
    p.write_bytes(b"[]")
    store.append(CLAUDE, str(p), [entry, entry])
    assert p.read_bytes() == js_stringify([entry, entry])
    q = tmp_path / "b.json"
    store.append(PSEUDOCLAUDE, str(q), [{"from": "lead", "timestamp": "t"}])
    assert json.loads(q.read_bytes()) == {"messages": [{"from": "lead", "timestamp": "t"}]}
    # Go writes a nil slice as null
    q.write_bytes(b'{"messages": null, "v": 2}')
    store.append(PSEUDOCLAUDE, str(q), [{"from": "lead", "timestamp": "t"}])
    assert json.loads(q.read_bytes()) == {"messages": [{"from": "lead", "timestamp": "t"}], "v": 2}


# ---------------------------------------------------------------- frames

FRAME_SAMPLES: dict[str, dict[str, Any]] = {
    "idle_notification": {
        "from": "coder",
        "timestamp": "2026-02-09T17:25:43.886Z",
        "idleReason": "available",
        "summary": "done with auth",
        "completedTaskId": "3",
        "completedStatus": "resolved",
    },
    "shutdown_request": {
        "requestId": "shutdown-1770477661492@docs",
        "from": "team-lead",
        "reason": "done",
        "timestamp": "t",
    },
    "shutdown_approved": {
        "requestId": "r",
        "from": "coder",
        "timestamp": "t",
        "paneId": "%3",
        "backendType": "tmux",
    },
    "shutdown_rejected": {"requestId": "r", "from": "coder", "reason": "busy", "timestamp": "t"},
    "plan_approval_request": {
        "from": "coder",
        "timestamp": "t",
        "planFilePath": "/p.md",
        "planContent": "# plan\n1. x",
        "requestId": "plan-1",
    },
    "plan_approval_response": {
        "requestId": "plan-1",
        "approved": False,
        "feedback": "no",
        "timestamp": "t",
        "permissionMode": "default",
    },
    "task_assignment": {
        "taskId": "4",
        "subject": "s",
        "description": "d",
        "assignedBy": "lead",
        "timestamp": "t",
    },
    "task_completed": {"from": "coder", "taskId": "4", "taskSubject": "s", "timestamp": "t"},
    "teammate_terminated": {"message": "coder has shut down"},
    "permission_request": {
        "request_id": "pr-1",
        "agent_id": "coder@alpha",
        "tool_name": "Bash",
        "tool_use_id": "toolu_1",
        "description": "run tests",
        "input": {"command": "npm test"},
        "permission_suggestions": [{"type": "addRules"}],
    },
    "permission_response": {"request_id": "pr-1", "subtype": "success", "response": {"ok": 1}},
    "sandbox_permission_request": {"requestId": "s1", "host": "example.invalid"},
    "sandbox_permission_response": {"requestId": "s1", "allow": True},
    "mode_set_request": {"mode": "plan", "from": "team-lead"},
    "team_permission_update": {"rules": []},
}


def test_every_known_frame_type_has_a_sample() -> None:
    assert set(FRAME_SAMPLES) == set(KNOWN_FRAMES)


@pytest.mark.parametrize("kind", sorted(FRAME_SAMPLES))
def test_claude_structured_frames_decode(kind: str) -> None:
    frame = {"type": kind, **FRAME_SAMPLES[kind]}
    entry = {
        "from": "team-lead",
        "text": json.dumps(frame, separators=(",", ":")),
        "timestamp": "2026-02-09T17:25:43.886Z",
        "read": True,
    }
    data = js_stringify([entry])
    doc, entries = CLAUDE.parse(data, "x")
    msg = CLAUDE.message(entries[0], 0, "claude:t", "coder")
    assert msg.type == kind
    assert msg.structured == frame
    assert msg.read is True
    assert CLAUDE.serialize(doc) == data
    if kind == "idle_notification":
        assert msg.summary == "done with auth"  # taken from the frame when the entry has none


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"not_a_frame","x":1}',
        '{"type": "shutdown_request"',  # broken JSON
        "[1,2]",
        '"shutdown_request"',
        ' {"type":"shutdown_request"}',  # not starting with {
        "plain words",
    ],
)
def test_claude_other_text_is_plain(text: str) -> None:
    msg = CLAUDE.message({"from": "a", "text": text, "timestamp": "t"}, 0, "claude:t", "b")
    assert msg.structured is None
    assert msg.type == "message"
    assert msg.text == text


def test_pseudoclaude_type_with_payload() -> None:
    entry = {
        "from": "lead",
        "to": "x",
        "type": "shutdown_request",
        "summary": "",
        "payload": {"request_id": "r1", "reason": "done"},
        "timestamp": "t",
        "read": False,
    }
    msg = PSEUDOCLAUDE.message(entry, 3, "pseudoclaude:b", "x")
    assert msg.type == "shutdown_request"
    assert msg.structured == {"type": "shutdown_request", "payload": entry["payload"]}
    assert msg.payload == entry["payload"]
    assert msg.text == ""
    assert msg.summary is None


def test_claude_new_entry_frame_roundtrip() -> None:
    e = CLAUDE.new_entry(
        Draft(
            sender="user",
            recipient="coder",
            text="",
            type="shutdown_request",
            payload={"requestId": "r-1"},
        )
    )
    msg = CLAUDE.message(e, 0, "claude:t", "coder")
    assert msg.type == "shutdown_request"
    assert msg.structured is not None
    assert msg.structured["requestId"] == "r-1" and msg.structured["from"] == "user"
    assert e["type"] == "message" and e["read"] is False and len(e["msg_id"]) == 36


# ---------------------------------------------------------------- ids


def test_claude_id_is_msg_id_when_present() -> None:
    e = {"from": "a", "text": "b", "timestamp": "c", "msg_id": "abc-123"}
    assert CLAUDE.entry_id(e, 0) == "abc-123"
    assert CLAUDE.entry_id(e, 7) == "abc-123"


def test_claude_legacy_id_is_hash_of_from_timestamp_text() -> None:
    e = {"from": "a|x", "text": "hello\nworld 😀", "timestamp": "2026-01-01T00:00:00Z"}
    expected = hashlib.sha256("a|x|2026-01-01T00:00:00Z|hello\nworld 😀".encode()).hexdigest()
    assert CLAUDE.entry_id(e, 0) == "c-" + expected[:16]
    assert CLAUDE.entry_id(e, 5) == CLAUDE.entry_id(e, 0)  # not positional
    assert CLAUDE.entry_id({**e, "text": "other"}, 0) != CLAUDE.entry_id(e, 0)
    assert CLAUDE.entry_id({**e, "read": True, "color": "red"}, 0) == CLAUDE.entry_id(e, 0)
    assert CLAUDE.entry_id({**e, "msg_id": ""}, 0) == CLAUDE.entry_id(e, 0)


def test_pseudoclaude_id_is_index_plus_hash_without_read() -> None:
    e = {"from": "lead", "to": "x", "type": "text", "content": "c", "timestamp": "t", "read": False}
    i0 = PSEUDOCLAUDE.entry_id(e, 0)
    assert i0.startswith("p-0-") and len(i0) == len("p-0-") + 10
    assert PSEUDOCLAUDE.entry_id({**e, "read": True}, 0) == i0
    assert PSEUDOCLAUDE.entry_id(e, 1).startswith("p-1-")
    assert PSEUDOCLAUDE.entry_id(e, 1)[4:] == i0[4:]
    assert PSEUDOCLAUDE.entry_id({**e, "content": "d"}, 0) != i0
    # key order does not matter
    assert PSEUDOCLAUDE.entry_id(dict(reversed(list(e.items()))), 0) == i0


@pytest.mark.parametrize("fmt_name", ["claude", "pseudoclaude"])
def test_ids_unchanged_by_marking_read(tmp_path: Path, fmt_name: str) -> None:
    fmt = get(fmt_name)
    path = str(tmp_path / "i.json")
    entries = [
        fmt.new_entry(Draft(sender="s", recipient="r", text=f"m{i}", summary="x" if i else None))
        for i in range(3)
    ]
    entries.append({"from": "old", "text": "legacy", "timestamp": "t"})  # no msg_id
    store.append(fmt, path, entries)
    snap = store.read(fmt, path)
    before = [m.id for m in store.messages(fmt, snap, "t", "i")]

    def mark(s: store.Snapshot) -> int | None:
        for e in s.entries:
            e["read"] = True
        return 1

    store.rewrite(fmt, path, mark)
    snap = store.read(fmt, path)
    after = store.messages(fmt, snap, "t", "i")
    assert [m.id for m in after] == before
    assert all(m.read for m in after)
    assert len(set(before)) == 4
