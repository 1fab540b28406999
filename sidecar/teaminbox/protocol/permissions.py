"""Permission prompts the hook hands over, and the person's answers (features/permissions.py)."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from .base import Empty, Method, Notification, nonempty


@attrs.define
class PermissionPrompt:
    """A permission request the hook handed over; it waits for the person's answer."""

    id: str
    team: str
    member: str  # the teammate asking (the lead's name for the lead's own)
    tool_name: str
    tool_input: dict[str, Any]  # as Claude Code sent it: agent data, never interpreted
    detail: str  # what it would run or touch, one line, cut
    summary: str  # one line for a row, cut
    suggestions: list[Any]  # Claude Code's permission_suggestions, as sent
    since: float
    session_id: str
    inbox: str | None = None  # the member's inbox, where it has one
    # what a prompt shows: who, which tool, every field of the input, and what "Allow for
    # this session" adds, as text (control and bidi characters written out), cut when long
    prompt: str = ""
    whole: bool = False  # `prompt` holds all of it; else allow only after permissionText
    grants: list[str] = attrs.field(factory=list)  # allowSession adds these, in words


@attrs.define
class PermissionRequestsResult:
    requests: list[PermissionPrompt]


PermissionBehavior = Literal["allow", "allowSession", "deny"]


@attrs.define
class AnswerPermissionParams:
    id: str = attrs.field(validator=nonempty)
    behavior: PermissionBehavior
    message: str | None = None  # deny: the reason Claude Code tells the teammate


@attrs.define
class PermissionTextParams:
    id: str = attrs.field(validator=nonempty)


@attrs.define
class PermissionTextResult:
    id: str
    text: str  # the whole request, per tool, for a read-only view
    shown: bool  # false: a value could not be written out; it cannot be allowed


@attrs.define
class AnswerPermissionResult:
    id: str
    behavior: PermissionBehavior
    delivered: bool  # false: the hook had given up already (the terminal asks)


METHODS = (
    Method(
        "teamInbox/permissionRequests",
        Empty,
        PermissionRequestsResult,
        "the permission requests the hook handed over that wait for an answer",
    ),
    Method(
        "teamInbox/answerPermission",
        AnswerPermissionParams,
        AnswerPermissionResult,
        "answer a hook's permission request: allow once, for the session, or deny"
        " (allow once it was shown whole)",
    ),
    Method(
        "teamInbox/permissionText",
        PermissionTextParams,
        PermissionTextResult,
        "a hook's permission request whole, as text to read; after it, it may be allowed",
    ),
)

NOTIFICATIONS = (
    Notification(
        "teamInbox/permissionRequested",
        PermissionPrompt,
        "the hook handed over a permission request: worth a prompt",
    ),
)
