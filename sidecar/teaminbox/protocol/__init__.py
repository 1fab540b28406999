"""The wire contract: every request's params and result, every notification's params.

This package and model.py are the one source: `scripts/gen_protocol.py` writes
extension/src/protocol.ts and the tables in docs/protocol.md from them, and a
test fails when either drifts. Params are structured by `structure` (camelCase
on the wire); anything malformed or out of range is InvalidParams. Each module
holds one group of methods, its classes beside the `METHODS` and `NOTIFICATIONS`
that name them; this one joins them, in the order the generated files list them.
"""

from __future__ import annotations

from . import activity, attention, base, initialize, messages, permissions, tasks, tools, upkeep
from .activity import (
    ActivityParams,
    ChangeContent,
    ChangeContentParams,
    ChangesParams,
    ChangesResult,
)
from .attention import (
    AnswerPlanParams,
    AnswerPlanResult,
    AttentionAction,
    AttentionItem,
    AttentionKind,
    AttentionResult,
    DismissParams,
    DismissResult,
    MemberStateItem,
    MemberStateParams,
    PlanEffect,
)
from .base import MAX_LIMIT, MAX_OFFSET, Empty, Method, Notification, structure
from .initialize import InitializationOptions, NotifyMode, TokenPrice
from .messages import (
    ConversationParams,
    DidChangeParams,
    DiscardParams,
    Marked,
    MarkParams,
    MessagesOnly,
    MessagesParams,
    MessagesResult,
    RepliedParams,
    SearchParams,
    SendParams,
    SendResults,
    TeamsParams,
    TeamsResult,
    UnreadParams,
)
from .permissions import (
    AnswerPermissionParams,
    AnswerPermissionResult,
    PermissionBehavior,
    PermissionPrompt,
    PermissionRequestsResult,
    PermissionTextParams,
    PermissionTextResult,
)
from .tasks import SetTaskStatusParams, TaskResult, TasksChangedParams, TasksResult, TeamParams
from .tools import CallToolParams, ToolName, ToolOutput
from .upkeep import (
    CompactParams,
    CompactResult,
    DoctorResult,
    ForgetParams,
    ForgetResult,
    InboxRef,
    PathResult,
)

# the generated files list each part's classes in this order, each part in source order
PARTS = (initialize, base, messages, upkeep, activity, tasks, attention, permissions, tools)

METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        *messages.METHODS,
        *upkeep.METHODS,
        *activity.METHODS,
        *tasks.METHODS,
        *attention.METHODS,
        *permissions.METHODS,
        *tools.METHODS,
    )
}

NOTIFICATIONS: dict[str, Notification] = {
    n.name: n
    for n in (
        *messages.NOTIFICATIONS,
        *activity.NOTIFICATIONS,
        *tasks.NOTIFICATIONS,
        *attention.NOTIFICATIONS,
        *permissions.NOTIFICATIONS,
    )
}

__all__ = [
    "MAX_LIMIT",
    "MAX_OFFSET",
    "METHODS",
    "NOTIFICATIONS",
    "PARTS",
    "ActivityParams",
    "AnswerPermissionParams",
    "AnswerPermissionResult",
    "AnswerPlanParams",
    "AnswerPlanResult",
    "AttentionAction",
    "AttentionItem",
    "AttentionKind",
    "AttentionResult",
    "CallToolParams",
    "ChangeContent",
    "ChangeContentParams",
    "ChangesParams",
    "ChangesResult",
    "CompactParams",
    "CompactResult",
    "ConversationParams",
    "DidChangeParams",
    "DiscardParams",
    "DismissParams",
    "DismissResult",
    "DoctorResult",
    "Empty",
    "ForgetParams",
    "ForgetResult",
    "InboxRef",
    "InitializationOptions",
    "MarkParams",
    "Marked",
    "MemberStateItem",
    "MemberStateParams",
    "MessagesOnly",
    "MessagesParams",
    "MessagesResult",
    "Method",
    "Notification",
    "NotifyMode",
    "PathResult",
    "PermissionBehavior",
    "PermissionPrompt",
    "PermissionRequestsResult",
    "PermissionTextParams",
    "PermissionTextResult",
    "PlanEffect",
    "RepliedParams",
    "SearchParams",
    "SendParams",
    "SendResults",
    "SetTaskStatusParams",
    "TaskResult",
    "TasksChangedParams",
    "TasksResult",
    "TeamParams",
    "TeamsParams",
    "TeamsResult",
    "TokenPrice",
    "ToolName",
    "ToolOutput",
    "UnreadParams",
    "structure",
]
