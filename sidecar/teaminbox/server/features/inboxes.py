"""Reading: the teams, an inbox's messages, where an inbox lives."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
from ..feature import Feature

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer


class Inboxes(Feature):
    server: TeamInboxServer
    name = "inboxes"

    def register(self) -> None:
        self.request("teamInbox/teams", self.teams)
        self.request("teamInbox/messages", self.messages)
        self.request("teamInbox/conversation", self.conversation)
        self.request("teamInbox/forgetTeam", self.forget_team)
        self.request("teamInbox/inboxPath", self.inbox_path)

    async def teams(self, p: TeamsParams) -> TeamsResult:
        # The tracker's model as the hints and scans keep it (core.py): a rescan of every
        # team here had each answer wait behind a flood's whole backlog, and stat them all.
        tracker = self.tracker
        return TeamsResult(await self.server.in_state(lambda: tracker.team_list(p.include_ended)))

    async def messages(self, p: MessagesParams) -> MessagesResult:
        ls, tracker = self.server, self.tracker
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

    async def conversation(self, p: ConversationParams) -> MessagesOnly:
        tracker = self.tracker
        msgs = await self.server.in_state(lambda: tracker.conversation(p.team, p.offset, p.limit))
        return MessagesOnly(msgs)

    async def forget_team(self, p: ForgetParams) -> ForgetResult:
        ls, tracker = self.server, self.tracker
        res = await ls.in_state(lambda: tracker.forget(p.team, dry_run=p.dry_run, expect=p.expect))
        if not p.dry_run:
            ls.notify("teamInbox/teamsChanged", {})
        return res

    async def inbox_path(self, p: InboxRef) -> PathResult:
        tracker = self.tracker
        return PathResult(await self.server.in_state(lambda: tracker.state(p.team, p.inbox).path))
