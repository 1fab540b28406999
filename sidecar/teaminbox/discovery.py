"""Roots -> teams -> rosters, the same for every format (each says how through formats/).

A team is `<format>:<dir>` (`claude:my-team`, `pseudoclaude:auth`,
`filebus:my-project`); a bare dir name is accepted where it is unambiguous.
Settings are parsed here once, for the CLI and the server alike.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from .errors import (
    AmbiguousTeam,
    InvalidName,
    InvalidParams,
    TeamInboxError,
    UnknownInbox,
    UnknownRecipient,
    UnknownTeam,
    check_name,
)
from .fileio import listdir
from .formats import InboxFormat, get, registry
from .formats.tasks_base import board_statuses
from .model import Member, Problem, Team
from .store import messages, read
from .timestamps import epoch

BROADCAST = ("*", "broadcast", "all")  # `all` is PseudoClaude's own spelling


@attrs.define(frozen=True)
class Root:
    path: str
    format: str | None = None  # None: detected per team


def parse_root(spec: str) -> Root:
    """`PATH` or `FORMAT=PATH` (FORMAT: a registered format, any case)."""
    fmt, sep, path = spec.partition("=")
    if sep and fmt.lower() in registry():
        return Root(os.path.abspath(os.path.expanduser(path)), fmt.lower())
    if sep and fmt and os.sep not in fmt and not os.path.exists(spec):
        known = ", ".join(registry())
        raise InvalidParams(f"unknown format {fmt!r} in root {spec!r} (formats: {known})")
    return Root(os.path.abspath(os.path.expanduser(spec)))


def default_roots(env: Mapping[str, str] = os.environ) -> list[Root]:
    home = env.get("HOME") or os.path.expanduser("~")
    return [Root(p, name) for name, f in registry().items() for p in f.default_roots(home, env)]


def _default_identity() -> dict[str, str | None]:
    return {name: f.default_identity for name, f in registry().items()}


@attrs.define
class Settings:
    roots: list[Root] = attrs.Factory(default_roots)
    # The person's identity per format; None means the format's default (PseudoClaude: the lead).
    identity: dict[str, str | None] = attrs.Factory(_default_identity)

    @classmethod
    def build(
        cls,
        roots: Iterable[str] = (),
        *,
        defaults: bool = True,
        identity: Iterable[str] | Mapping[str, Any] | str | None = None,
    ) -> Settings:
        """From the CLI's flags or the server's initialization options."""
        settings = cls(roots=(default_roots() if defaults else []) + [parse_root(r) for r in roots])
        if isinstance(identity, str):
            identity = [identity]
        if isinstance(identity, Mapping):
            pairs = [(k, v) for k, v in identity.items() if v is not None]
        else:
            pairs = [_identity_spec(spec) for spec in identity or ()]
        for fmt, name in pairs:
            name = check_name(name, "identity")
            for f in [fmt] if fmt else list(registry()):
                if f not in registry():
                    raise InvalidParams(f"unknown format {f!r} in identity")
                settings.identity[f] = name
        return settings


def _identity_spec(spec: str) -> tuple[str | None, str]:
    """`NAME` (every format) or `FORMAT=NAME`, FORMAT in any case."""
    fmt, sep, name = spec.partition("=")
    if not sep:
        return None, spec
    if fmt.lower() not in registry():
        known = ", ".join(registry())
        raise InvalidParams(f"unknown format {fmt!r} in identity {spec!r} (formats: {known})")
    return fmt.lower(), name


@attrs.define
class TeamDir:
    """A team folder found on disk, with its config parsed (or the error)."""

    id: str
    format: str
    name: str
    path: str
    root: str
    config: dict[str, Any] | None
    config_error: Problem | None

    @property
    def fmt(self) -> InboxFormat:
        return get(self.format)

    def inbox_path(self, inbox: str) -> str:
        return self.fmt.inbox_path(self.path, inbox)


def _detect(team_path: str, config: dict[str, Any] | None) -> str:
    for name, fmt in registry().items():
        if fmt.sniff(team_path, config):
            return name
    return next(name for name, fmt in registry().items() if fmt.claims_unknown)


def find_teams(roots: Iterable[Root]) -> list[TeamDir]:
    teams: dict[str, TeamDir] = {}
    for root in roots:
        formats = [get(root.format)] if root.format else list(registry().values())
        for fmt in formats:
            for name, path in fmt.team_dirs(root.path, explicit=root.format is not None):
                config, problem = fmt.read_config(path)
                kind = fmt.name if root.format else _detect(path, config)
                if kind != fmt.name:
                    config, problem = get(kind).read_config(path)
                team_id = f"{kind}:{name}"
                if team_id not in teams:  # the first root that has it wins
                    teams[team_id] = TeamDir(team_id, kind, name, path, root.path, config, problem)
    return list(teams.values())


# A folder or file changed this recently may change again within its clock's tick (coarse:
# milliseconds on ext4, seconds elsewhere) and keep its mtime: its stat vouches for nothing.
RACY_NS = 2_000_000_000


def scan_key(
    roots: Iterable[Root], teams: Iterable[TeamDir], now_ns: int
) -> tuple[Any, ...] | None:
    """The stats of what find_teams and roster read for `teams` (the last scan's): while it
    stays the same, so do they. None: it cannot tell (something changed too recently)."""
    key: list[Any] = []
    paths = []
    for root in roots:
        paths.append(root.path)
        if root.format is None:  # a child folder may become a team: each is looked into
            paths += [os.path.join(root.path, n) for n in listdir(root.path)]
    for t in teams:
        paths += t.fmt.roster_paths(t.path)
    for path in paths:
        try:
            st = os.stat(path)
        except OSError as err:
            key.append((path, err.errno))
            continue
        if now_ns - st.st_mtime_ns < RACY_NS or now_ns - st.st_ctime_ns < RACY_NS:
            return None
        key.append((path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(key)


def watch_plan(roots: Iterable[Root]) -> list[tuple[str, bool]]:
    """(folder, recursive) to watch: team roots whole, other folders only for new teams."""
    plan = []
    for root in roots:
        if not os.path.isdir(root.path):
            continue
        formats = [get(root.format)] if root.format else list(registry().values())
        paths = {p for f in formats for _, p in f.team_dirs(root.path, root.format is not None)}
        inside = [p for p in paths if os.path.dirname(p) != root.path]
        if inside:  # the team lives in a hidden folder (`.team`): watch just that
            plan += [(p, True) for p in sorted(inside)]
            plan.append((root.path, False))
        else:
            plan.append((root.path, bool(paths) or root.format is not None))
        for f in formats:  # task boards kept outside the team folders (Claude's tasks/)
            plan += [(p, True) for p in f.tasks.watch_folders(root.path)] if f.tasks else []
    return plan


def watch_roots(roots: Iterable[Root]) -> list[str]:
    """The folders watch_plan starts from (each root, the task folders kept beside it),
    without listing any team: one that appears later is watched from the next rescan."""
    out = []
    for root in roots:
        out.append(root.path)
        formats = [get(root.format)] if root.format else list(registry().values())
        for f in formats:
            out += f.tasks.watch_folders(root.path) if f.tasks else []
    return out


def resolve_team(roots: Iterable[Root], name: str) -> TeamDir:
    team: TeamDir = pick_team(find_teams(roots), name)
    return team


def pick_team(teams: Iterable[Any], name: str) -> Any:
    """A team (anything with .id and .name) by id or by a bare dir name that is unambiguous."""
    teams = list(teams)
    fmt, sep, bare = name.partition(":")
    check_name(bare if sep and fmt in registry() else name, "team name")
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
    info: dict[str, Any] = attrs.Factory(dict)

    def member(self, inbox: str) -> Member | None:
        return next((m for m in self.members if m.inbox == inbox), None)

    def resolve_inbox(self, name: str) -> Member:
        """An inbox by its stem, member name or agent id."""
        check_name(name, "inbox name")
        for m in self.members:
            if name in (m.inbox, m.name, m.agent_id):
                return m
        raise UnknownInbox(f"team {self.team.id} has no inbox {name!r}")

    def name_of(self, sender: str) -> str:
        """A sender's member name, whichever spelling it used (name, agent id, inbox)."""
        for m in self.members:
            if sender in (m.name, m.agent_id, m.inbox):
                return m.name
        if self.lead and sender in ("lead", f"lead-{self.team.name}", "team-lead"):
            return self.lead
        return sender

    def addressable(self, m: Member) -> bool:
        """A member that reads its inbox: not a phantom or a leaver, and not the person's own
        unless an agent reads it too (PseudoClaude's lead: a note to the lead agent)."""
        return not (m.phantom or m.left or (m.owned and not m.consumed))

    def resolve_recipients(self, to: str) -> list[Member]:
        """A member by name, inbox name or agent id, or `*`/`broadcast`/`all`: every member
        but the sender."""
        if to in BROADCAST:
            return [
                m
                for m in self.members
                if self.addressable(m) and not m.owned and m.name != self.identity
            ]
        check_name(to, "recipient")
        for m in self.members:
            if self.addressable(m) and to in (m.name, m.inbox, m.agent_id):
                return [m]
        names = ", ".join(m.name for m in self.members if self.addressable(m))
        own = next(
            (m for m in self.members if m.owned and to in (m.name, m.inbox, m.agent_id)), None
        )
        if own is not None:
            raise UnknownRecipient(
                f"{to!r} is your own inbox in team {self.team.id}: teammates write to it,"
                f" you read it (members you can write to: {names or 'none'})"
            )
        raise UnknownRecipient(
            f"team {self.team.id} has no member {to!r} (members: {names or 'none'})"
        )


def roster(team: TeamDir, settings: Settings) -> Roster:
    fmt = team.fmt
    parts = fmt.roster(team.config, settings.identity.get(team.format), team.path)
    members = parts.members
    known = {m.inbox for m in members}
    own_inbox = parts.own_inbox
    if own_inbox is not None and own_inbox not in known:
        # Claude's user.json: the person's own inbox, not a config member.
        members.append(Member(name=own_inbox, inbox=own_inbox))
        known.add(own_inbox)
    for stem in sorted(set(fmt.inbox_stems(team.path)) - known):
        # An inbox with no member: a departed teammate's leftover where the config drops
        # leavers and keeps their files (Claude Code), else one that nobody reads.
        left = team.config is not None and fmt.drops_leavers
        phantom = team.config is not None and not left
        members.append(Member(name=stem, inbox=stem, phantom=phantom, left=left))
    safe, skipped = [], []
    for member in members:
        member.owned = member.inbox == own_inbox
        member.consumed = fmt.consumed(member, own_inbox)
        try:
            check_name(member.inbox, "inbox name")
            safe.append(member)
        except InvalidName as err:
            member.error = Problem(err.code, f"{team.id}: member skipped: {err.message}")
            skipped.append(member)
    return Roster(team, parts.lead, parts.identity, own_inbox, safe, skipped, parts.info)


def describe(r: Roster, counts: bool = False) -> Team:
    """A roster as the wire's Team; with `counts`, each member's total/unread read from disk
    (the server fills them from its tracker instead)."""
    team, config = r.team, r.team.config or {}
    if counts:
        for m in r.members:
            _count(r.team, m)
    description = config.get("description")
    name = config.get("name")
    name = name if isinstance(name, str) and name else team.name
    session = r.info.get("session") is True  # the format's word: nobody chose this name
    label = _label(team.name if session else None, r.info)
    board = team.fmt.tasks
    return Team(
        id=team.id,
        format=team.format,
        format_name=team.fmt.label,
        task_statuses=board_statuses(board),
        tasks_note=board.empty_note if board else "",
        name=name,
        dir=team.path,
        root=team.root,
        lead=r.lead,
        identity=r.identity,
        own_inbox=r.own_inbox,
        description=description if isinstance(description, str) else None,
        members=r.members,
        error=team.config_error or (r.skipped[0].error if r.skipped else None),
        project=r.info.get("project"),
        created_at=epoch(r.info.get("created_at")),
        label=label,
        lead_alive=pid_alive(r.info.get("lead_pid")),
        orphan=team.config is not None and pid_alive(r.info.get("lead_pid")) is False,
        title=label if session and label else name,
    )


def _label(name: str | None, info: dict[str, Any]) -> str | None:
    """`myapp · Mon 30 Nov 14:02`: a session team's title (nobody recognises
    `session-1d0f5bbe`), beside a chosen name a description; `name` stands in for a
    missing project."""
    project, created = info.get("project"), epoch(info.get("created_at"))
    if not project and not created:
        return None
    when = time.strftime("%a %d %b %H:%M", time.localtime(created)) if created else None
    return " · ".join(p for p in (project or name, when) if p) or None


def pid_alive(pid: Any) -> bool | None:
    if isinstance(pid, bool) or not isinstance(pid, int) or not 0 < pid < 2**31:
        return None  # a pid_t is 32 bits: os.kill(2**31, 0) raises OverflowError
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process, but alive
    except OSError:
        return None
    return True


def _count(team: TeamDir, m: Member) -> None:
    """A member's total/unread from its inbox; a bad file becomes its error."""
    fmt = team.fmt
    try:
        snap = read(fmt, team.inbox_path(m.inbox))
    except TeamInboxError as err:
        m.error = Problem(err.code, err.message, err.path)
        return
    except OSError as err:
        m.error = Problem("unreadable_inbox", f"{team.inbox_path(m.inbox)}: {err.strerror or err}")
        return
    valid = messages(fmt, snap, team.id, m.inbox)
    m.total, m.unread = len(valid), sum(1 for v in valid if not v.read)
    if snap.problems:
        first = snap.problems[0]
        m.error = Problem(
            "invalid_entries",
            f"{snap.path}: {len(snap.problems)} invalid entries skipped"
            f" (first at index {first.index}: {first.reason})",
            snap.path,
        )
