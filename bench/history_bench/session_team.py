"""A session team as Claude Code 2.1.3xx writes it: its config, empty inboxes, its timestamps."""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path
from typing import Any


def epoch_iso(t: float) -> str:
    return (
        dt.datetime.fromtimestamp(t, dt.timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def session_config(name: str, project: str, created_ms: int, helpers: list[str], pid: int) -> Any:
    cwd = f"/home/dev/projects/{project}"
    return {
        "name": name,
        "createdAt": created_ms,
        "leadAgentId": f"team-lead@{name}",
        "leadSessionId": f"{name[8:]}-0000-4000-8000-000000000000",
        "leadProcess": {"pid": pid, "pidSpace": "host", "claimedAt": created_ms, "procStart": "x"},
        "members": [
            {
                "agentId": f"team-lead@{name}",
                "name": "team-lead",
                "tmuxPaneId": "leader",
                "cwd": cwd,
            }
        ]
        + [
            {
                "agentId": f"{h}@{name}",
                "name": h,
                "color": CLAUDE_COLORS[i % len(CLAUDE_COLORS)],
                "agentType": "general-purpose",
                "model": "claude-sonnet-4-5",
                "tmuxPaneId": "in-process",
                "cwd": cwd,
            }
            for i, h in enumerate(helpers)
        ],
    }


CLAUDE_COLORS = ("blue", "green", "yellow", "purple", "cyan", "orange")


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.setup")
    tmp.write_text(json.dumps(value, indent=2))
    tmp.rename(path)


def make_session_team(root: Path, name: str, project: str, helpers: list[str]) -> Path:
    team = root / name
    write_json(
        team / "config.json",
        session_config(name, project, int(time.time() * 1000), helpers, os.getpid()),
    )
    for m in ["team-lead", *helpers]:
        write_json(team / "inboxes" / f"{m}.json", [])
    return team
