"""Helpers shared by the unit, interop and end-to-end suites."""

from __future__ import annotations

from teaminbox.discovery import Roster, Settings, resolve_team, roster
from teaminbox.model import Member


def roster_of(settings: Settings, team: str) -> Roster:
    return roster(resolve_team(settings.roots, team), settings)


def member_of(settings: Settings, team: str, inbox: str) -> tuple[Roster, Member]:
    r = roster_of(settings, team)
    return r, r.resolve_inbox(inbox)
