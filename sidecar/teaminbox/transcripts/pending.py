"""A call waiting for its result at a transcript's end (a permission prompt, or a tool still
running), read from its tail."""

from __future__ import annotations

import os
from typing import Any

import attrs

from ..timestamps import epoch
from .files import open_regular
from .rows import _parse

# --- a call waiting for its result (a permission prompt, or a tool still running) ---------

PENDING_TAIL = 512 * 1024  # bytes of a transcript's end looked at for an unanswered call


@attrs.define
class PendingCall:
    """An assistant `tool_use` with no `tool_result` yet: agent text, shown as data."""

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    timestamp: float | None


def pending_calls(path: str, tail: int = PENDING_TAIL) -> list[PendingCall]:
    """The calls at the end of a transcript that have no result yet, oldest first.

    Only the last `tail` bytes are read: a call's result comes after it, so a call that is
    in them has its result in them too. Lines cut by the start of the window, and lines
    that do not parse, are skipped."""
    fd = open_regular(path)
    if fd is None:
        return []
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - tail)
        data = os.pread(fd, size - start, start)
    finally:
        os.close(fd)
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first is cut
    calls: dict[str, PendingCall] = {}
    for line in lines:
        if b"tool_" not in line:
            continue
        row = _parse(line)
        msg = row.get("message") if row is not None else None
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list) or row is None:
            continue
        for b in content:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use" and row.get("type") == "assistant":
                uid, name, inp = b.get("id"), b.get("name"), b.get("input")
                if isinstance(uid, str) and uid and isinstance(name, str):
                    calls[uid] = PendingCall(
                        uid, name, inp if isinstance(inp, dict) else {}, epoch(row.get("timestamp"))
                    )
            elif b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str):
                calls.pop(b["tool_use_id"], None)
    return list(calls.values())
