"""Helpers shared by the unit, interop and end-to-end suites (and the benchmarks: support.entries
imports nothing of teaminbox, so a benchmark of an old build can use it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teaminbox.discovery import Roster, Settings
    from teaminbox.model import Member


def roster_of(settings: Settings, team: str) -> Roster:
    from teaminbox.discovery import resolve_team, roster

    return roster(resolve_team(settings.roots, team), settings)


def member_of(settings: Settings, team: str, inbox: str) -> tuple[Roster, Member]:
    r = roster_of(settings, team)
    return r, r.resolve_inbox(inbox)
