"""Who gets told what: didChange for every change, teamsChanged, the unread count, and
`replied` (the toast) for a teammate's answer.

`replied` fires once per message, never for a first look at an inbox, for:
- a message in the person's own inbox (not a frame, unless notify is "all");
- a teammate's text message to the lead (unless notifyLeadTraffic is off);
- a teammate's answer after the person wrote to it: the `result` of its next
  idle notification (Claude Code 2.1.3xx puts its last words there);
- the lead's answer from its session transcript: features/activity.py archives it and
  hands it over as a message added to the person's own inbox, so the first rule fires.
Bare idle pings, shutdown and task frames never fire.
"""

from __future__ import annotations

from typing import Any

from ...discovery import Roster
from ...model import Message
from ...protocol import DidChangeParams, RepliedParams, UnreadParams
from ...sending import PERSON
from ...tracker import Change, Tracker, delivery_of
from ..core import Outgoing, TeamInboxServer


def is_answer_frame(msg: Message) -> bool:
    s = msg.structured or {}
    return (
        msg.type == "idle_notification" and isinstance(s.get("result"), str) and bool(s["result"])
    )


class Policy:
    """State: the last unread count sent, and whom the person is waiting on."""

    def __init__(self, server: TeamInboxServer) -> None:
        self.server = server
        self.last_unread: dict[str, int] | None = None
        self.awaiting: set[tuple[str, str]] = set()  # (team, member name) the person wrote to

    def alert(self, r: Roster, change: Change, msg: Message) -> bool:
        opts = self.server.options
        sender = r.name_of(msg.from_)
        if sender == r.identity or msg.from_ in (r.identity, PERSON):  # the person wrote
            member = r.member(change.inbox)
            if member is not None and not member.owned:
                self.awaiting.add((r.team.id, member.name))
            return False
        if msg.read:
            return False
        if change.initial and not change.known_before:
            return False  # first sight of this inbox: a baseline, not news
        waited = (r.team.id, sender) in self.awaiting
        lead = next((m for m in r.members if m.lead), None)
        if change.inbox == r.own_inbox:
            plain = msg.structured is None or (waited and is_answer_frame(msg))
            hit = opts.notify == "all" or plain
        elif is_answer_frame(msg):
            hit = waited  # the answer to the person's message: once
        else:
            to_lead = lead is not None and change.inbox == lead.inbox and sender != lead.name
            hit = to_lead and msg.structured is None and (opts.notify_lead_traffic or waited)
        if hit and is_answer_frame(msg):
            self.awaiting.discard((r.team.id, sender))
        return hit

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        tracker = self.server.tracker
        assert tracker is not None
        out: Outgoing = []
        for c in changes:
            r = tracker.rosters.get(c.team)
            member = r.member(c.inbox) if r else None
            news = c.diff.added + c.diff.updated
            seen = tracker.history.seen_ids(c.team, c.inbox) if news and not c.initial else set()
            for msg in news if r else []:
                msg.from_name = r.name_of(msg.from_) if r else None
                msg.seen = msg.id in seen or bool(member and member.owned and msg.read)
                msg.delivery = delivery_of(msg, member)
            if not c.initial:
                out.append(
                    (
                        "teamInbox/didChange",
                        DidChangeParams(
                            c.team,
                            c.inbox,
                            c.diff.added,
                            c.diff.removed,
                            c.diff.updated,
                            c.total,
                            c.unread,
                        ),
                    )
                )
            if r is None:
                continue
            for msg in c.diff.added:
                if self.alert(r, c, msg):
                    out.append(("teamInbox/replied", RepliedParams(msg)))
        if teams_changed:
            out.append(("teamInbox/teamsChanged", {}))
        out += self.unread(tracker)
        return out

    def unread(self, tracker: Tracker) -> list[tuple[str, Any]]:
        by_team = tracker.unread()
        if by_team == self.last_unread:
            return []
        self.last_unread = by_team
        return [("teamInbox/unread", UnreadParams(sum(by_team.values()), by_team))]


def setup(server: TeamInboxServer) -> None:
    server.publishers.append(Policy(server).publish)
