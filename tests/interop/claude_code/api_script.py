"""The fake model's script: scripted replies, each request as the rules see it, and a
`Script` (a small declarative state machine: rules keyed on who is asking and what the
last user content contains)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Tools 2.1.3xx only lists after a ToolSearch "select:" (loaded together, once).
DEFERRED = ("SendMessage", "TaskCreate", "TaskUpdate")


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
