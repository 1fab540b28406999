"""The one fixture world: a temporary HOME holding one Claude Code team and one PseudoClaude
team, and the helpers the suites share (tests/conftest.py makes it the `teams` fixture)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import attrs

from support import cli
from support.entries import claude_entry
from teaminbox.discovery import Settings, default_roots

REPO = Path(__file__).resolve().parents[2]

CLAUDE_TEAM = "alpha"
PSEUDO_TEAM = "beta"
CODER_ID = "team-beta-coder-1770000000000000000"
TESTER_ID = "team-beta-tester-1770000000000000001"
LEAD_ID = "lead-beta"


def write_json(path: Path, value: Any) -> bytes:
    """Write as JSON.stringify(value, null, 2) would (what both peers write)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(value, indent=2, ensure_ascii=False).encode()
    path.write_bytes(data)
    return data


def make_team(root: Path, name: str, members: list[str]) -> Path:
    """A minimal Claude Code team folder under `root`: its config and an empty inbox a member."""
    team = root / name
    (team / "inboxes").mkdir(parents=True)
    config = {
        "name": name,
        "leadAgentId": f"team-lead@{name}",
        "members": [{"agentId": f"{m}@{name}", "name": m} for m in members],
    }
    (team / "config.json").write_text(json.dumps(config))
    for m in members:
        (team / "inboxes" / f"{m}.json").write_text("[]")
    return team


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for directories)."""
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.join(dirpath, d)] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            with open(p, "rb") as fh:
                out[p] = fh.read()
    return out


@attrs.define
class Teams:
    home: Path
    claude_root: Path
    pseudo_root: Path
    claude_dir: Path
    pseudo_dir: Path

    @property
    def settings(self) -> Settings:
        return Settings(roots=default_roots({"HOME": str(self.home)}))

    def cinbox(self, name: str) -> Path:
        return self.claude_dir / "inboxes" / f"{name}.json"

    def pinbox(self, agent_id: str) -> Path:
        return self.pseudo_dir / "inboxes" / f"{agent_id}.json"

    def env(self, **extra: str) -> dict[str, str]:
        return cli.environment(self.home, **extra)

    def cli(
        self, *args: str, input: str | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        return cli.run(*args, input=input, env=self.env(**env))


def claude_config(team: str) -> dict[str, Any]:
    return {
        "name": team,
        "description": "the alpha team",
        "createdAt": 1770000000000,
        "leadAgentId": f"team-lead@{team}",
        "leadSessionId": "sess-1",
        "futureTopLevel": {"nested": [1, 2, {"x": None}]},
        "members": [
            {
                "agentId": f"team-lead@{team}",
                "name": "team-lead",
                "agentType": "team-lead",
                "model": "opus",
                "joinedAt": 1770000000000,
                "tmuxPaneId": "",
                "cwd": "/w",
                "subscriptions": [],
            },
            {
                "agentId": f"researcher@{team}",
                "name": "researcher",
                "agentType": "general-purpose",
                "model": "sonnet",
                "color": "blue",
                "joinedAt": 1770000000001,
                "tmuxPaneId": "in-process",
                "isActive": True,
                "futureMemberKey": "kept",
            },
            {
                "agentId": f"coder@{team}",
                "name": "coder",
                "agentType": "general-purpose",
                "color": "green",
                "tmuxPaneId": "%14",
                "isActive": False,
            },
        ],
    }


def pseudo_config(team: str) -> dict[str, Any]:
    return {
        "name": team,
        "sanitized_name": team,
        "description": "the beta team",
        "project_root": "/w",
        "lead_agent_id": LEAD_ID,
        "backend": "tmux",
        "created_at": "2026-11-29T10:00:00Z",
        "members": [
            {"name": "lead", "agent_id": LEAD_ID, "agent_type": "lead"},
            {"name": "coder", "agent_id": CODER_ID, "agent_type": "coder", "is_active": True},
            {"name": "tester", "agent_id": TESTER_ID, "agent_type": "tester", "is_active": False},
        ],
    }


def make_teams(home: Path) -> Teams:
    claude_root = home / ".claude" / "teams"
    pseudo_root = home / ".PseudoClaude" / "teams"
    cdir = claude_root / CLAUDE_TEAM
    pdir = pseudo_root / PSEUDO_TEAM
    write_json(cdir / "config.json", claude_config(CLAUDE_TEAM))
    inb = cdir / "inboxes"
    write_json(
        inb / "team-lead.json",
        [
            claude_entry(
                "researcher",
                "Found the bug in auth.ts",
                "2026-02-09T17:12:32.316Z",
                summary="Bug found",
                color="blue",
                read=False,
                type="message",
                msg_id="11111111-1111-4111-8111-111111111111",
            ),
            claude_entry("coder", "legacy entry, no type", "2026-02-09T17:13:00.000Z", read=True),
        ],
    )
    write_json(
        inb / "researcher.json",
        [claude_entry("team-lead", "please look at auth", "2026-02-09T17:00:00.000Z", read=False)],
    )
    write_json(inb / "user.json", [])
    # coder has no inbox file yet.
    write_json(pdir / "config.json", pseudo_config(PSEUDO_TEAM))
    pinb = pdir / "inboxes"
    write_json(
        pinb / f"{CODER_ID}.json",
        {
            "messages": [
                {
                    "from": "lead",
                    "to": CODER_ID,
                    "type": "text",
                    "summary": "start",
                    "content": "Please write src/auth/jwt.ts",
                    "payload": {"priority": "high"},
                    "timestamp": "2026-11-29T10:00:00.123456789Z",
                    "read": False,
                }
            ]
        },
    )
    write_json(pinb / f"{LEAD_ID}.json", {"messages": []})
    return Teams(home, claude_root, pseudo_root, cdir, pdir)
