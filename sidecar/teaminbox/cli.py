"""The `teaminbox` command."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import orjson

from . import maintenance, marking, sending
from .discovery import Roster, Settings, describe, find_teams, resolve_team, roster
from .errors import InvalidParams, TeamInboxError
from .model import Message, Team, converter
from .store import messages, read

EXIT_ERROR = 1
EXIT_PARTIAL = 3


def _settings(args: argparse.Namespace) -> Settings:
    extra = list(args.root or [])
    env_roots = os.environ.get("TEAMINBOX_ROOTS")
    if env_roots:
        extra += [r for r in env_roots.split(os.pathsep) if r]
    return Settings.build(extra, defaults=not args.no_default_roots, identity=args.identity)


def _roster(settings: Settings, team: str) -> Roster:
    return roster(resolve_team(settings.roots, team), settings)


def _print_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def _text_arg(args: argparse.Namespace) -> str:
    if args.file:
        if args.text is not None:
            raise InvalidParams("give TEXT or --file, not both")
        return _message_text(args.file)
    if args.text is None:
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
    from .errors import TooLarge
    from .store import MAX_MESSAGE_BYTES

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


def _first_line(text: str, width: int = 100) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def _show_team(team: Team) -> None:
    unread = sum(m.unread for m in team.members)
    print(f"{team.id}  ({len(team.members)} inboxes, {unread} unread)  {team.dir}")
    if team.error:
        print(f"  ! {team.error.message}")
    for m in team.members:
        flags = (("lead", m.lead), ("yours", m.owned), ("phantom", m.phantom))
        marks = [k for k, on in flags if on]
        tag = f" [{', '.join(marks)}]" if marks else ""
        label = m.name if m.name == m.inbox else f"{m.name} ({m.inbox})"
        print(f"  {label:<40} {m.total:>6} total {m.unread:>6} unread{tag}")
        if m.error:
            print(f"    ! {m.error.message}")


def _show_message(msg: Message) -> None:
    state = "read" if msg.read else "UNREAD"
    print(f"{msg.id}  {msg.timestamp}  {msg.from_} -> {msg.to}  ({msg.type}, {state})")
    if msg.summary:
        print(f"  summary: {msg.summary}")
    for line in msg.text.splitlines() or [""]:
        print(f"  {line}")
    print()


def cmd_teams(args: argparse.Namespace, settings: Settings) -> int:
    teams = [describe(roster(t, settings), counts=True) for t in find_teams(settings.roots)]
    if args.json:
        _print_json({"teams": converter.unstructure(teams)})
    elif not teams:
        print("no teams found under: " + ", ".join(r.path for r in settings.roots))
    for team in teams if not args.json else []:
        _show_team(team)
    return 0


def cmd_read(args: argparse.Namespace, settings: Settings) -> int:
    r = _roster(settings, args.team)
    member = r.resolve_inbox(args.inbox)
    fmt = r.team.fmt
    snap = read(fmt, r.team.inbox_path(member.inbox))
    msgs = messages(fmt, snap, r.team.id, member.inbox)
    unread = sum(1 for m in msgs if not m.read)
    if args.unread:
        msgs = [m for m in msgs if not m.read]
    if args.json:
        _print_json(
            {
                "messages": converter.unstructure(msgs),
                "total": len(snap.entries) - len(snap.problems),
                "unread": unread,
            }
        )
        return 0
    for p in snap.problems:
        print(f"! {snap.path}: entry {p.index} skipped: {p.reason}", file=sys.stderr)
    for msg in msgs:
        _show_message(msg)
    print(f"{member.inbox}: {len(snap.entries) - len(snap.problems)} messages, {unread} unread")
    return 0


def _report_send(args: argparse.Namespace, results: list[Any]) -> int:
    if args.json:
        _print_json({"results": converter.unstructure(results)})
    failed = [r for r in results if not r.ok]
    for res in results if not args.json else []:
        if res.ok:
            print(f"sent to {res.recipient} ({res.message_id})")
    for res in failed:
        print(f"teaminbox: not sent to {res.recipient}: {res.error}", file=sys.stderr)
    if failed:
        return EXIT_PARTIAL if len(failed) < len(results) else EXIT_ERROR
    return 0


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
    if marking.writes_file(r, member) or args.discard:
        n = marking.set_read(r, member, args.ids, every=args.all, discard=args.discard)
    else:
        n = _mark_seen(args, r, member)
    if args.json:
        _print_json({"marked": n})
    else:
        print(f"marked {n} read")
    return 0


def cmd_repair(args: argparse.Namespace, settings: Settings) -> int:
    r = _roster(settings, args.team)
    path, kept, dropped, backup = maintenance.repair(r, r.resolve_inbox(args.inbox))
    if args.json:
        _print_json({"path": path, "kept": kept, "dropped": dropped, "backup": backup})
    elif backup is None:
        print(f"{path}: healthy, {kept} entries; nothing to repair")
    else:
        print(f"{path}: kept {kept} entries, dropped {dropped}; original saved as {backup}")
    return 0


def cmd_doctor(args: argparse.Namespace, settings: Settings) -> int:
    findings = maintenance.doctor(settings)
    if args.json:
        _print_json({"findings": converter.unstructure(findings)})
    elif not findings:
        print("all inboxes healthy")
    for f in findings if not args.json else []:
        print(f"{f.kind:<14} {f.path}\n{'':<15}{f.message}")
    return 1 if any(f.kind == "corrupt" for f in findings) else 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="teaminbox",
        description="Read, send and mark read Claude Code and PseudoClaude team inboxes.",
    )
    p.add_argument(
        "--root",
        action="append",
        metavar="[FORMAT=]PATH",
        help="an extra teams folder (repeatable); FORMAT is claude or pseudoclaude",
    )
    p.add_argument(
        "--no-default-roots",
        action="store_true",
        help="skip ~/.claude/teams and ~/.PseudoClaude/teams",
    )
    p.add_argument(
        "--identity",
        action="append",
        metavar="[FORMAT=]NAME",
        help="who you are (default: user for Claude, the lead for PseudoClaude)",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help: str, json: bool = True) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        if json:
            sp.add_argument("--json", action="store_true", help="machine-readable output")
        return sp

    add("teams", "list teams, members and unread counts").set_defaults(func=cmd_teams)

    sp = add("read", "print an inbox's messages, oldest first")
    sp.add_argument("team")
    sp.add_argument("inbox", help="inbox name, member name or agent id")
    sp.add_argument("--unread", action="store_true", help="only unread messages")
    sp.set_defaults(func=cmd_read)

    for name, helptext in (
        ("send", "send a message to a member (or * for everyone)"),
        ("broadcast", "send a message to every member but you"),
    ):
        sp = add(name, helptext)
        sp.add_argument("team")
        if name == "send":
            sp.add_argument("to", help="member name, agent id, or * / broadcast")
        sp.add_argument("text", nargs="?", help="message text; - reads it from stdin")
        sp.add_argument("--file", help="read the message text from a file")
        sp.add_argument("--summary")
        sp.add_argument("--type", help="message type (default: plain text)")
        sp.add_argument("--payload", help="JSON object: structured fields for --type")
        sp.add_argument("--color")
        sp.add_argument("--from", dest="sender", help="send as NAME instead of your identity")
        sp.set_defaults(func=cmd_send if name == "send" else cmd_broadcast)

    sp = add(
        "mark-read",
        "mark messages read: your own inbox's file gets read: true; an agent's inbox"
        " (which its runner consumes) only the seen state, unless --discard",
    )
    sp.add_argument("team")
    sp.add_argument("inbox")
    sp.add_argument("ids", nargs="*", help="message ids (see `read --json`)")
    sp.add_argument("--all", action="store_true", help="every unread message")
    sp.add_argument(
        "--discard",
        action="store_true",
        help="write read: true into an agent's inbox: its runner then DROPS those messages"
        " undelivered",
    )
    sp.add_argument("--history", help="history database (default: in the user data folder)")
    sp.set_defaults(func=cmd_mark_read)

    sp = add("repair", "salvage the valid entries of a corrupt inbox (original kept)")
    sp.add_argument("team")
    sp.add_argument("inbox")
    sp.set_defaults(func=cmd_repair)

    add("doctor", "report stale locks, corrupt files, phantom inboxes, temp files").set_defaults(
        func=cmd_doctor
    )
    _add_more(sub)
    return p


def _add_more(sub: Any) -> None:
    """Commands whose modules pull in heavier dependencies, imported on use."""
    sp = sub.add_parser("serve", help="run the JSON-RPC sidecar over stdio")
    sp.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead (debugging)")
    # vscode-languageclient appends --stdio in stdio mode; stdio is the default anyway.
    sp.add_argument("--stdio", action="store_true", help=argparse.SUPPRESS)
    sp.set_defaults(func=cmd_serve)

    sp = sub.add_parser("demo", help="create demo teams, or run simulated teammates")
    sp.add_argument("action", choices=["init", "teammates"])
    sp.add_argument("--home", help="scratch folder (default: /tmp/teaminbox-demo)")
    sp.add_argument("--duration", type=float, help="seconds to run the teammates")
    sp.set_defaults(func=cmd_demo)

    sp = sub.add_parser("compact", help="archive and prune the read entries of your own inbox")
    sp.add_argument("team")
    sp.add_argument("inbox", nargs="?", help="default: your own inbox")
    sp.add_argument("--history", help="history database (default: in the user data folder)")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=cmd_compact)


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from pathlib import Path

    from . import demo

    home = Path(args.home) if args.home else demo.default_home()
    if args.action == "init":
        demo.init(home)
        print(f"demo teams in {home}: claude:{demo.CLAUDE_TEAM}, pseudoclaude:{demo.PC_TEAM}")
        print(
            f"  roots: --root claude={home}/.claude/teams"
            f" --root pseudoclaude={home}/.PseudoClaude/teams"
        )
    else:
        print(f"simulated teammates answering in {home} (Ctrl-C stops)", flush=True)
        demo.simulate(home, duration=args.duration)
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from .server import serve

    serve(args.tcp)
    return 0


def _history(args: argparse.Namespace) -> Any:
    from .history import History

    return History(getattr(args, "history", None))


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
        _print_json(converter.unstructure(res))
    else:
        print(
            f"{res.team} {res.inbox}: archived and pruned {res.removed} read entries,"
            f" {res.kept} left"
        )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = _settings(args)
        code: int = args.func(args, settings)
        return code
    except TeamInboxError as err:
        print(f"teaminbox: {err.message}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as err:
        print(f"teaminbox: {err}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
