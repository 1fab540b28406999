"""The three-way merge of entry lists by content (pure): how a write whose lease ran out
gets back what a peer's displaced write changed."""

from __future__ import annotations

from typing import Any

import orjson

from ..jsonio import dumps_indented


def fingerprint(entry: Any, with_read: bool) -> bytes:
    """An entry's content as bytes, keys sorted, `read` left out unless asked for."""
    if isinstance(entry, dict) and not with_read and "read" in entry:
        entry = {k: v for k, v in entry.items() if k != "read"}
    try:
        return orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # lone surrogates, deep nesting, huge ints
        return dumps_indented(entry)


def _keyed(entries: list[Any]) -> dict[tuple[bytes, int], Any]:
    """Entries by content (without `read`) and occurrence, in order."""
    seen: dict[bytes, int] = {}
    out = {}
    for e in entries:
        fp = fingerprint(e, with_read=False)
        n = seen[fp] = seen.get(fp, -1) + 1
        out[(fp, n)] = e
    return out


def merge_entries(base: list[Any], theirs: list[Any], ours: list[Any]) -> list[Any] | None:
    """Three-way merge of entry lists by content; None when `ours` already has it all.

    `theirs` replaced `base` by a peer's write that ours then overwrote. What
    they added comes back (after ours); what they removed (delivered and
    pruned) and we left alone stays removed; what they marked and we left
    alone takes their version.
    """
    kb, kt, ko = _keyed(base), _keyed(theirs), _keyed(ours)
    out: list[Any] = []
    changed = False
    for k, e in ko.items():
        if k in kb and fingerprint(e, True) == fingerprint(kb[k], True):
            if k not in kt:
                changed = True
                continue
            if fingerprint(kt[k], True) != fingerprint(kb[k], True):
                e = kt[k]
                changed = True
        out.append(e)
    for k, e in kt.items():
        if k not in kb and k not in ko:
            out.append(e)
            changed = True
    return out if changed else None
