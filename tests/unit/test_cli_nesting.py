"""`teaminbox read --json` and `tasks --json` with values nested as deep as an inbox may be:
past orjson's 255 levels for dumps and past Python's recursion limit for cattrs."""

from __future__ import annotations

import json
from typing import Any

import pytest

from support.entries import claude_entry
from support.world import CODER_ID, Teams, write_json
from teaminbox.jsonio import MAX_DEPTH, loads


def nested(depth: int) -> Any:
    """`depth` levels of lists (and dicts), built without recursion, as json reads it."""
    value: Any = "leaf"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def depth_of(value: Any) -> int:
    n = 0
    while isinstance(value, (list, dict)):
        value = value[0] if isinstance(value, list) else value["k"]
        n += 1
    return n


def dump(value: Any) -> str:
    """Compact JSON at any depth (json.dumps recurses)."""
    depth = depth_of(value)
    opens = "".join("[" if i % 2 else '{"k":' for i in reversed(range(depth)))
    closes = "".join("]" if i % 2 else "}" for i in range(depth))
    return opens + '"leaf"' + closes


def read_json(teams: Teams, *args: str, **env: str) -> Any:
    proc = teams.cli(*args, "--json", **env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return loads(proc.stdout.encode(), "stdout", max_depth=MAX_DEPTH + 8)  # json.loads recurses


# 254-256: orjson's dumps limit; 600: past cattrs' recursion; as deep as an inbox may hold it
DEPTHS = [254, 255, 256, 600, MAX_DEPTH - 4]


@pytest.mark.parametrize("depth", DEPTHS)
def test_read_json_prints_a_deep_pseudoclaude_payload(teams: Teams, depth: int) -> None:
    inbox = teams.pinbox(CODER_ID)  # {"messages": [{..., "payload": {"d": <depth>}}]}
    msg = {"from": "lead", "to": CODER_ID, "type": "text", "summary": "deep", "content": "c"}
    body = json.dumps(msg)[:-1] + ', "payload": {"d": ' + dump(nested(depth)) + "}"
    inbox.write_text('{"messages": [' + body + ', "timestamp": "2026-11-29T10:00:00Z"}]}')
    out = read_json(teams, "read", "beta", CODER_ID)
    [m] = out["messages"]
    assert m["summary"] == "deep" and m["text"] == "c"
    assert depth_of(m["payload"]["d"]) == depth
    assert depth_of(m["raw"]["payload"]["d"]) == depth


@pytest.mark.parametrize(
    ("depth", "standin"), [(d, False) for d in DEPTHS] + [(MAX_DEPTH - 4, True)]
)
def test_read_json_prints_a_deep_claude_entry(teams: Teams, depth: int, standin: bool) -> None:
    entry = claude_entry("team-lead", "deep one", "2026-02-09T17:00:00.000Z", read=False)
    data = json.dumps([entry])[:-2] + ', "extra": ' + dump(nested(depth)) + "}]"
    teams.cinbox("researcher").write_text(data)
    no_orjson = {"TEAMINBOX_NO_ORJSON": "1"} if standin else {}
    out = read_json(teams, "read", "alpha", "researcher", **no_orjson)
    [m] = out["messages"]
    assert m["text"] == "deep one" and m["from"] == "team-lead"
    assert depth_of(m["raw"]["extra"]) == depth
    assert out["total"] == 1 and out["unread"] == 1


def test_read_text_of_a_deep_entry(teams: Teams) -> None:
    entry = claude_entry("team-lead", "deep one", "2026-02-09T17:00:00.000Z", read=False)
    data = json.dumps([entry])[:-2] + ', "extra": ' + dump(nested(MAX_DEPTH - 4)) + "}]"
    teams.cinbox("researcher").write_text(data)
    proc = teams.cli("read", "alpha", "researcher")
    assert proc.returncode == 0, proc.stderr
    assert "deep one" in proc.stdout


def test_too_deep_is_one_line_not_a_traceback(teams: Teams) -> None:
    entry = claude_entry("team-lead", "deeper", "2026-02-09T17:00:00.000Z")
    data = json.dumps([entry])[:-2] + ', "extra": ' + dump(nested(MAX_DEPTH + 10)) + "}]"
    teams.cinbox("researcher").write_text(data)
    proc = teams.cli("read", "alpha", "researcher", "--json")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("teaminbox: ") and proc.stderr.count("\n") == 1
    assert f"nested deeper than {MAX_DEPTH} levels" in proc.stderr


def test_tasks_json_prints_a_deep_task(teams: Teams) -> None:
    board = teams.pseudo_dir / "tasks.json"
    task = {"id": "task_1", "title": "deep", "status": "todo"}
    write_json(board, {"tasks": []})
    board.write_text(
        '{"tasks": [' + json.dumps(task)[:-1] + ', "extra": ' + dump(nested(600)) + "}]}"
    )
    out = read_json(teams, "tasks", "beta")
    [t] = out["tasks"]
    assert t["subject"] == "deep" and depth_of(t["raw"]["extra"]) == 600
