"""Inbox files read, and written under the peer's own lock without ever losing a message.

A file that does not parse is never overwritten; a write whose lease ran out (this
process paused with the lock held, a peer broke it) is reconciled, so what the peer
wrote comes back.

The package, a file a job: `snapshot.py` (one parse of an inbox, read without a lock),
`write.py` (the locked read-modify-write: `update`, `append`, `rewrite`, `deliver`, and
the reconciling), `commit.py` (the swap under the lease checks), `merge.py` (the
three-way merge of entries), `tail.py` (what a peer appended, parsed alone), `temps.py`
(temp files a killed writer left), `repair.py` (`salvage`).
"""

from __future__ import annotations

from .repair import salvage
from .snapshot import Snapshot, messages, parse, read
from .tail import read_appended, tail_entries
from .write import append, deliver, rewrite, update

__all__ = [
    "Snapshot",
    "append",
    "deliver",
    "messages",
    "parse",
    "read",
    "read_appended",
    "rewrite",
    "salvage",
    "tail_entries",
    "update",
]
