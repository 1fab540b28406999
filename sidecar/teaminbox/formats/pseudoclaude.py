"""PseudoClaude's inbox format: a Box object `{"messages": [...]}`.

The array is append-only and an entry's index is its identity, so a message
id pairs the index with a hash of the entry (without `read`).
"""

from __future__ import annotations

import re
import time
from array import array
from datetime import datetime, timezone
from typing import Any

from ..errors import CorruptInbox
from ..frames import Frame
from ..model import Format, Message
from . import canonical, dumps_indented, loads, opt_str, short_hash

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def now_rfc3339_nano() -> str:
    ns = time.time_ns()
    base = datetime.fromtimestamp(ns // 1_000_000_000, tz=timezone.utc)
    return base.strftime("%Y-%m-%dT%H:%M:%S") + f".{ns % 1_000_000_000:09d}Z"


class PseudoClaudeFormat:
    name: Format = "pseudoclaude"

    def empty(self) -> Any:
        return {"messages": []}

    def parse(self, data: bytes, path: str) -> tuple[Any, list[Any]]:
        doc = loads(data, path)
        if not isinstance(doc, dict):
            raise CorruptInbox(
                f"{path}: top level is {type(doc).__name__}, expected an object"
                ' {"messages": [...]}',
                path=path,
            )
        messages = doc.get("messages")
        if messages is None:  # Go writes a nil slice as null
            doc["messages"] = messages = []
        if not isinstance(messages, list):
            raise CorruptInbox(
                f"{path}: 'messages' is {type(messages).__name__}, expected an array", path=path
            )
        return doc, messages

    def entries(self, doc: Any) -> list[Any]:
        messages = doc["messages"]
        assert isinstance(messages, list)
        return messages

    def invalid(self, entry: Any) -> str | None:
        if not isinstance(entry, dict):
            return f"entry is {type(entry).__name__}, expected an object"
        for key in ("from", "timestamp"):
            if not isinstance(entry.get(key), str):
                return f"entry has no string {key!r}"
        for key in ("to", "type", "content", "summary"):
            if key in entry and not isinstance(entry[key], str):
                return f"entry's {key!r} is not a string"
        if entry.get("payload") is not None and not isinstance(entry["payload"], dict):
            return "entry's 'payload' is not an object"
        return None

    def entry_id(self, entry: dict[str, Any], index: int) -> str:
        return f"p-{index}-{short_hash(canonical(entry, drop=('read',)))[:10]}"

    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message:
        kind = opt_str(entry.get("type")) or "text"
        payload = entry.get("payload") if isinstance(entry.get("payload"), dict) else None
        read = entry.get("read") is True
        return Message(
            id=self.entry_id(entry, index),
            team=team,
            inbox=inbox,
            format="pseudoclaude",
            from_=entry["from"],
            to=opt_str(entry.get("to")) or inbox,
            type=kind,
            text=entry.get("content") or "",
            timestamp=entry["timestamp"],
            read=read,
            summary=opt_str(entry.get("summary")),
            color=None,
            payload=payload,
            structured=None if kind == "text" else {"type": kind, "payload": payload or {}},
            raw=entry,
            seen=read,
        )

    def entry_spans(self, data: bytes, start: int = 0) -> tuple[array[int], array[int]] | None:
        return None  # entries sit inside an object: parsed whole

    def serialize(self, doc: Any) -> bytes:
        return dumps_indented(doc)

    def append_bytes(self, data: bytes, new_entries: list[dict[str, Any]]) -> bytes | None:
        return None  # small files by design; a full rewrite keeps unknown top-level keys

    def new_entry(
        self,
        *,
        sender: str,
        recipient: str,
        text: str,
        summary: str | None = None,
        type: str | None = None,
        color: str | None = None,
        payload: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        # Field order and omitempty as PseudoClaude's Go struct writes them.
        entry: dict[str, Any] = {
            "from": sender,
            "to": recipient,
            "type": type if type and type != "message" else "text",
            "summary": summary or "",
        }
        if text:
            entry["content"] = text
        if payload:
            entry["payload"] = payload
        entry["timestamp"] = now_rfc3339_nano()
        entry["read"] = False
        return entry

    def frame(self, frame: Frame) -> tuple[str, dict[str, Any]]:
        return frame.type, {_CAMEL.sub("_", k).lower(): v for k, v in frame.fields.items()}


PSEUDOCLAUDE = PseudoClaudeFormat()
