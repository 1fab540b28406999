"""The `teaminbox` command: list teams, read, send, mark read, compact, repair, doctor,
and the JSON-RPC sidecar (`serve`) and the demo.

Every error is one line on stderr (`teaminbox: ...`) and exit status 1; argparse's usage
errors are 2; a broadcast that reached only some recipients is 3. Output cut short by its
reader (`teaminbox teams | head -1`) ends the command quietly, as coreutils do.
"""

from __future__ import annotations

import argparse
import heapq
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from . import __version__, demo, hook, maintenance, marking, sending
from .discovery import Roster, Settings, describe, find_teams, pick_team, resolve_team, roster
from .errors import InvalidParams, TeamInboxError, TooLarge, UnknownTeam, os_error_text
from .formats.tasks_base import NoTaskBoard
from .history import History, NotAHistory, default_path
from .jsonio import dumps_any, dumps_indented
from .locks import DEFAULT_TIMEOUT
from .model import Member, Message, Team
from .render import description, plural, wire_converter
from .sending import MAX_MESSAGE_BYTES
from .store import messages, read
from .tasks import Boards
from .termtext import json_text, visible

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2  # argparse's own
EXIT_PARTIAL = 3
EXIT_INTERRUPTED = 130

EPILOG = f"""\
teams:
  A team is claude:<dir> (a folder of ~/.claude/teams), pseudoclaude:<dir> (of
  ~/.PseudoClaude/teams) or filebus:<dir> (a folder holding .team/, the
  one-file-per-message bus); the bare <dir> works when only one format has it.
  INBOX is an inbox name, a member name or an agent id.

you:
  Claude: you are user; you send into the lead's and the teammates' inboxes and
  Claude Code prunes what it delivers. PseudoClaude: you are the lead; a runner
  consumes every inbox, the lead's too. filebus: you are user; each message is a
  file its reader deletes. --identity changes who you are.

roots:
  Teams are looked for under $CLAUDE_CONFIG_DIR/teams (else ~/.claude/teams),
  ~/.PseudoClaude/teams, every --root and every root in TEAMINBOX_ROOTS,
  separated by '{os.pathsep}' (like --root: [FORMAT=]PATH).

exit status:
  0    ok
  1    an error, said in one line on stderr
  2    a usage error: an unknown command or option, a missing argument
  3    a broadcast that reached only some recipients
  130  interrupted (Ctrl-C)
"""


def _settings(args: argparse.Namespace) -> Settings:
    extra = list(args.root or [])
    env_roots = os.environ.get("TEAMINBOX_ROOTS")
    if env_roots:
        extra += [r for r in env_roots.split(os.pathsep) if r]
    return Settings.build(extra, defaults=not args.no_default_roots, identity=args.identity)


def _roster(settings: Settings, team: str) -> Roster:
    return roster(resolve_team(settings.roots, team), settings)


def _print_json(value: Any) -> None:
    try:
        data = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except TypeError:  # nesting past 255, lone surrogates: as JSON.stringify writes them
        data = dumps_indented(value)
    sys.stdout.write(json_text(data.decode()) + "\n")


def _say(line: str = "", *, body: bool = False, err: bool = False) -> None:
    """Print one line for a person. Everything a teammate can write passes here (termtext):
    it can neither steer the terminal nor forge a line; a body keeps its tabs."""
    print(visible(line, body=body), file=sys.stderr if err else sys.stdout)


def _text_arg(args: argparse.Namespace) -> str:
    if args.file:
        if args.text is not None:
            raise InvalidParams("give TEXT or --file, not both")
        return _message_text(args.file)
    if args.text is None:
        if args.type or args.payload is not None:
            return ""  # a frame may be only its payload (PseudoClaude's often are)
        raise InvalidParams("no message text: give TEXT, '-' for stdin, or --file F")
    if args.text == "-":
        return _message_text(None)
    return str(args.text)


def _message_text(path: str | None) -> str:
    """The message in a file, or on stdin (None), as text mode would read it.

    Reads at most one byte past the size limit (`--file /dev/zero` never
    ends), says which byte is not UTF-8, and turns a missing or unreadable
    file into one line. Newlines: \r\n and \r become \n, as before.
    """
    name = path if path is not None else "stdin"
    try:
        if path is None:
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a replaced sys.stdin: already text
                raw = sys.stdin.read(MAX_MESSAGE_BYTES + 1).encode("utf-8", "surrogatepass")
            else:
                raw = stream.read(MAX_MESSAGE_BYTES + 1)
        else:
            with open(path, "rb") as f:
                raw = f.read(MAX_MESSAGE_BYTES + 1)
    except OSError as err:
        raise InvalidParams(f"cannot read {name}: {err.strerror or err}") from None
    if len(raw) > MAX_MESSAGE_BYTES:
        raise TooLarge(f"{name}: message is over the limit of {MAX_MESSAGE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidParams(f"{name} is not UTF-8 (byte {err.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _no_teams(settings: Settings) -> str:
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


def _show_teams(teams: list[Team]) -> None:
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
        _say(f"{team.id}  ({count}, {unread} unread)  {team.dir}")
        if team.error:
            _say(f"  ! {team.error.message}")
        for m in team.members:
            inbox = m.inbox if m.inbox != m.name else ""
            line = (
                f"  {visible(m.name):<{name_w}}  {m.total:>{num_w}} total"
                f"  {m.unread:>{num_w}} unread  {_tags(m):<{tag_w}}  {inbox}"
            )
            _say(line.rstrip())
            if m.error:
                _say(f"    ! {m.error.message}")


def _show_message(msg: Message, r: Roster) -> None:
    """A header line, then a frame as the server describes it (its line, then its fields)
    or the text as written."""
    state = "archived" if msg.archived else "read" if msg.read else "UNREAD"
    who = f"{r.name_of(msg.from_)} -> {r.name_of(msg.to)}"
    _say(f"{msg.id}  {msg.timestamp}  {who}  ({msg.type}, {state})")
    said = description(msg)
    if said.kind != "message":
        _say(f"  {said.line}")
        for field in said.fields:
            head, *more = field.value.replace("\r\n", "\n").split("\n")
            _say(f"    {field.label}: {head}", body=True)
            for line in more:
                _say(f"      {line}", body=True)
    else:
        if msg.summary:
            _say(f"  summary: {msg.summary}")
        # Only a line feed starts a line: a lone \r shows, it cannot overwrite one.
        for line in msg.text.replace("\r\n", "\n").removesuffix("\n").split("\n"):
            _say(f"  {line}", body=True)
        if msg.payload:
            _say(f"  payload: {dumps_any(msg.payload).decode()}")
    _say()


def cmd_teams(args: argparse.Namespace, settings: Settings) -> int:
    teams = [describe(roster(t, settings), counts=True) for t in find_teams(settings.roots)]
    if args.json:
        _print_json({"teams": wire_converter.unstructure(teams)})
    elif not teams:
        _say(_no_teams(settings))
    else:
        _show_teams(teams)
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
    history = _history(args)
    try:
        history.record(tid, inbox, present, history.known_ids(tid, inbox) - here)
        old: list[Message] = history.archived(tid, inbox)
    finally:
        history.close()
    return sorted((m for m in old if m.id not in here), key=_by_time)


def cmd_read(args: argparse.Namespace, settings: Settings) -> int:
    r = _roster(settings, args.team)
    member = r.resolve_inbox(args.inbox)
    fmt = r.team.fmt
    snap = read(fmt, r.team.inbox_path(member.inbox))
    msgs = messages(fmt, snap, r.team.id, member.inbox)
    total = len(snap.entries) - len(snap.problems)
    unread = sum(1 for m in msgs if not m.read)
    archived = _archived(args, r, member, msgs) if args.archived else []
    if args.unread:  # archived messages were delivered: never unread
        msgs = [m for m in msgs if not m.read]
    elif archived:  # by time, as the server's pages are (oldest first here)
        msgs = list(heapq.merge(msgs, archived, key=_by_time))
    if args.json:
        out: dict[str, Any] = {
            "messages": wire_converter.unstructure(msgs),
            "total": total,
            "unread": unread,
        }
        if args.archived:
            out["archived"] = len(archived)
        _print_json(out)
        return EXIT_OK
    for p in snap.problems:
        _say(f"! {snap.path}: entry {p.index} skipped: {p.reason}", err=True)
    for msg in msgs:
        _show_message(msg, r)
    tally = f"{member.name}: {plural(total, 'message')}, {unread} unread"
    _say(tally + (f", {len(archived)} archived" if args.archived else ""))
    return EXIT_OK


def _report_send(args: argparse.Namespace, results: list[Any]) -> int:
    if args.json:
        _print_json({"results": wire_converter.unstructure(results)})
    failed = [r for r in results if not r.ok]
    for res in results if not args.json else []:
        if res.ok:
            _say(f"sent to {res.recipient} ({res.message_id})")
    for res in failed:
        _say(f"teaminbox: not sent to {res.recipient}: {res.error}", err=True)
    if failed:
        return EXIT_PARTIAL if len(failed) < len(results) else EXIT_ERROR
    return EXIT_OK


def cmd_send(args: argparse.Namespace, settings: Settings) -> int:
    results = sending.send(
        _roster(settings, args.team),
        args.to,
        _text_arg(args),
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
    r = _roster(settings, args.team)
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
        _print_json({"marked": n})
    else:
        _say(done)
    return EXIT_OK


def cmd_repair(args: argparse.Namespace, settings: Settings) -> int:
    r = _roster(settings, args.team)
    path, kept, dropped, backup = maintenance.repair(r, r.resolve_inbox(args.inbox))
    entries = plural(kept, "entry", "entries")
    if args.json:
        _print_json({"path": path, "kept": kept, "dropped": dropped, "backup": backup})
    elif backup is None:
        _say(f"{path}: healthy, {entries}; nothing to repair")
    else:
        _say(f"{path}: kept {entries}, dropped {dropped}; original saved as {backup}")
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    teams = find_teams(settings.roots)
    findings = maintenance.doctor(settings)
    if args.json:
        _print_json({"findings": wire_converter.unstructure(findings)})
    elif not teams:
        _say(_no_teams(settings))
    elif not findings:
        _say(f"all inboxes healthy ({plural(len(teams), 'team')})")
    for f in findings if not args.json else []:
        _say(f"{f.kind:<14} {f.path}")
        _say(f"{'':<15}{f.message}")
    return EXIT_ERROR if any(f.kind == "corrupt" for f in findings) else EXIT_OK


JSON_HELP = "machine-readable output (JSON, camelCase keys as in docs/protocol.md)"
HISTORY_HELP = "the history database (default: history.db in the user data folder)"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="teaminbox",
        description="Read, send and mark read the inboxes of agent teams: Claude Code agent"
        " teams, PseudoClaude teams and the one-file-per-message bus (filebus).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"teaminbox {__version__}")
    p.add_argument(
        "--root",
        action="append",
        metavar="[FORMAT=]PATH",
        help="also look for teams here (repeatable): a teams folder, a team, or a folder"
        " holding .team/; FORMAT (claude, pseudoclaude, filebus; any case) skips detection",
    )
    p.add_argument(
        "--no-default-roots",
        action="store_true",
        help="skip $CLAUDE_CONFIG_DIR/teams (else ~/.claude/teams) and ~/.PseudoClaude/teams",
    )
    p.add_argument(
        "--identity",
        action="append",
        metavar="[FORMAT=]NAME",
        help="who you are (default: user for Claude and filebus, the lead for PseudoClaude)",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help: str, json: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        if json:
            sp.add_argument("--json", action="store_true", help=JSON_HELP)
        return sp

    add("teams", "list teams, their inboxes and unread counts").set_defaults(func=cmd_teams)

    sp = add("read", "print an inbox's messages, oldest first; protocol frames in words")
    sp.add_argument("team", help="claude:<dir>, pseudoclaude:<dir>, filebus:<dir> or <dir>")
    sp.add_argument("inbox", help="inbox name, member name or agent id")
    sp.add_argument("--unread", action="store_true", help="only unread messages")
    sp.add_argument(
        "--archived",
        action="store_true",
        help="also the messages no longer in the file (delivered and pruned by Claude Code,"
        " consumed on the file bus, compacted), from the history database",
    )
    sp.add_argument("--history", metavar="PATH", help=HISTORY_HELP)
    sp.set_defaults(func=cmd_read)

    for name, helptext in (
        ("send", "send a message to a member (or * for everyone but you)"),
        ("broadcast", "send a message to every member but you"),
    ):
        sp = add(name, helptext)
        sp.add_argument("team", help="claude:<dir>, pseudoclaude:<dir>, filebus:<dir> or <dir>")
        if name == "send":
            sp.add_argument(
                "to", help="member name, inbox name or agent id; * (or broadcast) for everyone"
            )
        sp.add_argument(
            "text",
            nargs="?",
            help="the message; - reads it from stdin; may be left out with --type or --payload",
        )
        sp.add_argument("--file", help="read the message from a file (UTF-8)")
        sp.add_argument("--summary", help="a short summary, shown in previews and notifications")
        sp.add_argument(
            "--type",
            help="a protocol frame's type (shutdown_request, plan_approval_response, ...);"
            " default: a plain message",
        )
        sp.add_argument("--payload", help="JSON object: the frame's fields, with --type")
        sp.add_argument(
            "--color",
            metavar="COLOR",
            help=f"the sender's color in Claude Code: {', '.join(sending.colors())}",
        )
        sp.add_argument("--from", dest="sender", metavar="NAME", help="send as NAME, not as you")
        sp.set_defaults(func=cmd_send if name == "send" else cmd_broadcast)

    sp = add(
        "mark-read",
        "mark messages read: your own inbox's file gets read: true; an agent's inbox (which"
        " its runner consumes) only the seen state, unless --discard",
    )
    sp.add_argument("team")
    sp.add_argument("inbox", help="inbox name, member name or agent id")
    sp.add_argument("ids", nargs="*", help="message ids (see `read --json`)")
    sp.add_argument("--all", action="store_true", help="every unread message (instead of ids)")
    sp.add_argument(
        "--discard",
        action="store_true",
        help="write read: true into an agent's inbox: its runner then DROPS those messages"
        " undelivered",
    )
    sp.add_argument("--history", metavar="PATH", help=HISTORY_HELP)
    sp.set_defaults(func=cmd_mark_read)

    sp = add("repair", "salvage the complete entries of a corrupt inbox (the original is kept)")
    sp.add_argument("team")
    sp.add_argument("inbox", help="inbox name, member name or agent id")
    sp.set_defaults(func=cmd_repair)

    add(
        "doctor", "report stale locks, corrupt files, phantom inboxes, leftover temp files"
    ).set_defaults(func=cmd_doctor)
    _add_more(sub)
    return p


def _add_more(sub: Any) -> None:
    """Commands whose modules pull in heavier dependencies, imported on use."""
    about = (
        "run the JSON-RPC sidecar that the VS Code extension talks to: JSON-RPC 2.0 with LSP"
        " framing over stdio (see docs/protocol.md)"
    )
    sp = sub.add_parser("serve", help="run the JSON-RPC sidecar over stdio", description=about)
    sp.add_argument(
        "--tcp",
        metavar="HOST:PORT",
        help="listen on TCP instead (debugging): one client at a time, which must send the"
        " token as initializationOptions.token",
    )
    sp.add_argument(
        "--token-file",
        metavar="PATH",
        help="with --tcp: the token is in PATH, which must be yours and 0600 (else"
        " $TEAMINBOX_TOKEN; else a new one, written 0600 to a file named on stderr)",
    )
    sp.add_argument(
        "--allow-remote",
        action="store_true",
        help="with --tcp: listen on an address other machines may reach (0.0.0.0, a LAN"
        " address); without it only loopback (127.0.0.1, ::1, localhost) is allowed",
    )
    # vscode-languageclient appends --stdio in stdio mode; stdio is the default anyway.
    sp.add_argument("--stdio", action="store_true", help=argparse.SUPPRESS)
    sp.set_defaults(func=cmd_serve)

    about = (
        "init: create demo teams (one of each format: Claude, PseudoClaude, filebus) in a"
        " scratch folder; teammates: run simulated teammates there that consume their"
        " inboxes and answer. scripts/demo.sh runs the whole demo"
    )
    sp = sub.add_parser(
        "demo", help="create demo teams, or run simulated teammates", description=about
    )
    sp.add_argument("action", choices=["init", "teammates"])
    sp.add_argument(
        "--home", help="scratch folder (default: $TEAMINBOX_DEMO_HOME or /tmp/teaminbox-demo)"
    )
    sp.add_argument(
        "--duration", type=float, help="seconds to run the teammates (default: until Ctrl-C)"
    )
    sp.set_defaults(func=cmd_demo)

    about = (
        "archive your own inbox in the history database, then prune its read entries from"
        " the file (Claude teams: agents' own writers give up on big inboxes)"
    )
    sp = sub.add_parser(
        "compact", help="archive and prune the read entries of your own inbox", description=about
    )
    sp.add_argument("team")
    sp.add_argument("inbox", nargs="?", help="default: your own inbox")
    sp.add_argument("--history", metavar="PATH", help=HISTORY_HELP)
    sp.add_argument("--json", action="store_true", help=JSON_HELP)
    sp.set_defaults(func=cmd_compact)

    about = (
        "a team's task board (Claude Code: ~/.claude/tasks/<team>/, which outlives the team;"
        " PseudoClaude: <team>/tasks.json); --set changes one task's status under the"
        " peer's own lock. An ended team's board comes from the history"
    )
    sp = sub.add_parser("tasks", help="show a team's tasks, or set one's status", description=about)
    sp.add_argument("team")
    sp.add_argument(
        "--set",
        nargs=2,
        metavar=("ID", "STATUS"),
        help="set task ID's status: pending, in_progress, completed (PseudoClaude: also blocked)",
    )
    sp.add_argument("--history", metavar="PATH", help=HISTORY_HELP)
    sp.add_argument("--json", action="store_true", help=JSON_HELP)
    sp.set_defaults(func=cmd_tasks)

    about = (
        "run an MCP server over stdio: tools for an agent to list teams, read, search and"
        " send (`claude mcp add teaminbox -- teaminbox mcp`). Needs the MCP SDK:"
        " pip install 'teaminbox[mcp]'"
    )
    sp = sub.add_parser(
        "mcp", help="run an MCP server over stdio (tools for agents)", description=about
    )
    sp.add_argument(
        "--read-only",
        action="store_true",
        help="leave out the tools that send (send_message, broadcast)",
    )
    sp.add_argument("--history", metavar="PATH", help=HISTORY_HELP)
    sp.add_argument(  # here too, where `claude mcp add ... -- teaminbox mcp` puts options
        "--identity",
        action="append",
        metavar="[FORMAT=]NAME",
        default=argparse.SUPPRESS,
        help="who sends (default: user for Claude and filebus, the lead for PseudoClaude)",
    )
    sp.set_defaults(func=cmd_mcp)

    about = (
        "Team Inbox's PermissionRequest hook for Claude Code (opt-in): install adds it to your"
        " Claude settings (or --project DIR's .claude/settings.local.json), showing what it"
        " adds; remove takes only its own entry out; status says where it is"
    )
    sp = sub.add_parser(
        "hook", help="answer teammates' permission prompts in VS Code", description=about
    )
    hook.add_arguments(sp)
    sp.set_defaults(func=cmd_hook)


def cmd_hook(args: argparse.Namespace, settings: Settings) -> int:
    def say(text: str, err: bool = False) -> None:
        for line in text.split("\n"):  # each line shown safe, as every other command's
            _say(line, err=err)

    return hook.main_cli(args, say)


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    home = Path(args.home) if args.home else demo.default_home()
    if args.action == "init":
        demo.init(home)
        _say(
            f"demo teams in {home}: claude:{demo.CLAUDE_TEAM}, pseudoclaude:{demo.PC_TEAM},"
            f" filebus:{demo.BUS_TEAM}"
        )
        _say("  roots: " + " ".join(f"--root {spec}" for spec in demo.root_specs(home)))
    else:
        _say(f"simulated teammates answering in {home} (Ctrl-C stops)")
        sys.stdout.flush()
        demo.simulate(home, duration=args.duration)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from .server import parse_tcp, serve  # noqa: PLC0415 -- the server's libraries load for serve alone

    for given, flag in ((args.token_file, "--token-file"), (args.allow_remote, "--allow-remote")):
        if given and not args.tcp:
            _say(f"teaminbox: {flag} is for --tcp", err=True)
            return EXIT_USAGE
    if args.tcp:
        from .server.transport import loopback_problem  # noqa: PLC0415 -- as above

        try:
            host, port = parse_tcp(args.tcp)
            problem = loopback_problem(host, port)
        except ValueError as err:
            _say(f"teaminbox: {err}", err=True)
            return EXIT_USAGE
        if problem and not args.allow_remote:
            _say(
                f"teaminbox: --tcp {args.tcp}: {problem}; other machines could connect"
                " (add --allow-remote to listen there anyway)",
                err=True,
            )
            return EXIT_USAGE
        if problem:
            _say(
                f"teaminbox: warning: --tcp {args.tcp}: {problem}; only the token keeps"
                " other machines out, and the connection is not encrypted",
                err=True,
            )
    code: int = serve(args.tcp, args.token_file)
    return code


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    try:  # here, not at the top: the SDK is an optional extra, and slow to import
        from . import mcpserver  # noqa: PLC0415 -- the optional MCP SDK
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] not in ("mcp", "pydantic", "anyio"):
            raise
        raise TeamInboxError(
            f"teaminbox mcp needs the MCP SDK ({err.name} is missing): pip install 'teaminbox[mcp]'"
        ) from None
    code: int = mcpserver.run(settings, args.history, read_only=args.read_only)
    return code


def _history(args: argparse.Namespace) -> Any:
    path = getattr(args, "history", None)
    try:
        return History(path, strict=True)
    except (OSError, sqlite3.Error, NotAHistory) as err:
        reason = os_error_text(err) if isinstance(err, OSError) else str(err)
        raise TeamInboxError(
            f"cannot open the history database {path or default_path()}: {reason}"
        ) from None


def _mark_seen(args: argparse.Namespace, r: Roster, member: Any) -> int:
    """An agent's inbox: the person's "read" is the seen state, the file stays as it is."""
    marking.check_ids(args.ids, args.all)
    fmt = r.team.fmt
    present = messages(fmt, read(fmt, r.team.inbox_path(member.inbox)), r.team.id, member.inbox)
    history = _history(args)
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


def cmd_compact(args: argparse.Namespace, settings: Settings) -> int:
    r = _roster(settings, args.team)
    member = r.resolve_inbox(args.inbox or r.own_inbox or "")
    history = _history(args)
    try:
        res = maintenance.compact(r, member, history)
    finally:
        history.close()
    if args.json:
        _print_json(wire_converter.unstructure(res))
    else:
        pruned = plural(res.removed, "read entry", "read entries")
        _say(f"{res.team} {res.inbox}: archived and pruned {pruned}, {res.kept} left")
    return EXIT_OK


def _ended_tasks(args: argparse.Namespace, team: str) -> tuple[str, list[Any]]:
    """An ended team's board, from the history (its files where they outlived it)."""
    history = _history(args)
    try:
        ended = [wire_converter.structure(orjson.loads(b), Team) for b, _ in history.ended_teams()]
        t: Team = pick_team(ended, team)
        return t.id, Boards(history).ended(t)
    finally:
        history.close()


def _show_tasks(tasks: list[Any]) -> None:
    width = max([len(visible(t.id)) for t in tasks] + [1])
    for t in tasks:
        owner = f"  ({t.owner})" if t.owner else ""
        _say(f"#{visible(t.id):<{width}}  {visible(t.status):<11}  {t.subject}{owner}")
        if t.blocked_by:
            _say(f"  {'':<{width}}blocked by: {', '.join('#' + b for b in t.blocked_by)}")


def cmd_tasks(args: argparse.Namespace, settings: Settings) -> int:
    try:
        team = resolve_team(settings.roots, args.team)
    except UnknownTeam:
        if args.set:
            raise
        tid, tasks = _ended_tasks(args, args.team)
        archived = " (ended: its last board)" if tasks and tasks[0].archived else " (ended)"
        if args.json:
            _print_json({"team": tid, "tasks": wire_converter.unstructure(tasks)})
        else:
            _say(f"{tid}{archived}: {plural(len(tasks), 'task')}")
            _show_tasks(tasks)
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
            _print_json({"task": wire_converter.unstructure(task)})
        else:
            _say(f"{team.id} #{task.id}: {task.status}  {task.subject}")
        return EXIT_OK
    got = board.read(location, team.id) if board.sig(location) is not None else None
    tasks = got.tasks if got else []
    for t in tasks:
        t.owner = r.name_of(t.owner) if t.owner else None
    if args.json:
        _print_json({"team": team.id, "tasks": wire_converter.unstructure(tasks)})
        return EXIT_OK
    for p in got.problems if got else []:
        _say(f"! {p.message}", err=True)
    _say(f"{team.id}: {plural(len(tasks), 'task')}  {location}")
    _show_tasks(tasks)
    return EXIT_OK


def _drop_output() -> None:
    """stdout's reader has gone (`teaminbox teams | head -1`): whatever is left to print
    goes nowhere, so that neither this command nor the interpreter's exit complains."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (an embedding caller)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = _settings(args)
        code: int = args.func(args, settings)
        if not sys.stdout.closed:  # `serve` hands stdout to the protocol, which closes it
            sys.stdout.flush()
    except BrokenPipeError:
        # Only printing is left once a command writes its output: the work is done.
        _drop_output()
        return EXIT_OK
    except TeamInboxError as err:
        _say(f"teaminbox: {err.message}", err=True)
        return EXIT_ERROR
    except OSError as err:
        _say(f"teaminbox: {os_error_text(err)}", err=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return code


if __name__ == "__main__":
    sys.exit(main())
