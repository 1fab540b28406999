"""The sidecar writes Claude inboxes byte for byte as JSON.stringify(v, null, 2) does."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from support.node import NODE_DIR, node_exe
from teaminbox.formats.claude import CLAUDE

text_st = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30
) | st.sampled_from(
    ["".join(chr(i) for i in range(32)) + '\x7f\u2028\u2029"\\/', "😀🎉 emoji\nline", "é ü 中文"]
)
json_st = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text_st,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(text_st, c, max_size=4),
    max_leaves=15,
)
entry_st = st.fixed_dictionaries(
    {"from": text_st, "text": text_st, "timestamp": st.just("2026-02-09T17:12:32.316Z")},
    optional={"read": st.booleans(), "extra": json_st, "summary": text_st},
)


def node_stringify(node: str, values: list[Any]) -> list[bytes]:
    proc = subprocess.run(
        [node, str(NODE_DIR / "stringify.js")],
        input=json.dumps(values).encode(),
        capture_output=True,
        check=True,
        timeout=60,
    )
    return [s.encode("utf-8") for s in json.loads(proc.stdout)]


def test_serialize_matches_json_stringify() -> None:
    node = node_exe()
    docs: list[Any] = []

    @settings(max_examples=300, database=None)
    @given(st.lists(entry_st, max_size=4) | json_st)
    def collect(doc: Any) -> None:
        docs.append(doc)

    collect()
    docs += [[], {}, [[]], [{}], {"a": []}, [None, True, False, 0, -1, 2**53]]
    expected = node_stringify(node, docs)
    mismatches = [
        (d, CLAUDE.serialize(d), e)
        for d, e in zip(docs, expected, strict=True)
        if CLAUDE.serialize(d) != e
    ]
    assert not mismatches, mismatches[:3]


def test_append_bytes_matches_json_stringify() -> None:
    node = node_exe()
    cases: list[tuple[list[Any], list[Any]]] = []

    @settings(max_examples=150, database=None)
    @given(st.lists(entry_st, max_size=4), st.lists(entry_st, min_size=1, max_size=3))
    def collect(doc: list[Any], new: list[Any]) -> None:
        cases.append((doc, new))

    collect()
    old = node_stringify(node, [doc for doc, _ in cases])
    full = node_stringify(node, [doc + new for doc, new in cases])
    for (doc, new), before, after in zip(cases, old, full, strict=True):
        assert CLAUDE.append_bytes(before, new) == after, (doc, new)


def test_numbers_and_index_keys_match_json_stringify() -> None:
    """Floats a Python tool may have written, and keys JavaScript lists first."""
    docs: list[Any] = [
        [{"from": "a", "text": "b", "timestamp": "t", "n": [1.0, -0.0, 2.5, 1e20, 0.1, 1e16]}],
        [{"b": 1, "15": 2, "a": 3, "01": 4, "0": 5, "4294967294": 6, "4294967295": 7}],
        {"messages": [{"2": {"1": [], "x": {"10": 1, "9": 2}}}], "1": None},
    ]
    expected = node_stringify(node_exe(), docs)
    assert [CLAUDE.serialize(d) for d in docs] == expected
