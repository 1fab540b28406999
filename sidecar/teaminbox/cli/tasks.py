"""The `tasks` command: a team's task board, or one task's status set; an ended team's
board from the history."""

from __future__ import annotations

import argparse
from typing import Any

from ..discovery import Settings, resolve_team, roster
from ..errors import UnknownTeam
from ..formats.tasks_base import NoTaskBoard
from ..locks import DEFAULT_TIMEOUT
from ..render import plural, wire_converter
from ..tracker import Tracker
from .inputs import read_history
from .output import EXIT_OK, print_json, say, show_tasks


def _ended_tasks(
    args: argparse.Namespace, settings: Settings, unknown: UnknownTeam
) -> tuple[str, list[Any]]:
    """An ended team's board, the team found as the server finds it (`Tracker.find`) in the
    history read only: its files where they outlived it, else the archived one."""
    with read_history(args) as history:
        if history is not None:
            tracker = Tracker(settings, history)
            try:
                t = tracker.find(args.team)
            except UnknownTeam:
                pass
            else:
                return t.id, tracker.boards.ended(t)
    raise unknown


def cmd_tasks(args: argparse.Namespace, settings: Settings) -> int:
    try:
        team = resolve_team(settings.roots, args.team)
    except UnknownTeam as err:
        if args.set:
            raise
        tid, tasks = _ended_tasks(args, settings, err)
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
