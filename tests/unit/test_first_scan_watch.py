"""A team made while the server's first scan reads is seen at once: the roots are watched
before that scan, so the team's folder event asks for a rescan. Before, the watch began
after the first scan, and such a team waited for the periodic full scan (60 s): the
extension-host suites' first team timed out on a loaded CI machine."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from support.world import make_team
from teaminbox import tracker as tracker_module
from teaminbox.server.core import TeamInboxServer


async def test_a_team_made_during_the_first_scan_is_listed_without_the_periodic_scan(
    tmp_path: Path, monkeypatch: Any
) -> None:
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead"])
    real = tracker_module.find_teams
    first_listing: list[str] = []

    def listing_then_a_new_team(roots: Any) -> Any:
        found = real(roots)
        if not first_listing:  # the first scan's listing: a team appears right after it
            first_listing.extend(t.id for t in found)
            make_team(root, "beta", ["team-lead"])
        return found

    monkeypatch.setattr(tracker_module, "find_teams", listing_then_a_new_team)
    server = TeamInboxServer()
    server.configure(
        {
            "defaultRoots": False,
            "roots": [f"claude={root}"],
            "historyPath": str(tmp_path / "h.db"),
        }
    )
    try:
        tracker = await server.ensure_ready()
        # listed before beta was made (whether the event's rescan has run by now is the
        # machine's timing: on a loaded one it may already have)
        assert first_listing == ["claude:alpha"]
        # the periodic full scan is 60 s away: only the event can do it within 40 s
        deadline = asyncio.get_running_loop().time() + 40
        while "claude:beta" not in tracker.rosters:
            if asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(0.05)
        assert "claude:beta" in tracker.rosters
    finally:
        await server.stop()
