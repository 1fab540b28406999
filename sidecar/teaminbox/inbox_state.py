"""One watched inbox as the tracker holds it: its rows, its file's signature, its error,
and its unread-and-unseen count kept between steps (recounted only past an append)."""

from __future__ import annotations

import attrs

from .formats import InboxFormat
from .model import Problem
from .rows import Prefix, Rows


@attrs.define
class InboxState:
    team: str
    inbox: str
    path: str
    fmt: InboxFormat
    sig: tuple[int, ...] | None = None
    rows: Rows = attrs.Factory(Rows)
    error: Problem | None = None
    parsed: bool = False  # parsed once in this process: later diffs are against memory
    loading: bool = False  # a big first load runs elsewhere (Tracker.deferred)

    # (the rows counted, as a Prefix; the seen set they were counted against; the count)
    _unseen: tuple[Prefix, frozenset[str], int] | None = attrs.field(
        default=None, init=False, repr=False, eq=False
    )

    def unseen(self, seen: frozenset[str]) -> int:
        """Unread entries the person has not seen either. Counted whole only when the seen
        set or the rows changed other than by an append (every publisher step asks);
        otherwise from the last count, the appended entries added."""
        rows = self.rows
        memo = self._unseen
        if memo is not None and memo[1] is seen and rows.extends(memo[0]):
            start = memo[0].count
            n = memo[2]
            if len(rows) > start:
                n += _count_unseen(rows, seen, start)
        else:
            n = _count_unseen(rows, seen, 0)
        # `extends` compares the read flags and ids themselves: a rewrite, a flag changed
        # in place or a reload can never pass for the rows counted
        self._unseen = (rows.prefix(), seen, n)
        return n


def _count_unseen(rows: Rows, seen: frozenset[str], start: int) -> int:
    """Unread and unseen among rows[start:]."""
    unread = rows.read.count(0, start)
    if not seen or not unread:
        return unread
    return sum(
        1
        for i, r in zip(rows.iter_ids(start), rows.read[start:], strict=True)
        if not r and i not in seen
    )
