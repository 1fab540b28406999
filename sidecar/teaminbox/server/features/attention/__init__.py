"""Member states, what needs the person, and answering a plan (the attention feature).

Each member's state (member_state.py) is derived from its team's recent messages (the
history's, then every change's new ones) and its inbox as the tracker holds it, and set
on the members of every Team a query gives (`Member.state`; `Team.orphan` for an ended
team is false). `teamInbox/memberState` carries a team's states when any changed;
`teamInbox/attention` lists what waits on the person and `teamInbox/attentionChanged`
pushes it when it changes:

- plan / permission: a request nobody answered (from a member that is not gone);
- stalled: a member whose inbox holds messages unread past the stall time;
- unanswered: text messages in the person's own inbox that the person has neither
  answered (written to their sender since) nor read or marked seen, one item a sender.

`teamInbox/answerPlan`: PseudoClaude lets the person answer as the lead (a
`plan_approval_response` to the member); Claude Code refuses that frame from anyone but
its lead, so there it is a message to the lead quoting the request (effect `asked_lead`).
Time-based states (stalled, a quiet lead) are re-derived at least once a second, on the
server's tick (every 2 s; every 15 s once the server has been left alone 30 s, core.py).

The package, a file a job: `feature.py` (the Feature: hooks, requests, what is pushed),
`views.py` (a team's recent messages), `states.py` (member states), `rules.py` (the
items), `unread.py` (inbox scans kept per inbox), `dismissals.py` (hidden items),
`plans.py` (answering a plan).
"""

from __future__ import annotations

from .dismissals import load_dismissed, save_dismissed
from .feature import Attention
from .plans import UnknownRequest, ask_lead_text
from .rules import answers_after, request_item

__all__ = [
    "Attention",
    "UnknownRequest",
    "answers_after",
    "ask_lead_text",
    "load_dismissed",
    "request_item",
    "save_dismissed",
]
