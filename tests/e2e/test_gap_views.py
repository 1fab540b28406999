"""A gap the history holds is said where the inbox is read: the agent tools' `read_messages`
over the real MCP SDK, and `teaminbox read --archived`, as plain text in its place."""

from __future__ import annotations

import time

from test_mcp import call, served

from support.world import Teams
from teaminbox.gaps import gap_message, gap_text
from teaminbox.history import History

START = time.time() - 3600


def hold_a_gap(teams: Teams) -> str:
    history = History(str(teams.home / "h.db"))
    gap = gap_message("claude:alpha", "team-lead", "claude", START, START + 2)
    assert history.archive_missing("claude:alpha", "team-lead", [gap])
    history.close()
    return gap_text(START, START + 2)


async def test_read_messages_says_the_gap(teams: Teams) -> None:
    text = hold_a_gap(teams)
    async with served(teams, history=teams.home / "h.db") as s:
        got = await call(s, "read_messages", team="alpha")
    (gap,) = [m for m in got["messages"] if "gap" in m]
    assert gap["text"] == text and gap["from"] == "Team Inbox" and gap["inbox"] == "team-lead"
    assert gap["gap"]["from"] < gap["gap"]["to"] and "delivery" not in gap
    others = [m for m in got["messages"] if "gap" not in m]
    assert others and all(m["type"] != "gap" for m in others)


def test_cli_read_says_the_gap(teams: Teams) -> None:
    text = hold_a_gap(teams)
    out = teams.cli(
        "read", "alpha", "team-lead", "--archived", "--history", str(teams.home / "h.db")
    )
    assert out.returncode == 0, out.stderr
    assert f"  {text}\n" in out.stdout and "(gap)" in out.stdout
