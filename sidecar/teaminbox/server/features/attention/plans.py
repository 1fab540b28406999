"""Answering a plan: PseudoClaude lets the person answer as the lead (a
`plan_approval_response` to the member); Claude Code refuses that frame from anyone but
its lead, so there it is a message to the lead quoting the request (effect `asked_lead`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .... import member_state as ms
from .... import sending
from ....discovery import Roster
from ....errors import InvalidParams, TeamEnded, TeamInboxError
from ....formats import get
from ....jsonio import quoted
from ....protocol import AnswerPlanParams, AnswerPlanResult, PlanEffect
from ....tracker import Tracker
from .views import owner_of

if TYPE_CHECKING:  # the engine and features load without pygls
    from ...core import TeamInboxServer

# (roster, member, request id, format, who answered it already)
Target = tuple[Roster, str, str | None, str, str | None]


class UnknownRequest(TeamInboxError):
    code = "unknown_request"


def plan_target(
    tracker: Tracker, events: Callable[[str, Roster | None], list[ms.Event]], p: AnswerPlanParams
) -> Target:
    """(roster, member, request id, format, who answered it already) for an answer, from
    the request or the member. An answered request is answered again when asked (the
    peer decides what a second answer does: Claude Code's teammates drop it)."""
    t = tracker.find(p.team)
    if t.ended:
        raise TeamEnded(f"team {t.id} has ended: nobody is there to answer")
    r = tracker.roster(t.id)
    if p.request_id is None and not p.member:
        raise InvalidParams("give requestId (the plan_approval_request's) or member")
    evs = events(t.id, r)
    asked = [e for e in evs if e.type == "plan_approval_request"]
    member = p.member
    if p.request_id is not None:
        hits = [e for e in asked if e.request_id == p.request_id]
        if hits:
            member = member or hits[-1].sender
        elif member is None:
            raise UnknownRequest(
                f"team {t.id} has no plan approval request {p.request_id!r}"
                " (give member to answer it anyway)"
            )
    assert member is not None
    m = r.resolve_inbox(member)
    rid = p.request_id
    if rid is None:  # the member's latest unanswered one, if any
        open_ = ms.pending(evs, owner_of(t))
        mine = [q for q in open_ if q.kind == "plan" and q.member == m.name]
        rid = mine[-1].request_id if mine else None
    answers = [e for e in evs if e.type == "plan_approval_response" and rid and e.request_id == rid]
    done = None
    if answers:
        verdict = answers[-1].fields.get("approved", answers[-1].fields.get("approve"))
        said = "approved" if verdict is True else "rejected" if verdict is False else "answered"
        done = f"{answers[-1].sender} {said} this request already"
    return r, m.name, rid, t.format, done


async def answer_plan(
    ls: TeamInboxServer, p: AnswerPlanParams, target: Callable[[], Target]
) -> AnswerPlanResult:
    """Answer as the format allows; `target` (run on the state thread): plan_target's."""
    await ls.rescan()  # as the files are now: an answer written a moment ago counts
    r, member, rid, fmt, done = await ls.in_state(target)
    effect: PlanEffect
    if get(fmt).plan_answer == "ask_lead":
        if r.lead is None:
            raise InvalidParams(f"team {r.team.id} has no lead to ask")
        to, effect = r.lead, "asked_lead"
        text = ask_lead_text(member, rid, p.approved, p.feedback)
        verdict = "approve" if p.approved else "reject"

        def write() -> Any:  # the summary in our words alone: Claude Code puts it in a tag
            return sending.send(r, to, text, summary=f"please {verdict} the plan of a teammate")

        note = "Claude Code takes a plan approval only from its lead: the lead was asked"
    elif get(fmt).plan_answer == "frame":
        to, effect = member, "answered"
        payload: dict[str, Any] = {"approved": p.approved}
        if p.feedback:
            payload["feedback"] = p.feedback
        if rid:
            payload["request_id"] = rid
        text = "Plan approved" if p.approved else "Plan rejected"
        text += f": {p.feedback}" if p.feedback else ""

        def write() -> Any:
            return sending.send(r, to, "", type="plan_approval_response", payload=payload)

        note = None
    else:
        raise InvalidParams(f"{fmt} teams have no plan approvals")
    if done:
        note = f"{done}; {note}" if note else done
    results = await ls.in_pool(write)  # may wait on a peer's lock
    res = results[0]
    await ls.refresh({r.team.inbox_path(res.inbox)} if res.inbox else set())
    return AnswerPlanResult(
        effect=effect,
        team=r.team.id,
        member=member,
        to=res.recipient,
        request_id=rid,
        message_id=res.message_id,
        text=text,
        note=note,
    )


def ask_lead_text(member: str, rid: str | None, approved: bool, feedback: str | None) -> str:
    """The message to a Claude Code lead (only the lead may answer a plan approval), in the
    person's name: our own words and the person's feedback. The member's name and the
    request's id come from the team's files: quoted as JSON strings and said to be."""
    verb = "APPROVE" if approved else "REJECT"
    frame: dict[str, Any] = {
        "type": "plan_approval_response",
        "request_id": rid or "the id of its plan approval request",
        "approve": approved,
    }
    if feedback or not approved:
        frame["feedback"] = feedback or "Plan needs revision"
    lines = [
        f"Please {verb} a teammate's plan. Quoted from the team's files as JSON strings, not my"
        " words:",
        f"- the teammate: {quoted(member)}",
    ]
    if rid:
        lines.append(f"- its plan approval request's id: {quoted(rid)}")
    lines.append(
        f"Only you, the team lead, can answer it: send that teammate the message {quoted(frame)}"
    )
    if feedback:
        lines.append(f"My feedback for the teammate: {feedback}")
    return "\n".join(lines)
