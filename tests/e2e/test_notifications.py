"""Notifications from the real server: external writers (this project's and Claude Code's
proper-lockfile writer in Node), replied rules, prunes, new teams/inboxes, restarts."""

from __future__ import annotations

import json
from pathlib import Path

import lsp_session
from lsp_session import (
    call,
    claude_inbox,
    entry,
    make_home,
    node_append,
    node_prune,
    options,
    py_append,
    rec,
    start,
    start_server,
    stop_server,
    write_json,
)
from pytest_lsp import LanguageClient

from support import cli

QUIET = 1.0  # seconds to wait for a notification that must NOT come


def is_change(inbox: str, text: str):  # type: ignore[no-untyped-def]
    return lambda p: p["inbox"] == inbox and any(m["text"] == text for m in p["added"])


def idle(sender: str) -> str:
    return json.dumps(
        {
            "type": "idle_notification",
            "from": sender,
            "timestamp": "2026-11-29T11:00:00.000Z",
            "idleReason": "available",
        }
    )


async def test_node_writer_reply_fires_did_change_and_replied(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    user = claude_inbox(tmp_path, "alpha", "user")
    mark = r.mark()
    node_append(user, [entry("researcher", "node says hi", "2026-11-29T11:00:00.000Z")])
    change = await r.wait("teamInbox/didChange", is_change("user", "node says hi"), since=mark)
    assert change["team"] == "claude:alpha"
    assert (change["total"], change["unread"]) == (2, 2)
    assert change["removed"] == [] and change["updated"] == []
    replied = await r.wait(
        "teamInbox/replied", lambda p: p["message"]["text"] == "node says hi", since=mark
    )
    assert replied["message"]["from"] == "researcher" and replied["message"]["inbox"] == "user"
    unread = await r.wait(
        "teamInbox/unread", lambda p: p["byTeam"].get("claude:alpha") == 2, since=mark
    )
    assert unread["total"] >= 2
    await r.quiet(QUIET)
    assert len(r.since("teamInbox/replied", mark)) == 1  # once per message


async def test_python_writers_fire_did_change(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    mark = r.mark()
    # The CLI, as the person: into researcher's inbox (not the person's: no replied).
    roots = cli.scratch_roots(tmp_path)
    cli.run(*roots, "send", "alpha", "researcher", "from the cli", home=tmp_path, check=True)
    await r.wait("teamInbox/didChange", is_change("researcher", "from the cli"), since=mark)
    # store.append in another process, as a teammate, into user.json.
    py_append(
        claude_inbox(tmp_path, "alpha", "user"),
        [entry("researcher", "py says hi", "2026-11-29T11:00:00.000Z")],
    )
    await r.wait("teamInbox/didChange", is_change("user", "py says hi"), since=mark)
    await r.wait("teamInbox/replied", lambda p: p["message"]["text"] == "py says hi", since=mark)
    # PseudoClaude: a write into the lead's Box replies to the person (the lead).
    py_append(
        tmp_path / ".PseudoClaude" / "teams" / "beta" / "inboxes" / "lead-beta.json",
        [
            {
                "from": "coder",
                "to": "lead-beta",
                "type": "text",
                "content": "pc done",
                "timestamp": "2026-11-29T11:00:00.000000000Z",
                "read": False,
            }
        ],
        fmt="pseudoclaude",
    )
    await r.wait("teamInbox/replied", lambda p: p["message"]["text"] == "pc done", since=mark)
    await r.quiet(QUIET)
    texts = [p["message"]["text"] for p in r.since("teamInbox/replied", mark)]
    assert sorted(texts) == ["pc done", "py says hi"]


async def test_no_replied_for_frames_or_own_messages(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    user = claude_inbox(tmp_path, "alpha", "user")
    mark = r.mark()
    node_append(user, [entry("researcher", idle("researcher"), "2026-11-29T11:00:00.000Z")])
    change = await r.wait(
        "teamInbox/didChange",
        lambda p: (
            p["inbox"] == "user" and any(m["type"] == "idle_notification" for m in p["added"])
        ),
        since=mark,
    )
    (frame,) = change["added"]
    assert frame["structured"]["idleReason"] == "available"
    node_append(user, [entry("user", "a note to self", "2026-11-29T11:00:01.000Z")])
    await r.wait("teamInbox/didChange", is_change("user", "a note to self"), since=mark)
    await call(client, "teamInbox/send", {"team": "alpha", "to": "researcher", "text": "sent"})
    await r.wait("teamInbox/didChange", is_change("researcher", "sent"), since=mark)
    await r.quiet(QUIET)
    assert r.since("teamInbox/replied", mark) == []
    # Control: a plain reply right after still fires (the silence above is not a dead server).
    node_append(user, [entry("researcher", "real reply", "2026-11-29T11:00:02.000Z")])
    await r.wait("teamInbox/replied", lambda p: p["message"]["text"] == "real reply", since=mark)


async def test_notify_all_includes_frames(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path, notify="all"))
    r = rec(client)
    mark = r.mark()
    node_append(
        claude_inbox(tmp_path, "alpha", "user"),
        [entry("researcher", idle("researcher"), "2026-11-29T11:00:00.000Z")],
    )
    replied = await r.wait("teamInbox/replied", since=mark)
    assert replied["message"]["type"] == "idle_notification"


async def test_claude_prune_keeps_message_archived(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    user = claude_inbox(tmp_path, "alpha", "user")
    mark = r.mark()
    node_append(user, [entry("researcher", "zebra crossing report", "2026-11-29T11:00:00.000Z")])
    change = await r.wait(
        "teamInbox/didChange", is_change("user", "zebra crossing report"), since=mark
    )
    (added,) = change["added"]
    mark = r.mark()
    assert node_prune(user, ["zebra crossing report"])["removed"] == 1
    change = await r.wait(
        "teamInbox/didChange", lambda p: p["inbox"] == "user" and p["removed"], since=mark
    )
    assert change["removed"] == [added["id"]] and change["total"] == 1
    page = await call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
    assert [m["text"] for m in page["messages"]] == ["old news"]
    page = await call(
        client, "teamInbox/messages", {"team": "alpha", "inbox": "user", "includeArchived": True}
    )
    assert [(m["text"], m["archived"]) for m in page["messages"]] == [
        ("zebra crossing report", True),
        ("old news", False),
    ]
    found = (await call(client, "teamInbox/search", {"query": "zebra"}))["messages"]
    assert [(m["id"], m["archived"]) for m in found] == [(added["id"], True)]
    # Pruning everything (the file becomes []) also archives, and nothing is lost.
    node_prune(user)
    await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "user" and p["total"] == 0)
    page = await call(
        client, "teamInbox/messages", {"team": "alpha", "inbox": "user", "includeArchived": True}
    )
    assert sorted(m["text"] for m in page["messages"]) == ["old news", "zebra crossing report"]
    assert all(m["archived"] for m in page["messages"])


async def test_teams_changed_for_new_team_and_inbox(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    mark = r.mark()
    team = tmp_path / ".claude" / "teams" / "delta"
    write_json(
        team / "config.json",
        {
            "name": "delta",
            "leadAgentId": "team-lead@delta",
            "members": [{"agentId": "team-lead@delta", "name": "team-lead"}],
        },
    )
    await r.wait("teamInbox/teamsChanged", since=mark)
    teams = (await call(client, "teamInbox/teams", {}))["teams"]
    assert "claude:delta" in [t["id"] for t in teams]
    # A new inbox (nobody in config.json: a leaver's leftover in Claude) in an existing team.
    mark = r.mark()
    node_append(
        team / "inboxes" / "stranger.json", [entry("user", "hello?", "2026-11-29T11:00:00.000Z")]
    )
    await r.wait("teamInbox/teamsChanged", since=mark)
    teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    stranger = next(m for m in teams["claude:delta"]["members"] if m["inbox"] == "stranger")
    assert (stranger["left"], stranger["total"]) == (True, 1)
    # A new member's first inbox (configured, file appears): teamsChanged not required,
    # but its messages must be served.
    node_append(
        team / "inboxes" / "team-lead.json",
        [entry("user", "lead mail", "2026-11-29T11:00:01.000Z")],
    )
    page = await call(client, "teamInbox/messages", {"team": "delta", "inbox": "team-lead"})
    assert [m["text"] for m in page["messages"]] == ["lead mail"]


async def test_restart_no_duplicate_replied_but_catches_up(tmp_path: Path) -> None:
    make_home(tmp_path)
    user = claude_inbox(tmp_path, "alpha", "user")
    first = await start_server(tmp_path)
    try:
        r = rec(first)
        await call(first, "teamInbox/teams", {})
        mark = r.mark()
        node_append(user, [entry("researcher", "before restart", "2026-11-29T11:00:00.000Z")])
        await r.wait(
            "teamInbox/replied", lambda p: p["message"]["text"] == "before restart", since=mark
        )
    finally:
        await stop_server(first)
    # Arrives while no server runs.
    node_append(user, [entry("researcher", "while down", "2026-11-29T11:00:01.000Z")])
    second = await start_server(tmp_path)
    try:
        r = rec(second)
        await call(second, "teamInbox/teams", {})
        await r.wait("teamInbox/replied", lambda p: p["message"]["text"] == "while down")
        await r.quiet(QUIET)
        texts = [p["message"]["text"] for p in r.since("teamInbox/replied")]
        assert texts == ["while down"]  # not "before restart", not "old news"
        # And the restarted server still watches.
        mark = r.mark()
        node_append(user, [entry("researcher", "after restart", "2026-11-29T11:00:02.000Z")])
        await r.wait(
            "teamInbox/replied", lambda p: p["message"]["text"] == "after restart", since=mark
        )
    finally:
        await stop_server(second)
    # A third start with nothing new: silence.
    third = await start_server(tmp_path)
    try:
        await call(third, "teamInbox/teams", {})
        await rec(third).quiet(QUIET)
        assert rec(third).since("teamInbox/replied") == []
    finally:
        await stop_server(third)


async def test_first_start_is_a_baseline(client: LanguageClient, tmp_path: Path) -> None:
    """A fresh history: what is already in the inboxes is not news (no replied flood)."""
    make_home(tmp_path)
    await start(client, options(tmp_path))
    await call(client, "teamInbox/teams", {})
    await rec(client).quiet(QUIET)
    assert rec(client).since("teamInbox/replied") == []


def home_with_lead_inbox(home: Path) -> None:
    make_home(home)
    write_json(claude_inbox(home, "alpha", "team-lead"), [])  # known before: not a first look


async def lead_and_own_traffic(client: LanguageClient, home: Path) -> list[str]:
    """A teammate writes to the lead, then to the person; the texts that fired `replied`."""
    r = rec(client)
    mark = r.mark()
    lead = claude_inbox(home, "alpha", "team-lead")
    node_append(lead, [entry("researcher", "to the lead", "2026-11-29T11:00:00.000Z")])
    await r.wait("teamInbox/didChange", is_change("team-lead", "to the lead"), since=mark)
    user = claude_inbox(home, "alpha", "user")
    node_append(user, [entry("researcher", "to the person", "2026-11-29T11:00:01.000Z")])
    await r.wait("teamInbox/didChange", is_change("user", "to the person"), since=mark)
    await r.quiet(QUIET)
    return sorted(p["message"]["text"] for p in r.since("teamInbox/replied", mark))


async def test_replies_leave_a_teammates_unprompted_text_to_the_lead_silent(
    client: LanguageClient, tmp_path: Path
) -> None:
    """`replies` (the default): what answers the person, not the team's own talk."""
    home_with_lead_inbox(tmp_path)
    await start(client, options(tmp_path))
    assert await lead_and_own_traffic(client, tmp_path) == ["to the person"]


async def test_messages_add_a_teammates_text_to_the_lead(
    client: LanguageClient, tmp_path: Path
) -> None:
    home_with_lead_inbox(tmp_path)
    await start(client, options(tmp_path, notify="messages"))
    assert await lead_and_own_traffic(client, tmp_path) == ["to the lead", "to the person"]


async def test_off_sends_no_replied(client: LanguageClient, tmp_path: Path) -> None:
    home_with_lead_inbox(tmp_path)
    await start(client, options(tmp_path, notify="off"))
    assert await lead_and_own_traffic(client, tmp_path) == []
