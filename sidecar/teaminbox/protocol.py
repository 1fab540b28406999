"""The wire contract: every request's params and result, every notification's params.

This module and model.py are the one source: `scripts/gen_protocol.py` writes
extension/src/protocol.ts and the tables in docs/protocol.md from them, and a
test fails when either drifts. Params are structured by `converter` (camelCase
on the wire); anything malformed or out of range is InvalidParams.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs
import cattrs

from .errors import InvalidParams
from .model import (
    Activity,
    FileChange,
    FileTool,
    Finding,
    MemberState,
    Message,
    SendResult,
    Task,
    Team,
    TokenUse,
    converter,
)

MAX_LIMIT = 10_000
MAX_OFFSET = 2**31
NotifyMode = Literal["off", "replies", "messages", "all"]  # notify_policy.py says what each does


def _range(lo: int, hi: int) -> Any:
    def check(inst: Any, attr: attrs.Attribute[Any], value: int) -> None:
        if not lo <= value <= hi:
            raise InvalidParams(f"{attr.name} must be between {lo} and {hi}")

    return check


def _nonempty(inst: Any, attr: attrs.Attribute[Any], value: str) -> None:
    if not value:
        raise InvalidParams(f"{attr.name} must not be empty")


# --- initialize ----------------------------------------------------------------------


@attrs.define
class InitializationOptions:
    """`initializationOptions` of `initialize`."""

    roots: list[str] = attrs.Factory(list)  # PATH or FORMAT=PATH; workspace folders too
    default_roots: bool = True  # also ~/.claude/teams and ~/.PseudoClaude/teams
    identity: dict[str, str | None] | str | None = None  # who the person is: one, or by format
    history_path: str | None = None  # the SQLite archive (default: the user's data folder)
    history_days: float = 90  # days to keep archived messages and ended teams; 0: forever
    notify: NotifyMode = "replies"  # what fires teamInbox/replied (see below)
    notify_lead_traffic: bool = True  # at "messages" and "all": every teammate's text to the lead
    read_transcripts: bool = True  # Claude Code's transcripts: lead answers, activity, tokens
    # USD per million tokens by a part of the model id ("opus", "claude-opus-4-1"): the
    # longest part found in the id wins; merged over the built-in estimate (transcripts/tokens.py)
    token_prices: dict[str, TokenPrice] = attrs.Factory(dict)
    # a member with messages waiting unread longer than this while not working is stalled
    stall_minutes: float = 10


# --- requests --------------------------------------------------------------------------


@attrs.define
class Empty:
    pass


@attrs.define
class TeamsParams:
    include_ended: bool = True


@attrs.define
class TeamsResult:
    teams: list[Team]


@attrs.define
class InboxRef:
    team: str = attrs.field(validator=_nonempty)
    inbox: str = attrs.field(validator=_nonempty)


@attrs.define
class MessagesParams:
    team: str = attrs.field(validator=_nonempty)
    inbox: str = attrs.field(validator=_nonempty)
    unread_only: bool = False
    offset: int = attrs.field(default=0, validator=_range(0, MAX_OFFSET))
    limit: int = attrs.field(default=200, validator=_range(0, MAX_LIMIT))
    include_archived: bool = False


@attrs.define
class MessagesResult:
    messages: list[Message]
    total: int
    unread: int


@attrs.define
class ConversationParams:
    team: str = attrs.field(validator=_nonempty)
    offset: int = attrs.field(default=0, validator=_range(0, MAX_OFFSET))
    limit: int = attrs.field(default=200, validator=_range(0, MAX_LIMIT))


@attrs.define
class SendParams:
    team: str = attrs.field(validator=_nonempty)
    to: str = attrs.field(validator=_nonempty)
    text: str = ""
    summary: str | None = None
    type: str | None = None
    color: str | None = None
    payload: dict[str, Any] | None = None
    # words only: a text the team's agents would take for a protocol frame is refused
    plain: bool = False


@attrs.define
class SendResults:
    results: list[SendResult]


@attrs.define
class MarkParams:
    team: str = attrs.field(validator=_nonempty)
    inbox: str = attrs.field(validator=_nonempty)
    ids: list[str] = attrs.Factory(list)
    all: bool = False


@attrs.define
class DiscardParams:
    """Write `read: true` into an inbox an agent consumes: its runner discards those."""

    team: str = attrs.field(validator=_nonempty)
    inbox: str = attrs.field(validator=_nonempty)
    ids: list[str] = attrs.Factory(list)
    all: bool = False


@attrs.define
class Marked:
    marked: int


@attrs.define
class SearchParams:
    query: str = attrs.field(validator=_nonempty)
    team: str | None = None
    limit: int = attrs.field(default=50, validator=_range(1, MAX_LIMIT))


@attrs.define
class MessagesOnly:
    messages: list[Message]


@attrs.define
class CompactParams:
    team: str = attrs.field(validator=_nonempty)
    inbox: str | None = None


@attrs.define
class CompactResult:
    team: str
    inbox: str
    archived: int  # read entries the history holds: the ones pruned
    removed: int
    kept: int


@attrs.define
class DoctorResult:
    findings: list[Finding]


@attrs.define
class PathResult:
    path: str


@attrs.define
class TeamParams:
    team: str = attrs.field(validator=_nonempty)


@attrs.define
class ForgetParams:
    team: str = attrs.field(validator=_nonempty)
    dry_run: bool = False  # count only: what a confirmation says (ForgetResult.messages)
    # the `messages` the person confirmed: a different count now (more archived since) is
    # refused, nothing forgotten
    expect: int | None = None


@attrs.define
class ForgetResult:
    team: str  # the team's id
    messages: int  # archived messages of the team: what forgetting removes
    inboxes: int  # the inboxes they are in
    forgotten: int  # messages removed (0 for a dry run)


# --- notifications ---------------------------------------------------------------------


@attrs.define
class DidChangeParams:
    team: str
    inbox: str
    added: list[Message]
    removed: list[str]
    updated: list[Message]
    total: int
    unread: int


@attrs.define
class UnreadParams:
    total: int
    by_team: dict[str, int]


@attrs.define
class RepliedParams:
    message: Message


@attrs.define
class ActivityParams:
    team: str
    tokens: TokenUse | None  # the whole team's
    branch: str | None
    members: dict[str, Activity]  # by member name: only members with a transcript


@attrs.define
class Method:
    name: str
    params: type
    result: type
    doc: str


@attrs.define
class Notification:
    name: str
    params: type
    doc: str


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("teamInbox/teams", TeamsParams, TeamsResult, "every team, ended ones included"),
        Method(
            "teamInbox/messages",
            MessagesParams,
            MessagesResult,
            "an inbox's messages, newest first",
        ),
        Method(
            "teamInbox/conversation",
            ConversationParams,
            MessagesOnly,
            "the team's whole exchange, newest first: every inbox, delivered messages included",
        ),
        Method("teamInbox/send", SendParams, SendResults, "send to a member, or `*`/`all`"),
        Method(
            "teamInbox/markRead",
            MarkParams,
            Marked,
            "`read: true` in the person's own inbox; elsewhere the seen state",
        ),
        Method(
            "teamInbox/markSeen", MarkParams, Marked, "the seen state only; never touches a file"
        ),
        Method(
            "teamInbox/discard",
            DiscardParams,
            Marked,
            "write `read: true` into an inbox an agent consumes (it discards them undelivered)",
        ),
        Method("teamInbox/search", SearchParams, MessagesOnly, "full-text over the history"),
        Method(
            "teamInbox/compact",
            CompactParams,
            CompactResult,
            "archive and prune read entries of the person's own inbox",
        ),
        Method("teamInbox/doctor", Empty, DoctorResult, "stale locks, corrupt files, leftovers"),
        Method("teamInbox/inboxPath", InboxRef, PathResult, "the inbox's file or folder"),
        Method(
            "teamInbox/forgetTeam",
            ForgetParams,
            ForgetResult,
            "drop an ended team (its folder gone) and its archived messages from the history;"
            " `dryRun` only counts them",
        ),
    )
}

NOTIFICATIONS: dict[str, Notification] = {
    n.name: n
    for n in (
        Notification(
            "teamInbox/didChange",
            DidChangeParams,
            "an inbox changed: added, removed (pruned) and updated (read flipped) messages",
        ),
        Notification(
            "teamInbox/teamsChanged", Empty, "a team, member or inbox appeared or vanished"
        ),
        Notification("teamInbox/unread", UnreadParams, "unseen messages to the person, by team"),
        Notification("teamInbox/replied", RepliedParams, "a teammate answered: worth a toast"),
        Notification(
            "teamInbox/activity",
            ActivityParams,
            "a team's activity or token use changed (transcripts; at most once a second a team)",
        ),
    )
}


def _identity(value: Any, _: Any) -> dict[str, str | None] | str | None:
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, dict):
        raise InvalidParams("identity must be a name or an object of names by format")
    result: dict[str, str | None] = converter.structure(value, dict[str, str | None])
    return result


converter.register_structure_hook_func(
    lambda t: t == (dict[str, str | None] | str | None), _identity
)


def structure(raw: Any, cls: type[Any]) -> Any:
    """Params from the wire; every failure is InvalidParams with one readable line."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise InvalidParams("params must be an object")
    try:
        return converter.structure(raw, cls)
    except InvalidParams:
        raise
    except cattrs.BaseValidationError as err:
        raise InvalidParams(_explain(err)) from err
    except (TypeError, ValueError, OverflowError) as err:
        raise InvalidParams(str(err)) from err


def _explain(err: BaseException) -> str:
    if isinstance(err, cattrs.BaseValidationError):
        for sub in err.exceptions:
            if isinstance(sub, InvalidParams):
                return sub.message
        notes = cattrs.transform_error(err)
        return "; ".join(notes) if notes else str(err)
    return str(err)


@attrs.define
class TokenPrice:
    """USD per million tokens for a model family: the transcripts' cost estimate."""

    input: float
    output: float
    cache_read: float | None = None  # default: a tenth of input
    cache_write: float | None = None  # default: 1.25 x input (5-minute cache writes)


# --- tasks, member state, what waits on the person (features/tasks.py, features/attention/) --


@attrs.define
class TasksResult:
    team: str
    tasks: list[Task]


@attrs.define
class SetTaskStatusParams:
    team: str = attrs.field(validator=_nonempty)
    id: str = attrs.field(validator=_nonempty)
    # pending | in_progress | completed; PseudoClaude also blocked (and its own todo / done)
    status: str = attrs.field(validator=_nonempty)


@attrs.define
class TaskResult:
    task: Task


@attrs.define
class TasksChangedParams:
    team: str
    tasks: list[Task]


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
    team: str = attrs.field(validator=_nonempty)
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
    key: str = attrs.field(validator=_nonempty)  # an AttentionItem's `key`


@attrs.define
class DismissResult:
    dismissed: bool  # false: it was dismissed already


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
    id: str = attrs.field(validator=_nonempty)
    behavior: PermissionBehavior
    message: str | None = None  # deny: the reason Claude Code tells the teammate


@attrs.define
class PermissionTextParams:
    id: str = attrs.field(validator=_nonempty)


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


@attrs.define
class ChangesParams:
    team: str = attrs.field(validator=_nonempty)
    member: str | None = None  # one member's; else every member's


@attrs.define
class ChangesResult:
    changes: list[FileChange]  # newest first


@attrs.define
class ChangeContentParams:
    team: str = attrs.field(validator=_nonempty)
    tool_use_id: str = attrs.field(validator=_nonempty)


@attrs.define
class ChangeContent:
    """What one file call wrote, from its transcript: text for a read-only diff."""

    tool_use_id: str
    kept: bool  # false: its text is no longer held (older, or the team ended); the rest is null
    path: str | None = None
    tool: FileTool | None = None
    before: str | None = None  # an edit's old text (MultiEdit: each edit's, a blank line apart)
    after: str | None = None  # what it wrote: an edit's new text, a Write's whole content
    cut: bool = False  # a text was longer than 256 KiB characters: its start only


METHODS.update(
    (m.name, m)
    for m in (
        Method(
            "teamInbox/changes",
            ChangesParams,
            ChangesResult,
            "the files each member wrote or edited (its calls' results no error), newest first",
        ),
        Method(
            "teamInbox/changeContent",
            ChangeContentParams,
            ChangeContent,
            "what one file call wrote (an edit's before and after, a Write's content)",
        ),
        Method("teamInbox/tasks", TeamParams, TasksResult, "a team's task board (live or ended)"),
        Method(
            "teamInbox/setTaskStatus",
            SetTaskStatusParams,
            TaskResult,
            "change one task's status, under the peer's own lock",
        ),
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
)
NOTIFICATIONS.update(
    (n.name, n)
    for n in (
        Notification("teamInbox/tasksChanged", TasksChangedParams, "a team's task board changed"),
        Notification(
            "teamInbox/memberState",
            MemberStateParams,
            "a member's state (working, idle, waiting, stalled, gone) changed",
        ),
        Notification(
            "teamInbox/attentionChanged", AttentionResult, "what waits on the person changed"
        ),
        Notification(
            "teamInbox/permissionRequested",
            PermissionPrompt,
            "the hook handed over a permission request: worth a prompt",
        ),
    )
)


# --- the agent tools (tools.py; features/tools.py), as VS Code's language-model tools ask them

ToolName = Literal[
    "list_teams",
    "team_status",
    "read_messages",
    "search_messages",
    "needs_attention",
    "get_tasks",
    "send_message",
    "broadcast",
]


@attrs.define
class CallToolParams:
    name: ToolName
    input: dict[str, Any] = attrs.Factory(dict)  # as the model gave it: the MCP tool's arguments


@attrs.define
class ToolOutput:
    result: dict[str, Any]  # the tool's JSON result, as the MCP server gives it


METHODS["teamInbox/callTool"] = Method(
    "teamInbox/callTool",
    CallToolParams,
    ToolOutput,
    "run one of the agent tools (the MCP server's); its error is the MCP tool's words",
)
