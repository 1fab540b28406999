"""What waits on the person, and each member's state (features/attention/): the items,
answering a plan, dismissing an item."""

from __future__ import annotations

from typing import Literal

import attrs

from ..model import MemberState
from .base import Empty, Method, Notification, nonempty


@attrs.define
class MemberStateItem:
    name: str
    inbox: str
    state: MemberState


@attrs.define
class MemberStateParams:
    team: str
    members: list[MemberStateItem]  # every member of the team that has a state


AttentionKind = Literal["plan", "permission", "stalled", "unanswered", "sameFile"]
AttentionAction = Literal["answerPermission", "showTerminal", "answerPlan", "openInbox", "reply"]


@attrs.define
class AttentionItem:
    """Something waiting on the person: a request nobody answered, a stalled member, a message."""

    kind: AttentionKind
    team: str
    member: str  # who asks, who is stalled, who wrote; sameFile: the one that edited first
    inbox: str | None  # that member's inbox
    since: float | None  # epoch seconds
    summary: str  # in words, for the tree
    request_id: str | None = None  # plan / permission: the request's id
    message_id: str | None = None  # unanswered: the latest such message
    tool_name: str | None = None  # permission: the tool it asks for
    count: int = 1  # unanswered: messages; stalled: unread messages waiting
    detail: str | None = None  # permission: what the call would run or touch (agent text)
    # sameFile: the file's path as the calls named it (agent text), and the other member
    path: str | None = None
    other: str | None = None
    # what a click does: answerPermission (the hook waits: Allow / Deny here), showTerminal
    # (the prompt is in the lead's terminal), answerPlan, openInbox, reply
    action: AttentionAction | None = None
    info: bool = False  # shown, but nothing waits on the person (not in `count`)
    key: str = ""  # stable across restarts: what teamInbox/dismissAttention takes


@attrs.define
class AttentionResult:
    items: list[AttentionItem]
    count: int  # the items that wait on the person (`info` ones left out): the badge


@attrs.define
class AnswerPlanParams:
    team: str = attrs.field(validator=nonempty)
    approved: bool
    request_id: str | None = None  # the plan_approval_request's id; or give `member`
    member: str | None = None  # whose plan (default: the request's sender)
    feedback: str | None = None


PlanEffect = Literal["answered", "asked_lead"]


@attrs.define
class AnswerPlanResult:
    # answered: a plan_approval_response was written to the member (PseudoClaude);
    # asked_lead: a message asking the lead to answer was written to the lead (Claude Code
    # refuses a plan_approval_response from anyone but its lead)
    effect: PlanEffect
    team: str
    member: str
    to: str  # whose inbox got the entry
    request_id: str | None
    message_id: str | None
    text: str  # what was written, in words
    note: str | None = None


@attrs.define
class DismissParams:
    key: str = attrs.field(validator=nonempty)  # an AttentionItem's `key`


@attrs.define
class DismissResult:
    dismissed: bool  # false: it was dismissed already


METHODS = (
    Method(
        "teamInbox/attention",
        Empty,
        AttentionResult,
        "what waits on the person: unanswered requests, stalled members, unanswered messages",
    ),
    Method(
        "teamInbox/answerPlan",
        AnswerPlanParams,
        AnswerPlanResult,
        "approve or reject a plan (PseudoClaude), or ask the lead to (Claude Code)",
    ),
    Method(
        "teamInbox/dismissAttention",
        DismissParams,
        DismissResult,
        "hide an attention item (kept across restarts); a hook's prompt goes to the terminal",
    ),
)

NOTIFICATIONS = (
    Notification(
        "teamInbox/memberState",
        MemberStateParams,
        "a member's state (working, idle, waiting, stalled, gone) changed",
    ),
    Notification("teamInbox/attentionChanged", AttentionResult, "what waits on the person changed"),
)
