"""What each `SendMessage` call in a Claude Code transcript wrote to an inbox.

Claude Code prunes an entry from its inbox file within a second of delivering it; the
sender's transcript keeps the call for good. An assistant row holds the `tool_use`
(`input`: `to`, `message`, `summary`); a later user row holds its `tool_result`, and for a
send that wrote an entry the result (the row's `toolUseResult`, and the same JSON as the
block's text) is `{success: true, msg_id, routing: {sender, senderColor, target, ...}}`,
where `msg_id` is the entry's own and `routing.sender` the `from` it was written with
(`routing.content` is cut to 50 characters: the text comes from the call's input).

Only sends whose result carries a `msg_id` count: a structured message (a shutdown or
plan answer: Claude Code writes its own frame), a refused one (`to: "user"`, `to: "*"`,
which 2.1.197 and 2.1.332 refuse) or a failed one wrote nothing of that id. Rows are
parsed by the caller (transcripts.Stats); nothing here reads a file.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import attrs
import orjson

MAX_PENDING = 256  # SendMessage calls remembered until their result row comes
MAX_ID = 256  # characters of a msg_id taken (Claude Code's are UUIDs)
TOOL = "SendMessage"


@attrs.frozen
class Sent:
    """One SendMessage call that wrote an inbox entry."""

    msg_id: str
    to: str
    text: str
    summary: str | None
    timestamp: str  # the result row's: the entry was written just before it
    sender: str | None  # routing.sender: the entry's `from` (None: the result did not say)
    color: str | None  # routing.senderColor: the entry's `color` (the lead's entries have none)

    def entry(self, sender: str) -> dict[str, Any]:
        """The inbox entry as far as the transcript knows it (no `read`, no `msgV`)."""
        out: dict[str, Any] = {"from": sender, "text": self.text}
        if self.summary is not None:
            out["summary"] = self.summary
        out["timestamp"] = self.timestamp
        if self.color is not None:
            out["color"] = self.color
        out["msg_id"] = self.msg_id
        return out


@attrs.frozen
class _Call:
    to: str
    text: str
    summary: str | None
    timestamp: str


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _blocks(row: dict[str, Any]) -> list[dict[str, Any]]:
    msg = row.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _result(block: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON object a tool_result block's text holds (Claude Code may append its own
    `<system-reminder>` after it)."""
    content = block.get("content")
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict)]
        content = next((p for p in parts if isinstance(p, str)), None)
    if not isinstance(content, str) or not content.startswith("{"):
        return None
    for text in (content, content.split("\n<system-reminder>", 1)[0].rstrip()):
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            continue
        return value if isinstance(value, dict) else None
    return None


def _msg_id(value: Any) -> str | None:
    ok = isinstance(value, str) and 0 < len(value) <= MAX_ID and "\x00" not in value
    return value if ok else None


class SendLog:
    """A transcript's SendMessage calls, fed row by row in file order; `take` hands over
    the sends found since it was last called."""

    def __init__(self) -> None:
        self.calls: OrderedDict[str, _Call] = OrderedDict()  # tool_use id -> the call
        self.found: list[Sent] = []

    def assistant(self, row: dict[str, Any]) -> None:
        ts = _str(row.get("timestamp")) or ""
        for b in _blocks(row):
            if b.get("type") != "tool_use" or b.get("name") != TOOL:
                continue
            uid, inp = b.get("id"), b.get("input")
            if not isinstance(uid, str) or not isinstance(inp, dict):
                continue
            to, text = inp.get("to"), inp.get("message")
            if isinstance(to, str) and to and isinstance(text, str):
                self.calls[uid] = _Call(to, text, _str(inp.get("summary")), ts)
                self.calls.move_to_end(uid)
                while len(self.calls) > MAX_PENDING:
                    self.calls.popitem(last=False)

    def user(self, row: dict[str, Any]) -> None:
        results = [
            b
            for b in _blocks(row)
            if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)
        ]
        whole = row.get("toolUseResult")
        for b in results:
            call = self.calls.pop(b["tool_use_id"], None)
            if call is None:
                continue
            res = whole if len(results) == 1 and isinstance(whole, dict) else _result(b)
            if res is None or res.get("success") is not True:
                continue
            msg_id = _msg_id(res.get("msg_id"))
            ts = _str(row.get("timestamp")) or call.timestamp
            if msg_id is None or not ts:
                continue
            routing = res.get("routing")
            # routing holds the summary as written (absent: none); without it, the call's
            summary = _str(routing.get("summary")) if isinstance(routing, dict) else call.summary
            routing = routing if isinstance(routing, dict) else {}
            self.found.append(
                Sent(
                    msg_id=msg_id,
                    to=call.to,
                    text=call.text,
                    summary=summary,
                    timestamp=ts,
                    sender=_str(routing.get("sender")) or None,
                    color=_str(routing.get("senderColor")),
                )
            )

    def take(self) -> list[Sent]:
        out, self.found = self.found, []
        return out


def from_hook(payload: Any, timestamp: str) -> Sent | None:
    """The send a `PostToolUse` hook saw (its stdin, as the spool kept it): the call's
    `tool_input` and, in `tool_response`, the same result a transcript's row holds;
    `timestamp` is when the hook ran (the entry was written just before)."""
    if not isinstance(payload, dict) or payload.get("tool_name") != TOOL:
        return None
    inp, res = payload.get("tool_input"), payload.get("tool_response")
    if not isinstance(inp, dict) or not isinstance(res, dict) or res.get("success") is not True:
        return None
    to, text, msg_id = inp.get("to"), inp.get("message"), _msg_id(res.get("msg_id"))
    if not isinstance(to, str) or not to or not isinstance(text, str) or msg_id is None:
        return None
    routing = res.get("routing")
    summary = (
        _str(routing.get("summary")) if isinstance(routing, dict) else _str(inp.get("summary"))
    )
    routing = routing if isinstance(routing, dict) else {}
    return Sent(
        msg_id=msg_id,
        to=to,
        text=text,
        summary=summary,
        timestamp=timestamp,
        sender=_str(routing.get("sender")) or _str(payload.get("agent_type")) or None,
        color=_str(routing.get("senderColor")),
    )
