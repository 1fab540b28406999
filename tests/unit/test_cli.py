"""The `teaminbox` command as a subprocess, with HOME pointed at a temporary tree."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support import cli
from support.world import CODER_ID, LEAD_ID, Teams, tree, write_json


def entries(path: Path) -> list[dict[str, Any]]:
    doc = json.loads(path.read_bytes())
    return doc if isinstance(doc, list) else doc["messages"]


def one_line_error(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode != 0
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("teaminbox: ")
    return lines[0]


def test_python_dash_m_works(teams: Teams) -> None:
    proc = cli.run("teams", "--json", module=True, env=teams.env())
    assert proc.returncode == 0, proc.stderr
    ids = [t["id"] for t in json.loads(proc.stdout)["teams"]]
    assert sorted(ids) == ["claude:alpha", "pseudoclaude:beta"]


def test_teams_json_shape(teams: Teams) -> None:
    proc = teams.cli("teams", "--json")
    assert proc.returncode == 0, proc.stderr
    by = {t["id"]: t for t in json.loads(proc.stdout)["teams"]}
    alpha = by["claude:alpha"]
    assert alpha["ownInbox"] == "user" and alpha["identity"] == "user"
    assert alpha["lead"] == "team-lead" and alpha["format"] == "claude"
    m = {x["name"]: x for x in alpha["members"]}
    assert m["researcher"]["agentId"] == "researcher@alpha"
    assert m["researcher"]["isActive"] is True and m["team-lead"]["unread"] == 1
    assert {"agentType", "phantom", "owned", "total", "error"} <= set(m["coder"])
    beta = by["pseudoclaude:beta"]
    assert beta["ownInbox"] == LEAD_ID


def test_teams_text(teams: Teams) -> None:
    proc = teams.cli("teams")
    assert proc.returncode == 0
    assert "claude:alpha" in proc.stdout and "pseudoclaude:beta" in proc.stdout


def test_send_and_read_json(teams: Teams) -> None:
    proc = teams.cli("send", "alpha", "researcher", "hello\nworld", "--summary", "s", "--json")
    assert proc.returncode == 0, proc.stderr
    [res] = json.loads(proc.stdout)["results"]
    assert res["ok"] is True and res["recipient"] == "researcher"
    assert res["messageId"] == entries(teams.cinbox("researcher"))[-1]["msg_id"]
    assert "message_id" not in res
    proc = teams.cli("read", "alpha", "researcher", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["total"] == 2 and out["unread"] == 2
    last = out["messages"][-1]
    assert last["from"] == "user" and last["text"] == "hello\nworld"
    assert last["id"] == res["messageId"] and last["summary"] == "s"
    assert last["team"] == "claude:alpha" and last["format"] == "claude"
    assert "from_" not in last and last["raw"]["msg_id"] == res["messageId"]


def test_send_from_stdin_and_file(teams: Teams, tmp_path: Path) -> None:
    proc = teams.cli("send", "alpha", "coder", "-", input="from stdin 😀\n")
    assert proc.returncode == 0, proc.stderr
    assert entries(teams.cinbox("coder"))[-1]["text"] == "from stdin 😀\n"
    f = tmp_path / "msg.txt"
    f.write_text('from a "file"\n', encoding="utf-8")
    proc = teams.cli("send", "beta", "coder", "--file", str(f))
    assert proc.returncode == 0, proc.stderr
    e = entries(teams.pinbox(CODER_ID))[-1]
    assert e["content"] == 'from a "file"\n' and e["from"] == "lead"


def test_broadcast_partial_failure_exit_3(teams: Teams) -> None:
    bad = b"[{oops"
    teams.cinbox("team-lead").write_bytes(bad)
    proc = teams.cli("broadcast", "alpha", "hi all", "--json")
    assert proc.returncode == 3
    results = {r["recipient"]: r for r in json.loads(proc.stdout)["results"]}
    assert results["team-lead"]["ok"] is False and results["team-lead"]["code"] == "corrupt_inbox"
    assert results["coder"]["ok"] and results["researcher"]["ok"]
    assert teams.cinbox("team-lead").read_bytes() == bad
    assert "team-lead" in proc.stderr
    proc = teams.cli("send", "alpha", "*", "again")
    assert proc.returncode == 3


def test_broadcast_all_failed_exit_1(teams: Teams) -> None:
    for name in ("team-lead", "researcher"):
        teams.cinbox(name).write_bytes(b"{")
    teams.cinbox("coder").write_bytes(b"[")
    proc = teams.cli("send", "alpha", "broadcast", "x")
    assert proc.returncode == 1


def test_mark_read_cli(teams: Teams) -> None:
    path = teams.cinbox("team-lead")
    before = path.read_bytes()
    # the lead's inbox is consumed by Claude Code: "read" is the seen state, the file stays
    proc = teams.cli("mark-read", "alpha", "team-lead", "--all", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"marked": 2}
    assert path.read_bytes() == before
    proc = teams.cli("mark-read", "alpha", "team-lead", "--all", "--discard", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"marked": 1}
    assert len(entries(path)) == 2 and all(e["read"] for e in entries(path))
    # by id, on the person's own inbox
    write_json(
        teams.cinbox("user"),
        [
            {"from": "coder", "text": "a", "timestamp": "t1"},
            {"from": "coder", "text": "b", "timestamp": "t2"},
        ],
    )
    msgs = json.loads(teams.cli("read", "alpha", "user", "--json").stdout)["messages"]
    proc = teams.cli("mark-read", "alpha", "user", msgs[1]["id"], "--json")
    assert json.loads(proc.stdout) == {"marked": 1}
    assert [e.get("read") for e in entries(teams.cinbox("user"))] == [None, True]
    again = json.loads(teams.cli("read", "alpha", "user", "--json").stdout)["messages"]
    assert [m["id"] for m in again] == [m["id"] for m in msgs]


@pytest.mark.parametrize(
    "args",
    [
        ("send", "alpha", "nobody", "x"),
        ("send", "../alpha", "coder", "x"),
        ("send", "alpha", "../coder", "x"),
        ("send", "alpha", "coder", "x", "--from", "a/b"),
        ("send", "alpha", "coder", "x", "--from", "n" * 300),
        ("send", "alpha", "coder", "x", "--color", "magenta"),
        ("send", "beta", "coder", "x", "--payload", "[1]"),
        ("send", "beta", "coder", "x", "--payload", "{nope"),
        ("send", "alpha", "coder"),
        ("send", "nosuchteam", "coder", "x"),
        ("send", "alpha", "researcher", "x", "--file", "/nonexistent/file"),
        ("read", "alpha", "..\\x"),
        ("mark-read", "alpha", "user"),
        ("mark-read", "alpha", "a\\b", "--all"),
    ],
)
def test_bad_input_one_line_error_and_nothing_changed(teams: Teams, args: tuple[str, ...]) -> None:
    snap = tree(teams.home.parent)
    proc = teams.cli(*args)
    one_line_error(proc)
    assert proc.returncode == 1
    assert tree(teams.home.parent) == snap


def test_send_to_corrupt_inbox_cli(teams: Teams) -> None:
    bad = b'[\n  {"from": "a"'
    teams.cinbox("researcher").write_bytes(bad)
    line = one_line_error(teams.cli("send", "alpha", "researcher", "x"))
    assert str(teams.cinbox("researcher")) in line and "line" in line
    assert teams.cinbox("researcher").read_bytes() == bad


def test_too_large_cli(teams: Teams) -> None:
    snap = tree(teams.home)
    line = one_line_error(teams.cli("send", "alpha", "coder", "-", input="x" * (1024 * 1024 + 1)))
    assert "limit" in line
    assert tree(teams.home) == snap


def test_repair_and_doctor_cli(teams: Teams) -> None:
    path = teams.cinbox("team-lead")  # two entries; the cut loses the last one's end
    path.write_bytes(path.read_bytes()[:-5])
    proc = teams.cli("doctor", "--json")
    assert proc.returncode == 1
    kinds = {f["kind"] for f in json.loads(proc.stdout)["findings"]}
    assert kinds == {"corrupt"}
    proc = teams.cli("repair", "alpha", "team-lead", "--json")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["kept"] == 1 and res["backup"].startswith(str(path) + ".corrupt-")
    proc = teams.cli("doctor")
    assert proc.returncode == 0 and "healthy" in proc.stdout


def test_identity_and_claude_config_dir(teams: Teams, tmp_path: Path) -> None:
    proc = teams.cli("--identity", "claude=team-lead", "send", "alpha", "coder", "x")
    assert proc.returncode == 0, proc.stderr
    assert entries(teams.cinbox("coder"))[-1]["from"] == "team-lead"
    other = tmp_path / "cfgdir"
    proc = teams.cli("teams", "--json", CLAUDE_CONFIG_DIR=str(other))
    ids = [t["id"] for t in json.loads(proc.stdout)["teams"]]
    assert ids == ["pseudoclaude:beta"]


def test_compact_prunes_read_entries_into_the_history(teams: Teams, tmp_path: Path) -> None:
    from teaminbox.history import History

    user = teams.cinbox("user")
    entries = [
        {
            "from": "researcher",
            "text": f"m{i}",
            "timestamp": f"2026-11-29T10:00:0{i}.000Z",
            "read": i < 2,
            "msg_id": f"id-{i}",
        }
        for i in range(3)
    ]
    user.write_text(json.dumps(entries, indent=2))
    db = tmp_path / "history.db"
    proc = teams.cli("compact", "alpha", "--history", str(db), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["removed"] == 2
    assert [e["msg_id"] for e in json.loads(user.read_text())] == ["id-2"]
    h = History(str(db))
    assert sorted(m.id for m in h.archived("claude:alpha", "user")) == ["id-0", "id-1"]
    assert h.known_ids("claude:alpha", "user") == {"id-2"}
