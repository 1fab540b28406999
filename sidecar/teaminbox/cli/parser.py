"""The command line's arguments: every command, its options and help, and the epilog."""

from __future__ import annotations

import argparse
import os
from typing import Any

from .. import __version__, hook, sending
from .inboxes import cmd_broadcast, cmd_mark_read, cmd_read, cmd_send, cmd_teams
from .services import cmd_demo, cmd_hook, cmd_mcp, cmd_serve
from .tasks import cmd_tasks
from .upkeep import cmd_compact, cmd_doctor, cmd_repair

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

    sp = add("teams", "list teams, their inboxes and unread counts; ended ones from the history")
    sp.add_argument("--history", metavar="PATH", help=HISTORY_HELP)
    sp.set_defaults(func=cmd_teams)

    sp = add(
        "read",
        "print an inbox's messages, oldest first (an ended team's from the history); protocol"
        " frames in words; a time nobody read the inbox where messages may be missing (a gap)",
    )
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
