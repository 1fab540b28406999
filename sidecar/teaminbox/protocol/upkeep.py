"""Keeping inboxes and the history in order: compacting, the doctor, where an inbox lives,
forgetting an ended team."""

from __future__ import annotations

import attrs

from ..model import Finding
from .base import Empty, Method, nonempty


@attrs.define
class CompactParams:
    team: str = attrs.field(validator=nonempty)
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
class InboxRef:
    team: str = attrs.field(validator=nonempty)
    inbox: str = attrs.field(validator=nonempty)


@attrs.define
class PathResult:
    path: str


@attrs.define
class ForgetParams:
    team: str = attrs.field(validator=nonempty)
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


METHODS = (
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
