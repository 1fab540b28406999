"""Who gets told what: didChange for every change, teamsChanged, the unread count, and
`replied` (the toast) for what notify_policy.decide says is worth one (the levels are
described there), once per message (a recovered one the file then shows included), never
for a first look at an inbox.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

from ...dress import dress
from ...notify_policy import Waiting, decide
from ...protocol import DidChangeParams, RepliedParams, UnreadParams
from ...tracker import Change, Tracker
from ..feature import Feature, Outgoing

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer

TOASTED = 4096  # messages toasted remembered (one both recovered and read from its file)


class Notify(Feature):
    """State: the last unread count sent, and whom the person is waiting on."""

    server: TeamInboxServer

    name = "notify"

    def __init__(self, server: TeamInboxServer) -> None:
        super().__init__(server)
        self.last_unread: dict[str, int] | None = None
        self.waiting: Waiting = frozenset()  # (team, member name) the person wrote to
        self.since = time.time()  # a recovered message written before is old news
        self.toasted: OrderedDict[tuple[str, str, str], None] = OrderedDict()

    def publish(self, teams_changed: bool, changes: list[Change]) -> Outgoing:
        tracker = self.tracker
        out: Outgoing = []
        for c in changes:
            r = tracker.rosters.get(c.team)
            member = r.member(c.inbox) if r else None
            news = c.diff.added + c.diff.updated
            seen = tracker.history.seen_ids(c.team, c.inbox) if news and not c.initial else set()
            if r is not None:
                dress(news, r, member, seen)
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
                verdict = decide(self.server.options, r, c, msg, self.waiting, self.since)
                self.waiting = verdict.waiting
                if verdict.alert and self._first(c.team, c.inbox, msg.id):
                    out.append(("teamInbox/replied", RepliedParams(msg)))
        if teams_changed:
            out.append(("teamInbox/teamsChanged", {}))
        out += self.unread(tracker)
        return out

    def _first(self, team: str, inbox: str, msg_id: str) -> bool:
        """Not toasted before in this process (a message recovered, then read from its file
        after all, is one message)."""
        key = (team, inbox, msg_id)
        if key in self.toasted:
            return False
        self.toasted[key] = None
        while len(self.toasted) > TOASTED:
            self.toasted.popitem(last=False)
        return True

    def unread(self, tracker: Tracker) -> list[tuple[str, Any]]:
        by_team = tracker.unread()
        if by_team == self.last_unread:
            return []
        self.last_unread = by_team
        return [("teamInbox/unread", UnreadParams(sum(by_team.values()), by_team))]
