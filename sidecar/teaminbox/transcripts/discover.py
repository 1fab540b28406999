"""The sessions under Claude Code's projects folders that had a team: found by their
teammates' `agent-<id>.meta.json` (`teamName`), never by reading a transcript. A session
whose files look as they did when last looked at (`sig`: two stats) is not looked into
again."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs
import orjson

from .files import NotFollowed, open_regular
from .limits import MAX_META
from .paths import read_meta, subagent_transcripts, valid_session_id

_TEAM = re.compile(r"[A-Za-z0-9_-]{1,128}")  # a team name as Claude Code writes its folder
HEAD_BYTES = 256 * 1024  # of a lead transcript read for its cwd and start
MAX_SESSIONS = 100_000  # lead transcripts looked at in one start


@attrs.frozen
class Found:
    """A session whose files changed since last looked at."""

    session_id: str
    lead_path: str  # <projects>/<project>/<session>.jsonl
    sig: str
    team: str | None  # what its teammates' meta.json name (None: no team)
    members: tuple[tuple[str, str | None, str | None], ...] = ()  # (name, agentType, color)


def sig_of(lead_path: str, session_id: str) -> str | None:
    """What a session's files look like, in two stats: the lead's transcript, and its
    subagents folder (a new teammate's files change its mtime). None: no lead transcript."""
    parts: list[Any] = []
    sub = os.path.join(os.path.dirname(lead_path), session_id, "subagents")
    for path in (lead_path, sub):
        try:
            st = os.stat(path)
        except OSError:
            if path == lead_path:
                return None
            parts.append(None)
            continue
        parts.append([st.st_ino, st.st_size, st.st_mtime_ns])
    return orjson.dumps(parts).decode()


def lead_transcripts(projects_dirs: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(session id, path) of every lead transcript: `<projects>/<project>/<session>.jsonl`."""
    n = 0
    for projects in dict.fromkeys(projects_dirs):
        try:
            folders = sorted(os.listdir(projects))
        except OSError:
            continue
        for folder in folders:
            try:
                names = sorted(os.listdir(os.path.join(projects, folder)))
            except OSError:  # a file, or no permission
                continue
            for name in names:
                sid = name[: -len(".jsonl")]
                if name.endswith(".jsonl") and valid_session_id(sid):
                    n += 1
                    if n > MAX_SESSIONS:
                        return
                    yield sid, os.path.join(projects, folder, name)


def team_of(lead_path: str, session_id: str) -> tuple[str | None, tuple[Any, ...]]:
    """The team a session's teammates name in their meta.json (the most named), and its
    members (name, agentType, color); the lead's own subagents name none."""
    names: Counter[str] = Counter()
    members: dict[str, tuple[str, str | None, str | None]] = {}
    for path in subagent_transcripts(lead_path, session_id):
        try:
            meta = read_meta(path)
        except (OSError, NotFollowed):
            continue
        if not isinstance(meta, dict):
            continue
        team, name = meta.get("teamName"), meta.get("name")
        if not (isinstance(team, str) and _TEAM.fullmatch(team) and isinstance(name, str)):
            continue
        if not _TEAM.fullmatch(name):
            continue
        names[team] += 1
        kind, color = meta.get("agentType"), meta.get("color")
        members.setdefault(
            name,
            (
                name,
                kind if isinstance(kind, str) else None,
                color if isinstance(color, str) else None,
            ),
        )
    if not names:
        return None, ()
    return names.most_common(1)[0][0], tuple(members.values())


def find_sessions(projects_dirs: Iterable[str], known: Mapping[str, str]) -> list[Found]:
    """The sessions whose files changed since `known` (path -> sig) said, each with its team."""
    out = []
    for sid, path in lead_transcripts(projects_dirs):
        sig = sig_of(path, sid)
        if sig is None or known.get(path) == sig:
            continue
        team, members = team_of(path, sid)
        out.append(Found(sid, path, sig, team, members))
    return out


def head(lead_path: str) -> tuple[str | None, str | None]:
    """A lead transcript's cwd and its first row's timestamp (from its first lines)."""
    try:
        fd = open_regular(lead_path)
    except (OSError, NotFollowed):
        return None, None
    if fd is None:
        return None, None
    try:
        data = os.pread(fd, HEAD_BYTES, 0)
    except OSError:
        return None, None
    finally:
        os.close(fd)
    cwd = start = None
    for line in data.split(b"\n")[:-1]:
        if len(line) > MAX_META:
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(row, dict):
            continue
        ts, where = row.get("timestamp"), row.get("cwd")
        start = start or (ts if isinstance(ts, str) else None)
        cwd = cwd or (where if isinstance(where, str) and where else None)
        if cwd and start:
            break
    return cwd, start
