"""Read, seen and discard (policy in teaminbox.marking)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import marking
from ...protocol import DiscardParams, Marked, MarkParams
from ..feature import Feature

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer


class Marking(Feature):
    server: TeamInboxServer
    name = "marking"

    def register(self) -> None:
        self.request("teamInbox/markRead", self.mark_read)
        self.request("teamInbox/markSeen", self.mark_seen)
        self.request("teamInbox/discard", self.discard)

    async def mark_read(self, p: MarkParams) -> Marked:
        ls, tracker = self.server, self.tracker
        r, member = await ls.in_state(lambda: tracker.member(p.team, p.inbox))
        if not marking.writes_file(r, member):
            return await self.mark_seen(p)  # an agent's inbox: `read: true` would discard
        marked = await ls.in_pool(lambda: marking.set_read(r, member, p.ids, every=p.all))
        await ls.refresh({r.team.inbox_path(member.inbox)})
        return Marked(marked)

    async def discard(self, p: DiscardParams) -> Marked:
        ls, tracker = self.server, self.tracker
        r, member = await ls.in_state(lambda: tracker.member(p.team, p.inbox))
        marked = await ls.in_pool(
            lambda: marking.set_read(r, member, p.ids, every=p.all, discard=True)
        )
        await ls.refresh({r.team.inbox_path(member.inbox)})
        return Marked(marked)

    async def mark_seen(self, p: MarkParams) -> Marked:
        tracker = self.tracker

        def run() -> int:
            marking.check_ids(p.ids, p.all)
            r, member = tracker.member(p.team, p.inbox)
            present = tracker.ids(p.team, p.inbox)
            if p.all:
                chosen = present
            else:
                known = set(present) | tracker.history.all_ids(r.team.id, member.inbox)
                marking.unknown(p.ids, known, f"{r.team.id} {member.inbox}")
                chosen = p.ids
            return tracker.history.mark_seen(r.team.id, member.inbox, chosen)

        marked = await self.server.in_state(run)
        await self.server.apply(lambda t: (False, []))  # the unread count may have dropped
        return Marked(marked)
