"""Search has bounds and a thread of its own: a query past MAX_QUERY_CHARS or
MAX_QUERY_TERMS is refused with the limit named, and a search that takes long (held here
at a gate this test opens) leaves `teams` answered meanwhile: it reads on a pool thread
through the history's own read-only connection, never on the state thread."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from test_history import note

from support.world import Teams
from teaminbox.errors import InvalidParams
from teaminbox.history import (
    MAX_QUERY_CHARS,
    MAX_QUERY_PREFIXES,
    MAX_QUERY_TERMS,
    MIN_PREFIX_CHARS,
    History,
)
from teaminbox.model import Message
from teaminbox.server.core import TeamInboxServer
from teaminbox.server.features import FEATURES

ONE = "claude:alpha-1"  # note()'s id for the message each test archives first
WAIT = 30.0  # seconds: what is not answered by then waits behind the search


def test_a_query_past_its_bounds_is_refused_with_the_limit_named(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    h.record(
        "claude:alpha", "team-lead", [note("claude:alpha", 1, "the tests pass on every target")], []
    )
    with pytest.raises(InvalidParams) as long:
        h.search('"' + "tests pass " * 3000 + '"')
    assert long.value.message == (
        f"query must be at most {MAX_QUERY_CHARS:,} characters (it has 33,002)"
    )
    many = " ".join(["pass"] * (MAX_QUERY_TERMS + 1))
    assert len(many) <= MAX_QUERY_CHARS
    with pytest.raises(InvalidParams) as words:
        h.search(many)
    assert words.value.message == (
        f"query must be at most {MAX_QUERY_TERMS} words (it has {MAX_QUERY_TERMS + 1})"
    )
    with pytest.raises(InvalidParams) as prefixes:
        h.search(" OR ".join(["tar*"] * (MAX_QUERY_PREFIXES + 1)))
    assert prefixes.value.message == (
        f"query must have at most {MAX_QUERY_PREFIXES} prefix searches (word*)"
        f" (it has {MAX_QUERY_PREFIXES + 1})"
    )
    short = "t" * (MIN_PREFIX_CHARS - 1)
    for query in (f"{short}*", f'"tests {short}" *'):
        with pytest.raises(InvalidParams) as prefix:
            h.search(query)
        assert prefix.value.message == (
            f"query must have at least {MIN_PREFIX_CHARS} letters or digits before a *"
            f" (not {short}*)"
        )
    # at the bounds: searched
    assert [m.id for m in h.search(" ".join(["pass"] * MAX_QUERY_TERMS))] == [ONE]
    edge = "tests" + " " * (MAX_QUERY_CHARS - 5)
    assert [m.id for m in h.search(edge)] == [ONE]
    stem = "target"[: max(MIN_PREFIX_CHARS, 2)]
    assert [m.id for m in h.search(" OR ".join([f"{stem}*"] * MAX_QUERY_PREFIXES))] == [ONE]
    assert h.search("*") == []  # no prefix at all: searched as a phrase, which finds nothing


def test_a_search_reads_through_a_connection_of_its_own(tmp_path: Path) -> None:
    """What the state thread's connection committed is found from another thread; a history
    kept in memory (one that is not ours) searches through its one connection."""
    h = History(str(tmp_path / "h.db"))
    assert h.reads_apart
    h.record("claude:alpha", "team-lead", [note("claude:alpha", 1, "kiwi race")], [])
    found: list[Message] = []
    t = threading.Thread(target=lambda: found.extend(h.search("kiwi")))
    t.start()
    t.join(WAIT)
    assert [m.text for m in found] == ["kiwi race"]
    h.close()
    (tmp_path / "not-ours").write_text("a file of the person's")
    mem = History(str(tmp_path / "not-ours"))
    assert mem.refused and not mem.reads_apart
    mem.record("claude:alpha", "team-lead", [note("claude:alpha", 2, "kiwi in memory")], [])
    assert [m.text for m in mem.search("kiwi")] == ["kiwi in memory"]


async def test_teams_is_answered_while_a_search_is_held(teams: Teams, tmp_path: Path) -> None:
    server = TeamInboxServer()
    for feature in FEATURES:
        feature.setup(server)
    server.configure(
        {
            "defaultRoots": False,
            "roots": [f"claude={teams.claude_root}"],
            "historyPath": str(tmp_path / "h.db"),
        }
    )
    tracker = await server.ensure_ready()
    history = tracker.history
    real = history.search
    reached, gate = threading.Event(), threading.Event()

    def held(*args: Any, **kwargs: Any) -> list[Message]:
        reached.set()
        gate.wait(WAIT * 4)
        return real(*args, **kwargs)

    history.search = held  # type: ignore[method-assign]
    try:
        search = asyncio.ensure_future(
            server.handlers["teamInbox/search"]({"query": "bug", "team": "alpha"})
        )
        assert await asyncio.to_thread(reached.wait, WAIT), "the search never started"
        listed = await asyncio.wait_for(server.handlers["teamInbox/teams"]({}), WAIT)
        assert "claude:alpha" in [t["id"] for t in listed["teams"]]
        assert not search.done()  # still held at the gate
        gate.set()
        found = (await asyncio.wait_for(search, WAIT))["messages"]
        assert [m["text"] for m in found] == ["Found the bug in auth.ts"]
    finally:
        gate.set()
        await server.stop()
        server.shutdown()
