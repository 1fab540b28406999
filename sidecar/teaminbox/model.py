"""The normalized view of teams, members and messages, and the one converter.

Everything that leaves the sidecar (CLI --json, JSON-RPC) is unstructured by
`converter`, which spells attribute names in camelCase (`from_` -> `from`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, get_args, get_origin

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

Format = str  # a name in formats.registry(): claude, pseudoclaude, filebus


@attrs.define
class Problem:
    """An error attached to a team or member instead of failing the listing."""

    code: str
    message: str
    path: str | None = None


# --- how a message reads for a person (render.description) -----------------------------------

# What a message is, one name whichever format wrote it: Claude Code's frame types (shortened)
# with PseudoClaude's mapped onto them; `frame` is any other frame (its line says its type).
DescriptionKind = Literal[
    "message",
    "idle",
    "shutdown_request",
    "shutdown_approved",
    "shutdown_rejected",
    "plan_request",
    "plan_response",
    "task_assignment",
    "task_completed",
    "teammate_terminated",
    "permission_request",
    "permission_response",
    "mode_request",
    "permission_update",
    "frame",
]


@attrs.define
class FrameField:
    """One of a frame's fields in words: `tool name`, `Bash`."""

    label: str
    value: str  # an object or list as compact JSON; at most 500 characters


@attrs.define
class Description:
    """A message as the CLI prints it and every view shows it: made once, by render.description."""

    kind: DescriptionKind
    line: str  # one line: a frame in words, else the summary, else the first line
    fields: list[FrameField] = attrs.Factory(list)  # a frame's fields; [] for words to a person
    task: str | None = None  # the task a frame names (assigned, completed, idle after it)


# Not described yet: a message is described as it leaves the sidecar (see converter), not
# when it is parsed (most parsed messages never leave); never equal to another's.
UNDESCRIBED = Description(kind="message", line="")
_DESCRIBED_AS_IT_LEAVES: Any = attrs.field(default=UNDESCRIBED, eq=False, repr=False)


@attrs.define
class Gap:
    """A time nobody read an inbox whose reader takes messages away unkept (gaps.py)."""

    start: float  # epoch seconds
    end: float  # epoch seconds


@attrs.define
class Message:
    id: str
    team: str
    inbox: str
    format: Format
    from_: str
    to: str
    type: str
    text: str
    timestamp: str
    read: bool
    summary: str | None = None
    color: str | None = None
    payload: dict[str, Any] | None = None
    structured: dict[str, Any] | None = None
    raw: dict[str, Any] = attrs.Factory(dict)
    archived: bool = False
    seen: bool = False
    from_name: str | None = None  # the sender's member name, whichever spelling `from` used
    delivery: str | None = None  # in an agent's inbox: waiting | delivered | read
    recovered: bool = False  # from its sender's transcript: pruned before the file was read
    gap: Gap | None = None  # not a message: a time nothing read the inbox (text says so)
    description: Description = _DESCRIBED_AS_IT_LEAVES  # how it reads (render.description)


@attrs.define
class Member:
    name: str
    inbox: str
    agent_id: str | None = None
    agent_type: str | None = None
    color: str | None = None
    is_active: bool | None = None
    lead: bool = False
    total: int = 0
    unread: int = 0
    owned: bool = False
    phantom: bool = False
    left: bool = False  # no longer in the config; its inbox file stays behind
    consumed: bool = False  # an agent consumes this inbox: `read: true` would discard
    model: str | None = None
    cwd: str | None = None
    branch: str | None = None
    backend: str | None = None  # PseudoClaude: tmux | iterm2 | in-process
    error: Problem | None = None
    activity: Activity | None = None  # from its session transcript (Claude Code); else null
    state: MemberState | None = None  # working | idle | waiting | stalled | gone


@attrs.define
class Team:
    id: str
    format: Format
    name: str
    dir: str
    root: str
    lead: str | None = None
    identity: str = "user"
    own_inbox: str | None = None
    description: str | None = None
    members: list[Member] = attrs.Factory(list)
    error: Problem | None = None
    ended: bool = False  # the folder is gone; served from the history
    label: str | None = None  # for humans: project · start time (a session team's title)
    format_name: str = ""  # how people call its format (Claude, File bus); "" in an old history
    # its board's statuses (the wire's, in board order; none: no board) and why an empty
    # board may be empty (the format's word: "" when nothing is known)
    task_statuses: list[str] = attrs.Factory(list)
    tasks_note: str = ""
    project: str | None = None
    created_at: float | None = None  # epoch seconds
    lead_alive: bool | None = None  # the lead process (where the config names it)
    tokens: TokenUse | None = None  # the whole team's, from the session transcripts
    branch: str | None = None  # the lead's git branch (transcripts); null outside a repository
    orphan: bool = False  # live folder, dead lead: Claude Code deletes it on its next start

    # Views show `title`, not `name`: its chosen name, or for a team named after its session
    # (`session-1d0f5bbe`) its label. A team archived before `title`: what it was shown as then.
    title: str = attrs.Factory(lambda t: t.label or t.name, True)  # what people call the team


@attrs.define
class Finding:
    kind: str
    path: str
    message: str


@attrs.frozen
class Draft:
    """A message to write, before a format makes its entry (`InboxFormat.new_entry`)."""

    sender: str
    recipient: str  # the member's agent id, else its inbox
    text: str
    summary: str | None = None
    type: str | None = None  # a frame's type; None, "message" or "text": a plain message
    color: str | None = None
    payload: dict[str, Any] | None = None  # a frame's fields


@attrs.define
class SendResult:
    recipient: str
    ok: bool
    message_id: str | None = None
    inbox: str | None = None
    error: str | None = None
    code: str | None = None
    note: str | None = None  # what the person should know: e.g. it waits until the lead resumes


def camel(name: str) -> str:
    if name == "from_":
        return "from"
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def make_converter(describe: Callable[[Message], Description] | None = None) -> cattrs.Converter:
    """The wire's spelling (camelCase, strict scalars). With `describe`, every message that
    leaves says how it reads (render.wire_converter); without, what the sidecar keeps."""
    conv = cattrs.Converter(omit_if_default=False)

    def unstructure_factory(cls: type) -> Any:
        overrides = {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_unstructure_fn(cls, conv, **overrides)  # type: ignore[arg-type]

    def structure_factory(cls: type) -> Any:
        overrides = {a.name: override(rename=camel(a.name)) for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, conv, **overrides)  # type: ignore[arg-type]

    conv.register_unstructure_hook_factory(attrs.has, unstructure_factory)
    # an entry's own JSON (raw, payload, structured) is plain data already and may nest 1,024
    # deep (jsonio.MAX_DEPTH): cattrs would recurse into it, one frame pair a level
    free: set[Any] = {dict[str, Any], dict[str, Any] | None}
    conv.register_unstructure_hook_func(lambda t: t in free, lambda value: value)
    conv.register_structure_hook_factory(attrs.has, structure_factory)

    # Strict scalars: "5" is not an int and "false" is not True.
    def strict(kind: type, *accept: type) -> Any:
        ok = accept or (kind,)

        def hook(value: Any, _: type) -> Any:
            if isinstance(value, bool) and kind is not bool:
                raise TypeError(f"expected {kind.__name__}, got a boolean")
            if not isinstance(value, ok):
                raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
            return value

        return hook

    conv.register_structure_hook(str, strict(str))
    conv.register_structure_hook(bool, strict(bool))
    conv.register_structure_hook(int, strict(int))
    conv.register_structure_hook(float, strict(float, int, float))

    def list_of(t: Any) -> Any:
        (item,) = get_args(t) or (Any,)

        def hook(value: Any, _: type) -> Any:
            if not isinstance(value, list):
                raise TypeError(f"expected a list, got {type(value).__name__}")
            return [conv.structure(v, item) for v in value]

        return hook

    def dict_of(t: Any) -> Any:
        key, val = get_args(t) or (str, Any)

        def hook(value: Any, _: type) -> Any:
            if not isinstance(value, dict):
                raise TypeError(f"expected an object, got {type(value).__name__}")
            return {conv.structure(k, key): conv.structure(v, val) for k, v in value.items()}

        return hook

    def origin(kind: type) -> Any:
        def match(t: Any) -> bool:
            found: Any = get_origin(t)
            return found is kind

        return match

    conv.register_structure_hook_factory(origin(list), list_of)
    conv.register_structure_hook_factory(origin(dict), dict_of)

    if describe is None:
        return conv
    fields_of = unstructure_factory(Message)

    def message_out(msg: Message) -> dict[str, Any]:
        out: dict[str, Any] = fields_of(msg)
        if msg.description is UNDESCRIBED:
            out["description"] = conv.unstructure(describe(msg))
        return out

    conv.register_unstructure_hook(Message, message_out)
    return conv


converter = make_converter()


@attrs.define
class TokenUse:
    """Tokens a member (or a whole team) used in its session, from the transcripts' `usage`."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0  # USD, an estimate: a price table per model family (tokenPrices)


@attrs.define
class Step:
    """A member's current step: its last tool call without a result yet (Claude Code)."""

    tool: str  # the tool's name, written out as text
    detail: str  # what it runs on (a command, a path), one line, cut with "…"
    text: str  # "<tool>: <detail>", one line, cut with "…": what a row shows
    since: float | None  # epoch seconds of the call's row
    tool_use_id: str
    waiting: bool = False  # a permission prompt for it is open: it waits for the person


@attrs.define
class ContextUse:
    """A member's context: its last turn's prompt (input, cache reads, cache writes) against
    its model's window."""

    used: int  # tokens
    window: int  # tokens: the model's context window (transcripts.tokens.context_window)
    model: str  # the model id its last turn named


@attrs.define
class Activity:
    """What a member's session transcript says it is doing (Claude Code)."""

    last_active: float | None = None  # epoch seconds of its transcript's last row
    last_words: str | None = None  # its latest assistant text (at most 2,000 characters)
    tokens: TokenUse = attrs.Factory(TokenUse)
    working: bool = False  # its transcript grew in the last 10 seconds
    doing: Step | None = None  # its current step; null when it runs none
    changed: int = 0  # its successful file writes and edits read so far (teamInbox/changes)
    context: ContextUse | None = None  # its last turn's; null before its first


FileTool = Literal["Write", "Edit", "MultiEdit", "NotebookEdit"]


@attrs.define
class FileChange:
    """A file a member wrote or edited: a file call whose result was no error."""

    member: str
    path: str  # as the call named it (agent data: open it, never run it)
    path_text: str  # the path written out as one line of text: what a row shows
    tool: FileTool
    time: float | None  # epoch seconds of its result's row
    tool_use_id: str


StateKind = Literal["working", "idle", "waiting", "stalled", "gone"]


@attrs.define
class MemberState:
    """What a member is doing, derived from its messages (member_state.py)."""

    kind: StateKind
    since: float | None = None  # epoch seconds it has been so, where known
    detail: str | None = None  # idle: its last words or reason; waiting: for what; gone: why


@attrs.define
class Task:
    """One task of a team's task board (Claude Code's tasks/<team>/, PseudoClaude's tasks.json)."""

    id: str
    team: str
    format: Format
    subject: str  # Claude `subject`, PseudoClaude `title`
    description: str = ""
    status: str = "pending"  # pending | in_progress | completed | blocked (PseudoClaude)
    owner: str | None = None  # the member's name (Claude `owner`, PseudoClaude `assignee`)
    active_form: str | None = None  # Claude: what the spinner says while it is in progress
    blocks: list[str] = attrs.Factory(list)
    blocked_by: list[str] = attrs.Factory(list)
    created_at: str | None = None  # PseudoClaude only
    updated_at: str | None = None  # PseudoClaude only
    archived: bool = False  # from the history: the team ended, its last board
    raw: dict[str, Any] = attrs.Factory(dict)  # the task as it is in the file
