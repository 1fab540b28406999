"""What the commands print: a line for a person (through termtext), JSON for a program,
the teams, a message and a task board laid out; and the exit statuses."""

from __future__ import annotations

import sys
import time
from typing import Any

import orjson

from ..discovery import Roster, Settings
from ..jsonio import dumps_any, dumps_indented
from ..model import Activity, Member, Message, Step, Team
from ..render import description, plural
from ..termtext import json_text, visible

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2  # argparse's own
EXIT_PARTIAL = 3
EXIT_INTERRUPTED = 130
LONG_STEP_SECONDS = 60.0  # a step running longer is said to


def print_json(value: Any) -> None:
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except TypeError:  # nesting past 255, lone surrogates: as JSON.stringify writes them
        data = dumps_indented(value)
    sys.stdout.write(json_text(data.decode()) + "\n")


def say(line: str = "", *, body: bool = False, err: bool = False) -> None:
    """Print one line for a person. Everything a teammate can write passes here (termtext):
    it can neither steer the terminal nor forge a line; a body keeps its tabs."""
    print(visible(line, body=body), file=sys.stderr if err else sys.stdout)


def no_teams(settings: Settings) -> str:
    if not settings.roots:
        return "no teams found: no roots to look in (give --root PATH, or TEAMINBOX_ROOTS)"
    return "no teams found under: " + ", ".join(r.path for r in settings.roots)


def _tags(m: Member) -> str:
    flags = (
        ("lead", m.lead),
        ("yours", m.owned),
        ("phantom", m.phantom),
        ("left", m.left),
    )
    marks = [k for k, on in flags if on]
    return f"[{', '.join(marks)}]" if marks else ""


def step_line(step: Step, now: float) -> str:
    """What a member does now, in words: its step, waiting or not, and how long when long."""
    took = now - step.since if step.since is not None else 0.0
    long = f" (for {int(took // 60)} min)" if took >= LONG_STEP_SECONDS else ""
    head = "waiting for a permission answer: " if step.waiting else ""
    return visible(head + step.text + long)


def usage_line(a: Activity) -> str:
    """A member's context (its last turn's prompt over its model's window) and its cost."""
    parts = []
    if a.context is not None:
        c = a.context
        share = 100 * c.used / c.window if c.window else 0.0
        parts.append(f"context {c.used:,}/{c.window:,} tokens ({share:.0f} %)")
    if a.tokens.cost:
        parts.append(f"cost ~${a.tokens.cost:.2f}")
    return " · ".join(parts)


def show_teams(teams: list[Team]) -> None:
    """One line per inbox in columns that line up across teams: the member's name, the
    counts, the tags, then the inbox's own name where it differs (PseudoClaude's agent ids
    are long). Names are measured as they show (termtext)."""
    members = [m for t in teams for m in t.members]
    name_w = max([len(visible(m.name)) for m in members] + [4])
    num_w = max([len(str(n)) for m in members for n in (m.total, m.unread)] + [3])
    tag_w = max([len(_tags(m)) for m in members] + [0])
    for team in teams:
        unread = sum(m.unread for m in team.members)
        count = plural(len(team.members), "inbox", "inboxes")
        cost = f", ~${team.tokens.cost:.2f}" if team.tokens and team.tokens.cost else ""
        if team.ended:  # its counts are the history's: `read` shows what it holds
            say(f"{team.id}  ({count}, ended{cost})  {team.dir}")
            for m in team.members:
                say(f"  {visible(m.name):<{name_w}}  {_tags(m)}".rstrip())
            continue
        say(f"{team.id}  ({count}, {unread} unread{cost})  {team.dir}")
        if team.error:
            say(f"  ! {team.error.message}")
        for m in team.members:
            inbox = m.inbox if m.inbox != m.name else ""
            line = (
                f"  {visible(m.name):<{name_w}}  {m.total:>{num_w}} total"
                f"  {m.unread:>{num_w}} unread  {_tags(m):<{tag_w}}  {inbox}"
            )
            say(line.rstrip())
            if m.activity is not None and m.activity.doing is not None:
                say(f"    now: {step_line(m.activity.doing, time.time())}")
            used = usage_line(m.activity) if m.activity is not None else ""
            if used:
                say(f"    {used}")
            if m.error:
                say(f"    ! {m.error.message}")


def show_message(msg: Message, r: Roster | None) -> None:
    """A header line, then a frame as the server describes it (its line, then its fields)
    or the text as written. No roster (an ended team): the names as the history dressed
    them."""
    if msg.gap is not None:  # not a message: a time nobody read the inbox
        say(f"{msg.id}  {msg.timestamp}  ({msg.type})")
        say(f"  {msg.text}")
        say()
        return
    state = "archived" if msg.archived else "read" if msg.read else "UNREAD"
    state += ", recovered from its sender's transcript" if msg.recovered else ""
    who = (
        f"{r.name_of(msg.from_)} -> {r.name_of(msg.to)}"
        if r is not None
        else f"{msg.from_name or msg.from_} -> {msg.to}"
    )
    say(f"{msg.id}  {msg.timestamp}  {who}  ({msg.type}, {state})")
    said = description(msg)
    if said.kind != "message":
        say(f"  {said.line}")
        for field in said.fields:
            head, *more = field.value.replace("\r\n", "\n").split("\n")
            say(f"    {field.label}: {head}", body=True)
            for line in more:
                say(f"      {line}", body=True)
    else:
        if msg.summary:
            say(f"  summary: {msg.summary}")
        # Only a line feed starts a line: a lone \r shows, it cannot overwrite one.
        for line in msg.text.replace("\r\n", "\n").removesuffix("\n").split("\n"):
            say(f"  {line}", body=True)
        if msg.payload:
            say(f"  payload: {dumps_any(msg.payload).decode()}")
    say()


def show_tasks(tasks: list[Any]) -> None:
    width = max([len(visible(t.id)) for t in tasks] + [1])
    for t in tasks:
        owner = f"  ({t.owner})" if t.owner else ""
        say(f"#{visible(t.id):<{width}}  {visible(t.status):<11}  {t.subject}{owner}")
        if t.blocked_by:
            say(f"  {'':<{width}}blocked by: {', '.join('#' + b for b in t.blocked_by)}")
