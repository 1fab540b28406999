"""Full-text search over the history, off the state thread.

The query runs on a pool thread through the history's read-only connections
(`History.search`), so a long one never holds up `teams`, a hook's claim or the watch; a
few at a time, so the pool's file work (sends, big loads) goes on beside them. Only the
team's name is looked up on the state thread. The query's bounds are the history's
(`check_query`): every face (the extension, the language-model tools, `teaminbox mcp`)
asks through this request.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ...history import check_query
from ...protocol import MessagesOnly, SearchParams
from ..feature import Feature

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer

AT_ONCE = 2  # searches on pool threads at the same time; more wait their turn


class Search(Feature):
    server: TeamInboxServer
    name = "search"

    def __init__(self, server: TeamInboxServer) -> None:
        super().__init__(server)
        self._turns = asyncio.Semaphore(AT_ONCE)

    def register(self) -> None:
        self.request("teamInbox/search", self.search)

    async def search(self, p: SearchParams) -> MessagesOnly:
        check_query(p.query)  # refused before any wait
        tracker = self.tracker
        history = tracker.history
        tid = None
        if p.team:  # an ended team's too
            team = p.team
            tid = await self.server.in_state(lambda: tracker.find(team).id)

        def run() -> MessagesOnly:
            return MessagesOnly(history.search(p.query, tid, p.limit))

        if not history.reads_apart:  # kept in memory: its one connection is the state thread's
            return await self.server.in_state(run)
        async with self._turns:
            return await self.server.in_pool(run)
