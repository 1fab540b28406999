"""Claude Code's live sessions (`<claude dir>/sessions/<pid>.json`) and the permission
prompts they wait on, read only.

A session file says `status: "waiting", waitingFor: "permission prompt"` while a prompt is
open in its terminal, but not whose or for what. An in-process teammate's prompt is the
last `tool_use` without a `tool_result` in its transcript
(`projects/<slug>/<lead session>/subagents/agent-<id>.jsonl`, `agent-<id>.meta.json`
naming it); the lead's own is in the lead's transcript. What the files hold (commands,
paths) is data for the person to read, never interpreted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

import attrs

from .request_text import detail
from .timestamps import epoch
from .transcripts import (
    PendingCall,
    _parse,
    find_lead_transcript,
    pending_calls,
    read_meta,
    read_small,
    subagent_transcripts,
)

MAX_SESSIONS = 256  # session files read a look
MAX_SESSION_FILE = 64 * 1024
PERMISSION = "permission prompt"


@attrs.define(frozen=True)
class LiveSession:
    pid: int | None
    session_id: str
    status: str | None  # idle | busy | waiting
    waiting_for: str | None
    cwd: str | None
    updated_at: float | None


@attrs.define(frozen=True)
class Prompt:
    """A permission prompt open in a lead's terminal: who waits, for which call."""

    session_id: str
    member: str | None  # the teammate's name; None: the lead itself
    tool_use_id: str
    tool_name: str
    detail: str  # what it would run or touch, one line
    since: float | None


def live_sessions(claude_dir: str) -> dict[str, LiveSession]:
    """The session files there, by session id (a file that does not parse is skipped)."""
    folder = os.path.join(claude_dir, "sessions")
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))[:MAX_SESSIONS]
    except OSError:
        return {}
    out: dict[str, LiveSession] = {}
    for name in names:
        try:
            data = read_small(os.path.join(folder, name), MAX_SESSION_FILE)
        except OSError:
            continue
        doc = _parse(data) if data else None
        if doc is None or not isinstance(doc.get("sessionId"), str):
            continue

        def text(key: str, d: dict[str, object] = doc) -> str | None:
            v = d.get(key)
            return v if isinstance(v, str) else None

        pid = doc.get("pid")
        s = LiveSession(
            pid if isinstance(pid, int) and not isinstance(pid, bool) else None,
            str(doc["sessionId"]),
            text("status"),
            text("waitingFor"),
            text("cwd"),
            epoch(doc.get("updatedAt")),
        )
        out[s.session_id] = s
    return out


def prompts(
    projects_dirs: Iterable[str],
    session: LiveSession,
    lead_cwd: str | None,
    team_names: set[str],
    calls_of: Callable[[str], list[PendingCall]] = pending_calls,
) -> list[Prompt]:
    """The calls waiting in a session that waits on a permission prompt (else none);
    `calls_of(transcript)`: pending_calls, or a cache of it."""
    if session.status != "waiting" or session.waiting_for != PERMISSION:
        return []
    lead = find_lead_transcript(list(projects_dirs), lead_cwd or session.cwd, session.session_id)
    if lead is None:
        return []
    out: list[Prompt] = []
    files: list[tuple[str, str | None]] = [(lead, None)]
    for path in subagent_transcripts(lead, session.session_id):
        meta = read_meta(path)
        name = meta.get("name") if meta else None
        team = meta.get("teamName") if meta else None
        if isinstance(name, str) and name and (not team_names or team in team_names):
            files.append((path, name))
    for path, member in files:
        try:
            calls = calls_of(path)
        except OSError:
            continue
        for c in calls:
            out.append(
                Prompt(
                    session.session_id,
                    member,
                    c.tool_use_id,
                    c.tool_name,
                    detail(c.tool_name, c.input),
                    c.timestamp,
                )
            )
    return out


class CallsCache:
    """pending_calls of each transcript, read again only when the file changed."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._hits: dict[str, tuple[tuple[int, int, int], list[PendingCall]]] = {}

    def __call__(self, path: str) -> list[PendingCall]:
        st = os.stat(path)
        sig = (st.st_ino, st.st_size, st.st_mtime_ns)
        hit = self._hits.get(path)
        if hit is not None and hit[0] == sig:
            return hit[1]
        calls = pending_calls(path)
        if len(self._hits) >= self.size:
            self._hits.clear()
        self._hits[path] = (sig, calls)
        return calls
