"""What each member is doing, derived from the team's recent messages: pure functions.

- gone: it left the config (`Member.left`), approved a shutdown and said nothing after,
  or it is the lead and its process has ended;
- waiting: it sent a `plan_approval_request` or `permission_request` nobody answered
  (Claude Code's frames; PseudoClaude's messages of those types);
- stalled: messages wait unread in its inbox for longer than the stall time while it
  is not working (its runner is not taking them in);
- working: it sent or received a message since its last idle notification (received:
  taken in, or younger than the stall time), or its transcript grows (`Member.activity`);
  a member that never sends idle notifications (a lead) is working while its traffic is
  younger than the stall time;
- idle: its last idle notification came after all that (`detail`: its last words, the
  `result` Claude Code 2.1.332 puts there, or PseudoClaude's task result).

`events` turns messages into time-ordered facts once per team; `derive` and `pending`
read them. Nothing here touches a file, a clock or the history: the caller passes `now`.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable
from typing import Any, Literal

import attrs

from .formats import find
from .model import Activity, MemberState, Message
from .timestamps import epoch

REQUESTS = {"plan_approval_request": "plan", "permission_request": "permission"}
RESPONSES = {"plan_approval_response": "plan", "permission_response": "permission"}
IDLE = "idle_notification"
NOT_TRAFFIC = frozenset({IDLE, "shutdown_approved", "shutdown_response"})
DETAIL_CHARS = 500


@attrs.define
class Event:
    """One message as a fact about the team."""

    ts: float
    type: str
    sender: str  # a member name
    inbox: str  # the recipient's inbox stem
    msg: Message

    @property
    def fields(self) -> dict[str, Any]:
        """A frame's fields: Claude's decoded text, PseudoClaude's payload."""
        s = self.msg.structured or {}
        payload = s.get("payload")
        return {**payload, **s} if isinstance(payload, dict) else dict(s)

    @property
    def request_id(self) -> str | None:
        f = self.fields
        for key in ("requestId", "request_id"):
            if isinstance(f.get(key), str) and f[key]:
                return str(f[key])
        return None


def events(messages: Iterable[Message], name_of: Callable[[str], str]) -> list[Event]:
    """The messages in time order (those without a readable time are left out), each
    sender spelled as its member name."""
    out: list[Event] = []
    seen: set[tuple[str, str]] = set()
    for m in messages:
        key = (m.inbox, m.id)
        if key in seen:
            continue
        seen.add(key)
        ts = epoch(m.timestamp)
        if ts is None:
            continue
        sender = m.from_
        s = m.structured or {}
        if m.type == IDLE and isinstance(s.get("member_name"), str) and s["member_name"]:
            sender = s["member_name"]  # PseudoClaude's idle note comes from the agent id
        out.append(Event(ts, m.type, name_of(sender), m.inbox, m))
    out.sort(key=lambda e: e.ts)
    return out


@attrs.define
class Request:
    """A plan or permission request nobody answered yet."""

    kind: Literal["plan", "permission"]
    member: str  # who asks
    inbox: str  # whose inbox it is in (the lead's)
    since: float
    request_id: str | None
    message: Message
    tool_name: str | None = None
    description: str | None = None

    def words(self) -> str:
        if self.kind == "plan":
            return "plan approval"
        what = f"permission to use {self.tool_name}" if self.tool_name else "a permission"
        return f"{what}: {self.description}" if self.description else what


def pending(evs: list[Event], inbox_owner: Callable[[str], str]) -> list[Request]:
    """Requests with no response yet: a response answers the request with its id, or (no
    id, as PseudoClaude may send) every earlier one of its kind from its recipient."""
    open_: list[Request] = []
    for e in evs:
        kind = REQUESTS.get(e.type)
        if kind is not None:
            f = e.fields
            tool = f.get("tool_name")
            desc = f.get("description")
            open_.append(
                Request(
                    "plan" if kind == "plan" else "permission",
                    e.sender,
                    e.inbox,
                    e.ts,
                    e.request_id,
                    e.msg,
                    tool if isinstance(tool, str) else None,
                    desc if isinstance(desc, str) else None,
                )
            )
            continue
        kind = RESPONSES.get(e.type)
        if kind is None:
            continue
        rid, to = e.request_id, inbox_owner(e.inbox)
        open_ = [
            r
            for r in open_
            if not (
                r.kind == kind
                and (r.request_id == rid if rid is not None else r.member == to and r.since <= e.ts)
            )
        ]
    return open_


@attrs.define
class Facts:
    """What the roster and the inbox files say of one member."""

    name: str
    inbox: str
    lead: bool = False
    left: bool = False
    is_active: bool | None = None
    lead_alive: bool | None = None  # the team's (meaningful for the lead)
    activity: Activity | None = None
    undelivered: frozenset[str] = frozenset()  # ids of entries waiting unread in its inbox
    oldest_undelivered: float | None = None  # the oldest of them, epoch seconds
    idles: bool = True  # it sends idle notifications (teammates do; a lead does not)


def _clip(value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text: str = value.strip()
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "\u2026"


def idle_words(e: Event) -> str | None:
    """What an idle notification says: the teammate's last words where it has them."""
    f = e.fields
    fmt = find(e.msg.format)
    for value in (f.get("result"), e.msg.text if fmt is not None and fmt.words_in_text else None):
        if _clip(value):
            return _clip(value)
    if _clip(f.get("error")):
        return f"failed: {_clip(f.get('error'))}"
    for value in (f.get("summary"), f.get("failureReason")):
        if _clip(value):
            return _clip(value)
    reason = f.get("idleReason") or f.get("status")
    if isinstance(reason, str) and reason and reason != "available":
        return reason
    return None


class Index:
    """One list of events grouped by sender and by inbox, and what each member sent,
    sorted out once: `derive` is asked per member, and again as time moves on."""

    def __init__(self, evs: list[Event]) -> None:
        self.evs = evs
        self._by_sender: dict[str, list[Event]] = {}
        self._by_inbox: dict[str, list[Event]] = {}
        for e in evs:
            self._by_sender.setdefault(e.sender, []).append(e)
            self._by_inbox.setdefault(e.inbox, []).append(e)
        self._sent: dict[str, Sent] = {}
        self.times = sorted(e.ts for e in evs)

    def to(self, inbox: str) -> list[Event]:
        return self._by_inbox.get(inbox, [])

    def sent(self, name: str) -> Sent:
        got = self._sent.get(name)
        if got is None:
            got = self._sent[name] = Sent(self._by_sender.get(name, []))
        return got


class Sent:
    """What one member sent, in time order, sorted by what it says of the member."""

    def __init__(self, sent: list[Event]) -> None:
        self.all = sent
        self.shut = [e for e in sent if e.type == "shutdown_approved" or _approved_shutdown(e)]
        self.traffic = [e for e in sent if e.type not in NOT_TRAFFIC]
        idles = [e for e in sent if e.type == IDLE]
        self.last_idle = idles[-1] if idles else None


MARGIN = 0.001  # seconds: far more than a float's rounding of an epoch time


def steady_until(times: list[float], now: float, stall_seconds: float) -> float | None:
    """Until when `derive` gives what it gives at `now`, as far as these times go (sorted:
    events' times, oldest undelivered entries'): it compares `now` only with such a time
    plus stall_seconds. None: one of those instants is too close to `now` to tell."""
    i = bisect.bisect_right(times, now + MARGIN - stall_seconds)
    if i > 0 and times[i - 1] + stall_seconds > now - MARGIN:
        return None
    return times[i] + stall_seconds - MARGIN if i < len(times) else math.inf


def derive(
    f: Facts,
    evs: list[Event],
    requests: list[Request],
    now: float,
    stall_seconds: float,
    index: Index | None = None,
) -> MemberState:
    """`index`: Index(evs), when the caller keeps one."""
    idx = index if index is not None and index.evs is evs else Index(evs)
    mine = idx.sent(f.name)
    shut = mine.shut
    if f.left:
        return MemberState("gone", shut[-1].ts if shut else None, "left the team")
    if f.lead and f.lead_alive is False:
        return MemberState("gone", None, "its process has ended")
    if shut and not any(e.ts > shut[-1].ts for e in mine.traffic):
        return MemberState("gone", shut[-1].ts, "shut down")

    asks = [r for r in requests if r.member == f.name]
    if asks:
        return MemberState("waiting", asks[0].since, asks[0].words())

    def taken(e: Event) -> bool:  # a received message it has (or soon will have) taken in
        return e.msg.id not in f.undelivered or now - e.ts < stall_seconds

    received = [e for e in idx.to(f.inbox) if e.sender != f.name and taken(e)]
    traffic = sorted(mine.traffic + received, key=lambda e: e.ts)
    last_idle = mine.last_idle
    act = f.activity
    state = _busy(f, traffic, last_idle, act, now, stall_seconds)
    presumed = state.kind == "working" and state.since is None  # nothing says it works
    if (state.kind != "working" or presumed) and f.oldest_undelivered is not None:
        if now - f.oldest_undelivered >= stall_seconds:
            n = len(f.undelivered)
            waiting = f"{n} message{'s' if n != 1 else ''} waiting unread"
            return MemberState("stalled", f.oldest_undelivered, waiting)
    return state


def _approved_shutdown(e: Event) -> bool:
    """PseudoClaude's shutdown_response with approve: true."""
    if e.type != "shutdown_response":
        return False
    f = e.fields
    return f.get("approve") is True or f.get("approved") is True


def _busy(
    f: Facts,
    traffic: list[Event],
    last_idle: Event | None,
    act: Activity | None,
    now: float,
    stall_seconds: float,
) -> MemberState:
    """working or idle."""
    words = _clip(act.last_words) if act is not None else None
    if not f.idles and last_idle is None:
        recent = [e for e in traffic if now - e.ts < stall_seconds]
        if act is not None and act.working:
            return MemberState("working", recent[0].ts if recent else act.last_active)
        if recent:
            return MemberState("working", recent[0].ts)
        last = traffic[-1].ts if traffic else (act.last_active if act is not None else None)
        return MemberState("idle", last, words)
    after = [e for e in traffic if last_idle is None or e.ts > last_idle.ts]
    if after:
        return MemberState("working", after[0].ts)
    if act is not None and act.working:
        return MemberState("working", act.last_active)
    if last_idle is not None:
        return MemberState("idle", last_idle.ts, idle_words(last_idle) or words)
    if f.is_active is False:
        return MemberState("idle", None, words)
    return MemberState("working", None)  # spawned, nothing said yet: at its first turn
