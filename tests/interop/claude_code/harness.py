"""Run the real Claude Code CLI offline: install, scratch HOME, a pty, a scripted fake API.

- `install(version)`: `npm install @anthropic-ai/claude-code@<version>` once into
  `${TEAMINBOX_CACHE:-~/.cache/teaminbox}/claude-code/<version>` (idempotent, locked,
  atomic: a half-finished install is never used).
- `make_home(...)`: a scratch HOME whose `.claude.json` skips onboarding, approves the
  dummy API key and trusts the working folder.
- `FakeApi`: a threaded Messages API on 127.0.0.1 (SSE streaming and plain JSON), answering
  from a `Script` (a small declarative state machine: rules keyed on who is asking and
  what the last user content contains) and logging every request it got.
- `Pty`: the CLI under a pseudo-terminal in its own session/process group, with the
  output kept for failure messages and a teardown that always ends the group.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import termios
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

VERSIONS: tuple[str, ...] = ("2.1.197", "2.1.332")
MODEL = "claude-sonnet-4-5-20250929"
API_KEY = "sk-ant-api03-teaminbox-interop-dummy-key-0123456789abcdefXYZ"
PACKAGE = "@anthropic-ai/claude-code"
INSTALL_TIMEOUT = 900.0

TEAMMATE_MARKER = "# Agent Teammate Communication"
# Tools 2.1.3xx only lists after a ToolSearch "select:" (loaded together, once).
DEFERRED = ("SendMessage", "TaskCreate", "TaskUpdate")


class HarnessError(AssertionError):
    """A failure of the harness or of Claude Code, with the evidence in its message."""


# --------------------------------------------------------------------------- install


def cache_root() -> Path:
    base = os.environ.get("TEAMINBOX_CACHE") or str(Path.home() / ".cache" / "teaminbox")
    return Path(base) / "claude-code"


def _binary(prefix: Path) -> Path:
    return prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"


def _version_of(exe: Path) -> str:
    out = subprocess.run(
        [str(exe), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
        stdin=subprocess.DEVNULL,
    )
    return out.stdout.strip().split(" ")[0]


def install(version: str) -> Path:
    """The `claude` executable of `version`, installed with npm on first use (a few s cached)."""
    root = cache_root()
    prefix = root / version
    marker = prefix / ".teaminbox-installed"
    if marker.is_file() and _binary(prefix).is_file():
        return _binary(prefix)
    root.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise HarnessError("npm is not on PATH: the Claude Code interop tests need Node.js + npm")
    with open(root / f".{version}.lock", "w") as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)  # another pytest process may be installing it
        if marker.is_file() and _binary(prefix).is_file():
            return _binary(prefix)
        tmp = root / f".tmp-{version}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        (tmp / "package.json").write_text('{"private": true}\n')
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            "--include=optional",
            f"{PACKAGE}@{version}",
        ]
        env = {**os.environ, "npm_config_update_notifier": "false"}
        try:
            res = subprocess.run(
                cmd, cwd=tmp, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=env
            )
        except subprocess.TimeoutExpired as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise HarnessError(f"`{' '.join(cmd)}` took over {INSTALL_TIMEOUT:.0f} s") from exc
        exe = _binary(tmp)
        if res.returncode != 0 or not exe.is_file():
            shutil.rmtree(tmp, ignore_errors=True)
            raise HarnessError(
                f"`{' '.join(cmd)}` failed ({res.returncode}):\n{res.stdout[-3000:]}\n"
                f"{res.stderr[-3000:]}"
            )
        got = _version_of(exe)
        if got != version:
            shutil.rmtree(tmp, ignore_errors=True)
            raise HarnessError(f"installed {PACKAGE}@{version} but `claude --version` says {got!r}")
        (tmp / ".teaminbox-installed").write_text(version + "\n")
        if prefix.exists():
            shutil.rmtree(prefix)
        os.rename(tmp, prefix)
        return _binary(prefix)


# --------------------------------------------------------------------------- HOME


def project_dir_name(cwd: Path | str) -> str:
    """How Claude Code names a project's transcript folder: every non-alphanumeric -> '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def make_home(home: Path, cwd: Path) -> None:
    """A scratch HOME for Claude Code: onboarded, the dummy key approved, `cwd` trusted."""
    home.mkdir(parents=True, exist_ok=True)
    (home / ".claude").mkdir(exist_ok=True)
    config = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": "2.1.332",
        "theme": "dark",
        "numStartups": 5,
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "bypassPermissionsModeAccepted": True,
        "hasSeenTasksHint": True,
        "autoUpdates": False,
        "projects": {
            str(cwd): {
                "hasTrustDialogAccepted": True,
                "hasCompletedProjectOnboarding": True,
                "allowedTools": [],
                "projectOnboardingSeenCount": 5,
            }
        },
    }
    (home / ".claude.json").write_text(json.dumps(config, indent=2))


def claude_env(home: Path, port: int) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        {
            "HOME": str(home),
            "USER": os.environ.get("USER", "root"),
            "TERM": "xterm-256color",
            "COLUMNS": "200",
            "LINES": "50",
            "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
            "ANTHROPIC_API_KEY": API_KEY,
            "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
            "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
        }
    )
    return env


# --------------------------------------------------------------------------- fake API


@dataclass
class Block:
    """One content block of a scripted answer: text, or a tool call."""

    text: str | None = None
    tool: str | None = None
    input: dict[str, Any] = field(default_factory=dict)


@dataclass
class Reply:
    blocks: list[Block]

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(b.tool for b in self.blocks) else "end_turn"

    def describe(self) -> str:
        parts = [
            f"{b.tool}({json.dumps(b.input)[:120]})" if b.tool else f"text({(b.text or '')[:60]!r})"
            for b in self.blocks
        ]
        return " + ".join(parts)


def say(text: str) -> Reply:
    return Reply([Block(text=text)])


def call(tool: str, input: dict[str, Any], text: str | None = None) -> Reply:
    blocks = [Block(text=text)] if text else []
    return Reply([*blocks, Block(tool=tool, input=input)])


@dataclass
class Request:
    """One request the fake API got, with what the script answered."""

    index: int
    t: float
    method: str
    path: str
    body: dict[str, Any]
    who: str = "other"  # "lead", "teammate:<name>" or "other"
    rule: str | None = None
    reply: str | None = None
    status: int = 200
    content: list[dict[str, Any]] = field(default_factory=list)  # the blocks answered
    usage: dict[str, int] = field(default_factory=dict)  # input_tokens, output_tokens sent

    @property
    def system(self) -> str:
        return system_text(self.body)

    @property
    def tools(self) -> list[str]:
        return [t.get("name", "") for t in self.body.get("tools") or [] if isinstance(t, dict)]

    @property
    def last_user(self) -> str:
        return last_user_text(self.body)

    def tool_results(self) -> list[dict[str, Any]]:
        """The tool_result blocks of the last user message."""
        users = [m for m in self.body.get("messages") or [] if m.get("role") == "user"]
        if not users or not isinstance(users[-1].get("content"), list):
            return []
        return [
            b
            for b in users[-1]["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        ]

    def tool_use_ids(self, tool: str | None = None) -> list[str]:
        """The ids of the tool calls answered to this request."""
        return [
            str(b["id"])
            for b in self.content
            if b.get("type") == "tool_use" and (tool is None or b.get("name") == tool)
        ]

    def summary(self) -> str:
        last = self.last_user.replace("\n", " ")
        return (
            f"#{self.index} +{self.t:.1f}s {self.method} {self.path} {self.status} who={self.who}"
            f" rule={self.rule} reply={self.reply} last_user={last[-200:]!r}"
        )


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    out: list[str] = []
    if isinstance(content, list):
        for b in content:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "text":
                out.append(str(b.get("text", "")))
            elif b.get("type") == "tool_result":
                out.append(_text_of(b.get("content", "")))
    return "\n".join(out)


def system_text(body: dict[str, Any]) -> str:
    return _text_of(body.get("system", ""))


def last_user_text(body: dict[str, Any]) -> str:
    for m in reversed(body.get("messages") or []):
        if m.get("role") == "user":
            return _text_of(m.get("content"))
    return ""


def conversation_text(body: dict[str, Any], first: int = 3) -> str:
    """The text of the first few user messages (where a teammate's spawn prompt is)."""
    users = [m for m in body.get("messages") or [] if m.get("role") == "user"]
    return "\n".join(_text_of(m.get("content")) for m in users[:first])


Matcher = Callable[[Request], bool]


@dataclass
class Rule:
    """Answer `reply` to the next request from `who` whose last user content contains `when`.

    `who`: "lead", "teammate" (any), a teammate's name, "other" or "*". `when`: a
    substring (or a predicate). A rule fires at most `times` times; rules are tried in
    order, and `after` names rules that must have fired first (the state).
    """

    name: str
    who: str
    when: str | Matcher
    reply: Reply | Callable[[Request], Reply]
    times: int = 1
    after: tuple[str, ...] = ()
    fired: int = 0

    def matches(self, req: Request, fired: dict[str, int]) -> bool:
        if self.fired >= self.times:
            return False
        if any(fired.get(a, 0) == 0 for a in self.after):
            return False
        if self.who != "*":
            if self.who == "teammate":
                if not req.who.startswith("teammate:"):
                    return False
            elif self.who in ("lead", "other"):
                if req.who != self.who:
                    return False
            elif req.who != f"teammate:{self.who}":
                return False
        if callable(self.when):
            return self.when(req)
        return self.when in req.last_user


class Script:
    """The fake model: ordered rules, a default answer, and what fired when."""

    def __init__(self, rules: Sequence[Rule], default: Reply | None = None) -> None:
        self.rules = list(rules)
        self.default = default or say("OK.")
        self.lock = threading.Lock()
        self.pending: dict[str, tuple[str, Reply]] = {}

    def fired(self) -> dict[str, int]:
        return {r.name: r.fired for r in self.rules}

    def answer(self, req: Request) -> Reply:
        with self.lock:
            pending = self.pending.pop(req.who, None)
            if pending is not None:
                # the call a rule wanted, now that ToolSearch has loaded its schema
                req.rule = pending[0]
                return pending[1]
            fired = self.fired()
            for rule in self.rules:
                if rule.matches(req, fired):
                    rule.fired += 1
                    req.rule = rule.name
                    reply = rule.reply(req) if callable(rule.reply) else rule.reply
                    deferred = [b.tool for b in reply.blocks if b.tool and b.tool not in req.tools]
                    if deferred and "ToolSearch" in req.tools:
                        # 2.1.3xx defers SendMessage and Task*: load them first.
                        names = list(dict.fromkeys([*DEFERRED, *deferred]))
                        self.pending[req.who] = (rule.name, reply)
                        req.rule = f"{rule.name}:ToolSearch"
                        return call("ToolSearch", {"query": "select:" + ",".join(names)})
                    return reply
            req.rule = "default"
            return self.default


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


# --------------------------------------------------------------------------- pty

ANSI = re.compile(
    rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]"  # CSI
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|\x1b[()][0-9A-Za-z]|\x1b[=>78MDEc]"
)


def strip_ansi(data: bytes) -> str:
    text = ANSI.sub(b"", data).decode("utf-8", "replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return re.sub(r"\n{3,}", "\n\n", text)


class Pty:
    """A command under a pseudo-terminal, leading its own session and process group."""

    def __init__(
        self, argv: Sequence[str], env: dict[str, str], cwd: Path, rows: int = 50, cols: int = 200
    ) -> None:
        self.argv = list(argv)
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.output = bytearray()
        self._lock = threading.Lock()
        self.proc = subprocess.Popen(
            self.argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            # the pty becomes the controlling terminal of the new session
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),  # noqa: PLW0108
            close_fds=True,
        )
        os.close(slave)
        self.pgid = self.proc.pid
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                r, _, _ = select.select([self.master], [], [], 0.2)
            except (OSError, ValueError):
                return
            if not r:
                if self.proc.poll() is not None:
                    return
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output += data
            self._answer_queries(data)

    def _answer_queries(self, data: bytes) -> None:
        # Terminal queries an xterm would answer; a TUI may wait for them.
        if b"\x1b[6n" in data:
            self.write(b"\x1b[1;1R")
        if b"\x1b[c" in data or b"\x1b[0c" in data:
            self.write(b"\x1b[?62;22c")

    def write(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode()
        with contextlib.suppress(OSError):
            os.write(self.master, data)

    def type(self, text: str, enter: bool = True, delay: float = 0.02) -> None:
        """Type like a person: a character at a time, then Enter."""
        for ch in text:
            self.write(ch)
            time.sleep(delay)
        if enter:
            time.sleep(0.2)
            self.write(b"\r")

    def text(self) -> str:
        with self._lock:
            return strip_ansi(bytes(self.output))

    def tail(self, chars: int = 4000) -> str:
        return self.text()[-chars:]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)

    def close(self) -> None:
        """End the whole process group (TERM, then KILL) and close the pty. Idempotent."""
        if self.alive():
            self.signal_group(signal.SIGTERM)
            if self.wait(5) is None:
                self.signal_group(signal.SIGKILL)
                self.wait(5)
        # stragglers that outlived the leader
        self.signal_group(signal.SIGKILL)
        self._reader.join(2)
        with contextlib.suppress(OSError):
            os.close(self.master)


def wait_until(
    pred: Callable[[], Any], timeout: float, what: str, explain: Callable[[], str] = lambda: ""
) -> Any:
    """Poll `pred` every 50 ms; its first truthy value, or a HarnessError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise HarnessError(f"timed out after {timeout:.0f} s waiting for {what}\n{explain()}")
        time.sleep(0.05)


@contextlib.contextmanager
def fake_api(script: Script) -> Iterator[FakeApi]:
    api = FakeApi(script).start()
    try:
        yield api
    finally:
        api.stop()


# --------------------------------------------------------------------------- session


def teaminbox_exe() -> Path:
    """This project's CLI in the venv that runs the tests."""
    import sys

    return Path(sys.executable).parent / "teaminbox"


class Session:
    """One interactive Claude Code session: scratch HOME, fake API, recorder, pty.

    Use as a context manager; `close()` always ends the process group, the recorder
    and the fake API, whatever happened.
    """

    def __init__(
        self,
        version: str,
        base: Path,
        script: Script,
        prompt: str,
        extra_args: Sequence[str] = (),
        hard_limit: float = 180.0,
    ) -> None:
        from .recorder import Recorder

        self.version = version
        self.base = base
        self.home = base / "home"
        self.cwd = base / "work"
        self.claude_dir = self.home / ".claude"
        self.script = script
        self.prompt = prompt
        self.extra_args = list(extra_args)
        self.api = FakeApi(script)
        self.recorder = Recorder(self.claude_dir)
        self.pty: Pty | None = None
        self.exit_code: int | None = None
        self.exit_how: str | None = None
        self.t_start = 0.0
        self.t_exit = 0.0
        self.timings: dict[str, float] = {}
        self.exit_log: list[str] = []
        # the last resort: whatever the test does, the CLI does not outlive this
        self.watchdog = threading.Timer(hard_limit, self._expire)
        self.watchdog.daemon = True
        self.expired = False

    def _expire(self) -> None:
        self.expired = True
        if self.pty is not None:
            self.pty.signal_group(signal.SIGKILL)

    def __enter__(self) -> Session:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        exe = install(self.version)
        self.cwd.mkdir(parents=True, exist_ok=True)
        make_home(self.home, self.cwd)
        (self.claude_dir / "teams").mkdir(parents=True, exist_ok=True)
        self.api.start()
        self.recorder.start()
        argv = [str(exe), "--model", MODEL, "--teammate-mode", "in-process", *self.extra_args]
        argv.append(self.prompt)
        self.t_start = time.monotonic()
        self.api.t0 = self.recorder.t0 = self.t_start
        self.pty = Pty(argv, claude_env(self.home, self.api.port), self.cwd)
        self.watchdog.start()

    def mark(self, name: str) -> None:
        self.timings[name] = time.monotonic() - self.t_start

    # -- waiting

    def explain(self) -> str:
        tail = self.pty.tail(3000) if self.pty else "(not started)"
        expired = " KILLED at the hard limit" if self.expired else ""
        return (
            f"--- Claude Code {self.version}{expired}, HOME={self.home}, exit={self.exit_code}"
            f" ({self.exit_how})\n--- pty output (tail):\n{tail}\n"
            f"--- fake API requests:\n{self.api.log()}\n"
            f"--- files under ~/.claude (teams, tasks):\n{self.recorder.describe()}\n"
            f"--- exit:\n" + "\n".join(self.exit_log)
        )

    def wait(self, pred: Callable[[], Any], timeout: float, what: str) -> Any:
        def check() -> Any:
            if self.pty is not None and not self.pty.alive():
                raise HarnessError(f"claude exited while waiting for {what}\n{self.explain()}")
            return pred()

        return wait_until(check, timeout, what, self.explain)

    def wait_rule(self, name: str, timeout: float = 30.0) -> Request:
        """The request on which the script's rule `name` fired."""

        def fired() -> Request | None:
            hits = self.api.find(lambda r: r.rule == name)
            return hits[0] if hits else None

        req: Request = self.wait(fired, timeout, f"the fake API rule {name!r} to fire")
        self.mark(name)
        return req

    def team_dirs(self) -> list[str]:
        return [d for d in self.recorder.dir_paths("teams/*") if d.count(os.sep) == 1]

    def team(self, timeout: float = 30.0) -> str:
        """The session's team folder name (`session-<8 hex>`)."""
        dirs = self.wait(
            lambda: [d for d in self.team_dirs() if self.recorder.existed(d)],
            timeout,
            "a team folder under ~/.claude/teams",
        )
        return str(Path(dirs[0]).name)

    # -- acting

    def send_cli(self, team: str, to: str, text: str, summary: str) -> str:
        """The person's message, written by this project's CLI (`teaminbox send`)."""
        cmd = [
            str(teaminbox_exe()),
            "--no-default-roots",
            "--root",
            f"claude={self.claude_dir / 'teams'}",
            "send",
            team,
            to,
            text,
            "--summary",
            summary,
        ]
        env = {**os.environ, "HOME": str(self.home)}
        env.pop("TEAMINBOX_ROOTS", None)
        env.pop("CLAUDE_CONFIG_DIR", None)
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
        if res.returncode != 0:
            raise HarnessError(
                f"`teaminbox send {team} {to}` failed ({res.returncode}): {res.stderr}"
                f"\n{self.explain()}"
            )
        return res.stdout

    def idle(self, quiet: float = 1.5, timeout: float = 20.0) -> bool:
        """Wait until no model request is in flight and none came for `quiet` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.api.quiet_for() >= quiet:
                return True
            time.sleep(0.1)
        return False

    def exit(self, timeout: float = 30.0) -> int | None:
        """/exit typed at an idle prompt; retyped, then Ctrl-C twice and SIGTERM."""
        pty = self.pty
        assert pty is not None
        self.idle()
        t0 = time.monotonic()

        def twice_ctrl_c() -> None:
            pty.write(b"\x03")
            time.sleep(0.3)
            pty.write(b"\x03")

        def retype() -> None:
            pty.write(b"\x1b")  # Escape: close a menu, or interrupt a turn
            time.sleep(0.5)
            pty.write(b"\x15")  # Ctrl-U: clear the input line
            time.sleep(0.2)
            pty.type("/exit")

        steps: list[tuple[str, Callable[[], None], float]] = [
            ("/exit", lambda: pty.type("/exit"), timeout * 0.4),
            ("/exit again", retype, timeout * 0.4),
            ("ctrl-c", twice_ctrl_c, 5),
            ("sigterm", lambda: pty.signal_group(signal.SIGTERM), 10),
        ]
        for how, act, wait_s in steps:
            if not pty.alive():
                break
            mark = len(pty.output)
            act()
            code = pty.wait(wait_s)
            with pty._lock:
                screen = strip_ansi(bytes(pty.output[mark:]))
            self.exit_log.append(
                f"+{time.monotonic() - self.t_start:.1f}s {how}: exit={code};"
                f" the screen said: {screen[-1500:]!r}"
            )
            if code is not None:
                self.exit_how = how
                break
        self.exit_code = pty.proc.poll()
        self.t_exit = time.monotonic() - self.t_start
        self.timings["exit"] = time.monotonic() - t0
        return self.exit_code

    def close(self) -> None:
        self.watchdog.cancel()
        if self.pty is not None:
            if self.pty.alive():
                self.exit_how = self.exit_how or "killed"
            self.pty.close()
            if self.exit_code is None:
                self.exit_code = self.pty.proc.poll()
        # let a deletion that raced the exit land in the recording
        time.sleep(0.1)
        self.recorder.stop()
        if self.api.thread.is_alive():
            self.api.stop()
        self.save_evidence()

    def save_evidence(self) -> None:
        """The request log, pty output and file timeline beside the scratch HOME."""
        with contextlib.suppress(OSError):
            reqs = [
                {
                    "index": r.index,
                    "t": round(r.t, 3),
                    "path": r.path,
                    "who": r.who,
                    "rule": r.rule,
                    "reply": r.reply,
                    "body": r.body,
                }
                for r in self.api.snapshot()
            ]
            (self.base / "api-requests.json").write_text(json.dumps(reqs, indent=1))
            (self.base / "pty.txt").write_text(self.pty.text() if self.pty else "")
            summary = {
                "version": self.version,
                "timings": {k: round(v, 2) for k, v in self.timings.items()},
                "exit": {"how": self.exit_how, "code": self.exit_code, "log": self.exit_log},
                "session_seconds": round(self.t_exit, 2),
            }
            (self.base / "session.json").write_text(json.dumps(summary, indent=1))
            recording = {
                path: [
                    [
                        round(v.t, 4),
                        v.source,
                        None if v.data is None else v.data.decode("utf-8", "replace"),
                    ]
                    for v in self.recorder.versions(path)
                ]
                for path in self.recorder.paths("*")
                if not path.startswith("projects/")
            }
            (self.base / "recording.json").write_text(json.dumps(recording, indent=1))
            (self.base / "events.txt").write_text(
                "".join(f"{t:.4f} {k} {a} {b}\n" for t, k, a, b in self.recorder.events)
            )
            (self.base / "files.txt").write_text(
                self.recorder.describe(("teams/*", "tasks/*", "projects/*"), limit=100_000)
            )
