"""A message dressed for the person (`dress`): what the sidecar says of it beyond its file."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from .discovery import Roster
from .model import Member, Message


def delivery_of(m: Message, member: Member | None) -> str | None:
    """In an inbox an agent consumes: still waiting in the file, or taken (pruned) by it."""
    if member is None or not member.consumed:
        return None
    if m.archived:
        return "delivered"
    return "read" if m.read else "waiting"


def dress(
    msgs: Iterable[Message],
    r: Roster | None,
    member: Member | None,
    seen: AbstractSet[str],
    me: str | None = None,
) -> None:
    """What the sidecar says of a message beyond its file, one rule for every path (a
    page, the conversation, an ended team, a pushed change): the sender by name; seen
    when the person saw it here (`seen`: the history's marks), wrote it, or, in the
    person's own inbox, when it is read; how far its delivery went. `me`: the person's name
    in the team (the roster's identity by default; an ended team's as last seen)."""
    owned = member is not None and member.owned
    me = me or (r.identity if r else None)
    for m in msgs:
        m.from_name = r.name_of(m.from_) if r else m.from_
        m.seen = m.id in seen or (owned and m.read) or (me is not None and m.from_ == me)
        m.delivery = delivery_of(m, member)
