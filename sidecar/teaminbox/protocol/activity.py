"""What the members do, from Claude Code's transcripts: a team's activity and token use,
the files each member wrote (features/activity/)."""

from __future__ import annotations

import attrs

from ..model import Activity, FileChange, FileTool, TokenUse
from .base import Method, Notification, nonempty


@attrs.define
class ActivityParams:
    team: str
    tokens: TokenUse | None  # the whole team's
    branch: str | None
    members: dict[str, Activity]  # by member name: only members with a transcript


@attrs.define
class ChangesParams:
    team: str = attrs.field(validator=nonempty)
    member: str | None = None  # one member's; else every member's


@attrs.define
class ChangesResult:
    changes: list[FileChange]  # newest first


@attrs.define
class ChangeContentParams:
    team: str = attrs.field(validator=nonempty)
    tool_use_id: str = attrs.field(validator=nonempty)


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


METHODS = (
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
)

NOTIFICATIONS = (
    Notification(
        "teamInbox/activity",
        ActivityParams,
        "a team's activity changed (a new or ended step at once; tokens and times at most"
        " once a second a team)",
    ),
)
