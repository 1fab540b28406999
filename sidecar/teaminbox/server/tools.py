"""The agent tools, once: list_teams, team_status, read_messages, search_messages,
needs_attention, get_tasks, send_message and broadcast.

Two faces call them: the MCP server (mcpserver.py, `teaminbox mcp`) and the sidecar's
`teamInbox/callTool` (server/features/tools.py), which VS Code's language-model tools ask.
Each tool runs on a TeamInboxServer's features, as its client would call them, so both
faces give the same results and the same errors (the CLI's words). Nothing here reads or
writes a file itself.

What agents wrote is data: it leaves only as values inside the JSON result.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import logging
import types
import typing
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import InvalidParams, TeamInboxError
from ..model import Message
from ..protocol import MAX_LIMIT, ToolName
from ..render import describe_message, wire_converter
from ..timestamps import epoch
from ..tracker import Tracker

if TYPE_CHECKING:  # the server's module imports the features, which import this one
    from .core import TeamInboxServer

log = logging.getLogger("teaminbox")
T = TypeVar("T")
TOOL_NAMES: tuple[ToolName, ...] = typing.get_args(ToolName)
SENDS: frozenset[ToolName] = frozenset({"send_message", "broadcast"})
PAGE = 200  # messages asked of the server at a time while reading back to `since`
SCAN_PAGES = 50  # at most this many pages (10,000 messages) for one read_messages answer


class ToolFailed(TeamInboxError):
    """A tool could not do its work: nobody got a send, or a bug (said, and logged)."""

    code = "tool_failed"


# --- what the tools give back ---------------------------------------------------------------


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return (
        dt.datetime.fromtimestamp(t, dt.timezone.utc)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z")
    )


def _lean(d: dict[str, Any], keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """Without the keys that say nothing (None, empty, False): fewer tokens to read."""
    return {
        k: v
        for k, v in d.items()
        if k in keep or (v is not None and v is not False and v != [] and v != {})
    }


def _step_out(step: dict[str, Any] | None) -> dict[str, Any] | None:
    """A member's current step: what a row shows, since when, whether it waits for the person."""
    if not step:
        return None
    return _lean(
        {"text": step["text"], "since": _iso(step.get("since")), "waiting": step.get("waiting")}
    )


def _names(team: dict[str, Any]) -> dict[str, str]:
    """Every spelling of a member (inbox, agent id, name) -> its name."""
    out: dict[str, str] = {}
    for m in team.get("members", []):
        for key in (m.get("inbox"), m.get("agentId"), m.get("name")):
            if isinstance(key, str):
                out.setdefault(key, m["name"])
    return out


def message_out(raw: dict[str, Any], names: dict[str, str], state: bool = True) -> dict[str, Any]:
    """A message for an agent: who, when, where it stands, the text, a frame in words.
    Without `state` (search: the history's copy, whose read flag is as first seen), only
    whether it is still in its file."""
    msg: Message = wire_converter.structure(raw, Message)
    delivery = msg.delivery or ("read" if msg.read or msg.seen else "unread")
    return _lean(
        {
            "id": msg.id,
            "team": msg.team,
            "inbox": msg.inbox,
            "from": msg.from_name or names.get(msg.from_, msg.from_),
            "to": names.get(msg.to, msg.to),
            "time": msg.timestamp,
            "delivery": delivery if state and msg.gap is None else None,
            "archived": msg.archived,  # no longer in its file (delivered and pruned, consumed)
            "type": msg.type,
            "summary": msg.summary,
            "frame": describe_message(msg) if msg.structured is not None else None,
            "text": msg.text,
            # not a message: a time nobody read the inbox
            "gap": None
            if msg.gap is None
            else {"from": _iso(msg.gap.start), "to": _iso(msg.gap.end)},
        }
    )


def item_out(item: dict[str, Any]) -> dict[str, Any]:
    return _lean({**item, "since": _iso(item.get("since"))})


def task_out(task: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "subject", "status", "owner", "description", "activeForm", "blocks", "blockedBy")
    return _lean({k: task.get(k) for k in keep} | {"archived": task.get("archived")})


def team_head(t: dict[str, Any]) -> dict[str, Any]:
    """What every answer about a team says first (before `_lean`)."""
    return {
        "id": t["id"],
        "name": t["name"],
        "label": t.get("label"),
        "format": t["format"],
        "live": not t.get("ended"),
        "leadAlive": t.get("leadAlive"),
        "orphan": t.get("orphan"),
        "you": t.get("identity"),
    }


def member_head(m: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": m["name"],
        "inbox": m["inbox"] if m["inbox"] != m["name"] else None,
        "lead": m.get("lead"),
        "you": m.get("owned"),
        "left": m.get("left"),
        "phantom": m.get("phantom"),
    }


def _member_state(m: dict[str, Any]) -> dict[str, Any]:
    state = m.get("state") or {}
    return {"state": state.get("kind"), "reason": state.get("detail"), "since": state.get("since")}


def _limit(name: str, value: int, lo: int = 1) -> int:
    if not lo <= value <= MAX_LIMIT:
        raise InvalidParams(f"{name} must be between {lo} and {MAX_LIMIT}")
    return value


def _time(name: str, value: str | None) -> float | None:
    if value is None:
        return None
    t = epoch(value)
    if t is None:
        raise InvalidParams(
            f"{name} must be an ISO 8601 time (2026-11-29T10:00:00Z), not {value!r}"
        )
    return t


# --- a tool's input, as a model gives it --------------------------------------------------------

_NOUNS: dict[type, str] = {str: "a string", int: "an integer", bool: "true or false"}
_REQUIRED = object()
Spec = tuple[tuple[str, type, Any], ...]  # (argument, its type, its default or _REQUIRED)


@functools.cache
def _spec(fn: Callable[..., Any]) -> Spec:
    """A tool's arguments from its own signature: str, int, bool, or one of them or None."""
    hints = typing.get_type_hints(fn)
    out = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        hint = hints[p.name]
        kind = (
            [k for k in typing.get_args(hint) if k is not type(None)][0]
            if isinstance(hint, types.UnionType)
            else hint
        )
        out.append((p.name, kind, _REQUIRED if p.default is inspect.Parameter.empty else p.default))
    return tuple(out)


def _arguments(fn: Callable[..., Any], given: Mapping[str, Any]) -> dict[str, Any]:
    """`given` checked against the tool's signature; null is the default. Keys the tool does
    not take are left out, as the MCP SDK leaves them."""
    out: dict[str, Any] = {}
    for name, kind, default in _spec(fn):
        value = given.get(name)
        if value is None:
            if default is _REQUIRED:
                raise InvalidParams(f"{name} is required")
            out[name] = default
        elif not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise InvalidParams(f"{name} must be {_NOUNS[kind]}")
        else:
            out[name] = value
    return out


# --- the tools --------------------------------------------------------------------------------


class Tools:
    """The eight tools over a server's features. `ready` is awaited before each use of the
    server: its first scan, or a face's own check (the MCP server's history)."""

    def __init__(
        self, server: TeamInboxServer, ready: Callable[[], Awaitable[Tracker]] | None = None
    ) -> None:
        self.server = server
        self.ready = ready or server.ensure_ready

    async def call(self, name: str, given: Mapping[str, Any]) -> dict[str, Any]:
        """One tool's JSON result for its input; a TeamInboxError whose message is the whole
        answer (the CLI's words) when it cannot give one."""
        if name not in TOOL_NAMES:
            raise InvalidParams(f"no tool is named {name!r} (one of: {', '.join(TOOL_NAMES)})")
        fn: Callable[..., Awaitable[dict[str, Any]]] = getattr(self, name)
        args = _arguments(getattr(Tools, name), given)
        try:
            return await fn(**args)
        except TeamInboxError:
            raise
        except Exception as err:  # a bug: said, logged, and the server goes on
            log.exception("the %s tool failed", name)
            raise ToolFailed(f"{name} failed: {type(err).__name__}: {err}") from err

    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        """A request as the JSON-RPC server answers it (camelCase dicts)."""
        await self.ready()
        return await self.server.handlers[method](params)

    async def _query(self, fn: Callable[[Tracker], T]) -> T:
        """A tracker query, on the server's state thread like every other."""
        tracker = await self.ready()
        return await self.server.in_state(lambda: fn(tracker))

    async def _rescan(self) -> None:
        """The teams and rosters as the files say now: no watcher's lag."""
        await self.ready()
        await self.server.rescan()

    # --- reading

    async def list_teams(self, include_ended: bool = False) -> dict[str, Any]:
        await self._rescan()
        res = await self._request("teamInbox/teams", {"includeEnded": include_ended})
        return {"teams": [self._team(t) for t in res["teams"]]}

    def _team(self, t: dict[str, Any]) -> dict[str, Any]:
        members = [
            _lean(
                {
                    **member_head(m),
                    "state": _member_state(m)["state"],
                    "reason": _member_state(m)["reason"],
                    "unread": m.get("unread") or None,
                    "error": (m.get("error") or {}).get("message"),
                }
            )
            for m in t["members"]
        ]
        head = team_head(t) | {"error": (t.get("error") or {}).get("message")}
        return _lean(head | {"members": members}, keep=("live",))

    async def team_status(self, team: str) -> dict[str, Any]:
        await self._rescan()
        t = wire_converter.unstructure(await self._query(lambda tr: tr.find(team)))
        tid = t["id"]
        tasks = (await self._request("teamInbox/tasks", {"team": tid}))["tasks"]
        items = (await self._request("teamInbox/attention", {}))["items"]
        convo = (await self._request("teamInbox/conversation", {"team": tid, "limit": PAGE}))[
            "messages"
        ]
        names = _names(t)
        said: dict[str, dict[str, Any]] = {}
        for raw in convo:  # newest first: each member's latest message
            who = raw.get("fromName") or names.get(raw["from"], raw["from"])
            if who not in said:
                said[who] = message_out(raw, names)
        members = []
        for m in t["members"]:
            act = m.get("activity") or {}
            state = _member_state(m)
            doing = [x for x in tasks if x.get("owner") == m["name"]]
            current = next((x for x in doing if x.get("status") == "in_progress"), None)
            last = said.get(m["name"])
            members.append(
                _lean(
                    {
                        **member_head(m),
                        "agentType": m.get("agentType"),
                        "model": m.get("model"),
                        "state": state["state"],
                        "reason": state["reason"],
                        "stateSince": _iso(state["since"]),
                        "lastActivity": _iso(act.get("lastActive")),
                        "working": act.get("working"),
                        "lastWords": act.get("lastWords"),
                        "tokens": act.get("tokens"),
                        "doing": _step_out(act.get("doing")),
                        "context": act.get("context"),
                        "changedFiles": act.get("changed") or None,
                        "currentTask": task_out(current) if current else None,
                        "tasks": len(doing) or None,
                        "unread": m.get("unread") or None,
                        "lastMessage": _lean(
                            {
                                "time": last.get("time"),
                                "to": last.get("to"),
                                "text": last.get("frame")
                                or last.get("summary")
                                or last.get("text"),
                            }
                        )
                        if last
                        else None,
                    }
                )
            )
        return _lean(
            team_head(t)
            | {
                "branch": t.get("branch"),
                "tokens": t.get("tokens"),
                "members": members,
                "waitingOnYou": [item_out(i) for i in items if i["team"] == tid],
            },
            keep=("live", "waitingOnYou"),
        )

    async def read_messages(
        self,
        team: str,
        inbox: str | None = None,
        since: str | None = None,
        before: str | None = None,
        limit: int = 50,
        include_archived: bool = True,
    ) -> dict[str, Any]:
        _limit("limit", limit)
        lo, hi = _time("since", since), _time("before", before)
        t = wire_converter.unstructure(await self._query(lambda tr: tr.find(team)))
        names = _names(t)
        if inbox is not None:
            method = "teamInbox/messages"
            params: dict[str, Any] = {"team": t["id"], "inbox": inbox}
            params["includeArchived"] = include_archived
        else:  # every inbox as the files say now (one inbox's page refreshes it itself)
            await self._rescan()
            method, params = "teamInbox/conversation", {"team": t["id"]}
        picked: list[dict[str, Any]] = []
        more = False
        for page in range(SCAN_PAGES):  # newest first, back to `since`
            res = await self._request(method, {**params, "offset": page * PAGE, "limit": PAGE})
            batch = res["messages"]
            done = len(batch) < PAGE
            for raw in batch:
                ts = epoch(raw["timestamp"])
                if hi is not None and ts is not None and ts >= hi:
                    continue
                if lo is not None and (ts is None or ts < lo):
                    done = True
                    break
                if not include_archived and raw.get("archived"):
                    continue
                if len(picked) == limit:
                    more, done = True, True
                    break
                picked.append(raw)
            if done:
                break
        else:
            more = True
        out = [message_out(raw, names) for raw in reversed(picked)]  # oldest first
        result: dict[str, Any] = {"team": t["id"], "messages": out, "count": len(out)}
        if inbox is not None:
            result["inbox"] = inbox
        if more:
            result["more"] = (
                "older messages were left out: ask again with before set to the first one's time"
            )
        return result

    async def search_messages(
        self, query: str, team: str | None = None, limit: int = 20
    ) -> dict[str, Any]:
        _limit("limit", limit)
        params: dict[str, Any] = {"query": query, "limit": limit}
        if team is not None:
            params["team"] = team
        res = await self._request("teamInbox/search", params)
        tids = {m["team"] for m in res["messages"]}

        def rosters(tr: Tracker) -> dict[str, dict[str, str]]:
            out = {}
            for tid in tids:  # live teams' names; an ended team's senders as written
                r = tr.rosters.get(tid)
                if r is not None:
                    out[tid] = {
                        k: m.name for m in r.members for k in (m.inbox, m.name, m.agent_id) if k
                    }
            return out

        names = await self._query(rosters)
        found = [message_out(m, names.get(m["team"], {}), state=False) for m in res["messages"]]
        return {"query": query, "messages": found, "count": len(found)}

    async def needs_attention(self, team: str | None = None) -> dict[str, Any]:
        tid = None
        if team is not None:
            tid = (await self._query(lambda tr: tr.find(team))).id
        items = (await self._request("teamInbox/attention", {}))["items"]
        picked = [item_out(i) for i in items if tid is None or i["team"] == tid]
        return {"items": picked, "count": len(picked)}

    async def get_tasks(self, team: str) -> dict[str, Any]:
        res = await self._request("teamInbox/tasks", {"team": team})
        return {"team": res["team"], "tasks": [task_out(x) for x in res["tasks"]]}

    # --- writing: plain messages only (a frame in the text is refused, naming it)

    async def send_message(
        self, team: str, to: str, text: str, summary: str | None = None
    ) -> dict[str, Any]:
        return await self._send(team, to, text, summary)

    async def broadcast(self, team: str, text: str, summary: str | None = None) -> dict[str, Any]:
        return await self._send(team, "*", text, summary)

    async def _send(self, team: str, to: str, text: str, summary: str | None) -> dict[str, Any]:
        params: dict[str, Any] = {"team": team, "to": to, "text": text, "plain": True}
        if summary is not None:
            params["summary"] = summary
        res = await self._request("teamInbox/send", params)
        r = await self._query(lambda tr: tr.roster(team))
        results = [_lean(x) for x in res["results"]]
        if results and not any(x.get("ok") for x in results):
            raise ToolFailed(
                "not sent: " + "; ".join(f"{x['recipient']}: {x.get('error')}" for x in results)
            )
        return {"team": r.team.id, "from": r.identity, "results": results}
