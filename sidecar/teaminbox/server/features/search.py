"""Full-text search over the history."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol import MessagesOnly, SearchParams
from ..feature import Feature

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer


class Search(Feature):
    server: TeamInboxServer
    name = "search"

    def register(self) -> None:
        self.request("teamInbox/search", self.search)

    async def search(self, p: SearchParams) -> MessagesOnly:
        tracker = self.tracker

        def run() -> MessagesOnly:
            tid = tracker.find(p.team).id if p.team else None  # an ended team's too
            return MessagesOnly(tracker.history.search(p.query, tid, p.limit))

        return await self.server.in_state(run)
