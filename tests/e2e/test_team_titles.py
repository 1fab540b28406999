"""What the real server calls each team (`title`): a chosen name stays the name; only a
Claude Code session's own team (`session-<hex>`) is called by its label. Also once ended."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path

from lsp_session import REPO, call, options, rec, start, write_json
from pytest_lsp import LanguageClient

sys.path.insert(0, str(REPO / "tests" / "interop"))
from seed_filebus import FileMessageBus  # noqa: E402

CREATED_MS = 1770765900000  # Tue 10 Feb 2026 23:25 UTC


def when(seconds: float) -> str:
    return time.strftime("%a %d %b %H:%M", time.localtime(seconds))


def claude_team(home: Path, name: str) -> Path:
    team = home / ".claude" / "teams" / name
    lead = {"agentId": f"team-lead@{name}", "name": "team-lead", "cwd": "/home/dev/app"}
    write_json(
        team / "config.json",
        {
            "name": name,
            "createdAt": CREATED_MS,
            "leadAgentId": f"team-lead@{name}",
            "leadSessionId": "1a2b3c4d-0000-4000-8000-000000000000",
            "members": [lead, {"agentId": f"helper@{name}", "name": "helper"}],
        },
    )
    write_json(team / "inboxes" / "team-lead.json", [])
    return team


async def test_chosen_names_stay_and_session_teams_show_their_label(
    client: LanguageClient, tmp_path: Path
) -> None:
    payments = claude_team(tmp_path, "payments-refactor")
    session = claude_team(tmp_path, "session-1a2b3c4d")
    write_json(
        tmp_path / ".PseudoClaude" / "teams" / "auth-rewrite" / "config.json",
        {
            "name": "auth-rewrite",
            "sanitized_name": "auth-rewrite",
            "project_root": "/home/dev/auth",
            "created_at": "2026-11-29T09:00:00Z",
            "lead_agent_id": "lead-auth-rewrite",
            "members": [{"name": "lead", "agent_id": "lead-auth-rewrite"}],
        },
    )
    folder = tmp_path / "work" / "proj"
    FileMessageBus(str(folder / ".team")).send_message("coder@proj", "user", "hi")
    init = options(tmp_path)
    init["roots"].append(f"filebus={folder}")
    await start(client, init)
    teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    got = {tid: (t["name"], t["title"], t["label"]) for tid, t in teams.items()}
    app = f"app · {when(CREATED_MS / 1000)}"
    assert got == {
        "claude:payments-refactor": ("payments-refactor", "payments-refactor", app),
        "claude:session-1a2b3c4d": ("session-1a2b3c4d", app, app),
        "pseudoclaude:auth-rewrite": (
            "auth-rewrite",
            "auth-rewrite",
            f"auth · {when(teams['pseudoclaude:auth-rewrite']['createdAt'])}",
        ),
        "filebus:proj": ("proj", "proj", None),
    }

    # both folders go (Claude Code deletes a session's team on exit): each keeps its title
    r = rec(client)
    mark = r.mark()
    shutil.rmtree(payments)
    shutil.rmtree(session)
    await r.wait("teamInbox/teamsChanged", since=mark)
    deadline = time.monotonic() + 60  # the two may end in two scans
    while True:
        teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
        ended = {k: (t["ended"], t["title"]) for k, t in teams.items() if k.startswith("claude:")}
        if all(e for e, _ in ended.values()) or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.2)
    assert ended == {
        "claude:payments-refactor": (True, "payments-refactor"),
        "claude:session-1a2b3c4d": (True, app),
    }


async def test_a_config_that_parses_only_later_retitles_the_team(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A copy (or Claude Code, which writes config.json in place) may leave it torn while
    every inbox is there: once it parses, the client learns the title from a teamsChanged,
    though no inbox came or went."""
    team = claude_team(tmp_path, "session-1a2b3c4d")
    write_json(team / "inboxes" / "helper.json", [])
    config = (team / "config.json").read_bytes()
    (team / "config.json").write_bytes(config[: len(config) // 2])
    await start(client, options(tmp_path))
    [t] = (await call(client, "teamInbox/teams", {}))["teams"]
    assert (t["title"], t["label"]) == ("session-1a2b3c4d", None)
    r = rec(client)
    mark = r.mark()
    (team / "config.json.tmp").write_bytes(config)
    (team / "config.json.tmp").rename(team / "config.json")
    await r.wait("teamInbox/teamsChanged", since=mark)
    [t] = (await call(client, "teamInbox/teams", {}))["teams"]
    assert t["title"] == t["label"] == f"app · {when(CREATED_MS / 1000)}"
