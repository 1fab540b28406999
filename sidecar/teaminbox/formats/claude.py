"""Claude Code's inbox format: one JSON array per inbox, 2-space indented.

Structured messages are a JSON object serialized into `text`; only the known
types count as frames, anything else is plain text even if it parses.
"""

from __future__ import annotations

import os
import re
import uuid
from array import array
from collections.abc import Mapping
from typing import Any

import orjson

from ..errors import InvalidParams
from ..fileio import make_inbox_folder
from ..jsonio import dumps_indented, opt_str, parse_text, short_hash, skip_space_back
from ..locks import DirLock
from ..model import Draft, Member, Message
from ..safeio import open_new
from ..timestamps import epoch, now_iso
from .base import InboxFormat, RosterParts
from .tasks_claude import CLAUDE_TASKS

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
# Answers only Claude Code itself may give: from outside, an in-process teammate ignores
# them and a pane teammate judges them forged and DENIES the pending call (formats doc 1b).
ANSWER_FRAMES = frozenset(
    {"permission_response", "plan_approval_response", "sandbox_permission_response"}
)
_ENTRY_SEP = re.compile(rb"\n  \},\n  \{")
COLORS = ("blue", "green", "red", "yellow", "purple", "cyan", "orange", "pink")


def frame_type(text: str) -> str | None:
    """The known frame Claude Code would take `text` for, read as JSON.parse reads it
    (whitespace around it, lone surrogates); None: words. What a send refuses, so it reads
    more leniently than `decode_frame`, which says what the view shows."""
    if not text.lstrip(" \t\n\r").startswith("{"):
        return None
    try:
        value = parse_text(text)
    except ValueError:
        return None
    kind = value.get("type") if isinstance(value, dict) else None
    return kind if isinstance(kind, str) and kind in KNOWN_FRAMES else None


def _refuse_answer_frame(text: str) -> None:
    """The text Claude Code would read as an answer frame, however it was typed, is refused."""
    kind = frame_type(text)
    if kind in ANSWER_FRAMES:
        raise InvalidParams(
            f"a {kind} frame is Claude Code's own answer: written from outside it is ignored,"
            " or denies a pane teammate's pending call; answer in the lead's terminal"
        )


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _first_inbox_byte(team_path: str) -> bytes:
    folder = os.path.join(team_path, "inboxes")
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if name.endswith(".json") and not name.startswith("."):
            try:
                with open(os.path.join(folder, name), "rb", opener=_nonblocking) as f:
                    return f.read(64).lstrip()[:1]
            except OSError:
                continue
    return b""


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NONBLOCK)  # a FIFO must not hang a sniff


# The team a session makes for itself (`teams/session-<first 8 hex of its id>/`): nobody
# chose that name, so people see its label (project · start time) instead.
_SESSION_TEAM = re.compile(r"session-[0-9a-f]+")


def _team_info(config: dict[str, Any], members: list[Member], team_path: str) -> dict[str, Any]:
    """What labels a team for a human: its project, start and lead process, and whether
    it is a session's own team (shown by that label)."""
    lead_cwd = next((m.cwd for m in members if m.lead and m.cwd), None)
    proc = config.get("leadProcess")
    proc = proc if isinstance(proc, dict) else {}
    return {
        "session": bool(_SESSION_TEAM.fullmatch(os.path.basename(team_path.rstrip("/")))),
        "project": os.path.basename(lead_cwd.rstrip("/")) if lead_cwd else None,
        "cwd": lead_cwd,
        "created_at": epoch(config.get("createdAt")),  # milliseconds; 1e30 is None
        "lead_pid": proc.get("pid") if isinstance(proc.get("pid"), int) else None,
        "session_id": opt_str(config.get("leadSessionId")),
    }


def json_object(text: str) -> dict[str, Any] | None:
    """A message text that is a JSON object (a frame's shape), else None."""
    if not text.startswith("{"):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def decode_frame(text: str) -> dict[str, Any] | None:
    value = json_object(text)
    kind = value.get("type") if value is not None else None
    return value if isinstance(kind, str) and kind in KNOWN_FRAMES else None


USER_INBOX = "user"


class ClaudeFormat(InboxFormat):
    name = "claude"
    drops_leavers = True
    compactable = True
    takes_away = True  # delivered entries are pruned
    label = "Claude"
    default_identity: str | None = USER_INBOX
    colors = COLORS
    lock_class = DirLock  # Claude Code's proper-lockfile: `<inbox>.lock/` made by mkdir
    claude_sessions = True
    plan_answer = "ask_lead"  # Claude Code takes a plan approval only from the lead
    claims_unknown = True  # a config-less folder is Claude's unless its inboxes are objects

    def default_roots(self, home: str, env: Mapping[str, str]) -> list[str]:
        return [
            os.path.join(env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"), "teams")
        ]

    tasks = CLAUDE_TASKS  # the task board: <config>/tasks/<team>/, a file a task

    def sniff(self, team_path: str, config: dict[str, Any] | None) -> bool:
        if config is not None:
            return "leadAgentId" in config or "leadSessionId" in config
        return _first_inbox_byte(team_path) == b"["

    def team_dirs(self, root: str, explicit: bool) -> list[tuple[str, str]]:
        # 2.1.3xx deletes a team by renaming it to `<team>.deleted-<uuid>` first: no team.
        return [t for t in super().team_dirs(root, explicit) if ".deleted-" not in t[0]]

    def is_temp(self, name: str) -> bool:
        # Claude Code writes `<inbox>.json.tmp.<8 hex>` and renames it over the inbox.
        return super().is_temp(name) or ".json.tmp." in name

    def roster(
        self, config: dict[str, Any] | None, identity: str | None, team_path: str
    ) -> RosterParts:
        config = config or {}
        lead_id = config.get("leadAgentId")
        members: list[Member] = []
        lead: str | None = None
        for m in _dicts(config.get("members")):
            name = m.get("name")
            if not isinstance(name, str) or not name:
                continue
            is_lead = m.get("agentId") == lead_id or (lead_id is None and name == "team-lead")
            lead = name if is_lead else lead
            members.append(
                Member(
                    name=name,
                    inbox=name,
                    agent_id=opt_str(m.get("agentId")),
                    agent_type=opt_str(m.get("agentType")),
                    color=opt_str(m.get("color")),
                    model=opt_str(m.get("model")),
                    cwd=opt_str(m.get("cwd")),
                    is_active=m.get("isActive") if isinstance(m.get("isActive"), bool) else None,
                    lead=is_lead,
                )
            )
        me = identity or USER_INBOX
        return RosterParts(members, lead, me, me, _team_info(config, members, team_path))

    def consumed(self, member: Member, own_inbox: str | None) -> bool:
        # Claude Code prunes what it delivers and discards what it finds `read: true`.
        return member.inbox != own_inbox and not member.phantom

    def make_inbox(self, path: str) -> None:
        ensure_claude_inbox(path)

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
            format=self.name,
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

    def text_frame(self, text: str) -> str | None:
        return frame_type(text)  # Claude Code parses every text it reads

    def new_entry(self, draft: Draft) -> dict[str, Any]:
        ts, type, text, payload = now_iso(), draft.type, draft.text, draft.payload
        frame_type = bool(type) and type not in ("message", "text")
        if payload and not frame_type:
            raise InvalidParams(
                "a payload goes into a frame: give its --type (a plain Claude Code message"
                " has text only)"
            )
        if type and frame_type:
            frame: dict[str, Any] = {"type": type}
            if type not in _NO_FROM:
                frame["from"] = draft.sender
            frame.update(payload or {})
            if text and "message" not in frame and "reason" not in frame:
                frame["reason" if type.startswith("shutdown") else "message"] = text
            frame.setdefault("timestamp", ts)
            text = orjson.dumps(frame).decode()
        _refuse_answer_frame(text)
        entry: dict[str, Any] = {"from": draft.sender, "text": text}
        if draft.summary:
            entry["summary"] = draft.summary
        entry["timestamp"] = ts
        if draft.color:
            entry["color"] = draft.color
        entry["read"] = False
        entry["type"] = "message"
        entry["msg_id"] = str(uuid.uuid4())
        return entry


def ensure_claude_inbox(path: str) -> None:
    """Create a missing Claude inbox as `[]` with exclusive create, as Claude Code does
    (Node's writeFile `wx`: mode 0666 & ~umask)."""
    make_inbox_folder(path)
    try:
        fd = open_new(path)
    except FileExistsError:
        return
    try:
        os.write(fd, b"[]")
    finally:
        os.close(fd)


CLAUDE = ClaudeFormat()
