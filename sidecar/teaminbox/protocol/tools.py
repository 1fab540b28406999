"""The agent tools (server/tools.py; features/tools.py), as VS Code's language-model tools
ask them."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from .base import Method

ToolName = Literal[
    "list_teams",
    "team_status",
    "read_messages",
    "search_messages",
    "needs_attention",
    "get_tasks",
    "send_message",
    "broadcast",
]


@attrs.define
class CallToolParams:
    name: ToolName
    input: dict[str, Any] = attrs.Factory(dict)  # as the model gave it: the MCP tool's arguments


@attrs.define
class ToolOutput:
    result: dict[str, Any]  # the tool's JSON result, as the MCP server gives it


METHODS = (
    Method(
        "teamInbox/callTool",
        CallToolParams,
        ToolOutput,
        "run one of the agent tools (the MCP server's); its error is the MCP tool's words",
    ),
)
