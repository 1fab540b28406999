"""One team's recent messages, as the attention feature keeps them between steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .... import member_state as ms
from ....model import MemberState, Message, Team
from ....protocol import AttentionItem
from ....timestamps import epoch

RECENT = 400  # messages of a team the states are derived from
Names = tuple[tuple[str, str], ...]


class TeamView:
    """One team's recent messages as events, and what was derived from them last."""

    def __init__(self, msgs: list[Message]) -> None:
        self.msgs = msgs
        self.evs: list[ms.Event] | None = None
        self.states: dict[str, MemberState] = {}
        self.items: list[AttentionItem] = []
        # What the last derivation found that the time cannot change, with what it came
        # from (`evs` first: a new list whenever messages come): reused while all match.
        self.pending: tuple[list[ms.Event], Names, list[ms.Request]] | None = None
        self.index: ms.Index | None = None
        # (evs, inputs, derived at, valid until, states): derive's last answer
        self.derived: tuple[list[ms.Event], Any, float, float, dict[str, MemberState]] | None = None
        self.wanted: tuple[list[ms.Event], str, set[str]] | None = None
        self.unanswered: tuple[list[ms.Event], dict[str, int], set[str], Any, list[Any]] | None = (
            None
        )

    def add(self, msgs: list[Message]) -> None:
        self.msgs.extend(msgs)
        if len(self.msgs) > 2 * RECENT:
            self.msgs.sort(key=lambda m: epoch(m.timestamp) or 0.0)
            del self.msgs[:-RECENT]
        self.evs = None


def same(name: str) -> str:
    return name


def owner_of(team: Team) -> Callable[[str], str]:
    """An inbox stem -> its member's name."""
    names = {m.inbox: m.name for m in team.members}

    def owner(inbox: str) -> str:
        return names.get(inbox, inbox)

    return owner
