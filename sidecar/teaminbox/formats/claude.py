"""Claude Code's inbox format: one JSON array per inbox, 2-space indented.

Structured messages are a JSON object serialized into `text`; only the known
types count as frames, anything else is plain text even if it parses.
"""

from __future__ import annotations

import re
import uuid
from array import array
from datetime import datetime, timezone
from typing import Any

import orjson

from ..errors import CorruptInbox
from ..frames import Frame
from ..model import Format, Message
from . import dumps_indented, loads, opt_str, short_hash, skip_space_back

KNOWN_FRAMES = frozenset(
    {
        "idle_notification",
        "shutdown_request",
        "shutdown_approved",
        "shutdown_rejected",
        "plan_approval_request",
        "plan_approval_response",
        "task_assignment",
        "task_completed",
        "teammate_terminated",
        "permission_request",
        "permission_response",
        "sandbox_permission_request",
        "sandbox_permission_response",
        "mode_set_request",
        "team_permission_update",
    }
)
# Frames whose schema carries no `from` of its own.
_NO_FROM = frozenset(
    {
        "plan_approval_response",
        "task_assignment",
        "teammate_terminated",
        "permission_request",
        "permission_response",
        "sandbox_permission_request",
        "sandbox_permission_response",
    }
)
_ENTRY_SEP = re.compile(rb"\n  \},\n  \{")
COLORS = ("blue", "green", "red", "yellow", "purple", "cyan", "orange", "pink")


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def decode_frame(text: str) -> dict[str, Any] | None:
    if not text.startswith("{"):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if isinstance(value, dict) and value.get("type") in KNOWN_FRAMES:
        return value
    return None


class ClaudeFormat:
    name: Format = "claude"

    def empty(self) -> Any:
        return []

    def parse(self, data: bytes, path: str) -> tuple[Any, list[Any]]:
        doc = loads(data, path)
        if not isinstance(doc, list):
            raise CorruptInbox(
                f"{path}: top level is {type(doc).__name__}, expected a JSON array", path=path
            )
        return doc, doc

    def entries(self, doc: Any) -> list[Any]:
        assert isinstance(doc, list)
        return doc

    def invalid(self, entry: Any) -> str | None:
        if not isinstance(entry, dict):
            return f"entry is {type(entry).__name__}, expected an object"
        for key in ("from", "text", "timestamp"):
            if not isinstance(entry.get(key), str):
                return f"entry has no string {key!r}"
        return None

    def entry_id(self, entry: dict[str, Any], index: int) -> str:
        msg_id = entry.get("msg_id")
        if isinstance(msg_id, str) and msg_id and "\x00" not in msg_id:
            return msg_id
        # Claude Code's own identity key for an entry.
        return "c-" + short_hash(entry["from"], entry["timestamp"], entry["text"])

    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message:
        text: str = entry["text"]
        frame = decode_frame(text)
        summary = opt_str(entry.get("summary"))
        if frame is not None and summary is None:
            summary = opt_str(frame.get("summary"))
        read = entry.get("read") is True
        return Message(
            id=self.entry_id(entry, index),
            team=team,
            inbox=inbox,
            format="claude",
            from_=entry["from"],
            to=inbox,
            type=frame["type"] if frame else (opt_str(entry.get("type")) or "message"),
            text=text,
            timestamp=entry["timestamp"],
            read=read,
            summary=summary,
            color=opt_str(entry.get("color")),
            payload=None,
            structured=frame,
            raw=entry,
            seen=read,
        )

    def entry_spans(self, data: bytes, start: int = 0) -> tuple[array[int], array[int]] | None:
        """Byte spans (starts, ends) of the entries of an array laid out by JSON.stringify.

        JSON strings hold no raw newline, so at this layout entries are parted
        by the lines `  },` + `  {`. Lets a big inbox be parsed a chunk at a
        time and kept as bytes rather than objects. The spans are unchecked:
        the caller parses them and falls back to a whole parse on a mismatch.
        From `start`, the opening bracket, or the comma after the last known
        entry (to read an appended tail). None: another layout.
        """
        starts, ends = array("q"), array("q")
        end = skip_space_back(data, len(data))
        if end < start + 2 or data[start] not in b"[," or data[end - 1] != ord("]"):
            return None
        last = skip_space_back(data, end - 1)  # just past the last entry
        if last == start + 1:
            return starts, ends
        if not data.startswith(b"\n  {", start + 1) or data[last - 4 : last] != b"\n  }":
            return None
        start += 4
        for sep in _ENTRY_SEP.finditer(data, start, last):
            starts.append(start)
            ends.append(sep.start() + 4)
            start = sep.end() - 1
        starts.append(start)
        ends.append(last)
        return starts, ends

    def serialize(self, doc: Any) -> bytes:
        return dumps_indented(doc)

    def append_bytes(self, data: bytes, new_entries: list[dict[str, Any]]) -> bytes | None:
        """Splice entries before the closing bracket of an already validated array.

        Byte for byte what JSON.stringify(all, null, 2) would write when the
        file was written that way, without re-serializing the earlier entries.
        """
        end = len(data.rstrip())
        if end == 0 or data[end - 1] != ord("]"):
            return None
        head = data[: end - 1].rstrip()
        sep = b"\n" if head.endswith(b"[") else b",\n"
        body = b",\n".join(
            b"\n".join(b"  " + line for line in dumps_indented(e).split(b"\n")) for e in new_entries
        )
        return head + sep + body + b"\n]"

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
        ts = now_iso()
        if type and type not in ("message", "text"):
            frame: dict[str, Any] = {"type": type}
            if type not in _NO_FROM:
                frame["from"] = sender
            frame.update(payload or {})
            if text and "message" not in frame and "reason" not in frame:
                frame["reason" if type.startswith("shutdown") else "message"] = text
            frame.setdefault("timestamp", ts)
            text = orjson.dumps(frame).decode()
        entry: dict[str, Any] = {"from": sender, "text": text}
        if summary:
            entry["summary"] = summary
        entry["timestamp"] = ts
        if color:
            entry["color"] = color
        entry["read"] = False
        entry["type"] = "message"
        entry["msg_id"] = str(uuid.uuid4())
        return entry

    def frame(self, frame: Frame) -> tuple[str, dict[str, Any]]:
        """Claude spells a shutdown answer as two types."""
        fields = dict(frame.fields)
        if frame.type == "shutdown_response":
            approve = fields.pop("approve")
            return ("shutdown_approved" if approve else "shutdown_rejected"), fields
        return frame.type, fields


CLAUDE = ClaudeFormat()
