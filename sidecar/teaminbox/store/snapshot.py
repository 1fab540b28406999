"""One parse of an inbox file, read without a lock (writers replace it atomically).

Reading follows an inbox that is a symlink, as the peers do; nothing here ever opens a
FIFO, socket or device: such a path is NotRegularFile (the format's `read`).
"""

from __future__ import annotations

from typing import Any

import attrs

from ..formats.base import EntryProblem, InboxFormat
from ..model import Message


@attrs.define
class Snapshot:
    """One parse of an inbox file (or of its absence)."""

    path: str
    data: bytes | None  # None: the file does not exist
    doc: Any
    entries: list[Any]
    problems: list[EntryProblem]


# ------------------------------------------------------------------ reading, never blocking


def parse(fmt: InboxFormat, path: str, data: bytes | None) -> Snapshot:
    if data is None:
        doc = fmt.empty()
        return Snapshot(path, None, doc, fmt.entries(doc), [])
    doc, entries = fmt.parse(data, path)
    problems = []
    for i, entry in enumerate(entries):
        reason = fmt.invalid(entry)
        if reason is not None:
            problems.append(EntryProblem(i, reason))
    return Snapshot(path, data, doc, entries, problems)


def read(fmt: InboxFormat, path: str) -> Snapshot:
    """Parse an inbox without locking (writers replace it atomically)."""
    return parse(fmt, path, fmt.read(path))


def messages(fmt: InboxFormat, snap: Snapshot, team: str, inbox: str) -> list[Message]:
    """The valid entries as normalized messages, oldest first."""
    bad = {p.index for p in snap.problems}
    return [
        fmt.message(entry, i, team, inbox) for i, entry in enumerate(snap.entries) if i not in bad
    ]
