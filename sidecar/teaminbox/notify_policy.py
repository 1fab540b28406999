"""Which new message is worth a toast (`teamInbox/replied`): a pure function of the options,
the roster, the change and the message, and of whom the person waits on. No I/O.

The levels (`notify`, the `teamInbox.notifications` setting), each including the one before:
- `off`: nothing.
- `replies`: what answers the person: a text message in the person's own inbox, and a
  teammate's answer after the person wrote to it (its text messages to the lead, and the
  `result` of its next idle notification, where Claude Code 2.1.3xx puts its last words;
  that answer ends the wait). The lead's answer read from its transcript arrives as a text
  message in the person's own inbox (features/activity/).
- `messages`: also every teammate's text message to the lead (`notify_lead_traffic`, on
  by default: off, only the answers above).
- `all`: also every protocol frame in the person's own inbox.
Never: what the person wrote (it starts a wait on the recipient instead), a message already
read, anything in the first look at an inbox (a baseline, not news), and frames elsewhere.
A message recovered from a transcript (its entry pruned before the file was read) is judged
like a live one when it was written after the sidecar started (`since`: a stall, a slow
pass); one written before is old news (a start's catching up, a team rebuilt at start).
"""

from __future__ import annotations

from collections.abc import Set
from typing import TYPE_CHECKING

import attrs

from .discovery import Roster
from .model import Message
from .protocol import InitializationOptions
from .sending import PERSON
from .timestamps import epoch

if TYPE_CHECKING:
    from .tracker import Change

Waiting = frozenset[tuple[str, str]]  # (team id, member name) the person wrote to


@attrs.frozen
class Decision:
    alert: bool  # send `teamInbox/replied` for this message
    waiting: Waiting  # whom the person waits on after it


def is_answer_frame(msg: Message) -> bool:
    """An idle notification carrying the teammate's last words (`result`)."""
    s = msg.structured or {}
    return (
        msg.type == "idle_notification" and isinstance(s.get("result"), str) and bool(s["result"])
    )


def _after(msg: Message, since: float | None) -> bool:
    written = epoch(msg.timestamp)
    return since is not None and written is not None and written >= since


def decide(
    opts: InitializationOptions,
    r: Roster,
    change: Change,
    msg: Message,
    waiting: Set[tuple[str, str]] = frozenset(),
    since: float | None = None,
) -> Decision:
    """Whether `msg`, added to `change.inbox` of team `r`, fires `replied`; `since`: when
    the sidecar started (None: every recovered message is old news)."""
    now = frozenset(waiting)
    sender = r.name_of(msg.from_)
    if sender == r.identity or msg.from_ in (r.identity, PERSON):  # the person wrote
        member = r.member(change.inbox)
        if member is not None and not member.owned:
            now |= {(r.team.id, member.name)}
        return Decision(False, now)
    if opts.notify == "off" or msg.read or (msg.recovered and not _after(msg, since)):
        return Decision(False, now)
    if change.initial and not change.known_before:
        return Decision(False, now)
    waited = (r.team.id, sender) in now
    answer = waited and is_answer_frame(msg)
    text = msg.structured is None
    lead = next((m for m in r.members if m.lead), None)
    if change.inbox == r.own_inbox:
        hit = text or answer or opts.notify == "all"
    elif lead is not None and change.inbox == lead.inbox and sender != lead.name:
        lead_traffic = opts.notify in ("messages", "all") and opts.notify_lead_traffic
        hit = answer or (text and (waited or lead_traffic))
    else:
        hit = answer  # elsewhere (no lead in the config) only the answer to the person
    return Decision(hit, now - {(r.team.id, sender)} if answer else now)
