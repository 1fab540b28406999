"""The `tasks` command: a team's task board, or one task's status set; an ended team's
board from the history."""

from __future__ import annotations

import argparse
from typing import Any

import orjson

from ..discovery import Settings, pick_team, resolve_team, roster
from ..errors import UnknownTeam
from ..formats.tasks_base import NoTaskBoard
from ..locks import DEFAULT_TIMEOUT
from ..model import Team
from ..render import plural, wire_converter
from ..tasks import Boards
from .inputs import open_history
from .output import EXIT_OK, print_json, say, show_tasks


def _ended_tasks(args: argparse.Namespace, team: str) -> tuple[str, list[Any]]:
    """An ended team's board, from the history (its files where they outlived it)."""
    history = open_history(args)
    try:
        ended = [wire_converter.structure(orjson.loads(b), Team) for b, _ in history.ended_teams()]
        t: Team = pick_team(ended, team)
        return t.id, Boards(history).ended(t)
    finally:
        history.close()


def cmd_tasks(args: argparse.Namespace, settings: Settings) -> int:
    try:
        team = resolve_team(settings.roots, args.team)
    except UnknownTeam:
        if args.set:
            raise
        tid, tasks = _ended_tasks(args, args.team)
        archived = " (ended: its last board)" if tasks and tasks[0].archived else " (ended)"
        if args.json:
            print_json({"team": tid, "tasks": wire_converter.unstructure(tasks)})
        else:
            say(f"{tid}{archived}: {plural(len(tasks), 'task')}")
            show_tasks(tasks)
        return EXIT_OK
    board = team.fmt.tasks
    location = board.location(team.path, team.name) if board else None
    if board is None or location is None:
        raise NoTaskBoard(f"team {team.id} keeps no task board")
    r = roster(team, settings)
    if args.set:
        task_id, status = args.set
        task = board.set_status(location, task_id, status, DEFAULT_TIMEOUT)
        task.team = team.id
        task.owner = r.name_of(task.owner) if task.owner else None
        if args.json:
            print_json({"task": wire_converter.unstructure(task)})
        else:
            say(f"{team.id} #{task.id}: {task.status}  {task.subject}")
        return EXIT_OK
    got = board.read(location, team.id) if board.sig(location) is not None else None
    tasks = got.tasks if got else []
    for t in tasks:
        t.owner = r.name_of(t.owner) if t.owner else None
    if args.json:
        print_json({"team": team.id, "tasks": wire_converter.unstructure(tasks)})
        return EXIT_OK
    for p in got.problems if got else []:
        say(f"! {p.message}", err=True)
    say(f"{team.id}: {plural(len(tasks), 'task')}  {location}")
    show_tasks(tasks)
    return EXIT_OK
