"""Full-text search over the history."""

from __future__ import annotations

from ...protocol import MessagesOnly, SearchParams
from ..core import TeamInboxServer


def setup(server: TeamInboxServer) -> None:
    @server.request("teamInbox/search")
    async def search(ls: TeamInboxServer, p: SearchParams) -> MessagesOnly:
        tracker = ls.tracker
        assert tracker is not None

        def run() -> MessagesOnly:
            tid = tracker.find(p.team).id if p.team else None  # an ended team's too
            return MessagesOnly(tracker.history.search(p.query, tid, p.limit))

        return await ls.in_state(run)
