"""Reading: the teams, an inbox's messages, where an inbox lives."""

from __future__ import annotations

from ...protocol import (
    ConversationParams,
    ForgetParams,
    ForgetResult,
    InboxRef,
    MessagesOnly,
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
        # The tracker's model as the hints and scans keep it (core.py): a rescan of every
        # team here had each answer wait behind a flood's whole backlog, and stat them all.
        tracker = ls.tracker
        assert tracker is not None
        return TeamsResult(await ls.in_state(lambda: tracker.team_list(p.include_ended)))

    @server.request("teamInbox/messages")
    async def messages(ls: TeamInboxServer, p: MessagesParams) -> MessagesResult:
        tracker = ls.tracker
        assert tracker is not None
        path = await ls.in_state(lambda: tracker.live_path(p.team, p.inbox))
        await ls.refresh({path} if path else set())

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

    @server.request("teamInbox/conversation")
    async def conversation(ls: TeamInboxServer, p: ConversationParams) -> MessagesOnly:
        tracker = ls.tracker
        assert tracker is not None
        msgs = await ls.in_state(lambda: tracker.conversation(p.team, p.offset, p.limit))
        return MessagesOnly(msgs)

    @server.request("teamInbox/forgetTeam")
    async def forget_team(ls: TeamInboxServer, p: ForgetParams) -> ForgetResult:
        tracker = ls.tracker
        assert tracker is not None
        res = await ls.in_state(lambda: tracker.forget(p.team, dry_run=p.dry_run, expect=p.expect))
        if not p.dry_run:
            ls.notify("teamInbox/teamsChanged", {})
        return res

    @server.request("teamInbox/inboxPath")
    async def inbox_path(ls: TeamInboxServer, p: InboxRef) -> PathResult:
        tracker = ls.tracker
        assert tracker is not None
        return PathResult(await ls.in_state(lambda: tracker.state(p.team, p.inbox).path))
