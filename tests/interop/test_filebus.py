"""The third format, the seed's one-file-per-message bus, against the seed's own class:
its writer's messages show up (CLI and server), ours reach its reader, its reader's
delete is a delivery we keep in the history, and nothing of ours ever deletes a file."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from seed_filebus import FileMessageBus

from support import cli as cli_runner
from teaminbox.discovery import Settings, find_teams, roster
from teaminbox.store import messages, read

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from lsp_session import call, make_recording_client, rec, start  # noqa: E402

LEAD, CODER = "team-lead@auth-refactor", "coder@auth-refactor"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A workspace folder whose `.team/` the seed's lead and coder use."""
    folder = tmp_path / "auth-refactor"
    folder.mkdir()
    bus = FileMessageBus(str(folder / ".team"))
    bus.send_message(LEAD, CODER, "Please write src/auth/jwt.ts")
    bus.send_message(CODER, "user", "jwt.ts is written; the static checks pass")
    bus._get_agent_inbox(LEAD)
    return folder


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli_runner.run(
        "--no-default-roots", "--root", str(folder), *args, home=folder.parent, module=True
    )


def test_cli_lists_reads_and_sends_as_the_seed_expects(project: Path) -> None:
    teams = cli(project, "teams", "--json")
    assert teams.returncode == 0, teams.stderr
    [team] = json.loads(teams.stdout)["teams"]
    assert (team["id"], team["format"], team["ownInbox"], team["lead"]) == (
        "filebus:auth-refactor",
        "filebus",
        "user",
        "team-lead",
    )
    by = {m["name"]: m for m in team["members"]}
    assert by["coder"]["inbox"] == "coder_auth-refactor" and by["coder"]["agentId"] == CODER
    assert (by["coder"]["total"], by["user"]["total"], by["user"]["owned"]) == (1, 1, True)

    page = cli(project, "read", "auth-refactor", "user", "--json")
    [msg] = json.loads(page.stdout)["messages"]
    assert (msg["from"], msg["text"], msg["format"]) == (CODER, msg["text"], "filebus")
    assert msg["timestamp"].endswith("Z") and msg["id"].startswith("m_")

    sent = cli(project, "send", "auth-refactor", "coder", "Also add a changelog entry")
    assert sent.returncode == 0, sent.stderr
    # the seed's own reader takes our message, in its own shape
    got = FileMessageBus(str(project / ".team")).read_inbox(CODER)
    ours = [m for m in got if m["content"] == "Also add a changelog entry"]
    assert len(ours) == 1
    assert set(ours[0]) >= {"msg_id", "sender", "recipient", "type", "content", "timestamp"}
    assert (ours[0]["sender"], ours[0]["recipient"], ours[0]["type"]) == ("user", CODER, "text")
    assert isinstance(ours[0]["timestamp"], float)
    assert not list((project / ".team" / "inbox" / "coder_auth-refactor").iterdir())


def test_mark_read_never_deletes_a_message_file(project: Path, tmp_path: Path) -> None:
    before = sorted(p.name for p in (project / ".team" / "inbox").rglob("*.json"))
    done = cli(
        project, "mark-read", "auth-refactor", "user", "--all", "--history", str(tmp_path / "h.db")
    )
    assert done.returncode == 0, done.stderr
    for who in ("user", "coder"):
        done = cli(
            project, "mark-read", "auth-refactor", who, "--all", "--history", str(tmp_path / "h.db")
        )
        assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (project / ".team" / "inbox").rglob("*.json")) == before
    refused = cli(project, "mark-read", "auth-refactor", "coder", "--all", "--discard")
    assert refused.returncode == 1 and "no read flag" in refused.stderr


def test_a_half_written_or_hostile_file_is_one_bad_entry(project: Path) -> None:
    inbox = project / ".team" / "inbox" / "user"
    (inbox / "m_1_aaaaaa.tmp").write_text('{"msg_id": "m_1_aa')  # in flight: not a message
    (inbox / "m_2_bbbbbb.json").write_text("{not json")
    os.mkfifo(inbox / "m_3_cccccc.json")
    fmt_team = next(t for t in find_teams(Settings.build([str(project)], defaults=False).roots))
    r = roster(fmt_team, Settings.build([str(project)], defaults=False))
    snap = read(fmt_team.fmt, fmt_team.inbox_path("user"))
    assert len(messages(fmt_team.fmt, snap, r.team.id, "user")) == 1
    assert len(snap.problems) == 2


async def test_server_watches_notifies_and_archives_what_the_reader_deleted(
    project: Path, tmp_path: Path
) -> None:
    client = make_recording_client()
    await client.start_io(sys.executable, "-m", "teaminbox", "serve")
    try:
        await start(
            client,
            {"defaultRoots": False, "roots": [str(project)], "historyPath": str(tmp_path / "h.db")},
        )
        r = rec(client)
        teams = (await call(client, "teamInbox/teams", {}))["teams"]
        assert [t["id"] for t in teams] == ["filebus:auth-refactor"]
        bus = FileMessageBus(str(project / ".team"))
        mark = r.mark()
        bus.send_message(CODER, "user", "PR is up")
        replied = await r.wait("teamInbox/replied", since=mark)
        assert (replied["message"]["from"], replied["message"]["text"]) == (CODER, "PR is up")
        change = await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "user", since=mark)
        assert [m["text"] for m in change["added"]] == ["PR is up"]

        # the seed's reader consumes the coder's inbox: a delivery, kept in the history
        mark = r.mark()
        [taken] = bus.read_inbox(CODER)
        gone = await r.wait(
            "teamInbox/didChange", lambda p: p["inbox"] == "coder_auth-refactor", since=mark
        )
        assert gone["removed"] == [taken["msg_id"]] and gone["total"] == 0
        page = await call(
            client,
            "teamInbox/messages",
            {"team": "auth-refactor", "inbox": "coder", "includeArchived": True},
        )
        assert [(m["text"], m["archived"]) for m in page["messages"]] == [
            ("Please write src/auth/jwt.ts", True)
        ]
        sent = await call(
            client, "teamInbox/send", {"team": "auth-refactor", "to": "coder", "text": "thanks"}
        )
        assert sent["results"][0]["ok"]
        assert [m["content"] for m in bus.read_inbox(CODER)] == ["thanks"]
        seen = await call(
            client, "teamInbox/markRead", {"team": "auth-refactor", "inbox": "user", "all": True}
        )
        assert seen == {"marked": 2}
        assert len(list((project / ".team" / "inbox" / "user").glob("*.json"))) == 2
    finally:
        await asyncio.wait_for(client.shutdown_session(), 15)
