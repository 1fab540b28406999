"""Sending and broadcasting, with the roster the tracker already holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import sending
from ...protocol import SendParams, SendResults
from ..feature import Feature

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer


class Sending(Feature):
    server: TeamInboxServer
    name = "sending"

    def register(self) -> None:
        self.request("teamInbox/send", self.send)

    async def send(self, p: SendParams) -> SendResults:
        ls, tracker = self.server, self.tracker
        r = await ls.in_state(lambda: tracker.roster(p.team))
        results = await ls.in_pool(  # may wait on a peer's lock: never on the state thread
            lambda: sending.send(
                r,
                p.to,
                p.text,
                summary=p.summary,
                type=p.type,
                color=p.color,
                payload=p.payload,
                plain=p.plain,
            )
        )
        await ls.refresh({r.team.inbox_path(res.inbox) for res in results if res.ok and res.inbox})
        return SendResults(results)
