"""The commands that run something: the JSON-RPC sidecar (`serve`), the MCP server, the
permission hook, the demo."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import demo, hook
from ..discovery import Settings
from ..errors import TeamInboxError
from .output import EXIT_OK, EXIT_USAGE, say


def cmd_hook(args: argparse.Namespace, settings: Settings) -> int:
    def say_lines(text: str, err: bool = False) -> None:
        for line in text.split("\n"):  # each line shown safe, as every other command's
            say(line, err=err)

    return hook.main_cli(args, say_lines)


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    home = Path(args.home) if args.home else demo.default_home()
    if args.action == "init":
        demo.init(home)
        say(
            f"demo teams in {home}: claude:{demo.CLAUDE_TEAM}, pseudoclaude:{demo.PC_TEAM},"
            f" filebus:{demo.BUS_TEAM}"
        )
        say("  roots: " + " ".join(f"--root {spec}" for spec in demo.root_specs(home)))
    else:
        say(f"simulated teammates answering in {home} (Ctrl-C stops)")
        sys.stdout.flush()
        demo.simulate(home, duration=args.duration)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from ..server import parse_tcp, serve  # noqa: PLC0415 -- the server's libraries load for serve alone

    for given, flag in ((args.token_file, "--token-file"), (args.allow_remote, "--allow-remote")):
        if given and not args.tcp:
            say(f"teaminbox: {flag} is for --tcp", err=True)
            return EXIT_USAGE
    if args.tcp:
        from ..server.transport import loopback_problem  # noqa: PLC0415 -- as above

        try:
            host, port = parse_tcp(args.tcp)
            problem = loopback_problem(host, port)
        except ValueError as err:
            say(f"teaminbox: {err}", err=True)
            return EXIT_USAGE
        if problem and not args.allow_remote:
            say(
                f"teaminbox: --tcp {args.tcp}: {problem}; other machines could connect"
                " (add --allow-remote to listen there anyway)",
                err=True,
            )
            return EXIT_USAGE
        if problem:
            say(
                f"teaminbox: warning: --tcp {args.tcp}: {problem}; only the token keeps"
                " other machines out, and the connection is not encrypted",
                err=True,
            )
    code: int = serve(args.tcp, args.token_file)
    return code


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    try:  # here, not at the top: the SDK is an optional extra, and slow to import
        from .. import mcpserver  # noqa: PLC0415 -- the optional MCP SDK
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] not in ("mcp", "pydantic", "anyio"):
            raise
        raise TeamInboxError(
            f"teaminbox mcp needs the MCP SDK ({err.name} is missing): pip install 'teaminbox[mcp]'"
        ) from None
    code: int = mcpserver.run(settings, args.history, read_only=args.read_only)
    return code
