"""A fourth format added as one module and one registry line (tests/support/toyformat.py)
works through the CLI and the server, with no other file of the sidecar touched."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_session import WAIT, call, make_recording_client, rec, start, stop_server, write_json

from support.toyformat import TOY
from teaminbox import store

TESTS = Path(__file__).resolve().parents[1]
TOY_CMD = [sys.executable, "-m", "support.toyformat"]


def toy_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(TESTS), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def make_toy_team(home: Path) -> Path:
    team = home / "toy" / "lab"
    write_json(team / "config.json", {"toy": True})
    write_json(team / "mail" / "alice.json", [])
    write_json(
        team / "mail" / "user.json",
        [{"who": "alice", "body": "the toy works", "at": "2026-11-29T10:00:00.000Z"}],
    )
    return team


def toy_cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TOY_CMD, "--no-default-roots", "--root", f"toy={home / 'toy'}", *args],
        capture_output=True,
        text=True,
        env=toy_env(),
        timeout=60,
    )


def test_the_toy_format_through_the_cli(tmp_path: Path) -> None:
    team = make_toy_team(tmp_path)
    teams = toy_cli(tmp_path, "teams", "--json")
    assert teams.returncode == 0, teams.stderr
    [t] = json.loads(teams.stdout)["teams"]
    assert (t["id"], t["format"], t["formatName"]) == ("toy:lab", "toy", "Toy")
    assert sorted(m["name"] for m in t["members"]) == ["alice", "user"]

    read = toy_cli(tmp_path, "read", "lab", "user", "--json")
    assert read.returncode == 0, read.stderr
    [msg] = json.loads(read.stdout)["messages"]
    assert (msg["from"], msg["text"], msg["format"]) == ("alice", "the toy works", "toy")
    assert msg["description"]["line"]

    sent = toy_cli(tmp_path, "send", "lab", "alice", "hello toy")
    assert sent.returncode == 0, sent.stderr
    [written] = json.loads((team / "mail" / "alice.json").read_bytes())
    assert (written["who"], written["body"], written["read"]) == ("user", "hello toy", False)
    assert not (team / "mail" / "alice.json.lock").exists()  # the default lock, released


async def test_the_toy_format_through_the_server(tmp_path: Path) -> None:
    team = make_toy_team(tmp_path)
    client = make_recording_client()
    await client.start_io(*TOY_CMD, "serve", env=toy_env())
    try:
        init: dict[str, Any] = {
            "defaultRoots": False,
            "roots": [f"toy={tmp_path / 'toy'}"],
            "historyPath": str(tmp_path / "history.db"),
        }
        await start(client, init)
        res = await asyncio.wait_for(call(client, "teamInbox/teams", {}), WAIT)
        [t] = res["teams"]
        assert (t["id"], t["formatName"], t["title"]) == ("toy:lab", "Toy", "lab")

        r = rec(client)
        mark = r.mark()
        inbox = str(team / "mail" / "user.json")
        entry = {"who": "alice", "body": "written later", "at": "2026-11-29T10:05:00.000Z"}
        store.append(TOY, inbox, [entry])
        change = await r.wait(
            "teamInbox/didChange",
            lambda p: (
                p["team"] == "toy:lab" and any(m["text"] == "written later" for m in p["added"])
            ),
            since=mark,
        )
        assert change["inbox"] == "user"
    finally:
        await stop_server(client)
