"""What a person does with the inboxes: send, broadcast, mark read, repair, doctor.

Shared by the CLI and the server; everything below is synchronous file work.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import attrs
import orjson

from .discovery import Roster, Settings, TeamDir, find_teams, resolve_team, roster
from .errors import (
    CorruptInbox,
    InvalidParams,
    NotOwned,
    TeamInboxError,
    check_name,
)
from .formats.claude import COLORS
from .locks import DEFAULT_TIMEOUT, STALE_SECONDS
from .model import SendResult
from .store import (
    TEMP_SUFFIX,
    Snapshot,
    append,
    check_size,
    ensure_claude_inbox,
    read,
    rewrite,
    salvage,
)

LEFTOVER_SECONDS = 60.0
BIG_INBOX_ENTRIES = 1000
BIG_INBOX_BYTES = 1024 * 1024


def team_roster(settings: Settings, team: str) -> Roster:
    return roster(resolve_team(settings.roots, team), settings)


def send(
    settings: Settings,
    team: str,
    to: str,
    text: str,
    *,
    summary: str | None = None,
    type: str | None = None,
    color: str | None = None,
    payload: dict[str, Any] | None = None,
    sender: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[SendResult]:
    """Send to one member (errors raise) or broadcast (`*`: one result per recipient)."""
    if not isinstance(text, str):
        raise InvalidParams("text must be a string")
    if payload is not None and not isinstance(payload, dict):
        raise InvalidParams("payload must be a JSON object")
    check_size(text, summary, orjson.dumps(payload).decode() if payload else None)
    if color is not None and color not in COLORS:
        raise InvalidParams(f"unknown color {color!r} (one of: {', '.join(COLORS)})")
    if not text and not payload and not type:
        raise InvalidParams("empty message: give a text or a type and payload")
    r = team_roster(settings, team)
    recipients = r.resolve_recipients(to)
    sender = check_name(sender or r.identity, "sender")
    fmt = r.team.fmt
    broadcast = to in ("*", "broadcast")
    if broadcast:
        recipients = [m for m in recipients if sender not in (m.name, m.agent_id)]
    results: list[SendResult] = []
    for m in recipients:
        entry = fmt.new_entry(
            sender=sender,
            recipient=m.agent_id or m.inbox,
            text=text,
            summary=summary,
            type=type,
            color=color,
            payload=payload,
        )
        try:
            path = r.team.inbox_path(m.inbox)
            if fmt.name == "claude":
                ensure_claude_inbox(path)
            index = append(fmt, path, [entry], timeout=timeout)
        except (TeamInboxError, OSError) as err:
            if not broadcast:
                raise
            code = err.code if isinstance(err, TeamInboxError) else "os_error"
            results.append(SendResult(m.name, False, inbox=m.inbox, error=str(err), code=code))
            continue
        results.append(SendResult(m.name, True, fmt.entry_id(entry, index), m.inbox))
    if broadcast:  # members whose names cannot be paths: say so, don't drop them silently
        results += [
            SendResult(m.name, False, error=m.error.message, code=m.error.code)
            for m in r.skipped
            if m.error
        ]
    return results


def mark_read(
    settings: Settings,
    team: str,
    inbox: str,
    ids: list[str] | None = None,
    *,
    all: bool = False,
    deliver: bool = False,
    timeout: float = DEFAULT_TIMEOUT,
) -> int:
    """Set `read: true` on the given ids (or all); deletes nothing. Returns how many changed."""
    if not all and not ids:
        raise InvalidParams("give message ids or all")
    r = team_roster(settings, team)
    member = r.resolve_inbox(inbox)
    if not member.owned and not deliver:
        raise NotOwned(
            f"{member.inbox} is {member.name}'s inbox: marking it read steals its delivery"
            " (its runner only consumes unread messages); pass deliver to do it anyway"
        )
    fmt = r.team.fmt
    wanted = set(ids or ())

    def change(snap: Snapshot) -> int | None:
        bad = {p.index for p in snap.problems}
        n = 0
        for i, entry in enumerate(snap.entries):
            if i in bad or entry.get("read") is True:
                continue
            if all or fmt.entry_id(entry, i) in wanted:
                entry["read"] = True
                n += 1
        return n or None

    return rewrite(fmt, r.team.inbox_path(member.inbox), change, timeout=timeout) or 0


@attrs.define
class CompactResult:
    team: str
    inbox: str
    archived: int  # read entries the history holds: the ones pruned
    removed: int
    kept: int


def compact(
    settings: Settings,
    team: str,
    inbox: str | None,
    archived_ids: Callable[[str, str], set[str]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> CompactResult:
    """Prune the read entries of the person's own inbox that the history already holds.

    Big inboxes make the agents' own writers give up, so keeping this one small
    protects everyone. Only Claude inboxes: PseudoClaude identifies entries by
    index, and pruning would shift what its runner marks read.
    """
    r = team_roster(settings, team)
    member = r.resolve_inbox(inbox or r.own_inbox or "")
    if not member.owned:
        raise NotOwned(f"{member.inbox} is {member.name}'s inbox; only your own is compacted")
    if r.team.format != "claude":
        raise InvalidParams(
            "PseudoClaude inboxes are not compacted: entries are identified by index"
        )
    fmt = r.team.fmt
    keep = archived_ids(r.team.id, member.inbox)

    def change(snap: Snapshot) -> tuple[int, int] | None:
        bad = {p.index for p in snap.problems}
        kept = [
            e
            for i, e in enumerate(snap.entries)
            if i in bad or e.get("read") is not True or fmt.entry_id(e, i) not in keep
        ]
        removed = len(snap.entries) - len(kept)
        snap.entries[:] = kept
        return (removed, len(kept)) if removed else None

    done = rewrite(fmt, r.team.inbox_path(member.inbox), change, timeout=timeout)
    removed, kept = done if done else (0, -1)
    if kept < 0:
        kept = len(read(fmt, r.team.inbox_path(member.inbox)).entries)
    return CompactResult(r.team.id, member.inbox, removed, removed, kept)


@attrs.define
class RepairResult:
    path: str
    kept: int
    dropped: int
    backup: str | None


def repair(settings: Settings, team: str, inbox: str) -> RepairResult:
    """Salvage the valid entries of a broken inbox; the original is kept beside it."""
    r = team_roster(settings, team)
    member = r.resolve_inbox(inbox)
    path = r.team.inbox_path(member.inbox)
    kept, dropped, backup = salvage(r.team.fmt, path)
    return RepairResult(path, kept, dropped, backup)


@attrs.define
class Finding:
    kind: str
    path: str
    message: str


def doctor(settings: Settings) -> list[Finding]:
    """Stale locks, corrupt files, phantom inboxes, leftover temp files, oversized inboxes."""
    out: list[Finding] = []
    now = time.time()
    for team in find_teams(settings.roots):
        if team.config_error:
            out.append(
                Finding("config", team.config_error.path or team.path, team.config_error.message)
            )
        out.extend(_scan_folder(team, now))
        r = roster(team, settings)
        out.extend(Finding("bad_name", team.path, m.error.message) for m in r.skipped if m.error)
        for m in r.members:
            path = team.inbox_path(m.inbox)
            if m.phantom:
                out.append(
                    Finding(
                        "phantom",
                        path,
                        f"{team.id}: inbox {m.inbox!r} belongs to no"
                        " member in config.json; nobody reads it",
                    )
                )
            if not os.path.exists(path):
                continue
            try:
                snap = read(team.fmt, path)
            except CorruptInbox as err:
                out.append(
                    Finding(
                        "corrupt",
                        path,
                        f"{err.message}; run `teaminbox repair {team.id} {m.inbox}`",
                    )
                )
                continue
            for p in snap.problems:
                out.append(Finding("invalid_entry", path, f"entry {p.index}: {p.reason}"))
            size = len(snap.data or b"")
            if len(snap.entries) > BIG_INBOX_ENTRIES or size > BIG_INBOX_BYTES:
                out.append(
                    Finding(
                        "big",
                        path,
                        f"{len(snap.entries)} entries, {size} bytes:"
                        " agents' own writers give up on big inboxes",
                    )
                )
    return out


def _scan_folder(team: TeamDir, now: float) -> list[Finding]:
    out: list[Finding] = []
    try:
        names = os.listdir(team.inbox_dir)
    except OSError:
        return out
    for name in names:
        path = os.path.join(team.inbox_dir, name)
        try:
            age = now - os.stat(path).st_mtime
        except FileNotFoundError:
            continue
        if name.endswith(".json.lock") and age > STALE_SECONDS:
            out.append(
                Finding(
                    "stale_lock",
                    path,
                    f"lock untouched for {age:.0f} s; the next writer reclaims it",
                )
            )
        is_temp = (
            name.endswith(TEMP_SUFFIX)
            or (name.startswith(".tmp-") and name.endswith(".json"))
            or ".json.tmp." in name
        )
        if is_temp and age > LEFTOVER_SECONDS:
            out.append(
                Finding(
                    "leftover_temp",
                    path,
                    f"temp file left by a crashed writer {age:.0f} s ago; safe to delete",
                )
            )
    return out


def parse_payload(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise InvalidParams(f"payload is not JSON: {err}") from err
    if not isinstance(value, dict):
        raise InvalidParams("payload must be a JSON object")
    return value
