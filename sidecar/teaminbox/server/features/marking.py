"""Read, seen and discard (policy in teaminbox.marking)."""

from __future__ import annotations

from ... import marking
from ...protocol import DiscardParams, Marked, MarkParams
from ..core import TeamInboxServer


def setup(server: TeamInboxServer) -> None:
    @server.request("teamInbox/markRead")
    async def mark_read(ls: TeamInboxServer, p: MarkParams) -> Marked:
        tracker = ls.tracker
        assert tracker is not None
        r, member = await ls.in_state(lambda: tracker.member(p.team, p.inbox))
        if not marking.writes_file(r, member):
            return await _seen(ls, p)  # an agent's inbox: `read: true` would discard
        marked = await ls.in_pool(lambda: marking.set_read(r, member, p.ids, every=p.all))
        await ls.refresh({r.team.inbox_path(member.inbox)})
        return Marked(marked)

    @server.request("teamInbox/markSeen")
    async def mark_seen(ls: TeamInboxServer, p: MarkParams) -> Marked:
        return await _seen(ls, p)

    @server.request("teamInbox/discard")
    async def discard(ls: TeamInboxServer, p: DiscardParams) -> Marked:
        tracker = ls.tracker
        assert tracker is not None
        r, member = await ls.in_state(lambda: tracker.member(p.team, p.inbox))
        marked = await ls.in_pool(
            lambda: marking.set_read(r, member, p.ids, every=p.all, discard=True)
        )
        await ls.refresh({r.team.inbox_path(member.inbox)})
        return Marked(marked)


async def _seen(ls: TeamInboxServer, p: MarkParams) -> Marked:
    tracker = ls.tracker
    assert tracker is not None

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

    marked = await ls.in_state(run)
    await ls.apply(lambda t: (False, []))  # the unread count may have dropped
    return Marked(marked)
