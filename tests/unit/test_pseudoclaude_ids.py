"""A PseudoClaude message keeps its id when PseudoClaude itself rewrites the inbox.

PseudoClaude (Go) rewrites the whole inbox on every Write and MarkRead: it decodes the
file into its struct (`time.Time` timestamp, `map[string]any` payload) and encodes it
back with json.MarshalIndent. That changes the bytes of entries it did not touch:
trailing zeros leave timestamps, payload numbers go through float64, map keys get
sorted, <, >, & and U+2028/9 get escaped, lone surrogates become U+FFFD, empty fields
and unknown keys go. `go_rewrite` below is a pure-Python model of that round trip (the
interop test checks it byte for byte against the real Go program in tests/interop/go);
the property: ids before == ids after, for every entry.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.model import Draft

# --- the model of Go's decode + MarshalIndent ------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")
# time.Parse(time.RFC3339, ...): the strict fast path and the lenient fallback together
# (one-digit hours, a comma before the fraction, any number of fraction digits).
_GO_TIME = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)T(\d{1,2}):(\d\d):(\d\d)(?:[.,](\d+))?(Z|([+-])(\d\d):(\d\d))\Z"
)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def go_text(s: str) -> str:
    """A string after Go's decoder: a lone surrogate (\\ud800) becomes U+FFFD."""
    return _SURROGATE.sub("\ufffd", s)


def go_string(s: str) -> str:
    """Go's encodeState string with escapeHTML: <, >, & and U+2028/9 as \\u escapes."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif c < 0x20 or ch in "<>&":
            out.append(f"\\u00{c:02x}")
        elif ch in "\u2028\u2029":
            out.append(f"\\u{c:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def go_float(f: float) -> str:
    """encoding/json's float64: shortest digits, %f style unless < 1e-6 or >= 1e21."""
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    d = Decimal(repr(f)).normalize()
    if 1e-6 <= abs(f) < 1e21:
        return format(d, "f")
    sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    e = exp + len(digits) - 1
    mant = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
    return ("-" if sign else "") + mant + (f"e-{-e}" if e < 0 else f"e+{e:02d}")


def go_time(ts: str) -> str:
    """A time.Time decoded from `ts` and encoded again (RFC 3339, trailing zeros trimmed)."""
    m = _GO_TIME.match(ts)
    if m is None:
        raise ValueError(f"Go cannot parse {ts!r}: the whole inbox would fail to decode")
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    frac = (m.group(7) or "")[:9].rstrip("0")
    offset = 0 if m.group(8) == "Z" else int(m.group(10)) * 60 + int(m.group(11))
    offset = -offset if m.group(9) == "-" else offset
    datetime(y, mo, d, h, mi, s)  # Go rejects what datetime rejects (Feb 30, hour 24, ...)
    hh, mm = divmod(abs(offset), 60)
    zone = "Z" if offset == 0 else f"{'-' if offset < 0 else '+'}{hh:02d}:{mm:02d}"
    frac = "." + frac if frac else ""
    return f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}{frac}{zone}"


def go_value(v: Any) -> Any:
    """A JSON value decoded into `any`: every number a float64, strings repaired."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, (int, float)):
        return float(v)  # as strconv.ParseFloat of the written digits: correctly rounded
    if isinstance(v, str):
        return go_text(v)
    if isinstance(v, list):
        return [go_value(x) for x in v]
    assert isinstance(v, dict)
    return {go_text(k): go_value(x) for k, x in v.items()}


def go_encode(v: Any, indent: int) -> str:
    pad = "  " * (indent + 1)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, str):
        return go_string(v)
    if isinstance(v, list):
        if not v:
            return "[]"
        items = [pad + go_encode(x, indent + 1) for x in v]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    if not v:
        return "{}"
    # encoding/json sorts map keys (byte order of UTF-8 == code point order)
    items = [f"{pad}{go_string(k)}: {go_encode(v[k], indent + 1)}" for k in sorted(v)]
    return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"


def go_message(entry: dict[str, Any], read: bool) -> str:
    """One mailbox.Message: its fields in struct order, content and payload omitempty."""

    def text(key: str) -> str:
        value = entry.get(key)
        return go_text(value) if isinstance(value, str) else ""

    fields: list[tuple[str, Any]] = [
        ("from", text("from")),
        ("to", text("to")),
        ("type", text("type")),
        ("summary", text("summary")),
    ]
    if text("content"):
        fields.append(("content", text("content")))
    payload = entry.get("payload")
    if isinstance(payload, dict) and payload:
        fields.append(("payload", go_value(payload)))
    ts = entry.get("timestamp")
    fields.append(("timestamp", go_time(ts) if isinstance(ts, str) else "0001-01-01T00:00:00Z"))
    fields.append(("read", read))
    pad = "      "
    body = ",\n".join(f'{pad}"{k}": {go_encode(v, 3)}' for k, v in fields)
    return "    {\n" + body + "\n    }"


def go_rewrite(data: bytes, mark_read: tuple[int, ...] = ()) -> bytes:
    """The inbox after PseudoClaude's MarkRead(mark_read) (or any Write's rewrite of the
    entries it keeps): decoded into Box, flags set, MarshalIndent(box, "", "  ") + "\\n"."""
    doc = json.loads(data.decode("utf-8"))
    messages = doc.get("messages")
    if messages is None:  # missing or null: a nil slice
        return b'{\n  "messages": null\n}\n'
    if not messages:
        return b'{\n  "messages": []\n}\n'
    entries = [
        go_message(e, i in mark_read or e.get("read") is True) for i, e in enumerate(messages)
    ]
    return ('{\n  "messages": [\n' + ",\n".join(entries) + "\n  ]\n}\n").encode("utf-8")


# --- helpers ---------------------------------------------------------------------------


def ids(data: bytes) -> list[str]:
    _, entries = PSEUDOCLAUDE.parse(data, "inbox.json")
    assert all(PSEUDOCLAUDE.invalid(e) is None for e in entries)
    return [PSEUDOCLAUDE.entry_id(e, i) for i, e in enumerate(entries)]


def written(entries: list[dict[str, Any]]) -> bytes:
    """The inbox as teaminbox writes it."""
    return PSEUDOCLAUDE.serialize({"messages": entries})


def entry(**fields: Any) -> dict[str, Any]:
    e: dict[str, Any] = {"from": "lead", "to": "team-beta-coder-1", "type": "text"}
    e.update(summary="", timestamp="2026-11-29T10:00:03.874634170Z", read=False)
    e.update(fields)
    return e


# --- examples --------------------------------------------------------------------------


def test_the_model_reproduces_the_known_go_rewrites() -> None:
    data = written(
        [
            entry(
                content="a <b> & c\u2028",
                payload={"n": 12345678901234567890, "f": 1.0, "z": {"b": 1, "a": [2.50]}},
                color="blue",
            ),
            entry(timestamp="2026-11-29T10:00:00.000000000+00:00", content=""),
        ]
    )
    out = go_rewrite(data, (0,)).decode()
    assert '"timestamp": "2026-11-29T10:00:03.87463417Z"' in out
    assert '"n": 12345678901234567000' in out
    assert '"f": 1,' in out
    assert '"a": [\n' in out and out.index('"a"') < out.index('"b"')
    assert '"content": "a \\u003cb\\u003e \\u0026 c\\u2028"' in out
    assert "color" not in out
    assert '"timestamp": "2026-11-29T10:00:00Z"' in out  # and no content key at all
    assert out.count('"content"') == 1
    assert '"read": true' in out


def test_ids_survive_trailing_zeros_big_numbers_and_escapes() -> None:
    data = written(
        [
            entry(content="first", payload={"priority": "high"}),
            entry(
                timestamp="2026-11-29T10:00:04.100000000Z",
                content="résumé 😀 <ok> & \u2028 \ud800",
                payload={"n": 12345678901234567890, "x": 0.1, "neg": -0.0, "big": 1e21},
            ),
            entry(timestamp="2026-11-29T15:30:05.000000000+05:30", summary="s", msg_id="x"),
            entry(timestamp="2026-11-29T10:00:06Z", payload={}),
        ]
    )
    after = go_rewrite(data, (0,))
    assert after != data
    assert ids(after) == ids(data)
    # and teaminbox writing Go's file back changes nothing either
    assert ids(PSEUDOCLAUDE.serialize(PSEUDOCLAUDE.parse(after, "x")[0])) == ids(data)


def test_ids_tell_entries_apart() -> None:
    base = entry(content="one")
    variants = [
        entry(content="two"),
        entry(content="one", summary="other"),
        entry(content="one", to="team-beta-tester-2"),
        {**base, "from": "coder"},
        entry(content="one", type="shutdown_request"),
        entry(content="one", timestamp="2026-11-29T10:00:03.874634171Z"),
    ]
    first = ids(written([base]))[0]
    for v in variants:
        assert ids(written([v]))[0] != first, v
    # same entry, other index: another id
    assert ids(written([base, base]))[0] != ids(written([base, base]))[1]
    # what Go's rewrite cannot keep does not count: read, unknown keys, the offset
    # spelling of the same instant, trailing zeros
    for same in (
        {**base, "read": True},
        {**base, "color": "red"},
        entry(content="one", timestamp="2026-11-29T11:00:03.87463417+01:00"),
    ):
        assert ids(written([same]))[0] == first, same


def test_an_id_from_send_is_the_id_read_back() -> None:
    e = PSEUDOCLAUDE.new_entry(
        Draft(sender="lead", recipient="c", text="hi", payload={"n": 10**20})
    )
    assert PSEUDOCLAUDE.entry_id(e, 3) == ids(written([e, e, e, e]))[3]


# --- the property ----------------------------------------------------------------------

_SPECIAL = st.sampled_from(
    ["<", ">", "&", "\u2028", "\u2029", "\x00", "\x1f", "\b", "\f", "\n", '"', "\\", "é", "😀"]
)
_TEXT = st.text(st.one_of(st.characters(), _SPECIAL, st.sampled_from(["\ud800", "\udfff"])))
_KEY = st.text(st.one_of(st.characters(exclude_categories=("Cs",)), _SPECIAL), max_size=6)
_NUMBER = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([12345678901234567890, 2**64, -(2**63) - 1, 10**21, 10**22, 2**53 + 1]),
    st.floats(allow_nan=False, allow_infinity=False),
)
_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), _NUMBER, _TEXT),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEY, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def _timestamps(draw: st.DrawFn) -> str:
    secs = draw(st.integers(min_value=0, max_value=4_102_444_799))  # 1970..2099
    offset = draw(st.sampled_from([0, 0, 330, -480, 840, -720, 45]))
    local = _EPOCH + timedelta(seconds=secs, minutes=offset)
    hour = f"{local.hour:02d}"
    if local.hour < 10 and draw(st.booleans()):
        hour = str(local.hour)  # time.Parse's fallback takes one digit
    digits = draw(st.integers(min_value=0, max_value=12))
    frac = "".join(draw(st.sampled_from("0123456789")) for _ in range(digits))
    if draw(st.booleans()):
        frac = (frac + "000")[:digits] if digits else frac  # trailing zeros
    sep = draw(st.sampled_from([".", ".", ","]))
    if offset == 0:
        zone = draw(st.sampled_from(["Z", "Z", "+00:00", "-00:00"]))
    else:
        zone = f"{'+' if offset > 0 else '-'}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    return (
        local.strftime("%Y-%m-%dT")
        + f"{hour}:{local.minute:02d}:{local.second:02d}"
        + (sep + frac if frac else "")
        + zone
    )


_ENTRY = st.fixed_dictionaries(
    {"from": _TEXT, "timestamp": _timestamps()},
    optional={
        "to": _TEXT,
        "type": st.one_of(st.sampled_from(["text", "shutdown_request", ""]), _TEXT),
        "summary": _TEXT,
        "content": _TEXT,
        "payload": st.one_of(st.none(), st.dictionaries(_KEY, _JSON, max_size=4)),
        "read": st.booleans(),
        "color": _TEXT,
        "msg_id": _JSON,
    },
)


@settings(max_examples=300, deadline=None)
@given(
    entries=st.lists(_ENTRY, min_size=1, max_size=4),
    marked=st.sets(st.integers(min_value=0, max_value=4)),
)
def test_ids_survive_any_go_rewrite(entries: list[dict[str, Any]], marked: set[int]) -> None:
    data = written(entries)
    before = ids(data)
    after = go_rewrite(data, tuple(marked))
    assert ids(after) == before
    # Go rewriting its own output again changes nothing (the model is a fixed point) ...
    assert go_rewrite(after, tuple(marked)) == after
    # ... and neither does teaminbox writing it back
    assert ids(PSEUDOCLAUDE.serialize(PSEUDOCLAUDE.parse(after, "x")[0])) == before


# --- what a message says to PseudoClaude's agents, and what it is to us ------------------


def _new(kind: str, payload: dict[str, Any], text: str = "", **kw: Any) -> dict[str, Any]:
    return PSEUDOCLAUDE.new_entry(
        Draft(sender="lead", recipient="c", text=text, type=kind, payload=payload, **kw)
    )


def test_a_frame_without_text_says_itself_in_summary_and_content() -> None:
    cases = [
        ("plan_approval_response", {"approved": False, "feedback": "redo step 2"}),
        ("plan_approval_response", {"request_id": "p-1@beta", "approved": True}),
        ("plan_approval_response", {"feedback": "hm"}),
        ("shutdown_request", {"request_id": "shutdown-1@beta", "reason": " done \n"}),
        ("shutdown_request", {"request_id": "shutdown-1@beta"}),
        ("shutdown_response", {"request_id": "s", "approve": False, "reason": "testing"}),
        ("shutdown_response", {"request_id": "s", "approve": True}),
        ("task_assignment", {"task_id": "7", "subject": "Fix auth", "description": "JWT expiry"}),
        ("task_assignment", {"subject": "Fix auth"}),
        ("review", {"z": 1, "a": {"b": [True, None]}, "é": "ü"}),
    ]
    said = [(e["summary"], e["content"]) for e in (_new(k, p) for k, p in cases)]
    assert said == [
        ("Plan rejected", "Plan rejected: redo step 2"),
        ("Plan approved", "Plan approved"),
        ("Plan approval response", "Plan approval response: hm"),
        ("Shutdown requested", "Shutdown requested: done"),
        ("Shutdown requested", "Shutdown requested"),
        ("Shutdown rejected", "Shutdown rejected: testing"),
        ("Shutdown approved", "Shutdown approved"),
        ("Task #7 assigned", "Task #7 assigned: Fix auth\n\nJWT expiry"),
        ("Task assigned", "Task assigned: Fix auth"),
        ("review", 'review: {"a":{"b":[true,null]},"z":1,"é":"ü"}'),
    ]
    # the payload is still there, the type too
    e = _new("plan_approval_response", {"approved": False})
    assert e["type"] == "plan_approval_response" and e["payload"] == {"approved": False}


def test_words_given_are_kept() -> None:
    e = _new("plan_approval_response", {"approved": False}, text="Redo it all")
    assert (e["summary"], e["content"]) == ("", "Redo it all")
    e = _new("plan_approval_response", {"approved": False}, summary="see plan")
    assert (e["summary"], e["content"]) == ("see plan", "Plan rejected")
    e = _new("text", {"priority": "high"})  # not a frame: nothing to say
    assert e["summary"] == "" and "content" not in e
    e = _new("shutdown_request", {})  # no payload: nothing to say either
    assert "content" not in e


def _message(entry: dict[str, Any]) -> Any:
    return PSEUDOCLAUDE.message(entry, 0, "beta", "lead-beta")


def test_an_idle_notification_is_a_frame() -> None:
    payload = {"error": "", "member_name": "coder", "status": "completed", "task_id": "t-1"}
    idle = entry(summary="member idle: completed", content="All pass", payload=payload)
    m = _message(idle)
    assert m.type == "idle_notification" and m.payload == payload and m.text == "All pass"
    assert m.structured == {"type": "idle_notification", **payload}
    assert _message({**idle, "summary": "member idle"}).type == "idle_notification"
    assert _message({**idle, "type": ""}).type == "idle_notification"  # Go's default
    # not one: another type, another summary, a payload short of its four fields
    for other in (
        {**idle, "type": "shutdown_request"},
        {**idle, "summary": "member idle soon"},
        {**idle, "payload": {"member_name": "coder", "status": "completed"}},
        {**idle, "payload": None},
    ):
        assert _message(other).type != "idle_notification", other
    assert _message({**idle, "summary": "done"}).structured is None
