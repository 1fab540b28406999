"""The SendMessage calls a pass read, archived as the inbox entries they wrote (the state
thread). Claude Code prunes a delivered entry within a second: one the sidecar never read
in its file (stalled, slow, closed) is archived from the sender's transcript, under the
entry's own msg_id, `archived` and `recovered`; one the history holds (by msg_id) is left
as it is. An entry of the lead's inbox no call wrote (a frame Claude Code writes itself:
an idle notification, a shutdown or plan frame) shows only in the lead's transcript, as
the `<teammate-message>` it was handed (a frame of a teammate's inbox, a task assignment or
a shutdown request, in the teammate's): one the history holds no message of (same sender
and text, written between the lead's previous such turn and this one) is archived under an
id of its own (`tm-`), at the turn's time, `recovered`. Recovered messages reach the
publishers as added ones (views update); one written after the sidecar started toasts as a
live one would (notify_policy), the rest are old news."""

from __future__ import annotations

import re

from ....diff import InboxDiff
from ....discovery import Roster
from ....errors import InvalidName, UnknownInbox
from ....formats import find
from ....jsonio import short_hash
from ....model import Message
from ....timestamps import epoch, iso_ms
from ....tracker import Change, Tracker
from ....transcript_frames import Delivered, same_text
from ....transcript_sends import Sent
from .spec import Spec

BEFORE = 10.0  # seconds an entry may be written before the lead's previous turn ended
AFTER = 5.0  # seconds an entry's time may be after its turn's (clocks, rounding)
FIRST = 86400.0  # seconds back the first turn's entries are looked for
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


def recover_delivered(tracker: Tracker, spec: Spec, found: list[Delivered]) -> list[Change]:
    """Archive the entries the lead (or a teammate: `Delivered.to`) was handed that the
    history does not hold (one held message matches one entry); the changes for the
    publishers."""
    by_inbox: dict[str | None, list[Delivered]] = {}
    for d in found:
        by_inbox.setdefault(d.to, []).append(d)
    changes: list[Change] = []
    for to, part in by_inbox.items():
        changes += _recover_handed(tracker, spec, to or spec.lead or "team-lead", part)
    return changes


def _recover_handed(tracker: Tracker, spec: Spec, to: str, found: list[Delivered]) -> list[Change]:
    tid = spec.team
    r = tracker.rosters.get(tid)
    fmt = r.team.fmt if r is not None else find(tid.partition(":")[0])
    inbox = recipient(r, to)
    spans = []
    for d in found:
        t = epoch(d.timestamp)
        if t is not None:
            after = epoch(d.after) if d.after else None
            spans.append((d, (after - BEFORE) if after is not None else t - FIRST, t + AFTER))
    if fmt is None or inbox is None or not spans:
        return []
    held = tracker.history.held_between(
        tid, inbox, iso_ms(min(s[1] for s in spans)), iso_ms(max(s[2] for s in spans))
    )
    by_sender: dict[str, list[tuple[str, str | None, str, float]]] = {}
    for i, sender, summary, text, ts in held:
        by_sender.setdefault(sender, []).append((i, summary, text, epoch(ts) or 0.0))
    used: set[str] = set()
    msgs: list[Message] = []
    for d, lo, hi in spans:
        mid = "tm-" + short_hash(d.sender, d.text, d.uuid, str(d.index))
        like = [
            (summary == d.summary, t, i)
            for i, summary, text, t in by_sender.get(d.sender, ())
            if i not in used and same_text(d.text, text) and (i == mid or lo <= t <= hi)
        ]
        if like:
            used.add(max(like)[2])
            continue
        entry = {"from": d.sender, "text": d.text, "timestamp": d.timestamp}
        if d.summary is not None:
            entry["summary"] = d.summary
        if d.color is not None:
            entry["color"] = d.color
        if fmt.invalid(entry) is not None:
            continue
        msg = fmt.message(entry, 0, tid, inbox)
        msg.id = mid
        msg.archived = msg.recovered = True
        msg.from_name = r.name_of(d.sender) if r is not None else d.sender
        msgs.append(msg)
    return _archive(tracker, tid, {inbox: msgs} if msgs else {})


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
    return _archive(tracker, tid, by_inbox)


def _archive(tracker: Tracker, tid: str, by_inbox: dict[str, list[Message]]) -> list[Change]:
    changes: list[Change] = []
    for inbox, msgs in by_inbox.items():
        fresh = tracker.history.archive_missing(tid, inbox, msgs)
        state = tracker.inboxes.get((tid, inbox))
        if fresh and state is not None:  # an inbox no view lists: the conversation shows it
            changes.append(
                Change(tid, inbox, InboxDiff(added=fresh), len(state.rows), state.rows.unread)
            )
    return changes
