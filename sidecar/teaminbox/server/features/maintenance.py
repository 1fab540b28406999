"""Compact and doctor: file work in the pool, history work on the state thread."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ... import maintenance
from ...discovery import Roster
from ...model import Member, Message
from ...protocol import CompactParams, CompactResult, DoctorResult, Empty
from ..feature import Feature

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer


class StateArchive:
    """The history, reached from a pool thread by hopping to the state thread."""

    def __init__(self, ls: TeamInboxServer) -> None:
        self.ls = ls

    def record(
        self, team: str, inbox: str, added: Iterable[Message], removed: Iterable[str]
    ) -> None:
        history = self.ls.require_tracker().history
        added, removed = list(added), list(removed)
        self.ls.on_state(lambda: history.record(team, inbox, added, removed))

    def known_ids(self, team: str, inbox: str) -> set[str]:
        history = self.ls.require_tracker().history
        return self.ls.on_state(lambda: history.known_ids(team, inbox))


class Maintenance(Feature):
    server: TeamInboxServer
    name = "maintenance"

    def register(self) -> None:
        self.request("teamInbox/compact", self.compact)
        self.request("teamInbox/doctor", self.doctor)

    async def compact(self, p: CompactParams) -> CompactResult:
        ls, tracker = self.server, self.tracker

        def locate() -> tuple[Roster, Member]:
            r = tracker.roster(p.team)
            return r, r.resolve_inbox(p.inbox or r.own_inbox or "")

        r, member = await ls.in_state(locate)
        result = await ls.in_pool(lambda: maintenance.compact(r, member, StateArchive(ls)))
        await ls.rescan()
        return result

    async def doctor(self, p: Empty) -> DoctorResult:
        ls = self.server
        return DoctorResult(await ls.in_pool(lambda: maintenance.doctor(ls.settings)))
