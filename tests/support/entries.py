"""The one builder of inbox entries for the tests and the benchmarks.

`claude_entry` makes an entry as Claude Code writes one to an inbox file: `from`, `text`,
`timestamp`, then `read` when given, then whatever else the test adds (`summary`, `color`,
`msg_id`, `type`...), in that order. A suite that numbers its entries wraps it in one line
(`entry(i)`) rather than writing the dictionary again."""

from __future__ import annotations

from typing import Any

T0 = "2026-11-29T10:00:00.000Z"


def at(second: int, base: str = T0) -> str:
    """`second` seconds (under an hour) after the base's minute: 2026-11-29T10:00:07.000Z."""
    return f"{base[:14]}{second // 60 % 60:02d}:{second % 60:02d}.000Z"


def claude_entry(
    sender: str = "researcher",
    text: str = "hello",
    ts: str = T0,
    *,
    read: bool | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """An inbox entry; `read=None` leaves the field out (as an older Claude Code did)."""
    entry: dict[str, Any] = {"from": sender, "text": text, "timestamp": ts}
    if read is not None:
        entry["read"] = read
    entry.update(extra)
    return entry
