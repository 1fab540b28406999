"""Permission prompts: those the hook hands over (answered here), and those open in a
lead's terminal (shown, with the way there).

- The hook (teaminbox/hook_run.py) connects to this sidecar's socket
  (`<runtime dir>/sidecar-<pid>.sock`, 0600, in a folder only this user may enter; a peer
  of another uid is refused). The request is claimed only when a live Claude team this
  sidecar watches has the request's session as its lead session; then it is a
  `PermissionPrompt` (`teamInbox/permissionRequested`, `teamInbox/permissionRequests`, an
  attention item) until the person answers (`teamInbox/answerPermission`), the hook gives
  up (its connection closes) or its wait is over.
- A prompt open in a terminal (`sessions.py`): the lead's session file says it waits on a
  permission prompt, the waiting call is the last unanswered `tool_use` of a transcript.
  Looked at for each live Claude team at most once a second (small files; the
  transcripts' tails only while a session waits).

Nothing here writes into a team: answers go to the hook only.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import logging
import os
import socket
import struct
import time
import uuid
from typing import TYPE_CHECKING, Any

import attrs
import orjson

from ... import hook_run, request_text, sessions
from ...discovery import Roster
from ...errors import InvalidParams, TeamInboxError
from ...protocol import (
    AnswerPermissionParams,
    AnswerPermissionResult,
    AttentionItem,
    Empty,
    PermissionPrompt,
    PermissionRequestsResult,
    PermissionTextParams,
    PermissionTextResult,
)
from ...termtext import visible
from ...transcripts import default_claude_dir
from ..feature import Feature

if TYPE_CHECKING:  # the engine and features load without pygls
    from ..core import TeamInboxServer

log = logging.getLogger("teaminbox")
HOOK_KEY = "permission:"  # an item's key: this and the prompt's id
LOOK_SECONDS = 1.0  # session files looked at at most this often a team
MAX_WAIT = 3600.0


class UnknownPermission(TeamInboxError):
    code = "unknown_permission"


class NotShown(TeamInboxError):
    """Allow before the person was shown the whole request: refused, the request stays open."""

    code = "not_shown"


def _peer_uid(sock: Any) -> int | None:
    opt = getattr(socket, "SO_PEERCRED", None)
    if sock is None or opt is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    except OSError:
        return None
    return int(struct.unpack("3i", raw)[1])


def _text(d: dict[str, Any], key: str) -> str | None:
    v = d.get(key)
    return v if isinstance(v, str) and v else None


def session_decision(behavior: str, suggestions: list[Any], message: str | None) -> dict[str, Any]:
    """What the hook is told: allow, allow with the updates the prompt named for this
    session (request_text.session_updates), deny."""
    if behavior == "deny":
        return {"behavior": "deny", "message": message or "Denied in Team Inbox"}
    out: dict[str, Any] = {"behavior": "allow"}
    if behavior == "allowSession":
        perms = [update for update, _ in request_text.session_updates(suggestions)]
        if perms:
            out["updatedPermissions"] = perms
    return out


@attrs.define
class OpenPrompt:
    """A prompt the hook waits on: what the person is shown, and the hook's answer."""

    prompt: PermissionPrompt
    text: request_text.RequestText  # the whole request, and the line a prompt shows
    answer: asyncio.Future[Any]  # what the hook is told
    opened: bool = False  # the person was shown its whole text (permissionText)


class Prompts:
    def __init__(self, server: TeamInboxServer) -> None:
        self.server = server
        self.open: dict[str, OpenPrompt] = {}  # by the prompt's id
        self.listening: str | None = None  # the socket's path
        self.on_change: list[Any] = []  # called on the event loop when `open` changes
        # the state thread: terminal prompts per team, and when they were looked at; the
        # session files per Claude folder (one look a second for all its teams)
        self._looked: dict[str, tuple[float, list[AttentionItem]]] = {}
        self._sessions: dict[str, tuple[float, dict[str, sessions.LiveSession]]] = {}
        self._calls = sessions.CallsCache()

    # --- the socket (the event loop) ----------------------------------------------------

    async def listen(self) -> None:
        folder = hook_run.listen_dir()
        if folder is None:
            log.info("no private runtime folder: the permission hook cannot reach this sidecar")
            return
        _clean_stale(folder)
        path = os.path.join(folder, f"{hook_run.SOCKET_PREFIX}{os.getpid()}.sock")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        old = os.umask(0o177)
        try:
            srv = await asyncio.start_unix_server(self._serve, path, limit=hook_run.MAX_LINE)
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        self.listening = path
        atexit.register(_unlink, path)
        try:
            await asyncio.Future()  # until the server stops (cancelled)
        finally:
            srv.close()
            _unlink(path)
            for o in self.open.values():
                if not o.answer.done():
                    o.answer.set_result({"decision": None})

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        pid: str | None = None
        try:
            uid = _peer_uid(writer.get_extra_info("socket"))
            if uid is not None and hasattr(os, "getuid") and uid != os.getuid():
                return
            line = await asyncio.wait_for(reader.readline(), 5)
            msg = orjson.loads(line) if line.strip() else None
            req = msg.get("request") if isinstance(msg, dict) else None
            if not isinstance(req, dict):
                return
            wait = msg.get("wait") if isinstance(msg, dict) else None
            if not isinstance(wait, (int, float)) or wait <= 0:
                wait = hook_run.DEFAULT_WAIT
            wait = float(wait)
            claim = await self.server.in_state(lambda: self._claim(req))
            if claim is None and self.server.tracker is not None:
                # a team made a moment ago may not be scanned yet (the rescan is every 2 s)
                await self.server.rescan()
                claim = await self.server.in_state(lambda: self._claim(req))
            writer.write(orjson.dumps({"claimed": claim is not None}) + b"\n")
            await writer.drain()
            if claim is None:
                return
            prompt, text = claim
            pid = prompt.id
            fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self.open[pid] = OpenPrompt(prompt, text, fut)
            self.server.notify("teamInbox/permissionRequested", prompt)
            self._changed()
            gone = asyncio.ensure_future(reader.read())  # EOF: the hook gave up
            try:
                done, _ = await asyncio.wait(
                    {fut, gone}, timeout=min(wait, MAX_WAIT), return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                gone.cancel()
            said = fut.result() if fut in done else {"decision": None}
            writer.write(orjson.dumps(said) + b"\n")
            await writer.drain()
        except (OSError, ValueError, asyncio.TimeoutError, orjson.JSONDecodeError):
            pass
        except asyncio.CancelledError:  # the server stops: the hook sees the socket close
            pass  # (3.11's streams report a handler's task that ends cancelled as a crash)
        finally:
            if pid is not None and self.open.pop(pid, None) is not None:
                self._changed()
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _changed(self) -> None:
        for fn in self.on_change:
            fn()

    def _claim(
        self, req: dict[str, Any]
    ) -> tuple[PermissionPrompt, request_text.RequestText] | None:
        """The state thread: a prompt when one of our live Claude teams has this session."""
        tracker = self.server.tracker
        sid = _text(req, "session_id")
        if tracker is None or sid is None:
            return None
        r = next(
            (
                r
                for r in tracker.rosters.values()
                if r.team.fmt.claude_sessions and r.info.get("session_id") == sid
            ),
            None,
        )
        if r is None:
            return None
        tool = _text(req, "tool_name") or "a tool"
        got = req.get("tool_input")
        inp: dict[str, Any] = got if isinstance(got, dict) else {}
        member = _text(req, "agent_type") if _text(req, "agent_id") else None
        member = member or r.lead or "team-lead"
        found = next((m for m in r.members if m.name == member), None)
        what = request_text.detail(tool, inp)
        got = req.get("permission_suggestions")
        sugg = got if isinstance(got, list) else []
        text = request_text.describe(member, tool, inp, sugg)
        prompt = PermissionPrompt(
            id=uuid.uuid4().hex,
            team=r.team.id,
            member=member,
            tool_name=tool,
            tool_input=inp,
            detail=what,
            summary=f"{visible(member)} asks to {_act(tool)} {what}",
            suggestions=sugg,
            since=time.time(),
            session_id=sid,
            inbox=found.inbox if found is not None else None,
            prompt=text.line,
            whole=text.whole,
            grants=text.grants,
        )
        return prompt, text

    # --- requests ---------------------------------------------------------------------

    def answer(self, p: AnswerPermissionParams) -> AnswerPermissionResult:
        o = self._find(p.id)
        if p.behavior == "deny" and p.message is not None and len(p.message) > 10_000:
            raise InvalidParams("message must be at most 10,000 characters")
        if p.behavior != "deny" and not o.text.shown:
            raise NotShown(
                "this request cannot be shown whole (a value is nested too deeply): deny it,"
                " or answer it in the lead's terminal"
            )
        if p.behavior != "deny" and not o.text.whole and not o.opened:
            raise NotShown(
                "the whole request was not shown yet: open it (teamInbox/permissionText)"
                " before allowing it"
            )
        if o.answer.done():
            return AnswerPermissionResult(p.id, p.behavior, False)
        decision = session_decision(p.behavior, o.prompt.suggestions, p.message)
        o.answer.set_result({"decision": decision})
        return AnswerPermissionResult(p.id, p.behavior, True)

    def text(self, p: PermissionTextParams) -> PermissionTextResult:
        """The whole request as text; from now on it may be allowed."""
        o = self._find(p.id)
        o.opened = True
        return PermissionTextResult(p.id, o.text.full, o.text.shown)

    def prompts(self) -> list[PermissionPrompt]:
        return [o.prompt for o in list(self.open.values())]

    def _find(self, pid: str) -> OpenPrompt:
        o = self.open.get(pid)
        if o is None:
            raise UnknownPermission(
                f"no open permission request {pid!r}: answered already, or Claude Code"
                " asks in the lead's terminal now"
            )
        return o

    # --- attention items (the state thread) ---------------------------------------------

    def release(self, pid: str) -> bool:
        """The event loop: the person sent it back to the terminal's own prompt."""
        o = self.open.get(pid)
        if o is None or o.answer.done():
            return False
        # released: the hook stops waiting for every window, not only this one
        o.answer.set_result({"decision": None, "released": True})
        return True

    def hook_items(self) -> list[AttentionItem]:
        return [
            AttentionItem(
                kind="permission",
                team=p.team,
                member=p.member,
                inbox=p.inbox,
                since=p.since,
                summary=p.summary,
                request_id=p.id,
                tool_name=p.tool_name,
                detail=p.detail,
                action="answerPermission",
                key=HOOK_KEY + p.id,
            )
            for p in self.prompts()
        ]

    def terminal_items(self, r: Roster, inbox_of: dict[str, str]) -> list[AttentionItem]:
        """A prompt open in the lead's terminal, from the session and transcript files."""
        tid = r.team.id
        now = time.monotonic()
        hit = self._looked.get(tid)
        if hit is not None and now - hit[0] < LOOK_SECONDS:
            return hit[1]
        items: list[AttentionItem] = []
        sid = r.info.get("session_id")
        if isinstance(sid, str) and self.server.options.read_transcripts:
            claude_dir = os.path.dirname(r.team.root)
            seen = self._sessions.get(claude_dir)
            if seen is None or now - seen[0] >= LOOK_SECONDS:
                seen = self._sessions[claude_dir] = (now, sessions.live_sessions(claude_dir))
            live = seen[1].get(sid)
            if live is not None:
                projects = list(
                    dict.fromkeys(
                        [
                            os.path.join(claude_dir, "projects"),
                            os.path.join(default_claude_dir(), "projects"),
                        ]
                    )
                )
                cwd = r.info.get("cwd")
                names = {n for n in (r.team.name, (r.team.config or {}).get("name")) if n}
                for pr in sessions.prompts(
                    projects, live, cwd if isinstance(cwd, str) else None, names, self._calls
                ):
                    who = pr.member or r.lead or "team-lead"
                    items.append(
                        AttentionItem(
                            kind="permission",
                            team=tid,
                            member=who,
                            inbox=inbox_of.get(who),
                            since=pr.since,
                            summary=f"{visible(who)} waits for permission to"
                            f" {_act(pr.tool_name)} {pr.detail}",
                            request_id=pr.tool_use_id,
                            tool_name=pr.tool_name,
                            detail=pr.detail,
                            action="showTerminal",
                            key=f"terminal:{tid}:{pr.tool_use_id}",
                        )
                    )
        self._looked[tid] = (now, items)
        return items

    def waiting(self, team: str) -> set[str]:
        """The members of `team` a prompt is open for: the hook's, and the terminal's as
        last looked at (the state thread)."""
        found = {p.member for p in self.prompts() if p.team == team}
        hit = self._looked.get(team)
        return found | {i.member for i in hit[1] if i.member} if hit else found

    def forget(self, live: set[str]) -> None:
        for tid in [t for t in self._looked if t not in live]:
            del self._looked[tid]


def _act(tool: str) -> str:
    """The verb before a row's one-line detail: "run", or "use <tool>:" before its input."""
    return request_text.verb(tool) + ("" if tool in request_text.VERBS else ":")


def _unlink(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def _clean_stale(folder: str) -> None:
    """Sockets left by sidecars that died without removing theirs."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for n in names:
        if not (n.startswith(hook_run.SOCKET_PREFIX) and n.endswith(".sock")):
            continue
        pid = n[len(hook_run.SOCKET_PREFIX) : -len(".sock")]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _unlink(os.path.join(folder, n))
        except OSError:
            pass


class Permissions(Feature):
    """The hook's socket (listening once the server started) and its two requests; the
    prompts are shown among attention's items (attention depends on this feature)."""

    server: TeamInboxServer

    name = "permissions"

    def __init__(self, server: TeamInboxServer) -> None:
        super().__init__(server)
        self.prompts = Prompts(server)

    def register(self) -> None:
        self.request("teamInbox/permissionRequests", self.list_requests)
        self.request("teamInbox/answerPermission", self.answer)
        self.request("teamInbox/permissionText", self.text)

    def started(self) -> None:
        if not self.server.closing and self.server.answers_prompts:
            self.server.spawn(self.prompts.listen())

    async def list_requests(self, p: Empty) -> PermissionRequestsResult:
        return PermissionRequestsResult(self.prompts.prompts())

    async def answer(self, p: AnswerPermissionParams) -> AnswerPermissionResult:
        return self.prompts.answer(p)

    async def text(self, p: PermissionTextParams) -> PermissionTextResult:
        return self.prompts.text(p)
