"""Read and seen: who may write `read: true` into which inbox.

An agent's runner consumes its own inbox: Claude Code prunes what it delivers
and discards whatever it finds `read: true`; PseudoClaude's runners read only
unread entries. Writing `read: true` there takes the message away undelivered,
so the person's "read" on such an inbox is the seen state (history only), and
writing the file is the separate, explicit `discard`. Only the person's own
inbox, in a format with a read flag, gets a real mark-read.
"""

from __future__ import annotations

from .discovery import Roster
from .errors import InvalidParams, NotOwned, UnknownMessage
from .locks import DEFAULT_TIMEOUT
from .model import Member
from .store import Snapshot, rewrite


def writes_file(r: Roster, member: Member) -> bool:
    """Does marking this inbox read write the file (else: the seen state)?"""
    return member.owned and not member.consumed and r.team.fmt.has_read_flag


def check_ids(ids: list[str], every: bool) -> None:
    if every and ids:
        raise InvalidParams("give message ids or --all, not both")
    if not every and not ids:
        raise InvalidParams("give message ids, or --all for every unread message")


def unknown(ids: list[str], known: set[str], where: str) -> None:
    missing = [i for i in ids if i not in known]
    if missing:
        raise UnknownMessage(
            f"{where} has no message {', '.join(missing)}"
            " (ids change only if the entry itself changed; list them again with `read --json`)"
        )


def set_read(
    r: Roster,
    member: Member,
    ids: list[str],
    *,
    every: bool = False,
    discard: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> int:
    """Write `read: true` on ids (or every unread entry). Returns how many changed.

    Without `discard`, only an inbox that `writes_file` allows; with it, also an
    agent's inbox, whose runner then drops those entries undelivered.
    """
    check_ids(ids, every)
    fmt = r.team.fmt
    if not fmt.has_read_flag:
        raise InvalidParams(f"{r.team.format} inboxes have no read flag: only the seen state")
    if not discard and not writes_file(r, member):
        raise NotOwned(
            f"{member.inbox} is read by {member.name}'s runner: marking it read there"
            " discards the messages undelivered; use the seen state, or discard explicitly"
        )
    wanted = set(ids)

    def change(snap: Snapshot) -> int | None:
        bad = {p.index for p in snap.problems}
        present: set[str] = set()
        n = 0
        for i, entry in enumerate(snap.entries):
            if i in bad:
                continue
            entry_id = fmt.entry_id(entry, i)
            present.add(entry_id)
            if entry.get("read") is True:
                continue
            if every or entry_id in wanted:
                entry["read"] = True
                n += 1
        unknown(ids, present, f"{r.team.id} {member.inbox}")
        return n or None

    return rewrite(fmt, r.team.inbox_path(member.inbox), change, timeout=timeout) or 0
