"""Helpers for end-to-end tests of the real `teaminbox serve` subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient
from pytest_lsp.client import register_lsp_features

from teaminbox.server import plain_converter


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=plain_converter)
    register_lsp_features(client)
    return client


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.setup")
    tmp.write_text(json.dumps(value, indent=2))
    tmp.rename(path)


def make_home(home: Path) -> None:
    """A Claude team `alpha` and a PseudoClaude team `beta`, a few messages each."""
    claude = home / ".claude" / "teams" / "alpha"
    write_json(
        claude / "config.json",
        {
            "name": "alpha",
            "leadAgentId": "team-lead@alpha",
            "leadSessionId": "s1",
            "createdAt": 1770000000000,
            "members": [
                {"agentId": "team-lead@alpha", "name": "team-lead", "agentType": "team-lead"},
                {
                    "agentId": "researcher@alpha",
                    "name": "researcher",
                    "color": "blue",
                    "agentType": "general-purpose",
                    "isActive": True,
                    "futureKey": 1,
                },
            ],
        },
    )
    write_json(
        claude / "inboxes" / "user.json",
        [
            {
                "from": "researcher",
                "text": "old news",
                "timestamp": "2026-11-29T10:00:00.000Z",
                "read": False,
                "color": "blue",
            }
        ],
    )
    write_json(claude / "inboxes" / "researcher.json", [])
    pc = home / ".PseudoClaude" / "teams" / "beta"
    write_json(
        pc / "config.json",
        {
            "name": "beta",
            "sanitized_name": "beta",
            "lead_agent_id": "lead-beta",
            "members": [
                {"name": "lead", "agent_id": "lead-beta"},
                {"name": "coder", "agent_id": "team-beta-coder-1"},
            ],
        },
    )
    write_json(pc / "inboxes" / "team-beta-coder-1.json", {"messages": []})


def options(home: Path, **extra: Any) -> dict[str, Any]:
    """Point the server at a scratch HOME's roots and history, not the real ones."""
    return {
        "defaultRoots": False,
        "roots": [
            f"claude={home / '.claude' / 'teams'}",
            f"pseudoclaude={home / '.PseudoClaude' / 'teams'}",
        ],
        "historyPath": str(home / "history.db"),
        **extra,
    }


async def start(client: LanguageClient, init: dict[str, Any]) -> None:
    await client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities(), initialization_options=init)
    )


async def call(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return await client.protocol.send_request_async(method, params)


SERVER = [sys.executable, "-m", "teaminbox", "serve"]
