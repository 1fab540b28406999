"""What needs the person, rule by rule (the kinds are listed in the package's description):
requests nobody answered, stalled members, messages the person left unanswered, a
teammate's answer, permission prompts open in a terminal, and two members editing one file."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from .... import member_state as ms
from ....discovery import Roster
from ....formats import get
from ....model import FileChange, MemberState, Team
from ....protocol import AttentionItem
from ....tracker import Tracker
from ..permissions import Prompts
from .unread import InboxScans
from .views import TeamView, owner_of

ANSWER_CHARS = 120
# Two members' edits of one file this close together: they may be undoing each other's work.
SAME_FILE_SECONDS = 10 * 60


def items(
    tracker: Tracker,
    scans: InboxScans,
    prompts: Prompts,
    team: Team,
    r: Roster | None,
    v: TeamView,
    evs: list[ms.Event],
    requests: list[ms.Request],
    states: dict[str, MemberState],
    changes: Sequence[FileChange] = (),
) -> list[AttentionItem]:
    if team.ended or team.lead_alive is False or team.orphan:
        return []  # nobody is there to act on anything
    by_name = {m.name: m for m in team.members}
    items: list[AttentionItem] = []
    for q in requests:
        m = by_name.get(q.member)
        st = states.get(m.inbox) if m else None
        if st is not None and st.kind == "gone":
            continue
        items.append(request_item(team, q, m.inbox if m else None))
    for m in team.members:
        st = states.get(m.inbox)
        if st is not None and st.kind == "stalled":
            undelivered, _ = scans.undelivered(tracker, team.id, m.inbox, m.consumed)
            items.append(
                AttentionItem(
                    kind="stalled",
                    team=team.id,
                    member=m.name,
                    inbox=m.inbox,
                    since=st.since,
                    summary=f"{m.name}: {st.detail}",
                    count=len(undelivered),
                    action="openInbox",
                    key=f"stalled:{team.id}:{m.inbox}:{st.since}",
                )
            )
    if r is not None:
        items += unanswered(tracker, scans, team, r, v, evs)
        items += answers_after(team, r, evs, tracker.history.seen_ids)
        if get(team.format).claude_sessions:
            inbox_of = {m.name: m.inbox for m in team.members}
            items += prompts.terminal_items(r, inbox_of)
    items += same_file(team, changes)
    return items


def same_file(team: Team, changes: Sequence[FileChange]) -> list[AttentionItem]:
    """Two members that wrote one file (one absolute path: one working tree) within
    SAME_FILE_SECONDS of each other: one item a file and pair, the first such pair of
    edits, its key without a time (said once; dismissed for good)."""
    by_path: dict[str, list[FileChange]] = {}
    for c in changes:
        if c.time is not None and os.path.isabs(c.path):
            by_path.setdefault(os.path.normpath(c.path), []).append(c)
    inbox_of = {m.name: m.inbox for m in team.members}
    out: list[AttentionItem] = []
    for path, found in by_path.items():
        if len({c.member for c in found}) < 2:
            continue
        found.sort(key=lambda c: c.time or 0.0)
        pairs: set[tuple[str, str]] = set()
        for i, c in enumerate(found):
            for d in found[i + 1 :]:
                if (d.time or 0.0) - (c.time or 0.0) > SAME_FILE_SECONDS:
                    break
                pair = (min(c.member, d.member), max(c.member, d.member))
                if c.member == d.member or pair in pairs:
                    continue
                pairs.add(pair)
                out.append(same_file_item(team, c, d, path, inbox_of.get(c.member)))
    return out


def same_file_item(
    team: Team, first: FileChange, second: FileChange, path: str, inbox: str | None
) -> AttentionItem:
    a, b = sorted((first.member, second.member))
    return AttentionItem(
        kind="sameFile",
        team=team.id,
        member=first.member,
        inbox=inbox,
        since=second.time,
        summary=f"{first.member} and {second.member} both edited {first.path_text}",
        path=first.path,
        other=second.member,
        key=f"sameFile:{team.id}:{a}:{b}:{path}",
    )


def unanswered(
    tracker: Tracker, scans: InboxScans, team: Team, r: Roster, v: TeamView, evs: list[ms.Event]
) -> list[AttentionItem]:
    own = r.own_inbox
    state = tracker.inboxes.get((team.id, own or ""))
    if own is None or state is None or not len(state.rows):
        return []
    member = r.member(own)
    consumed = member is not None and member.consumed
    if v.wanted is None or v.wanted[0] is not evs or v.wanted[1] != own:
        v.wanted = (evs, own, {e.msg.id for e in evs if e.inbox == own})
    live = scans.read_flags((team.id, own), state.rows, v.wanted[2])
    seen = tracker.history.seen_ids(team.id, own)
    me = r.identity
    # Nothing here depends on the time: the same inputs give the same items.
    key = (
        own,
        consumed,
        me,
        tuple((m.inbox, m.name) for m in team.members),
        tuple((m.name, m.inbox) for m in r.members),
    )
    memo = v.unanswered
    if memo is not None and memo[0] is evs and memo[1] is live and memo[2:4] == (seen, key):
        return list(memo[4])
    items = waiting(team, r, evs, own, consumed, live, seen)
    v.unanswered = (evs, live, seen, key, items)
    return list(items)


def waiting(
    team: Team,
    r: Roster,
    evs: list[ms.Event],
    own: str,
    consumed: bool,
    live: dict[str, int],
    seen: set[str],
) -> list[AttentionItem]:
    inbox_owner = owner_of(team)
    me = r.identity
    last_answer: dict[str, float] = {}
    for e in evs:
        if e.sender == me and e.inbox != own:
            to = inbox_owner(e.inbox)
            last_answer[to] = max(last_answer.get(to, 0.0), e.ts)
    waiting: dict[str, list[ms.Event]] = {}
    for e in evs:
        if e.inbox != own or e.msg.structured is not None or e.sender in (me, "user"):
            continue
        if e.msg.id not in live or e.msg.id in seen:
            continue
        if live[e.msg.id] and not consumed:
            continue  # read in the person's own file
        if last_answer.get(e.sender, 0.0) >= e.ts:
            continue
        waiting.setdefault(e.sender, []).append(e)
    items = []
    for sender, got in waiting.items():
        last = got[-1]
        said = last.msg.summary or last.msg.text.strip().split("\n", 1)[0]
        if len(said) > 120:
            said = said[:119] + "\u2026"
        sm = next((x for x in r.members if x.name == sender), None)
        items.append(
            AttentionItem(
                kind="unanswered",
                team=team.id,
                member=sender,
                inbox=sm.inbox if sm else None,
                since=got[0].ts,
                summary=f"{sender}: {said}",
                message_id=last.msg.id,
                count=len(got),
                action="reply",
                key=f"unanswered:{team.id}:{sender}:{last.msg.id}",
            )
        )
    return items


def request_item(team: Team, q: ms.Request, inbox: str | None) -> AttentionItem:
    """A plan or permission request frame as an item. A Claude Code teammate's plan is
    approved by its lead within a second: information only. A pane teammate's
    permission_request is answered in the lead's terminal (never by a frame from here)."""
    claude = get(team.format).claude_sessions
    if q.kind == "plan":
        summary = f"{q.member} asks for approval of its plan"
        if claude:
            summary = f"{q.member} sent its plan to the lead"
        action: Any = None if claude else "answerPlan"
    else:
        summary = f"{q.member} asks {q.words()}"
        action = "showTerminal" if claude else "openInbox"
    return AttentionItem(
        kind=q.kind,
        team=team.id,
        member=q.member,
        inbox=inbox,
        since=q.since,
        summary=summary,
        request_id=q.request_id,
        tool_name=q.tool_name,
        detail=q.description,
        action=action,
        info=claude and q.kind == "plan",
        key=f"{q.kind}:{team.id}:{q.member}:{q.request_id or q.since}",
    )


def answers_after(
    team: Team, r: Roster, evs: list[ms.Event], seen_ids: Callable[[str, str], set[str]]
) -> list[AttentionItem]:
    """A teammate's answer after the person wrote to it: its next text message to the lead,
    or (Claude Code 2.1.332) the `result` of its next idle notification. One item a
    teammate (that first one: what follows is the team's own traffic), until the person
    writes to it again or marks it seen."""
    me, own = r.identity, r.own_inbox
    lead = by_name(r, r.lead) if r.lead else None
    lead_inbox = lead.inbox if lead is not None else None
    if lead_inbox is None or lead_inbox == own:
        return []  # the lead's inbox is the person's own: unanswered covers it
    owner = owner_of(team)
    wrote: dict[str, float] = {}
    for e in evs:
        if e.sender == me and e.inbox not in (own, lead_inbox):
            wrote[owner(e.inbox)] = e.ts
    if not wrote:
        return []
    seen = seen_ids(team.id, lead_inbox)
    found: dict[str, tuple[ms.Event, str]] = {}
    for e in evs:
        t0 = wrote.get(e.sender)
        if t0 is None or e.ts <= t0 or e.inbox != lead_inbox or e.msg.id in seen:
            continue
        said: Any = None
        if e.msg.structured is None:
            said = e.msg.summary or e.msg.text
        elif e.type == ms.IDLE:
            said = e.fields.get("result")
        if isinstance(said, str) and said.strip() and e.sender not in found:
            found[e.sender] = (e, said.strip().split("\n", 1)[0])  # the first: the answer
    items = []
    for sender, (e, said) in found.items():
        if len(said) > ANSWER_CHARS:
            said = said[: ANSWER_CHARS - 1] + "\u2026"
        m = by_name(r, sender)
        items.append(
            AttentionItem(
                kind="unanswered",
                team=team.id,
                member=sender,
                inbox=m.inbox if m else None,
                since=e.ts,
                summary=f"{sender} answered you: {said}",
                message_id=e.msg.id,
                action="reply",
                key=f"answer:{team.id}:{sender}:{e.msg.id}",
            )
        )
    return items


def by_name(r: Roster, name: str) -> Any:
    return next((m for m in r.members if m.name == name), None)
