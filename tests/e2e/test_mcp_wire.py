"""What crosses `teaminbox mcp`'s stdio: a lone UTF-16 surrogate (Claude Code writes one
when it cuts an emoji in half, JSON `"\\ud83d"`) both ways, in a teammate's message read
back and in a call's arguments. Each call is answered, with the text as JSON.stringify
writes it, nothing is dropped, and the server goes on serving.

Driven two ways: JSON-RPC lines written here by hand (the escapes reach the server as a
client writes them), and the SDK's own ClientSession over a stdio transport that reads and
writes with the standard library's json, as a JavaScript client does with JSON.parse and
JSON.stringify (the SDK's stock stdio client refuses such a line itself)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import ClientSession
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter
from test_mcp import call, entries, rewrite

from support.cli import TEAMINBOX
from support.entries import claude_entry
from support.world import Teams

LONE = "half \ud83d of a smile"
LONE_JSON = b'"half \\ud83d of a smile"'  # as JSON.stringify writes it
WAIT = 60.0  # seconds: a call not answered by then never will be


class Raw:
    """`teaminbox mcp` spoken to in JSON-RPC lines written by hand."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.next_id = 1

    async def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        await self.proc.stdin.drain()

    async def answer(self, msg_id: int | str) -> tuple[bytes, dict[str, Any]]:
        """The answer to `msg_id`: its line as written, and parsed (as JSON.parse would)."""
        assert self.proc.stdout is not None
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), WAIT)
            assert line, f"the server closed stdout (exit {await self.proc.wait()})"
            assert line.endswith(b"\n") and b"\n" not in line[:-1]
            data = json.loads(line)
            if data.get("id") == msg_id and "method" not in data:
                return line, data

    async def call(self, tool: str, arguments: str) -> tuple[bytes, dict[str, Any]]:
        """tools/call with `arguments` as JSON text, exactly as given."""
        msg_id = self.next_id
        self.next_id += 1
        line = (
            f'{{"jsonrpc":"2.0","id":{msg_id},"method":"tools/call",'
            f'"params":{{"name":"{tool}","arguments":{arguments}}}}}'
        )
        await self.send(line.encode())
        raw, data = await self.answer(msg_id)
        assert "result" in data, data
        return raw, data["result"]


@asynccontextmanager
async def mcp_process(teams: Teams) -> AsyncIterator[asyncio.subprocess.Process]:
    """`teaminbox mcp` on the world's HOME with pipes; still serving when the test is done
    with it, then its stdin closed and its exit awaited."""
    with open(teams.home / "mcp-stderr.log", "ab") as errlog:
        proc = await asyncio.create_subprocess_exec(
            TEAMINBOX,
            *("mcp", "--history", str(teams.home / "h.db")),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=errlog,
            env=teams.env(),
            cwd=str(teams.home),
            limit=2**24,
        )
        try:
            yield proc
            assert proc.returncode is None  # still serving after everything the test did
        finally:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), WAIT)
            finally:
                if proc.returncode is None:
                    proc.kill()


@asynccontextmanager
async def raw_served(teams: Teams) -> AsyncIterator[Raw]:
    async with mcp_process(teams) as proc:
        raw = Raw(proc)
        await raw.send(
            b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":'
            b'"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}'
        )
        _, init = await raw.answer(0)
        assert init["result"]["serverInfo"]["name"] == "teaminbox"
        await raw.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield raw


@asynccontextmanager
async def parsed_served(teams: Teams) -> AsyncIterator[ClientSession]:
    """The SDK's ClientSession over `teaminbox mcp`'s stdio, each line read with json.loads
    and written with json.dumps (a lone surrogate as its escape either way)."""
    async with mcp_process(teams) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        stdin, stdout = proc.stdin, proc.stdout
        read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)

        async def reader() -> None:
            async with read_send:
                while line := await stdout.readline():
                    msg = jsonrpc_message_adapter.validate_python(json.loads(line), by_name=False)
                    await read_send.send(SessionMessage(msg))

        async def writer() -> None:
            async with write_recv:
                async for sm in write_recv:
                    data = sm.message.model_dump(mode="json", by_alias=True, exclude_unset=True)
                    stdin.write(json.dumps(data).encode() + b"\n")
                    await stdin.drain()

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            tg.start_soon(writer)
            async with ClientSession(read_recv, write_send, read_timeout_seconds=WAIT) as s:
                await s.initialize()
                yield s
            tg.cancel_scope.cancel()


def lone_to_lead(teams: Teams) -> None:
    """A teammate's message with a lone surrogate in the lead's inbox, escaped as written."""
    lead = teams.cinbox("team-lead")
    msg = claude_entry("researcher", LONE, "2026-02-09T18:00:00.000Z", read=False)
    rewrite(lead, [*entries(lead), msg])
    assert LONE_JSON in lead.read_bytes()


# --- raw lines ------------------------------------------------------------------------------


async def test_a_teammates_lone_surrogate_is_read_back_as_written(teams: Teams) -> None:
    lone_to_lead(teams)
    async with raw_served(teams) as raw:
        for _ in range(2):  # answered, and answered again: the server did not exit
            line, res = await raw.call("read_messages", '{"team":"alpha","inbox":"team-lead"}')
            assert not res.get("isError"), res
            assert LONE_JSON in line  # structuredContent's text, escaped as JSON.stringify does
            last = res["structuredContent"]["messages"][-1]
            assert (last["from"], last["text"]) == ("researcher", LONE)
            as_text = json.loads(res["content"][0]["text"])
            assert as_text == res["structuredContent"]
        _, teams_res = await raw.call("list_teams", "{}")
        assert len(teams_res["structuredContent"]["teams"]) == 2


async def test_a_lone_surrogate_in_the_arguments_is_answered_and_sent_as_written(
    teams: Teams,
) -> None:
    async with raw_served(teams) as raw:
        args = '{"team":"alpha","to":"researcher","text":"half \\ud83d of a smile"}'
        _, res = await raw.call("send_message", args)
        assert not res.get("isError"), res
        [sent] = res["structuredContent"]["results"]
        assert sent["ok"] is True
        data = teams.cinbox("researcher").read_bytes()
        assert LONE_JSON in data  # written as JSON.stringify writes it
        assert [e["text"] for e in json.loads(data)].count(LONE) == 1

        # found again by a query holding one, and given back as written
        line, found = await raw.call("search_messages", '{"query":"half \\ud83d of"}')
        assert not found.get("isError"), found
        assert [m["id"] for m in found["structuredContent"]["messages"]] == [sent["messageId"]]
        assert found["structuredContent"]["messages"][0]["text"] == LONE
        assert found["structuredContent"]["query"] == "half \ud83d of"
        assert LONE_JSON in line


async def test_a_request_that_is_no_message_is_refused_not_left_waiting(teams: Teams) -> None:
    async with raw_served(teams) as raw:
        await raw.send(b'{"jsonrpc":"2.0","id":"bad-1","method":"tools/call","params":"x"}')
        _, refused = await raw.answer("bad-1")
        assert refused["error"]["code"] == -32600, refused
        await raw.send(b"this is not JSON")
        _, res = await raw.call("list_teams", "{}")
        assert len(res["structuredContent"]["teams"]) == 2


# --- the SDK's client ----------------------------------------------------------------------


async def test_the_sdk_client_reads_and_sends_lone_surrogates(teams: Teams) -> None:
    lone_to_lead(teams)
    async with parsed_served(teams) as s:
        got = await call(s, "read_messages", team="alpha", inbox="team-lead")
        assert LONE in [m["text"] for m in got["messages"]]
        sent = await call(s, "send_message", team="alpha", to="researcher", text=LONE)
        assert sent["results"][0]["ok"] is True
        assert LONE_JSON in teams.cinbox("researcher").read_bytes()
        back = await call(s, "read_messages", team="alpha", inbox="researcher")
        assert back["messages"][-1]["text"] == LONE
        assert len((await call(s, "list_teams"))["teams"]) == 2
