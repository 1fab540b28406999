"""Roots -> teams -> members -> inboxes.

Claude Code keeps `teams/<team>/config.json` (camelCase) and
`inboxes/<member name>.json`; PseudoClaude keeps `config.json` (snake_case)
and `inboxes/<agent id>.json`. A team is `claude:<dir>` or
`pseudoclaude:<dir>`; a bare dir name is accepted where it is unambiguous.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

import attrs
import orjson

from .errors import (
    AmbiguousTeam,
    CorruptInbox,
    InvalidName,
    TeamInboxError,
    UnknownInbox,
    UnknownRecipient,
    UnknownTeam,
    check_name,
)
from .formats import InboxFormat, get
from .model import FORMATS, Format, Member, Problem, Team
from .store import Snapshot, read

CLAUDE_USER_INBOX = "user"


@attrs.define(frozen=True)
class Root:
    path: str
    format: Format | None = None  # None: detected per team


def parse_root(spec: str) -> Root:
    """`PATH`, `claude=PATH` or `pseudoclaude=PATH`."""
    fmt, sep, path = spec.partition("=")
    if sep and fmt in FORMATS:
        return Root(os.path.abspath(os.path.expanduser(path)), fmt)
    return Root(os.path.abspath(os.path.expanduser(spec)))


def default_roots(env: Mapping[str, str] = os.environ) -> list[Root]:
    home = env.get("HOME") or os.path.expanduser("~")
    claude_dir = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    return [
        Root(os.path.join(claude_dir, "teams"), "claude"),
        Root(os.path.join(home, ".PseudoClaude", "teams"), "pseudoclaude"),
    ]


@attrs.define
class Settings:
    roots: list[Root] = attrs.Factory(default_roots)
    # The person's identity per format; None for PseudoClaude means "the lead".
    identity: dict[str, str | None] = attrs.Factory(
        lambda: {"claude": CLAUDE_USER_INBOX, "pseudoclaude": None}
    )


@attrs.define
class TeamDir:
    """A team folder found on disk, with its config parsed (or the error)."""

    id: str
    format: Format
    name: str
    path: str
    root: str
    config: dict[str, Any] | None
    config_error: Problem | None

    @property
    def fmt(self) -> InboxFormat:
        return get(self.format)

    @property
    def inbox_dir(self) -> str:
        return os.path.join(self.path, "inboxes")

    def inbox_path(self, inbox: str) -> str:
        return os.path.join(self.inbox_dir, check_name(inbox, "inbox name") + ".json")

    def config_members(self) -> list[dict[str, Any]]:
        members = (self.config or {}).get("members")
        return [m for m in members if isinstance(m, dict)] if isinstance(members, list) else []

    def inbox_files(self) -> list[str]:
        """Inbox stems on disk; hidden names are temp files (PseudoClaude's `.tmp-*.json`)."""
        try:
            names = os.listdir(self.inbox_dir)
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(n[:-5] for n in names if n.endswith(".json") and not n.startswith("."))


def _read_config(path: str) -> tuple[dict[str, Any] | None, Problem | None]:
    cfg = os.path.join(path, "config.json")
    try:
        with open(cfg, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None, Problem("missing_config", f"{cfg}: no config.json", cfg)
    except OSError as err:
        return None, Problem("unreadable_config", f"{cfg}: {err.strerror}", cfg)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as err:
        return None, Problem(
            "corrupt_config", f"{cfg}: invalid JSON at line {err.lineno} column {err.colno}", cfg
        )
    if not isinstance(value, dict):
        return None, Problem("corrupt_config", f"{cfg}: top level is not an object", cfg)
    return value, None


def _detect(path: str, config: dict[str, Any] | None) -> Format:
    if config is not None:
        if "lead_agent_id" in config or "sanitized_name" in config:
            return "pseudoclaude"
        if "leadAgentId" in config or "leadSessionId" in config:
            return "claude"
    inboxes = os.path.join(path, "inboxes")
    try:
        for name in sorted(os.listdir(inboxes)):
            if name.endswith(".json") and not name.startswith("."):
                with open(os.path.join(inboxes, name), "rb") as f:
                    head = f.read(64).lstrip()
                if head[:1] == b"{":
                    return "pseudoclaude"
                if head[:1] == b"[":
                    return "claude"
    except OSError:
        pass
    return "claude"


def find_teams(roots: Iterable[Root]) -> list[TeamDir]:
    teams: dict[str, TeamDir] = {}
    for root in roots:
        try:
            names = sorted(os.listdir(root.path))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for name in names:
            path = os.path.join(root.path, name)
            if name.startswith(".") or not os.path.isdir(path):
                continue
            config, problem = _read_config(path)
            fmt = root.format or _detect(path, config)
            team_id = f"{fmt}:{name}"
            if team_id not in teams:  # the first root that has it wins
                teams[team_id] = TeamDir(team_id, fmt, name, path, root.path, config, problem)
    return list(teams.values())


def resolve_team(roots: Iterable[Root], name: str) -> TeamDir:
    return pick_team(find_teams(roots), name)


def pick_team(teams: list[TeamDir], name: str) -> TeamDir:
    """A team by id (`claude:<dir>`) or by a bare dir name that is unambiguous."""
    fmt, sep, bare = name.partition(":")
    check_name(bare if sep and fmt in FORMATS else name, "team name")
    exact = [t for t in teams if t.id == name]
    if exact:
        return exact[0]
    matches = [t for t in teams if t.name == name]
    if len(matches) == 1:
        return matches[0]
    if matches:
        ids = ", ".join(t.id for t in matches)
        raise AmbiguousTeam(f"team {name!r} is ambiguous: {ids}")
    known = ", ".join(t.id for t in teams) or "none found"
    raise UnknownTeam(f"unknown team {name!r} (teams: {known})")


@attrs.define
class Roster:
    """A team's members joined with the inbox files present."""

    team: TeamDir
    lead: str | None
    identity: str
    own_inbox: str | None
    members: list[Member]
    skipped: list[Member] = attrs.Factory(list)  # members whose names are unsafe as paths

    def member(self, inbox: str) -> Member | None:
        return next((m for m in self.members if m.inbox == inbox), None)

    def resolve_inbox(self, name: str) -> Member:
        """An inbox by its stem, member name or agent id."""
        check_name(name, "inbox name")
        for m in self.members:
            if name in (m.inbox, m.name, m.agent_id):
                return m
        raise UnknownInbox(f"team {self.team.id} has no inbox {name!r}")

    def _addressable(self, m: Member) -> bool:
        """A member that reads its inbox: not a phantom, not the person's or Claude's user.json."""
        if m.phantom or m.owned:
            return False
        return not (self.team.format == "claude" and m.inbox == CLAUDE_USER_INBOX)

    def resolve_recipients(self, to: str) -> list[Member]:
        """A member by name or agent id, or `*`/`broadcast`: every member but the sender."""
        if to in ("*", "broadcast"):
            return [m for m in self.members if self._addressable(m) and m.name != self.identity]
        check_name(to, "recipient")
        for m in self.members:
            if self._addressable(m) and to in (m.name, m.agent_id):
                return [m]
        names = ", ".join(m.name for m in self.members if self._addressable(m))
        raise UnknownRecipient(
            f"team {self.team.id} has no member {to!r} (members: {names or 'none'})"
        )


def roster(team: TeamDir, settings: Settings) -> Roster:
    files = set(team.inbox_files())
    members: list[Member] = []
    lead: str | None = None
    if team.format == "claude":
        lead_id = (team.config or {}).get("leadAgentId")
        for m in team.config_members():
            name = m.get("name")
            if not isinstance(name, str) or not name:
                continue
            is_lead = m.get("agentId") == lead_id or (lead_id is None and name == "team-lead")
            lead = name if is_lead else lead
            members.append(
                Member(
                    name=name,
                    inbox=name,
                    agent_id=_str(m.get("agentId")),
                    agent_type=_str(m.get("agentType")),
                    color=_str(m.get("color")),
                    is_active=m.get("isActive") if isinstance(m.get("isActive"), bool) else None,
                    lead=is_lead,
                )
            )
        identity = settings.identity.get("claude") or CLAUDE_USER_INBOX
        own_inbox: str | None = identity
    else:
        lead_id = (team.config or {}).get("lead_agent_id")
        for m in team.config_members():
            name, agent_id = m.get("name"), m.get("agent_id")
            if not isinstance(name, str) or not isinstance(agent_id, str) or not agent_id:
                continue
            is_lead = agent_id == lead_id or (lead_id is None and name == "lead")
            lead = name if is_lead else lead
            members.append(
                Member(
                    name=name,
                    inbox=agent_id,
                    agent_id=agent_id,
                    agent_type=_str(m.get("agent_type")),
                    is_active=m.get("is_active") is not False,  # absent means active
                    lead=is_lead,
                )
            )
        identity = settings.identity.get("pseudoclaude") or lead or "lead"
        own = next((m for m in members if m.name == identity), None)
        own_inbox = own.inbox if own else None
    known = {m.inbox for m in members}
    if own_inbox is not None and own_inbox not in known:
        # Claude's user.json: the person's own inbox, not a config member.
        members.append(Member(name=own_inbox, inbox=own_inbox))
        known.add(own_inbox)
    for stem in sorted(files - known):
        phantom = team.config is not None and not (
            team.format == "claude" and stem == CLAUDE_USER_INBOX
        )
        members.append(Member(name=stem, inbox=stem, phantom=phantom))
    safe, skipped = [], []
    for member in members:
        member.owned = member.inbox == own_inbox
        try:
            check_name(member.inbox, "inbox name")
            safe.append(member)
        except InvalidName as err:
            member.error = Problem(err.code, f"{team.id}: member skipped: {err.message}")
            skipped.append(member)
    return Roster(team, lead, identity, own_inbox, safe, skipped)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def count(team: TeamDir, member: Member) -> Snapshot | None:
    """Fill a member's total/unread from its inbox; a bad file becomes its error."""
    try:
        snap = read(team.fmt, team.inbox_path(member.inbox))
    except CorruptInbox as err:
        member.error = Problem(err.code, err.message, err.path)
        return None
    except (TeamInboxError, OSError) as err:
        member.error = Problem("unreadable_inbox", str(err))
        return None
    bad = {p.index for p in snap.problems}
    valid = [e for i, e in enumerate(snap.entries) if i not in bad]
    member.total = len(valid)
    member.unread = sum(1 for e in valid if e.get("read") is not True)
    if snap.problems:
        first = snap.problems[0]
        member.error = Problem(
            "invalid_entries",
            f"{snap.path}: {len(snap.problems)} invalid entries skipped"
            f" (first at index {first.index}: {first.reason})",
            snap.path,
        )
    return snap


def describe(team: TeamDir, settings: Settings, counts: bool = True) -> Team:
    r = roster(team, settings)
    if counts:
        for m in r.members:
            count(team, m)
    description = (team.config or {}).get("description")
    return Team(
        id=team.id,
        format=team.format,
        name=_str((team.config or {}).get("name")) or team.name,
        dir=team.path,
        root=team.root,
        lead=r.lead,
        identity=r.identity,
        own_inbox=r.own_inbox,
        description=description if isinstance(description, str) else None,
        members=r.members,
        error=team.config_error or (r.skipped[0].error if r.skipped else None),
    )
