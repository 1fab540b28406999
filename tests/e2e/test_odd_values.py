"""One odd number from a peer's file never blinds a view.

A file-bus message whose `timestamp` is 1e20 (or -1e20, infinite, 400 digits, a bool) is
one invalid entry: the other messages of the inbox are shown, and one in milliseconds
(1770000000000) is read as milliseconds (`teaminbox.timestamps`). A team whose
`createdAt` is 1e30 (or -1e20, ...) is listed without a start time, and every other
team is served. Both through the real server (`teamInbox/teams`, `teamInbox/messages`)
and the CLI (`teams`, `read`) on the same files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsp_session import REPO, call, make_home, options, start, write_json
from pytest_lsp import LanguageClient

from support import cli

sys.path.insert(0, str(REPO / "tests" / "interop"))
from seed_filebus import FileMessageBus  # noqa: E402

# Written as raw JSON text: 1e400 is JSON that Python reads as infinity, and 10**400 an int
# no float holds (orjson refuses both; the standard library's fallback takes them).
ODD_STAMPS = {
    "huge": "1e20",
    "negative": "-1e20",
    "infinite": "1e400",
    "digits": "1" + "0" * 400,
    "bool": "true",
}
ODD_CREATED = {"gamma": "1e30", "delta": "-1e20", "eps": "1e400", "zeta": "1" + "0" * 400}
ODD_PID = {"pid": 2**63, "neg": -(2**63), "big": 2**31}  # os.kill() of these: OverflowError
MS = 1770000000000  # 2026-02-02T02:40:00Z in milliseconds


def odd_teams(home: Path) -> None:
    """make_home's two teams, and Claude teams with odd `createdAt`s (and a lead pid no
    pid_t holds), a message each."""
    make_home(home)
    odd = [(t, c, 1) for t, c in ODD_CREATED.items()] + [(t, MS, p) for t, p in ODD_PID.items()]
    for team, created, pid in odd:
        folder = home / ".claude" / "teams" / team
        folder.mkdir(parents=True)
        member = json.dumps({"agentId": f"team-lead@{team}", "name": "team-lead"})
        (folder / "config.json").write_text(
            f'{{"name": "{team}", "leadAgentId": "team-lead@{team}", "createdAt": {created},'
            f' "leadProcess": {{"pid": {pid}}}, "members": [{member}]}}'
        )
        write_json(
            folder / "inboxes" / "user.json",
            [
                {
                    "from": "team-lead",
                    "text": f"hello from {team}",
                    "timestamp": "2026-11-29T10:00:00.000Z",
                    "read": False,
                }
            ],
        )


def odd_bus(home: Path) -> Path:
    """make_home's two teams, and a file bus whose `user` inbox holds two good messages
    (the seed's own writer), one in milliseconds and the odd ones. Returns its folder."""
    make_home(home)
    ws = home / "ws"
    bus = FileMessageBus(str(ws / ".team"))
    bus.send_message("coder", "user", "first good")
    bus.send_message("coder", "user", "second good")
    bus._get_agent_inbox("coder")
    inbox = ws / ".team" / "inbox" / "user"
    (inbox / "m_ms.json").write_text(
        '{"msg_id": "m_ms", "sender": "coder", "recipient": "user", "type": "text",'
        f' "content": "in milliseconds", "timestamp": {MS}}}'
    )
    for name, stamp in ODD_STAMPS.items():
        (inbox / f"m_{name}.json").write_text(
            f'{{"msg_id": "m_{name}", "sender": "coder", "recipient": "user", "type": "text",'
            f' "content": "odd {name}", "timestamp": {stamp}}}'
        )
    return ws


GOOD = {"first good", "second good", "in milliseconds"}


async def test_server_odd_created_at(client: LanguageClient, tmp_path: Path) -> None:
    odd_teams(tmp_path)
    await start(client, options(tmp_path))
    teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    assert {"claude:alpha", "pseudoclaude:beta"} <= set(teams), sorted(teams)
    assert teams["claude:alpha"]["createdAt"] == MS / 1000  # milliseconds, as Claude writes
    for team in ODD_CREATED:
        assert teams[f"claude:{team}"]["createdAt"] is None, teams[f"claude:{team}"]
    for team in ODD_PID:
        assert teams[f"claude:{team}"]["createdAt"] == MS / 1000, teams[f"claude:{team}"]
        assert teams[f"claude:{team}"]["leadAlive"] is None, teams[f"claude:{team}"]
    for team in [*ODD_CREATED, *ODD_PID]:
        page = await call(client, "teamInbox/messages", {"team": f"claude:{team}", "inbox": "user"})
        assert [m["text"] for m in page["messages"]] == [f"hello from {team}"]
    alpha = await call(client, "teamInbox/messages", {"team": "claude:alpha", "inbox": "user"})
    assert [m["text"] for m in alpha["messages"]] == ["old news"]
    beta = await call(client, "teamInbox/messages", {"team": "pseudoclaude:beta", "inbox": "coder"})
    assert beta["messages"] == []


async def test_server_odd_bus_stamps(client: LanguageClient, tmp_path: Path) -> None:
    ws = odd_bus(tmp_path)
    init = options(tmp_path)
    init["roots"].append(f"filebus={ws}")
    await start(client, init)
    teams = {t["id"]: t for t in (await call(client, "teamInbox/teams", {}))["teams"]}
    assert {"claude:alpha", "pseudoclaude:beta", "filebus:ws"} <= set(teams), sorted(teams)
    user = next(m for m in teams["filebus:ws"]["members"] if m["inbox"] == "user")
    assert user["total"] == len(GOOD), user
    page = await call(client, "teamInbox/messages", {"team": "filebus:ws", "inbox": "user"})
    assert {m["text"] for m in page["messages"]} == GOOD, page
    ms = next(m for m in page["messages"] if m["text"] == "in milliseconds")
    assert ms["timestamp"] == "2026-02-02T02:40:00.000Z"
    # The server leaves an invalid entry out of its views; doctor names each one.
    found = (await call(client, "teamInbox/doctor", {}))["findings"]
    odd = [f for f in found if f["kind"] == "invalid_entry" and "'timestamp'" in f["message"]]
    assert {f["message"].split(": ")[1] for f in odd} == {f"m_{n}.json" for n in ODD_STAMPS}, found
    alpha = await call(client, "teamInbox/messages", {"team": "claude:alpha", "inbox": "user"})
    assert [m["text"] for m in alpha["messages"]] == ["old news"]


def run_cli(home: Path, ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli.run(
        *cli.scratch_roots(home, f"filebus={ws}"),
        *args,
        module=True,
        env={"HOME": str(home), "XDG_DATA_HOME": str(home / "data"), "PATH": "/usr/bin:/bin"},
    )


def test_cli_odd_created_at(tmp_path: Path) -> None:
    odd_teams(tmp_path)
    ws = tmp_path / "no-bus"
    for args in (["teams", "--json"], ["teams"]):
        out = run_cli(tmp_path, ws, *args)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    listed: dict[str, Any] = {
        t["id"]: t for t in json.loads(run_cli(tmp_path, ws, "teams", "--json").stdout)["teams"]
    }
    assert {"claude:alpha", *(f"claude:{t}" for t in ODD_CREATED)} <= set(listed), sorted(listed)
    assert all(listed[f"claude:{t}"]["createdAt"] is None for t in ODD_CREATED)
    assert all(listed[f"claude:{t}"]["leadAlive"] is None for t in ODD_PID)
    assert listed["claude:alpha"]["members"][0]["error"] is None
    for team in [*ODD_CREATED, *ODD_PID]:
        one = run_cli(tmp_path, ws, "read", f"claude:{team}", "user")
        assert one.returncode == 0 and f"hello from {team}" in one.stdout, one.stderr


def test_cli_odd_bus_stamps(tmp_path: Path) -> None:
    ws = odd_bus(tmp_path)
    teams = run_cli(tmp_path, ws, "teams", "--json")
    assert teams.returncode == 0 and "Traceback" not in teams.stderr, teams.stderr
    listed: dict[str, Any] = {t["id"]: t for t in json.loads(teams.stdout)["teams"]}
    user = next(m for m in listed["filebus:ws"]["members"] if m["inbox"] == "user")
    assert user["total"] == len(GOOD), user
    assert user["error"]["code"] == "invalid_entries", user  # said, not hidden
    assert f"{len(ODD_STAMPS)} invalid entries" in user["error"]["message"], user
    plain = run_cli(tmp_path, ws, "teams")
    assert plain.returncode == 0 and "Traceback" not in plain.stderr, plain.stderr
    assert "filebus:ws" in plain.stdout and "invalid entries" in plain.stdout, plain.stdout

    read = run_cli(tmp_path, ws, "read", "filebus:ws", "user")
    assert read.returncode == 0 and "Traceback" not in read.stderr, read.stderr
    for text in GOOD:
        assert text in read.stdout, read.stdout
    assert "odd " not in read.stdout, read.stdout
    assert "2026-02-02T02:40:00.000Z" in read.stdout  # the ms one, at its time
    skipped = [line for line in read.stderr.splitlines() if "skipped" in line]
    assert len(skipped) == len(ODD_STAMPS), read.stderr


ODD_TASK_IDS = ["²", "9" * 5000]  # isdigit() says yes to both; int() refuses both


def odd_tasks(home: Path) -> None:
    """make_home's teams; alpha's task board holds a plain task and tasks with odd ids."""
    make_home(home)
    board = home / ".claude" / "tasks" / "alpha"
    for n, task_id in enumerate(["1", *ODD_TASK_IDS], start=1):
        write_json(
            board / f"{n}.json",
            {
                "id": task_id,
                "subject": f"task {n}",
                "description": "",
                "status": "pending",
                "blocks": [],
                "blockedBy": [],
            },
        )


async def test_server_odd_task_ids(client: LanguageClient, tmp_path: Path) -> None:
    odd_tasks(tmp_path)
    await start(client, options(tmp_path))
    board = await call(client, "teamInbox/tasks", {"team": "claude:alpha"})
    assert [t["id"] for t in board["tasks"]] == ["1", *sorted(ODD_TASK_IDS)], board


def test_cli_odd_task_ids(tmp_path: Path) -> None:
    odd_tasks(tmp_path)
    out = run_cli(tmp_path, tmp_path / "no-bus", "tasks", "claude:alpha", "--json")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert [t["id"] for t in json.loads(out.stdout)["tasks"]] == ["1", *sorted(ODD_TASK_IDS)]
