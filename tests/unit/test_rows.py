"""The tracker's compact per-inbox rows: ids kept joined, spans into the file's bytes."""

from __future__ import annotations

import json

from support.entries import claude_entry
from teaminbox.formats.claude import CLAUDE
from teaminbox.rows import CHUNK, Rows, load_rows


def stringify(entries: list[dict[str, object]]) -> bytes:
    return json.dumps(entries, indent=2).encode()


def entry(i: int, read: bool = False) -> dict[str, object]:
    return claude_entry(text=f"m{i}", read=read, msg_id=f"id-{i}")


def test_ids_survive_seals_and_top_ups() -> None:
    rows = Rows()
    for i in range(CHUNK + 5):
        rows.add(f"id-{i}", False, i, (0, 0), {})
        if i % 7 == 0:
            rows.seal()
    rows.seal()
    assert rows.ids == [f"id-{i}" for i in range(CHUNK + 5)]
    assert len(rows) == CHUNK + 5


def test_load_rows_keeps_spans_and_reads_entries_back() -> None:
    data = stringify([entry(0), entry(1, read=True), {"no": "from"}, entry(3)])
    fed: list[str] = []
    rows = load_rows(
        CLAUDE,
        "user.json",
        data,
        "claude:a",
        "user",
        lambda msgs, tail: fed.extend(m.id for m in msgs),
    )
    assert rows.dicts is None  # kept as spans of the bytes, not parsed objects
    assert rows.ids == fed == ["id-0", "id-1", "id-3"]
    assert (len(rows), rows.unread) == (3, 2)
    assert rows.raw(2)["text"] == "m3" and rows.index[2] == 3


def test_a_pure_append_parses_only_the_tail() -> None:
    old = stringify([entry(0), entry(1)])
    rows = load_rows(CLAUDE, "user.json", old, "claude:a", "user", lambda m, t: None)
    seen: list[tuple[list[str], bool]] = []
    new = stringify([entry(0), entry(1), entry(2)])
    grown = load_rows(
        CLAUDE,
        "user.json",
        new,
        "claude:a",
        "user",
        lambda msgs, tail: seen.append(([m.id for m in msgs], tail)),
        rows,
    )
    assert [ids for ids, tail in seen if tail and ids] == [["id-2"]]
    assert grown.ids == ["id-0", "id-1", "id-2"] and grown.raw(2)["text"] == "m2"
    assert rows.ids == ["id-0", "id-1"]  # the old rows are untouched


def test_a_rewrite_is_parsed_whole() -> None:
    old = stringify([entry(0), entry(1)])
    rows = load_rows(CLAUDE, "user.json", old, "claude:a", "user", lambda m, t: None)
    tails: list[bool] = []
    pruned = stringify([entry(1), entry(2)])
    again = load_rows(
        CLAUDE, "user.json", pruned, "claude:a", "user", lambda msgs, tail: tails.append(tail), rows
    )
    assert again.ids == ["id-1", "id-2"] and not any(tails)


def test_a_msg_id_with_nul_falls_back_to_the_hash_id() -> None:
    e = {**entry(0), "msg_id": "a\x00b"}
    assert CLAUDE.entry_id(e, 0).startswith("c-")


def test_ids_from_an_entry_on() -> None:
    rows = Rows()
    for i in range(2 * CHUNK + 7):
        rows.add(f"id-{i}", False, i, (0, 0), {})
        if i in (5, CHUNK - 1, CHUNK + 3, 2 * CHUNK):
            rows.seal()
    rows.add("pending", True, 2 * CHUNK + 7, (0, 0), {})  # not sealed yet
    every = rows.ids
    for start in (0, 1, 5, 6, CHUNK - 1, CHUNK, CHUNK + 4, 2 * CHUNK + 7, 2 * CHUNK + 8, 10**6):
        assert list(rows.iter_ids(start)) == every[start:]


def test_extends_only_a_pure_prefix() -> None:
    def load(entries: list[dict[str, object]], prev: Rows | None = None) -> Rows:
        return load_rows(
            CLAUDE, "user.json", stringify(entries), "claude:a", "user", lambda m, t: None, prev
        )

    rows = load([entry(i) for i in range(CHUNK + 2)])
    grown = load([entry(i) for i in range(CHUNK + 5)], rows)
    assert grown.extends(rows.prefix()) and rows.extends(rows.prefix())
    assert not rows.extends(grown.prefix()) and grown.extends(Rows().prefix())
    # The same ids, one read flag changed; one id changed; one entry fewer in the middle.
    flagged = [entry(i, read=i == 3) for i in range(CHUNK + 5)]
    renamed = [entry(i) if i != CHUNK + 1 else entry(10**6) for i in range(CHUNK + 5)]
    dropped = [entry(i) for i in range(CHUNK + 5) if i != 7]
    for changed in (flagged, renamed, dropped):
        assert not load(changed).extends(rows.prefix())
    fresh = load([entry(i) for i in range(CHUNK + 5)])
    assert fresh.ids == grown.ids and fresh.extends(rows.prefix())  # chunked alike: the same prefix
