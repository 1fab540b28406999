"""How a message reads for a person: one line, or labelled fields. Pure: no I/O.

A protocol frame never shows as raw JSON. Claude Code serialises its frames
into `text` (`{"type":"idle_notification",...}`); PseudoClaude writes typed
entries with a `payload`, and its idle notifications are text entries the
format turns into a frame. `description` says any of them in words, once: its
kind, one line, the frame's fields and the task it names. That is what the CLI's
`read` prints and what every message the server sends carries (`Message.description`,
made as it leaves: model.converter), so the extension shows it and never says what
a frame is itself. The lines read:

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

from .formats import find
from .model import Description, DescriptionKind, FrameField, Message, make_converter

__all__ = [
    "FIELD_MAX",
    "LINE_MAX",
    "description",
    "describe_message",
    "frame_fields",
    "frame_values",
    "one_line",
    "plural",
]

LINE_MAX = 200  # a description's line; a frame's fields say the rest
FIELD_MAX = 500  # a field's value (a card's worth): the message's `structured` holds all of it

_SPACE = re.compile(r"\s+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Shown by the message header already.
_HIDDEN = frozenset({"type", "from", "timestamp"})


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
    if isinstance(payload, Mapping) and _words_in_text(msg):
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


def _restated(msg: Message) -> bool:
    """A PseudoClaude frame's content that only restates its payload (PseudoClaude, and our
    own sender, write a payload-only frame's text for its agents)."""
    text, summary = _str(msg.text), _str(msg.summary)
    return bool(text and summary and text.startswith(summary))


def _words_in_text(msg: Message) -> bool:
    """Its format writes a frame's words in the text, the frame's fields in a payload."""
    fmt = find(msg.format)
    return fmt is not None and fmt.words_in_text


def _own_words(msg: Message) -> bool:
    return _words_in_text(msg) and bool(_str(msg.text)) and not _restated(msg)


def _words(msg: Message, f: Mapping[str, Any]) -> str | None:
    """What a PseudoClaude frame's agent sees: its content, unless that only restates the
    frame; then the payload's reason or feedback."""
    if not _words_in_text(msg):
        return None
    if _restated(msg):
        return _str(f.get("reason")) or _str(f.get("feedback")) or None
    return _str(msg.text)


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
    in_text = _words_in_text(msg)
    words = _str(msg.text) if in_text else _str(f.get("result"))
    if words:
        return f'{head}: "{words}"'
    return _join(head, None if in_text else _str(f.get("summary")))


Said = tuple[DescriptionKind, str]


def _describe_frame(msg: Message, f: Mapping[str, Any]) -> Said:
    kind = _str(f.get("type")) or msg.type
    if kind == "idle_notification":
        return "idle", _idle(msg, f)
    if kind == "shutdown_request":
        return "shutdown_request", _join(
            "shutdown request", _str(f.get("reason")) or _words(msg, f)
        )
    if kind == "shutdown_approved":
        return "shutdown_approved", "shutdown approved"
    if kind == "shutdown_rejected":
        return "shutdown_rejected", _join(
            "shutdown rejected", _str(f.get("reason")) or _words(msg, f)
        )
    if kind == "shutdown_response":  # PseudoClaude: approve (or approved) and reason
        ok = _flag(f, "approve", "approved")
        said: dict[bool | None, Said] = {
            True: ("shutdown_approved", "shutdown approved"),
            False: ("shutdown_rejected", "shutdown rejected"),
            None: ("frame", "shutdown response"),
        }
        named, head = said[ok]
        return named, _join(head, _str(f.get("reason")) or _words(msg, f))
    if kind == "plan_approval_request":
        plan = _str(f.get("planFilePath")) or one_line(f.get("planContent") or "", 80) or None
        return "plan_request", _join("plan approval request", plan or _words(msg, f))
    if kind == "plan_approval_response":
        ok = _flag(f, "approved", "approve")
        verdict = {True: "plan approved", False: "plan rejected", None: "plan approval response"}
        return "plan_response", _join(verdict[ok], _str(f.get("feedback")) or _words(msg, f))
    if kind == "task_assignment":
        task = _task(f)
        head = f"task #{task} assigned" if task else "task assigned"
        by = _str(f.get("assignedBy"))
        head += f" by {by}" if by else ""
        return "task_assignment", _join(head, _str(f.get("subject")) or _words(msg, f))
    if kind == "task_completed":
        task = _task(f)
        head = f"task #{task} completed" if task else "task completed"
        return "task_completed", _join(head, _str(f.get("taskSubject")) or _str(f.get("subject")))
    if kind == "teammate_terminated":
        return "teammate_terminated", _join("teammate terminated", _str(f.get("message")))
    if kind in ("permission_request", "sandbox_permission_request"):
        asked = "sandbox permission request" if kind.startswith("sandbox") else "permission request"
        tool = _str(f.get("tool_name")) or _str(f.get("host"))
        what = _str(f.get("description"))
        return "permission_request", _join(
            asked, f"{tool}: {what}" if tool and what else tool or what
        )
    if kind in ("permission_response", "sandbox_permission_response"):
        return "permission_response", _permission_response(kind, f)
    if kind == "mode_set_request":
        return "mode_request", _join("mode change request", _str(f.get("mode")))
    if kind == "team_permission_update":
        return "permission_update", "team permission update"
    # A type nobody documented: its name in words, then what its agent would read.
    detail = _words(msg, f) if _words_in_text(msg) else _str(f.get("message"))
    return "frame", _join(kind.replace("_", " "), detail or _str(f.get("reason")))


def _permission_response(kind: str, f: Mapping[str, Any]) -> str:
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


def _task(f: Mapping[str, Any]) -> str | None:
    """The task a frame names: Claude's taskId / completedTaskId, PseudoClaude's task_id."""
    return _str(f.get("taskId")) or _str(f.get("completedTaskId")) or _str(f.get("task_id"))


def _said(msg: Message, f: Mapping[str, Any]) -> Said:
    if f:
        return _describe_frame(msg, f)
    first = next((ln for ln in msg.text.splitlines() if ln.strip()), "")
    return "message", one_line(msg.summary) or one_line(first) or "(empty)"


def describe_message(msg: Message, width: int | None = LINE_MAX) -> str:
    """The message as one line: what a frame means, else the summary, else the first line."""
    return one_line(_said(msg, frame_values(msg))[1], width)


def description(msg: Message) -> Description:
    """The one description of a message: what the CLI's `read` prints and the server sends
    (Message.description) for the tree, toasts, the preview and the team view."""
    f = frame_values(msg)
    kind, line = _said(msg, f)
    if not f:
        return Description(kind=kind, line=one_line(line, LINE_MAX))
    task = _task(f) if kind in ("idle", "task_assignment", "task_completed") else None
    return Description(
        kind=kind, line=one_line(line, LINE_MAX), fields=_fields(msg, f, kind), task=task
    )


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


def _fields(msg: Message, f: Mapping[str, Any], kind: str) -> list[FrameField]:
    out = []
    for key, value in f.items():
        text = _value(value)
        if key in _HIDDEN or text is None:
            continue
        out.append(FrameField(label=_label(key), value=_cut(text)))
    if _own_words(msg):  # what a PseudoClaude agent reads; an idle's is the task's result
        out.append(
            FrameField(label="result" if kind == "idle" else "content", value=_cut(msg.text))
        )
    return out


def _cut(text: str) -> str:
    return text if len(text) <= FIELD_MAX else text[: FIELD_MAX - 1] + "…"


def frame_fields(msg: Message) -> list[tuple[str, str]]:
    """A frame's fields as (label, value) for a detail view, in the frame's own order; the
    type, sender and time (the message says them) are left out. [] for a plain message."""
    return [(x.label, x.value) for x in description(msg).fields]


# Every message that leaves (server, CLI --json, MCP) says how it reads.
wire_converter = make_converter(description)
