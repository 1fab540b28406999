"""PseudoClaude's inbox format: a Box object `{"messages": [...]}`.

The array is append-only and an entry's index is its identity, so a message
id pairs the index with a hash of the entry (without `read`).
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from ..errors import CorruptInbox
from ..jsonio import canonical, loads, opt_str, short_hash
from ..model import Draft, Member, Message
from ..timestamps import epoch, now_rfc3339_nano
from .base import InboxFormat, RosterParts
from .tasks_pseudoclaude import PSEUDOCLAUDE_TASKS

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


# PseudoClaude rewrites the whole inbox on every Write and MarkRead: it decodes the Box
# into its Go struct (time.Time timestamp, map[string]any payload) and encodes it again.
# An id may only depend on what that round trip keeps.
_GO_TIME = re.compile(  # time.Parse(RFC3339): the strict form and what its fallback takes
    r"(\d{4})-(\d\d)-(\d\d)T(\d{1,2}):(\d\d):(\d\d)(?:[.,](\d+))?(?:Z|([+-])(\d\d):(\d\d))\Z"
)
_UNIX = datetime(1970, 1, 1, tzinfo=timezone.utc)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ID_FIELDS = ("from", "to", "type", "summary", "content")
_IDLE_FIELDS = ("member_name", "task_id", "status", "error")


def _go_str(value: Any) -> str:
    """A string field as Go keeps it: absent or null is "", a lone surrogate is U+FFFD."""
    if not isinstance(value, str):
        return ""
    return value if value.isascii() else _LONE_SURROGATE.sub("\ufffd", value)


def _instant(ts: str) -> str:
    """The instant an RFC 3339 time names, as "<unix seconds>.<9 digits>". Go keeps the
    instant but drops trailing zeros (.874634170Z -> .87463417Z), cuts digits past 9 and
    may respell the offset (+00:00 -> Z). A time Go cannot parse stays as written: Go
    then fails to decode the inbox and rewrites nothing."""
    m = _GO_TIME.match(ts)
    if m is None:
        return ts
    y, mo, d, h, mi, s = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    try:
        since = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc) - _UNIX
    except ValueError:
        return ts
    secs = since.days * 86400 + since.seconds
    if m.group(8):
        offset = int(m.group(9)) * 3600 + int(m.group(10)) * 60
        secs += -offset if m.group(8) == "+" else offset
    return f"{secs}.{(m.group(7) or '')[:9]:0<9}"


def _idle_frame(kind: str, summary: Any, payload: dict[str, Any] | None) -> dict[str, Any] | None:
    """PseudoClaude's idle notification as a frame, else None. Its team manager writes one
    to the lead when an in-process member's task ends: type "text", summary "member idle"
    or "member idle: <status>", content the task's result, payload {member_name, task_id,
    status, error}, from the member's agent id."""
    if kind != "text" or payload is None or not isinstance(summary, str):
        return None
    if summary != "member idle" and not summary.startswith("member idle: "):
        return None
    if not all(k in payload for k in _IDLE_FIELDS):
        return None
    return {"type": "idle_notification", **{k: v for k, v in payload.items() if k != "type"}}


def _frame_text(kind: str, payload: dict[str, Any]) -> tuple[str, str]:
    """A summary and content for a frame sent as a payload without text. PseudoClaude shows
    its agents only from/to/type/summary/content of a message (the member runner's inbox
    adapter, the lead's LeadReminder): a payload alone reaches no agent."""

    def said(key: str) -> str | None:
        value = payload.get(key)
        return value.strip() if isinstance(value, str) and value.strip() else None

    def verdict(*keys: str) -> bool | None:
        return next((v for v in map(payload.get, keys) if isinstance(v, bool)), None)

    extra = None
    if kind == "plan_approval_response":
        ok = verdict("approved", "approve")
        head = {True: "Plan approved", False: "Plan rejected", None: "Plan approval response"}[ok]
        detail = said("feedback")
    elif kind == "shutdown_request":
        head, detail = "Shutdown requested", said("reason")
    elif kind == "shutdown_response":
        ok = verdict("approve", "approved")
        heads = {True: "Shutdown approved", False: "Shutdown rejected", None: "Shutdown response"}
        head = heads[ok]
        detail = said("reason")
    elif kind == "task_assignment":
        task = payload.get("task_id")
        task = task if isinstance(task, str) and task or type(task) is int else None
        head = "Task assigned" if task is None else f"Task #{task} assigned"
        detail, extra = said("subject"), said("description")
    else:
        return kind, f"{kind}: {canonical(payload)}"
    body = f"{head}: {detail}" if detail else head
    return head, f"{body}\n\n{extra}" if extra else body


class PseudoClaudeFormat(InboxFormat):
    name = "pseudoclaude"
    label = "PseudoClaude"
    new_file_mode = 0o600  # it renames Go's os.CreateTemp files over its inboxes
    words_in_text = True
    plan_answer = "frame"

    def default_roots(self, home: str, env: Mapping[str, str]) -> list[str]:
        return [os.path.join(home, ".PseudoClaude", "teams")]

    compactable = False  # an entry's index is its identity: pruning shifts what gets marked
    default_identity: str | None = None  # the lead
    tasks = PSEUDOCLAUDE_TASKS  # the task board: <team>/tasks.json

    def sniff(self, team_path: str, config: dict[str, Any] | None) -> bool:
        if config is not None:
            return "lead_agent_id" in config or "sanitized_name" in config
        return False  # config-less folders go to Claude unless their inboxes are objects

    def is_temp(self, name: str) -> bool:
        # Go's os.CreateTemp(dir, ".tmp-*.json"): hidden, but ends in .json.
        return super().is_temp(name) or name.startswith(".tmp-")

    def roster(
        self, config: dict[str, Any] | None, identity: str | None, team_path: str
    ) -> RosterParts:
        config = config or {}
        lead_id = config.get("lead_agent_id")
        members: list[Member] = []
        lead: str | None = None
        raw = config.get("members")
        for m in raw if isinstance(raw, list) else []:
            if not isinstance(m, dict):
                continue
            name, agent_id = m.get("name"), m.get("agent_id")
            if not isinstance(name, str) or not isinstance(agent_id, str) or not agent_id:
                continue
            is_lead = agent_id == lead_id or (lead_id is None and name == "lead")
            lead = name if is_lead else lead
            members.append(
                Member(
                    name=name,
                    inbox=agent_id,
                    agent_id=agent_id,
                    agent_type=opt_str(m.get("agent_type")),
                    model=opt_str(m.get("model")),
                    cwd=opt_str(m.get("worktree_path")),
                    branch=opt_str(m.get("branch")),
                    backend=opt_str(m.get("backend_type")),
                    is_active=m.get("is_active") is not False,  # absent means active
                    lead=is_lead,
                )
            )
        me = identity or lead or "lead"
        own = next((m.inbox for m in members if m.name == me), None)
        root = opt_str(config.get("project_root"))
        info: dict[str, Any] = {
            "project": os.path.basename(root.rstrip("/")) if root else None,
            "cwd": root,
            "created_at": epoch(config.get("created_at")),
        }
        return RosterParts(members, lead, me, own, info)

    def consumed(self, member: Member, own_inbox: str | None) -> bool:
        # Every PseudoClaude inbox has a runner, the lead's included (HasLeadMail/LeadReminder).
        return not member.phantom

    def delivery_note(self, member: Member) -> str | None:
        # An idle in-process member is woken only by the lead's own SendMessage (ResumeMember).
        if member.is_active is False and member.backend == "in-process" and not member.lead:
            return (
                f"{member.name} is idle: PseudoClaude delivers it when the lead resumes"
                f" {member.name}; until then it waits unread"
            )
        return None

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
        # The index, and a hash of only what PseudoClaude's own rewrite keeps: the string
        # fields and the timestamp's instant. Not `read`, not keys its struct lacks, not the
        # payload (its numbers go through float64, its keys get sorted).
        key = {k: _go_str(entry.get(k)) for k in _ID_FIELDS}
        ts = entry.get("timestamp")
        key["timestamp"] = _instant(ts) if isinstance(ts, str) else ""
        return f"p-{index}-{short_hash(canonical(key))[:10]}"

    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message:
        kind = opt_str(entry.get("type")) or "text"
        payload = entry.get("payload") if isinstance(entry.get("payload"), dict) else None
        read = entry.get("read") is True
        structured = None if kind == "text" else {"type": kind, "payload": payload or {}}
        idle = _idle_frame(kind, entry.get("summary"), payload)
        if idle is not None:  # a status report, not a reply: a frame like Claude's
            kind, structured = "idle_notification", idle
        return Message(
            id=self.entry_id(entry, index),
            team=team,
            inbox=inbox,
            format=self.name,
            from_=entry["from"],
            to=opt_str(entry.get("to")) or inbox,
            type=kind,
            text=entry.get("content") or "",
            timestamp=entry["timestamp"],
            read=read,
            summary=opt_str(entry.get("summary")),
            color=None,
            payload=payload,
            structured=structured,
            raw=entry,
            seen=read,
        )

    def entry_spans(self, data: bytes, start: int = 0) -> tuple[array[int], array[int]] | None:
        return None  # entries sit inside an object: parsed whole

    # append_bytes: none (small files by design; a full rewrite keeps unknown top-level keys)

    def new_entry(self, draft: Draft) -> dict[str, Any]:
        # Field order and omitempty as PseudoClaude's Go struct writes them.
        text, summary, payload = draft.text, draft.summary, draft.payload
        kind = draft.type if draft.type and draft.type != "message" else "text"
        if kind != "text" and payload and not text:
            # PseudoClaude's agents see only summary and content: say the frame in words
            head, text = _frame_text(kind, payload)
            summary = summary or head
        entry: dict[str, Any] = {
            "from": draft.sender,
            "to": draft.recipient,
            "type": kind,
            "summary": summary or "",
        }
        if text:
            entry["content"] = text
        if payload:
            entry["payload"] = payload
        entry["timestamp"] = now_rfc3339_nano()
        entry["read"] = False
        return entry


PSEUDOCLAUDE = PseudoClaudeFormat()
