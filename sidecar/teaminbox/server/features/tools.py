"""The agent tools (tools.py) over JSON-RPC: `teamInbox/callTool`, what VS Code's
language-model tools ask, so the extension runs the same tools the MCP server does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...protocol import CallToolParams, ToolOutput
from ..feature import Feature
from ..tools import Tools

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer


class AgentTools(Feature):
    server: TeamInboxServer
    name = "tools"

    def register(self) -> None:
        self.tools = Tools(self.server)
        self.request("teamInbox/callTool", self.call)

    async def call(self, p: CallToolParams) -> ToolOutput:
        return ToolOutput(await self.tools.call(p.name, p.input))
