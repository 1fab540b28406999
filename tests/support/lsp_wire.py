"""LSP on the wire, with no LSP library between: Content-Length frames, the messages in
them, the real `teaminbox serve` over pipes, and a reader of the frames it writes back
(over its stdout or a TCP socket)."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from typing import IO, Any

SERVE = ("-m", "teaminbox", "serve")  # the interpreter's arguments
SERVER = [sys.executable, *SERVE]
WAIT = 60.0  # seconds a read waits before the test fails (never hangs)


def frame(*msgs: Any) -> bytes:
    """Each message as JSON in a Content-Length frame, one after another."""
    out = b""
    for msg in msgs:
        body = json.dumps(msg).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def request(msg_id: int, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}}


def notification(method: str, params: Any = None) -> dict[str, Any]:
    """Without params when none are given (as `exit` is sent)."""
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    return msg


def initialize(msg_id: int, init: dict[str, Any], **params: Any) -> dict[str, Any]:
    """`initialize` with these initializationOptions; `params` come first (processId=None)."""
    return request(
        msg_id, "initialize", {**params, "capabilities": {}, "initializationOptions": init}
    )


INITIALIZED = notification("initialized", {})
EXIT = notification("exit")


def serve(
    env: Mapping[str, str] | None = None, args: Sequence[str] = SERVE, **popen: Any
) -> subprocess.Popen[bytes]:
    """The real server (`python -m teaminbox serve` unless `args` say otherwise) over pipes,
    as the extension spawns it; `popen` overrides Popen's arguments (stderr=None, ...)."""
    kwargs: dict[str, Any] = {
        "stdin": subprocess.PIPE,
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "env": env,
        **popen,
    }
    return subprocess.Popen([sys.executable, *args], **kwargs)


class Messages:
    """The frames a server writes to a pipe (its stdout) or a socket, read when asked for:
    a read blocks until a whole frame is in, the stream ends, or its deadline passes (then
    it fails the test). Nothing else may read the stream."""

    def __init__(self, stream: IO[bytes] | socket.socket) -> None:
        self.stream = stream
        self.buf = b""
        self.done = False

    def _read(self) -> bytes:
        try:
            if isinstance(self.stream, socket.socket):
                return self.stream.recv(65536)
            return os.read(self.stream.fileno(), 65536)
        except OSError:  # a reset connection: its end
            return b""

    def _parse(self) -> dict[str, Any] | None:
        """The first whole frame in the buffer, taken out of it."""
        end = self.buf.find(b"\r\n\r\n")
        if end < 0:
            return None
        length = None
        for line in self.buf[:end].split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name == b"Content-Length":
                length = int(value)
        assert length is not None, f"a frame without Content-Length: {self.buf[:end]!r}"
        if len(self.buf) < end + 4 + length:
            return None
        body = self.buf[end + 4 : end + 4 + length]
        self.buf = self.buf[end + 4 + length :]
        msg: dict[str, Any] = json.loads(body)
        return msg

    def _next(self, deadline: float, what: str) -> dict[str, Any] | None:
        while (msg := self._parse()) is None and not self.done:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.stream], [], [], left)[0]:
                raise AssertionError(what)
            data = self._read()
            self.buf += data
            self.done = not data
        return msg

    def next(self, timeout: float = WAIT) -> dict[str, Any] | None:
        """The next message, or None once the stream has ended."""
        return self._next(time.monotonic() + timeout, f"nothing from the server in {timeout} s")

    def responses(self, *ids: int, timeout: float = WAIT) -> dict[int, dict[str, Any]]:
        """The responses to these requests, in whatever order they come (the messages before
        and between them are passed over)."""
        deadline = time.monotonic() + timeout
        got: dict[int, dict[str, Any]] = {}
        while missing := [i for i in ids if i not in got]:
            msg = self._next(deadline, f"no response to {missing} in {timeout} s (held?)")
            assert msg is not None, f"the stream ended before the response to {missing}"
            if "method" not in msg and msg.get("id") in missing:
                got[msg["id"]] = msg
        return got

    def response(self, msg_id: int, timeout: float = WAIT) -> dict[str, Any]:
        return self.responses(msg_id, timeout=timeout)[msg_id]

    def ended(self, timeout: float = WAIT) -> list[dict[str, Any]]:
        """Everything until the stream ends (fails if it does not end in time)."""
        out = []
        while (msg := self.next(timeout)) is not None:
            out.append(msg)
        return out
