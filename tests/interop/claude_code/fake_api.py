"""A threaded Messages API on 127.0.0.1 (SSE streaming and plain JSON), answering from a
`Script` and logging every request it got."""

from __future__ import annotations

import contextlib
import itertools
import json
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from .api_script import Matcher, Reply, Request, Script, conversation_text, system_text

MODEL = "claude-sonnet-4-5-20250929"  # the session asks for it, the answers name it
TEAMMATE_MARKER = "# Agent Teammate Communication"


class FakeApi:
    """The Messages API on 127.0.0.1:<ephemeral>, answering from a Script."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[Request] = []
        self.spawned: dict[str, str] = {}  # spawn prompt -> teammate name
        self.in_flight = 0
        self.last_done = time.monotonic()
        self.t0 = time.monotonic()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def _body(self) -> dict[str, Any]:
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    doc = json.loads(raw or b"{}")
                except ValueError:
                    return {"_unparsed": raw[:2000].decode("utf-8", "replace")}
                return doc if isinstance(doc, dict) else {"_body": doc}

            def _send(self, status: int, ctype: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
                self.end_headers()
                self.wfile.write(data)
                self.close_connection = True

            def do_POST(self) -> None:  # noqa: N802
                api.handle(self, "POST", self._body())

            def do_GET(self) -> None:  # noqa: N802
                api.handle(self, "GET", {})

            def do_HEAD(self) -> None:  # noqa: N802
                api.handle(self, "HEAD", {})

        self.handler_class = Handler
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> FakeApi:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)

    # -- requests

    def classify(self, body: dict[str, Any]) -> str:
        """ "teammate:<name>" (its system prompt has the teammate section; the name is
        found by the spawn prompt the lead gave it), "lead" (it has the Agent tool and
        no teammate section) or "other"."""
        if TEAMMATE_MARKER in system_text(body):
            text = conversation_text(body)
            for prompt, name in self.spawned.items():
                if prompt in text:
                    return f"teammate:{name}"
            return "teammate:?"
        tools = [t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)]
        return "lead" if "Agent" in tools else "other"

    def handle(self, h: Any, method: str, body: dict[str, Any]) -> None:
        path = urlsplit(h.path).path
        with self._lock:
            req = Request(len(self.requests), time.monotonic() - self.t0, method, h.path, body)
            self.requests.append(req)
            self.in_flight += 1
        try:
            if method == "POST" and path == "/v1/messages/count_tokens":
                req.reply = "count_tokens"
                h._send(200, "application/json", b'{"input_tokens": 1234}')
                return
            if method != "POST" or path != "/v1/messages":
                req.status = 404
                err = {"type": "error", "error": {"type": "not_found_error", "message": path}}
                h._send(404, "application/json", json.dumps(err).encode())
                return
            req.who = self.classify(body)
            reply = self.script.answer(req)
            req.reply = reply.describe()
            for b in reply.blocks:
                if b.tool == "Agent" and b.input.get("name") and b.input.get("prompt"):
                    self.spawned[str(b.input["prompt"])] = str(b.input["name"])
            if body.get("stream"):
                self._stream(h, req, reply)
            else:
                data = json.dumps(self._message(req, reply)).encode()
                h._send(200, "application/json", data)
        except (BrokenPipeError, ConnectionResetError):
            req.status = 499
        finally:
            with self._lock:
                self.in_flight -= 1
                self.last_done = time.monotonic()

    def _usage(self, req: Request, reply: Reply) -> tuple[dict[str, int], int]:
        size = len(json.dumps(req.body.get("messages", [])))
        usage = {
            "input_tokens": 100 + size // 4,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        out = 5 + sum(len(b.text or json.dumps(b.input)) for b in reply.blocks) // 4
        return usage, out

    def _content(self, reply: Reply) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for b in reply.blocks:
            if b.tool:
                tid = f"toolu_{next(self._ids):04d}{uuid.uuid4().hex[:16]}"
                out.append({"type": "tool_use", "id": tid, "name": b.tool, "input": b.input})
            else:
                out.append({"type": "text", "text": b.text or ""})
        return out

    def _message(self, req: Request, reply: Reply) -> dict[str, Any]:
        usage, out = self._usage(req, reply)
        content = self._content(reply)
        req.content = content
        req.usage = {"input_tokens": usage["input_tokens"], "output_tokens": out}
        return {
            "id": f"msg_{uuid.uuid4().hex[:24]}",
            "type": "message",
            "role": "assistant",
            "model": req.body.get("model", MODEL),
            "content": content,
            "stop_reason": reply.stop_reason,
            "stop_sequence": None,
            "usage": {**usage, "output_tokens": out},
        }

    def _stream(self, h: Any, req: Request, reply: Reply) -> None:
        msg = self._message(req, reply)
        usage, out = self._usage(req, reply)
        events: list[tuple[str, dict[str, Any]]] = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {**msg, "content": [], "stop_reason": None, "usage": usage},
                },
            )
        ]
        for i, block in enumerate(msg["content"]):
            if block["type"] == "tool_use":
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            events += [
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": start},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": i, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": i}),
            ]
        events += [
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                    "usage": {"output_tokens": out},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        # Without it Claude Code waits on the kept-alive socket after its first tool call.
        h.send_header("Connection", "close")
        h.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        h.end_headers()
        for name, data in events:
            h.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        h.wfile.flush()
        h.close_connection = True

    # -- queries

    def quiet_for(self) -> float:
        """Seconds since the last answer, 0 while a request is being answered."""
        with self._lock:
            return 0.0 if self.in_flight else time.monotonic() - self.last_done

    def snapshot(self) -> list[Request]:
        with self._lock:
            return list(self.requests)

    def find(self, pred: Matcher) -> list[Request]:
        return [r for r in self.snapshot() if r.body and pred(r)]

    def log(self, last: int = 80) -> str:
        reqs = self.snapshot()
        lines = [r.summary() for r in reqs[-last:]]
        skipped = len(reqs) - len(lines)
        return (f"... {skipped} earlier requests\n" if skipped > 0 else "") + "\n".join(lines)


@contextlib.contextmanager
def fake_api(script: Script) -> Iterator[FakeApi]:
    api = FakeApi(script).start()
    try:
        yield api
    finally:
        api.stop()
