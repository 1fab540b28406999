"""The inbox commands: teams, read, send, broadcast, mark-read."""

from __future__ import annotations

import argparse
import heapq
import sys
from typing import Any

import attrs

from .. import marking, sending
from ..discovery import Roster, Settings, describe, find_teams, roster
from ..errors import InvalidParams, UnknownTeam
from ..model import Member, Message, Team
from ..render import plural, wire_converter
from ..store import messages, read
from ..tracker import Tracker
from ..transcripts import PRICES
from .inputs import open_history, read_history, team_roster, text_arg
from .output import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_PARTIAL,
    no_teams,
    print_json,
    say,
    show_message,
    show_teams,
)


def _with_activity(r: Roster, team: Team) -> Team:
    """The members' activity from the session transcripts, read once (Claude Code): what
    each does now among it. Prompts open in the editor are the server's to know."""
    # The activity package sits with the server's features: loaded by `teams` alone.
    from ..server.features.activity.spec import read_activity, spec_of  # noqa: PLC0415

    spec = spec_of(r)
    act = read_activity(spec, PRICES) if spec is not None else None
    if act is not None:
        team.tokens, team.branch = act.tokens, act.branch
        team.members = [
            attrs.evolve(m, activity=act.members[m.name]) if m.name in act.members else m
            for m in team.members
        ]
    return team


def _ended_teams(args: argparse.Namespace, settings: Settings, live: set[str]) -> list[Team]:
    """The ended teams the history holds (those rebuilt from transcripts too), as the server
    lists them (`Tracker.team_list`, the most recently ended first), but those a root or
    their folder shows live."""
    ended: list[Team] = []
    with read_history(args) as history:
        if history is not None:
            ended = [
                t
                for t in Tracker(settings, history).team_list()
                if t.id not in live and history.live_folder(t.id) is None
            ]
    return ended


def cmd_teams(args: argparse.Namespace, settings: Settings) -> int:
    teams = []
    for t in find_teams(settings.roots):
        r = roster(t, settings)
        teams.append(_with_activity(r, describe(r, counts=True)))
    teams += _ended_teams(args, settings, {t.id for t in teams})
    if args.json:
        print_json({"teams": wire_converter.unstructure(teams)})
    elif not teams:
        say(no_teams(settings))
    else:
        show_teams(teams)
    return EXIT_OK


def _by_time(m: Message) -> str:
    return m.timestamp


def _archived(
    args: argparse.Namespace, r: Roster, member: Member, present: list[Message]
) -> list[Message]:
    """The inbox's messages that are no longer in its file (delivered and pruned, consumed,
    compacted), from the history. What the file holds now is recorded first, and what
    the history had there but the file lost is marked gone, as the server does."""
    tid, inbox = r.team.id, member.inbox
    here = {m.id for m in present}
    history = open_history(args)
    try:
        history.record(tid, inbox, present, history.known_ids(tid, inbox) - here)
        old: list[Message] = history.archived(tid, inbox)
    finally:
        history.close()
    return sorted((m for m in old if m.id not in here), key=_by_time)


def _gaps(args: argparse.Namespace, r: Roster, member: Member) -> list[Message]:
    """The gaps the history holds of the inbox (read only): said in their place."""
    gaps: list[Message] = []
    with read_history(args) as history:
        if history is not None:
            gaps = history.gap_messages(r.team.id, member.inbox)
    return gaps


def _read_ended(args: argparse.Namespace, settings: Settings, unknown: UnknownTeam) -> int:
    """An ended team's inbox, as the server pages it (`Tracker.page`): the history's record
    (read only), oldest first here."""
    msgs: list[Message] | None = None
    with read_history(args) as history:
        if history is not None:
            try:
                msgs, _, _ = Tracker(settings, history).page(
                    args.team, args.inbox, limit=sys.maxsize
                )
            except UnknownTeam:
                pass
    if msgs is None:
        raise unknown
    msgs.reverse()
    if args.unread:  # an ended team's messages were all delivered
        msgs = []
    if args.json:
        print_json({"messages": wire_converter.unstructure(msgs), "ended": True})
        return EXIT_OK
    for msg in msgs:
        show_message(msg, None)
    gaps = sum(1 for m in msgs if m.gap is not None)
    held = plural(len(msgs) - gaps, "message") + (f", {plural(gaps, 'gap')}" if gaps else "")
    say(f"{args.inbox}: the team ended; {held} in the history")
    return EXIT_OK


def cmd_read(args: argparse.Namespace, settings: Settings) -> int:
    try:
        r = team_roster(settings, args.team)
    except UnknownTeam as err:
        return _read_ended(args, settings, err)
    member = r.resolve_inbox(args.inbox)
    fmt = r.team.fmt
    snap = read(fmt, r.team.inbox_path(member.inbox))
    msgs = messages(fmt, snap, r.team.id, member.inbox)
    total = len(snap.entries) - len(snap.problems)
    unread = sum(1 for m in msgs if not m.read)
    archived = _archived(args, r, member, msgs) if args.archived else []
    # the archived rows hold the gaps; else they are read alone (never unread)
    gaps = _gaps(args, r, member) if not (args.archived or args.unread) else []
    if args.unread:  # archived messages were delivered: never unread
        msgs = [m for m in msgs if not m.read]
    elif archived or gaps:  # by time, as the server's pages are (oldest first here)
        msgs = list(heapq.merge(msgs, archived or gaps, key=_by_time))
    if args.json:
        out: dict[str, Any] = {
            "messages": wire_converter.unstructure(msgs),
            "total": total,
            "unread": unread,
        }
        if args.archived:
            out["archived"] = len(archived)
        print_json(out)
        return EXIT_OK
    for p in snap.problems:
        say(f"! {snap.path}: entry {p.index} skipped: {p.reason}", err=True)
    for msg in msgs:
        show_message(msg, r)
    tally = f"{member.name}: {plural(total, 'message')}, {unread} unread"
    tally += f", {len(archived)} archived" if args.archived else ""
    say(tally + (f", {plural(len(gaps), 'gap')} (see above)" if gaps else ""))
    return EXIT_OK


def _report_send(args: argparse.Namespace, results: list[Any]) -> int:
    if args.json:
        print_json({"results": wire_converter.unstructure(results)})
    failed = [r for r in results if not r.ok]
    for res in results if not args.json else []:
        if res.ok:
            say(f"sent to {res.recipient} ({res.message_id})")
    for res in failed:
        say(f"teaminbox: not sent to {res.recipient}: {res.error}", err=True)
    if failed:
        return EXIT_PARTIAL if len(failed) < len(results) else EXIT_ERROR
    return EXIT_OK


def cmd_send(args: argparse.Namespace, settings: Settings) -> int:
    results = sending.send(
        team_roster(settings, args.team),
        args.to,
        text_arg(args),
        summary=args.summary,
        type=args.type,
        color=args.color,
        payload=sending.parse_payload(args.payload),
        sender=getattr(args, "sender", None),
    )
    return _report_send(args, results)


def cmd_broadcast(args: argparse.Namespace, settings: Settings) -> int:
    args.to = "*"
    return cmd_send(args, settings)


def cmd_mark_read(args: argparse.Namespace, settings: Settings) -> int:
    r = team_roster(settings, args.team)
    member = r.resolve_inbox(args.inbox)
    fmt = r.team.fmt
    if args.discard and not fmt.has_read_flag:
        raise InvalidParams(
            f"{r.team.format} inboxes have no read flag, so --discard does not apply: each"
            " message is a file its reader deletes; without --discard, mark-read records the"
            " seen state"
        )
    writes = marking.writes_file(r, member)
    if writes or args.discard:
        n = marking.set_read(r, member, args.ids, every=args.all, discard=args.discard)
        done = f"marked {plural(n, 'message')} read"
        if not writes:
            done += f" in the file: {member.name}'s runner will not get them"
    else:
        n = _mark_seen(args, r, member)
        if fmt.has_read_flag:
            why = (
                f"the file is left to {member.name}'s runner; --discard writes read: true"
                " there, and the runner then drops them undelivered"
            )
        else:
            why = "the message files are left to their reader"
        done = f"marked {plural(n, 'message')} seen ({why})"
    if args.json:
        print_json({"marked": n})
    else:
        say(done)
    return EXIT_OK


def _mark_seen(args: argparse.Namespace, r: Roster, member: Any) -> int:
    """An agent's inbox: the person's "read" is the seen state, the file stays as it is."""
    marking.check_ids(args.ids, args.all)
    fmt = r.team.fmt
    present = messages(fmt, read(fmt, r.team.inbox_path(member.inbox)), r.team.id, member.inbox)
    history = open_history(args)
    try:
        history.record(r.team.id, member.inbox, present, [])
        ids = [m.id for m in present] if args.all else list(args.ids)
        marking.unknown(
            ids, history.all_ids(r.team.id, member.inbox), f"{r.team.id} {member.inbox}"
        )
        n: int = history.mark_seen(r.team.id, member.inbox, ids)
        return n
    finally:
        history.close()
