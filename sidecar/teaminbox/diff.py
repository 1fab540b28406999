"""What changed in an inbox between two looks: a pure value, no I/O (as watchdog's
DirectorySnapshotDiff is). The tracker feeds it a load a chunk at a time, so a
first look at a 100,000-entry inbox never holds every message at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import attrs

from .model import Message

UNKNOWN = -1  # a read flag the earlier look did not know (ids from the history)


@attrs.define
class InboxDiff:
    added: list[Message] = attrs.Factory(list)
    removed: list[str] = attrs.Factory(list)
    updated: list[Message] = attrs.Factory(list)  # read flag flipped

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.updated)


def compare(
    before: Mapping[str, int] | None, msgs: Iterable[Message]
) -> tuple[list[Message], list[Message]]:
    """(added, updated) among `msgs`; `before` None: an appended tail, all of it new."""
    if before is None:
        return list(msgs), []
    added, updated = [], []
    for m in msgs:
        prev = before.get(m.id)
        if prev is None:
            added.append(m)
        elif prev != UNKNOWN and prev != m.read:
            updated.append(m)
    return added, updated


def gone(before: Mapping[str, int], present: Iterable[str]) -> list[str]:
    """Ids known before and absent now (pruned, delivered, compacted)."""
    if not before:
        return []
    now = set(present)
    return [i for i in before if i not in now]
