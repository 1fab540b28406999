"""The agent tools have one implementation (teaminbox/server/tools.py) and two faces: the MCP server
(`teaminbox mcp`, driven by the official SDK's client) and the sidecar's `teamInbox/callTool`
(`teaminbox serve`, what VS Code's language-model tools ask). On the same team files and
history, every tool gives the same result through both, and every error the same words; the
extension's manifest describes the same arguments the MCP server takes."""

from __future__ import annotations

import json
from typing import Any

from lsp_session import call, call_error, options, start
from pytest_lsp import LanguageClient
from test_mcp import busy_helper, entries, served, until

from support.world import REPO, Teams
from teaminbox.protocol import MAX_LIMIT

IDLE = json.dumps({"type": "idle_notification", "from": "coder", "idleReason": "available"})
READING: list[tuple[str, dict[str, Any]]] = [
    ("list_teams", {}),
    ("list_teams", {"include_ended": True}),
    ("team_status", {"team": "alpha"}),
    ("team_status", {"team": "pseudoclaude:beta"}),
    ("read_messages", {"team": "alpha"}),
    ("read_messages", {"team": "alpha", "since": "2026-02-09T17:12:00Z", "limit": 1}),
    ("read_messages", {"team": "beta", "inbox": "coder", "include_archived": False}),
    ("search_messages", {"query": "auth"}),
    ("search_messages", {"query": "jwt", "team": "beta", "limit": 1}),
    ("needs_attention", {}),
    ("needs_attention", {"team": "alpha"}),
    ("get_tasks", {"team": "alpha"}),
]
ERRORS: list[tuple[str, dict[str, Any]]] = [
    ("team_status", {"team": "nope"}),
    ("team_status", {"team": "../../etc"}),
    ("read_messages", {"team": "alpha", "inbox": "zzz"}),
    ("read_messages", {"team": "alpha", "limit": 0}),
    ("read_messages", {"team": "alpha", "before": "yesterday"}),
    ("search_messages", {"query": ""}),
    ("search_messages", {"query": "auth", "limit": MAX_LIMIT + 1}),
    ("needs_attention", {"team": "nope"}),
    ("get_tasks", {"team": "nope"}),
    ("send_message", {"team": "alpha", "to": "nobody", "text": "hi"}),
    ("send_message", {"team": "alpha", "to": "coder", "text": ""}),
    ("send_message", {"team": "alpha", "to": "team-lead", "text": IDLE}),
    ("broadcast", {"team": "nope", "text": "hi"}),
]
SENDS: list[tuple[str, dict[str, Any]]] = [
    (
        "send_message",
        {"team": "alpha", "to": "researcher", "text": "look at jwt", "summary": "jwt"},
    ),
    ("broadcast", {"team": "beta", "text": "stand-up in 5"}),
]


def task_board(teams: Teams) -> None:
    tasks = teams.home / ".claude" / "tasks" / "alpha"
    tasks.mkdir(parents=True)
    task = {"id": "1", "subject": "Fix auth", "status": "in_progress", "owner": "researcher"}
    (tasks / "1.json").write_text(json.dumps(task | {"blocks": [], "blockedBy": []}))


def without_ids(result: dict[str, Any]) -> dict[str, Any]:
    """A send's result without the message ids (each face wrote a message of its own)."""
    return result | {"results": [r | {"messageId": "-"} for r in result["results"]]}


async def test_every_tool_answers_the_same_through_both_faces(
    client: LanguageClient, teams: Teams
) -> None:
    task_board(teams)
    history = teams.home / "h.db"
    await start(client, options(teams.home, historyPath=str(history)))

    async def sidecar(name: str, args: dict[str, Any]) -> Any:
        return (await call(client, "teamInbox/callTool", {"name": name, "input": args}))["result"]

    async with served(teams, history=history) as s:

        async def mcp(name: str, args: dict[str, Any]) -> Any:
            res = await s.call_tool(name, args)
            assert not res.is_error, res
            return res.structured_content

        async def mcp_error(name: str, args: dict[str, Any]) -> str:
            res = await s.call_tool(name, args)
            assert res.is_error, res
            text: str = res.content[0].text  # type: ignore[union-attr]
            return text

        for name, args in READING:
            got = await sidecar(name, args)
            assert got == await mcp(name, args), (name, args)
        for name, args in ERRORS:
            err = await call_error(client, "teamInbox/callTool", {"name": name, "input": args})
            assert err.message == await mcp_error(name, args), (name, args)
        for name, args in SENDS:
            got = await sidecar(name, args)
            assert all(r["ok"] for r in got["results"]), got
            assert without_ids(got) == without_ids(await mcp(name, args)), (name, args)
    sent = [e["text"] for e in entries(teams.cinbox("researcher"))]
    assert sent[-2:] == ["look at jwt", "look at jwt"]  # once through each face
    assert IDLE not in [e["text"] for e in entries(teams.cinbox("team-lead"))]


async def test_team_status_gives_the_same_steps_through_both_faces(
    client: LanguageClient, teams: Teams
) -> None:
    """A member's step, context and changed files, read from its transcript by each face's own
    sidecar (its rows dated long ago: no state turns while the two are asked)."""
    busy_helper(teams.home, at="2026-11-30T09:00:00.000Z")
    history = teams.home / "h.db"
    await start(client, options(teams.home, historyPath=str(history)))
    args = {"team": "session-7a1c0de5"}

    def helper(st: dict[str, Any]) -> dict[str, Any]:
        return next(m for m in st["members"] if m["name"] == "helper")

    async def sidecar() -> Any:
        got = await call(client, "teamInbox/callTool", {"name": "team_status", "input": args})
        st: dict[str, Any] = got["result"]
        return st if "doing" in helper(st) else None

    async with served(teams, history=history) as s:

        async def mcp() -> Any:
            res = await s.call_tool("team_status", args)
            assert not res.is_error, res
            st = res.structured_content or {}
            return st if "doing" in helper(st) else None

        got, answered = await until("the sidecar's step", sidecar), await until("the MCP's", mcp)
    assert got == answered
    assert helper(got)["doing"] == {"text": "Bash: npm test", "since": "2026-11-30T09:00:00Z"}
    assert helper(got)["changedFiles"] == 1 and helper(got)["context"]["used"] == 1500


async def test_a_tools_input_is_checked_as_the_mcp_schema_says(
    client: LanguageClient, teams: Teams
) -> None:
    """What the SDK checks for the MCP face (types, what is required, unknown tools), the
    sidecar checks for VS Code's: a model's input reaches no tool unchecked."""
    await start(client, options(teams.home, historyPath=str(teams.home / "h.db")))
    for name, args, said in [
        ("read_messages", {}, "team is required"),
        ("read_messages", {"team": "alpha", "limit": "many"}, "limit must be an integer"),
        ("read_messages", {"team": "alpha", "limit": True}, "limit must be an integer"),
        ("list_teams", {"include_ended": "yes"}, "include_ended must be true or false"),
        ("send_message", {"team": "alpha", "to": ["researcher"], "text": "x"}, "to must be a"),
    ]:
        err = await call_error(client, "teamInbox/callTool", {"name": name, "input": args})
        assert err.message.startswith(said), (args, err.message)
    err = await call_error(client, "teamInbox/callTool", {"name": "delete_team", "input": {}})
    assert "delete_team" in err.message
    # null is the default, as an omitted argument; keys no tool takes are left out
    got = await call(
        client,
        "teamInbox/callTool",
        {"name": "read_messages", "input": {"team": "alpha", "inbox": None, "colour": "red"}},
    )
    assert got["result"]["team"] == "claude:alpha" and "inbox" not in got["result"]
    assert entries(teams.cinbox("researcher"))[-1]["text"] == "please look at auth"


async def test_the_manifest_describes_the_arguments_the_mcp_server_takes(teams: Teams) -> None:
    """package.json's languageModelTools (VS Code reads the manifest, not the sidecar): each
    tool's arguments, types, defaults and required ones are the MCP server's."""
    manifest = json.loads((REPO / "package.json").read_text())
    contributed = {
        t["name"].removeprefix("teaminbox_"): t["inputSchema"]
        for t in manifest["contributes"]["languageModelTools"]
    }
    async with served(teams, history=teams.home / "h.db") as s:
        tools = {t.name: t.input_schema for t in (await s.list_tools()).tools}
    assert list(contributed) == list(tools)
    for name, schema in tools.items():
        lm = contributed[name]
        assert lm.get("required", []) == schema.get("required", []), name
        assert set(lm["properties"]) == set(schema["properties"]), name
        for arg, prop in schema["properties"].items():
            kinds = {k["type"] for k in prop.get("anyOf", [prop])} - {"null"}
            assert {lm["properties"][arg]["type"]} == kinds, (name, arg)
            assert lm["properties"][arg].get("default") == prop.get("default"), (name, arg)
            if "maximum" in lm["properties"][arg]:
                assert lm["properties"][arg]["maximum"] == MAX_LIMIT, (name, arg)
