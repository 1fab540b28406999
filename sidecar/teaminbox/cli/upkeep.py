"""Keeping inboxes healthy: compact, repair, doctor."""

from __future__ import annotations

import argparse

from .. import maintenance
from ..discovery import Settings, find_teams
from ..render import plural, wire_converter
from .inputs import open_history, team_roster
from .output import EXIT_ERROR, EXIT_OK, no_teams, print_json, say


def cmd_compact(args: argparse.Namespace, settings: Settings) -> int:
    r = team_roster(settings, args.team)
    member = r.resolve_inbox(args.inbox or r.own_inbox or "")
    history = open_history(args)
    try:
        res = maintenance.compact(r, member, history)
    finally:
        history.close()
    if args.json:
        print_json(wire_converter.unstructure(res))
    else:
        pruned = plural(res.removed, "read entry", "read entries")
        say(f"{res.team} {res.inbox}: archived and pruned {pruned}, {res.kept} left")
    return EXIT_OK


def cmd_repair(args: argparse.Namespace, settings: Settings) -> int:
    r = team_roster(settings, args.team)
    path, kept, dropped, backup = maintenance.repair(r, r.resolve_inbox(args.inbox))
    entries = plural(kept, "entry", "entries")
    if args.json:
        print_json({"path": path, "kept": kept, "dropped": dropped, "backup": backup})
    elif backup is None:
        say(f"{path}: healthy, {entries}; nothing to repair")
    else:
        say(f"{path}: kept {entries}, dropped {dropped}; original saved as {backup}")
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    teams = find_teams(settings.roots)
    findings = maintenance.doctor(settings)
    if args.json:
        print_json({"findings": wire_converter.unstructure(findings)})
    elif not teams:
        say(no_teams(settings))
    elif not findings:
        say(f"all inboxes healthy ({plural(len(teams), 'team')})")
    for f in findings if not args.json else []:
        say(f"{f.kind:<14} {f.path}")
        say(f"{'':<15}{f.message}")
    return EXIT_ERROR if any(f.kind == "corrupt" for f in findings) else EXIT_OK
