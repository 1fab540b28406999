"""What a scan of an inbox's rows found (unread ids, read flags, the oldest unread), kept
per inbox: after a pure append only the new entries are scanned."""

from __future__ import annotations

import weakref
from collections.abc import Container

from ....rows import Prefix, Rows
from ....timestamps import epoch
from ....tracker import Tracker
from .views import RECENT

UNREAD_SCAN = 1000  # undelivered entries looked at in one inbox
Ref = weakref.ref[Rows]


class InboxScans:
    def __init__(self) -> None:
        # Per inbox, what a scan of its rows found, and which rows (replaced, never changed
        # in place, on every load; held weakly: not their bytes) as of which prefix.
        self._unread: dict[tuple[str, str], tuple[Ref, Prefix, list[str], frozenset[str]]] = {}
        self._flags: dict[tuple[str, str], tuple[Ref, Prefix, set[str], dict[str, int]]] = {}
        self._oldest: dict[tuple[str, str], tuple[Ref, int, float | None]] = {}

    def forget(self, inboxes: Container[tuple[str, str]]) -> None:
        """Drop what is kept for inboxes the tracker no longer holds."""
        for cache in (self._unread, self._flags, self._oldest):
            for key in [k for k in cache if k not in inboxes]:
                del cache[key]

    def undelivered(
        self, tracker: Tracker, tid: str, inbox: str, consumed: bool
    ) -> tuple[frozenset[str], float | None]:
        """Entries still unread in an inbox an agent consumes, and the oldest one's time."""
        state = tracker.inboxes.get((tid, inbox))
        if state is None or not consumed or not state.rows.unread:
            return frozenset(), None
        rows = state.rows
        first = rows.read.find(0)
        ids = self.first_unread((tid, inbox), rows)
        hit = self._oldest.get((tid, inbox))
        if hit is not None and hit[0]() is rows and hit[1] == first:
            return ids, hit[2]
        try:
            oldest = epoch(rows.message(state.fmt, first, tid, inbox).timestamp)
        except Exception:  # an entry that no longer parses: no age to tell
            oldest = None
        self._oldest[(tid, inbox)] = (weakref.ref(rows), first, oldest)
        return ids, oldest

    def first_unread(self, key: tuple[str, str], rows: Rows) -> frozenset[str]:
        """The first UNREAD_SCAN unread ids; kept per inbox, as its rows only grow
        (a pure append) the scan goes on from where it stopped, not from the start."""
        hit = self._unread.get(key)
        if hit is not None and hit[0]() is rows:
            return hit[3]
        ids: list[str] = []
        start = 0
        if hit is not None and rows.extends(hit[1]):
            ids, start = list(hit[2]), hit[1].count
        if len(ids) < UNREAD_SCAN:
            flags = memoryview(rows.read)[start:]
            for rid, read in zip(rows.iter_ids(start), flags, strict=True):
                if not read:
                    ids.append(rid)
                    if len(ids) >= UNREAD_SCAN:
                        break
        frozen = frozenset(ids)
        self._unread[key] = (weakref.ref(rows), rows.prefix(), ids, frozen)
        return frozen

    def read_flags(self, key: tuple[str, str], rows: Rows, wanted: set[str]) -> dict[str, int]:
        """The read flag of each `wanted` id the rows hold (the last, if one is there twice).

        Kept per inbox like first_unread: after a pure append only the new entries are
        scanned; an id newly wanted must turn up among them (a new message does), else
        it might be further up and the whole inbox is scanned again.
        """
        hit = self._flags.get(key)
        if hit is not None and len(hit[2]) <= 4 * RECENT:
            ref, prefix, checked, found = hit
            same = ref() is rows
            if same and wanted <= checked:
                return found
            if same or rows.extends(prefix):
                look = checked | wanted
                tail = flags_of(rows, look, prefix.count)
                if (wanted - checked) <= tail.keys():
                    found = {**found, **tail}
                    self._flags[key] = (weakref.ref(rows), rows.prefix(), look, found)
                    return found
        found = flags_of(rows, wanted, 0)
        self._flags[key] = (weakref.ref(rows), rows.prefix(), set(wanted), found)
        return found


def flags_of(rows: Rows, ids: set[str], start: int) -> dict[str, int]:
    """The read flags of those of `ids` at entry `start` and after (the last one wins)."""
    flags = memoryview(rows.read)[start:]
    return {rid: read for rid, read in zip(rows.iter_ids(start), flags, strict=True) if rid in ids}
