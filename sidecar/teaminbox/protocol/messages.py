"""Teams and their messages: reading, sending, marking, searching, and what the sidecar
pushes when an inbox changes."""

from __future__ import annotations

from typing import Any

import attrs

from ..model import Message, SendResult, Team
from .base import MAX_LIMIT, MAX_OFFSET, Empty, Method, Notification, in_range, nonempty


@attrs.define
class TeamsParams:
    include_ended: bool = True


@attrs.define
class TeamsResult:
    teams: list[Team]


@attrs.define
class MessagesParams:
    team: str = attrs.field(validator=nonempty)
    inbox: str = attrs.field(validator=nonempty)
    unread_only: bool = False
    offset: int = attrs.field(default=0, validator=in_range(0, MAX_OFFSET))
    limit: int = attrs.field(default=200, validator=in_range(0, MAX_LIMIT))
    include_archived: bool = False


@attrs.define
class MessagesResult:
    messages: list[Message]
    total: int
    unread: int


@attrs.define
class ConversationParams:
    team: str = attrs.field(validator=nonempty)
    offset: int = attrs.field(default=0, validator=in_range(0, MAX_OFFSET))
    limit: int = attrs.field(default=200, validator=in_range(0, MAX_LIMIT))


@attrs.define
class SendParams:
    team: str = attrs.field(validator=nonempty)
    to: str = attrs.field(validator=nonempty)
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
    team: str = attrs.field(validator=nonempty)
    inbox: str = attrs.field(validator=nonempty)
    ids: list[str] = attrs.Factory(list)
    all: bool = False


@attrs.define
class DiscardParams:
    """Write `read: true` into an inbox an agent consumes: its runner discards those."""

    team: str = attrs.field(validator=nonempty)
    inbox: str = attrs.field(validator=nonempty)
    ids: list[str] = attrs.Factory(list)
    all: bool = False


@attrs.define
class Marked:
    marked: int


@attrs.define
class SearchParams:
    query: str = attrs.field(validator=nonempty)
    team: str | None = None
    limit: int = attrs.field(default=50, validator=in_range(1, MAX_LIMIT))


@attrs.define
class MessagesOnly:
    messages: list[Message]


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


METHODS = (
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
    Method("teamInbox/markSeen", MarkParams, Marked, "the seen state only; never touches a file"),
    Method(
        "teamInbox/discard",
        DiscardParams,
        Marked,
        "write `read: true` into an inbox an agent consumes (it discards them undelivered)",
    ),
    Method("teamInbox/search", SearchParams, MessagesOnly, "full-text over the history"),
)

NOTIFICATIONS = (
    Notification(
        "teamInbox/didChange",
        DidChangeParams,
        "an inbox changed: added, removed (pruned) and updated (read flipped) messages",
    ),
    Notification("teamInbox/teamsChanged", Empty, "a team, member or inbox appeared or vanished"),
    Notification("teamInbox/unread", UnreadParams, "unseen messages to the person, by team"),
    Notification("teamInbox/replied", RepliedParams, "a teammate answered: worth a toast"),
)
