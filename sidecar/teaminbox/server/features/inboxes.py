"""Reading: the teams, an inbox's messages, where an inbox lives."""

from __future__ import annotations

from ...protocol import (
    InboxRef,
    MessagesParams,
    MessagesResult,
    PathResult,
    TeamsParams,
    TeamsResult,
)
from ..core import TeamInboxServer


def setup(server: TeamInboxServer) -> None:
    @server.request("teamInbox/teams")
    async def teams(ls: TeamInboxServer, p: TeamsParams) -> TeamsResult:
        await ls.rescan()
        tracker = ls.tracker
        assert tracker is not None
        return TeamsResult(await ls.in_state(tracker.team_list))

    @server.request("teamInbox/messages")
    async def messages(ls: TeamInboxServer, p: MessagesParams) -> MessagesResult:
        tracker = ls.tracker
        assert tracker is not None
        await ls.refresh({await ls.in_state(lambda: tracker.state(p.team, p.inbox).path)})

        def page() -> MessagesResult:
            msgs, total, unread = tracker.page(
                p.team,
                p.inbox,
                unread_only=p.unread_only,
                offset=p.offset,
                limit=p.limit,
                archived=p.include_archived,
            )
            return MessagesResult(msgs, total, unread)

        return await ls.in_state(page)

    @server.request("teamInbox/inboxPath")
    async def inbox_path(ls: TeamInboxServer, p: InboxRef) -> PathResult:
        tracker = ls.tracker
        assert tracker is not None
        return PathResult(await ls.in_state(lambda: tracker.state(p.team, p.inbox).path))
