"""What a team's config says about its session (a `Spec`: the state thread hands it to the
follow passes), and a lead's answer as the message the person sees."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import attrs

from ....discovery import Roster
from ....model import Message
from ....transcripts import (
    Answer,
    Price,
    Session,
    TeamActivity,
    default_claude_dir,
    valid_session_id,
)

BUDGET = 16 * 1024 * 1024  # bytes read a pass a team: a big first read is several passes
FINAL_PASSES = 64  # an ended team's files are read to their end, within this many budgets


@attrs.define(frozen=True)
class Spec:
    """What a team's config says about its session (the state thread hands it over)."""

    team: str
    session_id: str
    cwd: str | None
    lead: str | None
    person: str
    own_inbox: str | None
    names: tuple[str, ...]
    projects: tuple[str, ...]
    # member name -> the model the config names for it (its `[1m]` says the window)
    models: tuple[tuple[str, str], ...] = ()

    def body(self) -> dict[str, Any]:
        return {
            "sessionId": self.session_id,
            "cwd": self.cwd,
            "lead": self.lead,
            "person": self.person,
            "ownInbox": self.own_inbox,
            "names": list(self.names),
            "projects": list(self.projects),
            "models": dict(self.models),
        }

    @classmethod
    def from_body(cls, team: str, body: Any) -> Spec | None:
        if not isinstance(body, dict) or not valid_session_id(body.get("sessionId")):
            return None

        def text(key: str) -> str | None:
            v = body.get(key)
            return v if isinstance(v, str) else None

        def texts(key: str) -> tuple[str, ...]:
            v = body.get(key)
            return tuple(x for x in v if isinstance(x, str)) if isinstance(v, list) else ()

        return cls(
            team,
            str(body["sessionId"]),
            text("cwd"),
            text("lead"),
            text("person") or "user",
            text("ownInbox"),
            texts("names"),
            texts("projects"),
            _models(body.get("models")),
        )


def spec_of(r: Roster) -> Spec | None:
    if not r.team.fmt.claude_sessions or ".deleted-" in r.team.name:
        return None  # Claude Code renames a team's folder so before removing it
    sid = r.info.get("session_id")
    if not valid_session_id(sid):
        return None
    config = r.team.config or {}
    name = config.get("name")
    projects = (
        os.path.join(os.path.dirname(r.team.root), "projects"),
        os.path.join(default_claude_dir(), "projects"),
    )
    return Spec(
        r.team.id,
        str(sid),
        r.info.get("cwd") if isinstance(r.info.get("cwd"), str) else None,
        r.lead,
        r.identity,
        r.own_inbox,
        tuple(dict.fromkeys(n for n in (r.team.name, name) if isinstance(n, str) and n)),
        tuple(dict.fromkeys(projects)),
        tuple((m.name, m.model) for m in r.members if m.model),
    )


def _models(v: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(v, dict):
        return ()
    return tuple((k, m) for k, m in v.items() if isinstance(k, str) and isinstance(m, str))


def session_of(spec: Spec) -> Session:
    return Session(
        list(spec.projects),
        spec.session_id,
        spec.cwd,
        spec.lead,
        spec.person,
        spec.names,
        dict(spec.models),
    )


def read_activity(
    spec: Spec, prices: Mapping[str, Price], budget: int = BUDGET, passes: int = FINAL_PASSES
) -> TeamActivity | None:
    """A team's activity read once, to the files' ends (within `passes` budgets): the
    command line's look, where nothing follows the files."""
    s = session_of(spec)
    n = 0
    while s.poll(budget) and n < passes:
        n += 1
    return s.activity(prices)


def answer_message(spec: Spec, a: Answer) -> Message:
    """The lead's answer as a message to the person; `raw` holds only what is shown."""
    lead = spec.lead or "team-lead"
    inbox = spec.own_inbox or spec.person
    return Message(
        id=f"t-{a.uuid}",
        team=spec.team,
        inbox=inbox,
        format=spec.team.partition(":")[0],  # the team id says its format
        from_=lead,
        to=inbox,
        type="message",
        text=a.text,
        timestamp=a.timestamp,
        read=False,
        raw={"from": lead, "text": a.text, "timestamp": a.timestamp},
        archived=True,
        from_name=lead,
    )
