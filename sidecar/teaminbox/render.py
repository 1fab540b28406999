"""How a message reads for a person: one line, or labelled fields. Pure: no I/O.

A protocol frame never shows as raw JSON. Claude Code serialises its frames
into `text` (`{"type":"idle_notification",...}`); PseudoClaude writes typed
entries with a `payload`, and its idle notifications are text entries the
format turns into a frame. `describe_message` says any of them in words, the
same words for the CLI's `read`, the server and the extension's docs:

    idle (task #3 resolved): "The fix is in auth.ts; tests pass."
    shutdown request: the work is done
    plan rejected: split the migration into two steps
    task #3 assigned by team-lead: Fix the login bug

An idle notification's `result` (Claude Code 2.1.3xx) and the content of
PseudoClaude's idle notification are the teammate's own words: quoted.
A plain message is its summary, else its first line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import orjson

from .model import Message

__all__ = ["describe_message", "frame_fields", "frame_values", "one_line", "plural"]

_SPACE = re.compile(r"\s+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Shown by the message header already, or the frame's own bookkeeping.
_HIDDEN = frozenset({"type", "from", "timestamp", "requestId", "request_id"})


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 message`, `2 messages`; `many` for irregular plurals (`entry`, `entries`)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def one_line(text: str | None, width: int | None = None) -> str:
    """The text with every run of whitespace (newlines included) as one space."""
    line = _SPACE.sub(" ", text or "").strip()
    if width is not None and len(line) > width:
        return line[: width - 1].rstrip() + "…"
    return line


def frame_values(msg: Message) -> dict[str, Any]:
    """The frame's fields, flat: Claude's frame as decoded from `text`, PseudoClaude's
    `{type, payload}` with the payload's fields beside the type. {} for plain text."""
    s = msg.structured
    if not isinstance(s, Mapping):
        return {}
    out = dict(s)
    payload = out.get("payload")
    if isinstance(payload, Mapping) and msg.format == "pseudoclaude":
        del out["payload"]
        out.update(payload)
    return out


def _str(value: Any) -> str | None:
    if isinstance(value, str) and value.strip():
        return one_line(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _flag(f: Mapping[str, Any], *keys: str) -> bool | None:
    return next((v for v in map(f.get, keys) if isinstance(v, bool)), None)


def _join(head: str, detail: str | None) -> str:
    return f"{head}: {detail}" if detail else head


def _words(msg: Message, f: Mapping[str, Any]) -> str | None:
    """What a PseudoClaude frame's agent sees: its content, unless that only restates the
    frame (PseudoClaude writes a payload-only frame's text for its agents)."""
    if msg.format != "pseudoclaude":
        return None
    text = _str(msg.text)
    summary = _str(msg.summary)
    if text and summary and text.startswith(summary):
        return _str(f.get("reason")) or _str(f.get("feedback")) or None
    return text


def _idle(msg: Message, f: Mapping[str, Any]) -> str:
    """Claude: idleReason, completedTaskId/Status, failureReason, summary, result.
    PseudoClaude: task_id, status, error; the content is the task's result."""
    reason = _str(f.get("idleReason"))
    task = _str(f.get("completedTaskId")) or _str(f.get("task_id"))
    status = _str(f.get("completedStatus")) or _str(f.get("status"))
    failure = _str(f.get("failureReason")) or _str(f.get("error"))
    notes = []
    if reason and reason != "available":
        notes.append(reason)
    if task:
        notes.append(f"task #{task} {status or 'done'}")
    elif status and status not in notes:
        notes.append(status)
    if failure:
        if notes and notes[-1].endswith("failed"):
            notes[-1] += f": {failure}"
        else:
            notes.append(f"failed: {failure}")
    head = f"idle ({', '.join(notes)})" if notes else "idle"
    words = _str(f.get("result")) if msg.format != "pseudoclaude" else _str(msg.text)
    if words:
        return f'{head}: "{words}"'
    return _join(head, _str(f.get("summary")) if msg.format != "pseudoclaude" else None)


def _describe_frame(msg: Message, f: Mapping[str, Any]) -> str:
    kind = _str(f.get("type")) or msg.type
    if kind == "idle_notification":
        return _idle(msg, f)
    if kind == "shutdown_request":
        return _join("shutdown request", _str(f.get("reason")) or _words(msg, f))
    if kind == "shutdown_approved":
        return "shutdown approved"
    if kind == "shutdown_rejected":
        return _join("shutdown rejected", _str(f.get("reason")) or _words(msg, f))
    if kind == "shutdown_response":  # PseudoClaude: approve (or approved) and reason
        ok = _flag(f, "approve", "approved")
        said = {True: "shutdown approved", False: "shutdown rejected", None: "shutdown response"}
        return _join(said[ok], _str(f.get("reason")) or _words(msg, f))
    if kind == "plan_approval_request":
        plan = _str(f.get("planFilePath")) or one_line(f.get("planContent") or "", 80) or None
        return _join("plan approval request", plan or _words(msg, f))
    if kind == "plan_approval_response":
        ok = _flag(f, "approved", "approve")
        verdict = {True: "plan approved", False: "plan rejected", None: "plan approval response"}
        return _join(verdict[ok], _str(f.get("feedback")) or _words(msg, f))
    if kind == "task_assignment":
        task = _str(f.get("taskId")) or _str(f.get("task_id"))
        head = f"task #{task} assigned" if task else "task assigned"
        by = _str(f.get("assignedBy"))
        head += f" by {by}" if by else ""
        return _join(head, _str(f.get("subject")) or _words(msg, f))
    if kind == "task_completed":
        task = _str(f.get("taskId")) or _str(f.get("task_id"))
        head = f"task #{task} completed" if task else "task completed"
        return _join(head, _str(f.get("taskSubject")) or _str(f.get("subject")))
    if kind == "teammate_terminated":
        return _join("teammate terminated", _str(f.get("message")))
    if kind in ("permission_request", "sandbox_permission_request"):
        asked = "sandbox permission request" if kind.startswith("sandbox") else "permission request"
        tool = _str(f.get("tool_name")) or _str(f.get("host"))
        what = _str(f.get("description"))
        return _join(asked, f"{tool}: {what}" if tool and what else tool or what)
    if kind in ("permission_response", "sandbox_permission_response"):
        sandbox = "sandbox " if kind.startswith("sandbox") else ""
        sub = _str(f.get("subtype"))
        allowed = _flag(f, "allow", "allowed", "approved")
        if sub == "error":
            return _join(f"{sandbox}permission error", _str(f.get("error")))
        if sub == "success" or allowed is True:
            return f"{sandbox}permission granted"
        if allowed is False:
            return f"{sandbox}permission denied"
        return f"{sandbox}permission response"
    if kind == "mode_set_request":
        return _join("mode change request", _str(f.get("mode")))
    if kind == "team_permission_update":
        return "team permission update"
    # A type nobody documented: its name in words, then what its agent would read.
    detail = _words(msg, f) if msg.format == "pseudoclaude" else _str(f.get("message"))
    return _join(kind.replace("_", " "), detail or _str(f.get("reason")))


def describe_message(msg: Message, width: int | None = None) -> str:
    """The message as one line: what a frame means, else the summary, else the first line."""
    f = frame_values(msg)
    if f:
        line = _describe_frame(msg, f)
    else:
        first = next((ln for ln in msg.text.splitlines() if ln.strip()), "")
        line = one_line(msg.summary) or one_line(first) or "(empty)"
    return one_line(line, width)


def _label(key: str) -> str:
    return _CAMEL.sub(" ", key).replace("_", " ").lower()


def _value(value: Any) -> str | None:
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return repr(value)


def frame_fields(msg: Message) -> list[tuple[str, str]]:
    """A frame's fields as (label, value) for a detail view, in the frame's own order;
    the type, sender and time (the message says them) and request ids are left out.
    [] for a plain message."""
    out = []
    for key, value in frame_values(msg).items():
        text = _value(value)
        if key in _HIDDEN or text is None:
            continue
        out.append((_label(key), text))
    return out
