"""The SendMessage calls a pass read, archived as the inbox entries they wrote (the state
thread). Claude Code prunes a delivered entry within a second: one the sidecar never read
in its file (stalled, slow, closed) is archived from the sender's transcript, under the
entry's own msg_id, `archived` and `recovered`; one the history holds (by msg_id) is left
as it is. Recovered messages reach the publishers as added ones (views update); one written
after the sidecar started toasts as a live one would (notify_policy), the rest are old news."""

from __future__ import annotations

import re

from ....diff import InboxDiff
from ....discovery import Roster
from ....errors import InvalidName, UnknownInbox
from ....formats import find
from ....model import Message
from ....tracker import Change, Tracker
from ....transcript_sends import Sent
from .spec import Spec

_NAME = re.compile(r"[A-Za-z0-9_-]{1,128}")  # a member name as Claude Code writes it


def recipient(r: Roster | None, to: str) -> str | None:
    """The inbox a send to `to` wrote: a member of the roster (by name, inbox or agent id),
    else (a member that left, an ended team) the name itself when Claude Code could have
    written it. Never `*`: Claude Code 2.1.197 and 2.1.332 refuse a broadcast (no entry, no
    msg_id: "send a message per recipient")."""
    if r is not None:
        try:
            return r.resolve_inbox(to).inbox
        except (UnknownInbox, InvalidName):
            pass
    return to if _NAME.fullmatch(to) else None


def recover(tracker: Tracker, spec: Spec, sends: list[Sent]) -> list[Change]:
    """Archive what the history does not hold of `sends`; the changes for the publishers
    (a live team's listed inboxes only)."""
    tid = spec.team
    r = tracker.rosters.get(tid)
    fmt = r.team.fmt if r is not None else find(tid.partition(":")[0])
    if fmt is None:
        return []
    lead = spec.lead or "team-lead"
    by_inbox: dict[str, list[Message]] = {}
    for s in sorted(sends, key=lambda s: s.timestamp):
        sender = s.sender or lead
        entry = s.entry(sender)
        if fmt.invalid(entry) is not None:
            continue
        inbox = recipient(r, s.to)
        if inbox is None:
            continue
        msg = fmt.message(entry, 0, tid, inbox)
        if msg.id != s.msg_id:  # the format would not know it by that id: no match
            continue
        msg.archived = msg.recovered = True
        msg.from_name = r.name_of(sender) if r is not None else sender
        by_inbox.setdefault(inbox, []).append(msg)
    changes: list[Change] = []
    for inbox, msgs in by_inbox.items():
        fresh = tracker.history.archive_missing(tid, inbox, msgs)
        state = tracker.inboxes.get((tid, inbox))
        if fresh and state is not None:  # an inbox no view lists: the conversation shows it
            changes.append(
                Change(tid, inbox, InboxDiff(added=fresh), len(state.rows), state.rows.unread)
            )
    return changes
