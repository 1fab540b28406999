"""`teaminbox mcp`'s stdio: one JSON-RPC message a line, read as JSON.parse reads it and
written as JSON.stringify writes it.

A lone UTF-16 surrogate is a JavaScript string's code unit like any other: Claude Code
writes one when it cuts an emoji in half, and a client may send one back in a call's
arguments (`"a\\ud83db"`, valid JSON). The SDK's own stdio transport parses and writes
with pydantic's JSON, which refuses such an escape (the call is dropped, never answered)
and cannot write such a string (its writer fails and the server exits). Here a line
pydantic's parser refuses is parsed again by the standard library, which keeps the code
unit, and every message is written by `jsonio.dumps_line`, which escapes it as `\\ud83d`.
The SDK's message models are used as they are: only the bytes on the wire differ.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_REQUEST,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

from .jsonio import dumps_line

log = logging.getLogger("teaminbox")
Received = SessionMessage | Exception  # what the SDK's server reads: a message, or why not


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _invalid_json(err: ValidationError) -> bool:
    """pydantic refused the text itself (not a message's shape)."""
    return any(e["type"] == "json_invalid" for e in err.errors())


def parse(line: bytes) -> SessionMessage | Exception:
    """One line from the client: its message, or the error that says why it is none."""
    text = line.decode("utf-8", "replace")  # as the SDK's transport decodes
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValidationError as err:
        if not _invalid_json(err):
            return err
        first: Exception = err
    try:  # JSON.parse's reading: a lone surrogate escape is kept; NaN and Infinity are not
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return first
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_python(data, by_name=False))
    except ValidationError as err:
        return err


def refusal(line: bytes, err: Exception) -> JSONRPCError | None:
    """The answer to a request that is no valid message but has an id to answer (the SDK
    would drop it, and its caller would wait for ever); None for anything else."""
    try:
        data = json.loads(line.decode("utf-8", "replace"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("method"), str):
        return None
    msg_id = data.get("id")
    if isinstance(msg_id, bool) or not isinstance(msg_id, (str, int)):
        return None
    reason = str(err).splitlines()[0] if str(err) else type(err).__name__
    return JSONRPCError(
        jsonrpc="2.0",
        id=msg_id,
        error=ErrorData(code=INVALID_REQUEST, message=f"not a valid request: {reason}"),
    )


def encode(message: JSONRPCMessage) -> bytes:
    """A message as one line (without its line feed)."""
    return dumps_line(message.model_dump(mode="json", by_alias=True, exclude_unset=True))


def _claim() -> tuple[BinaryIO, BinaryIO]:
    """The protocol's own copies of stdin and stdout. Then fd 0 reads nothing and fd 1 goes
    to stderr, as the SDK's transport arranges: nothing else in the process (a stray print,
    a child) writes into the protocol or reads from it. In place if that cannot be done."""
    try:
        wire_in, wire_out = os.dup(0), os.dup(1)
    except OSError:
        return sys.stdin.buffer, sys.stdout.buffer
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb")


@asynccontextmanager
async def stdio() -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[Received], MemoryObjectSendStream[SessionMessage]]
]:
    """The streams the SDK's server runs on (as `mcp.server.stdio.stdio_server`'s), until
    the client closes stdin and the server has written its last answer."""
    raw_in, raw_out = _claim()
    wire_in, wire_out = anyio.wrap_file(raw_in), anyio.wrap_file(raw_out)
    read_send, read_recv = anyio.create_memory_object_stream[Received](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()  # the reader's own refusals

    async def reader() -> None:
        async with read_send, answers:
            async for line in wire_in:
                if not line.strip():
                    continue
                got = parse(line)
                if isinstance(got, Exception):
                    log.warning("a line from the MCP client is no JSON-RPC message: %s", got)
                    answer = refusal(line, got)
                    if answer is not None:
                        await answers.send(SessionMessage(answer))
                        continue
                await read_send.send(got)

    async def writer() -> None:
        async with write_recv:
            async for msg in write_recv:
                await wire_out.write(encode(msg.message) + b"\n")
                await wire_out.flush()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        yield read_recv, write_send
