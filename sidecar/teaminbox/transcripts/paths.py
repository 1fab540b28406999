"""Where a session's transcripts are: the project folder, the lead's file, the teammates'
files and their `.meta.json`."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from .files import read_small
from .limits import _SESSION_ID
from .rows import _parse

# --- where a session's files are ----------------------------------------------------------


def project_dir_name(cwd: str) -> str:
    """Claude Code's folder for a project: every char outside [A-Za-z0-9] becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def valid_session_id(sid: Any) -> bool:
    """A session id safe as a file name (they are UUIDs); a config could say anything."""
    return isinstance(sid, str) and _SESSION_ID.fullmatch(sid) is not None


def default_claude_dir(env: Mapping[str, str] = os.environ) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")


def find_lead_transcript(
    projects_dirs: Iterable[str], cwd: str | None, session_id: str, search: bool = True
) -> str | None:
    """`<projects>/<cwd as a folder name>/<session>.jsonl`, else (`search`) the project
    folder that has `<session>.jsonl` (a long cwd's folder name is shortened by Claude Code)."""
    if not valid_session_id(session_id):
        return None
    name = session_id + ".jsonl"
    dirs = list(dict.fromkeys(projects_dirs))
    if cwd:
        for projects in dirs:
            path = os.path.join(projects, project_dir_name(cwd), name)
            if os.path.lexists(path):
                return path
    for projects in dirs if search else []:
        try:
            entries = os.listdir(projects)
        except OSError:
            continue
        for folder in entries:
            path = os.path.join(projects, folder, name)
            if os.path.lexists(path):
                return path
    return None


def subagent_transcripts(lead_path: str, session_id: str) -> list[str]:
    folder = os.path.join(os.path.dirname(lead_path), session_id, "subagents")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(
        os.path.join(folder, n) for n in names if n.startswith("agent-") and n.endswith(".jsonl")
    )


def read_meta(transcript: str) -> dict[str, Any] | None:
    """`agent-<id>.meta.json` beside a teammate's transcript, None while it is not there."""
    try:
        data = read_small(transcript[: -len(".jsonl")] + ".meta.json")
    except OSError:
        return None
    if data is None:
        return None
    meta = _parse(data)
    return meta
