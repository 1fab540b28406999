"""`python -m teaminbox.hook ACTION` and `teaminbox hook ACTION`: Team Inbox's hooks for
Claude Code, each opt-in.

- `record`: the `PostToolUse` hook for `SendMessage`. The payload is appended to the spool
  (spool.py); nothing printed, exit 0, no sidecar asked. The agent waits for it on every
  send, so it loads nothing but spool.py: argparse, the socket client and the settings
  code are imported by the other actions alone.
- `run --wait N`: the `PermissionRequest` hook (hook_run.py).
- `install [--record]`, `remove [--record]`, `status`: a Claude settings file
  (hook_settings.py). The Claude Code plugin (claude-plugin/) is the way now: install
  refuses while it is enabled, and the plugin's hooks stand aside for a settings entry
  (`in_settings`, which its launcher asks).
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING, Any

from . import spool

if TYPE_CHECKING:  # the command line's alone
    import argparse


def add_arguments(sp: argparse.ArgumentParser) -> None:
    from . import hook_settings  # noqa: PLC0415 - the record hook starts without it

    sub = sp.add_subparsers(dest="hook_action", required=True, metavar="ACTION")
    hook_settings.add_arguments(sub)
    p = sub.add_parser("run", help="the permission hook itself (Claude Code runs it)")
    p.add_argument("--wait", type=float, default=hook_settings.DEFAULT_WAIT)
    sub.add_parser("record", help="the SendMessage record hook itself (Claude Code runs it)")


def main_cli(args: argparse.Namespace, say: Any) -> int:
    """`teaminbox hook ACTION`; `say(text, err=False)` prints. 0 ok, 1 refused/failed."""
    if args.hook_action == "record":
        return spool.record()
    from . import hook_run, hook_settings  # noqa: PLC0415 - the record hook starts without them

    if args.hook_action == "run":
        return hook_run.run(max(0.0, args.wait))
    return hook_settings.act(args, say, hook_run.sockets)


def in_settings(project: str | None, env: Any = None, event: str = "PermissionRequest") -> bool:
    """Whether the settings hold our `event` entry (hook_settings.in_settings): the plugin's
    launcher asks this module, the one every version has, on every send. Where no settings
    file can hold one (none names this module, none has a `\\u` escape that could spell
    it) that is known from their bytes: nothing parsed, the settings code not loaded."""
    env = os.environ if env is None else env
    from . import claude_plugin  # noqa: PLC0415 - the record hook starts without it

    if not any(_may_name_us(p) for p in claude_plugin.hook_settings_files(project, env)):
        return False
    from . import hook_settings  # noqa: PLC0415 - the record hook starts without it

    return hook_settings.in_settings(project, env, event)


def _may_name_us(path: str) -> bool:
    """A regular file of at most MAX_SETTINGS bytes whose text could name this module (what
    hook_settings.load would read; anything else it leaves out too)."""
    from . import claude_plugin  # noqa: PLC0415

    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        )
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > claude_plugin.MAX_SETTINGS:
            return False
        data = os.read(fd, claude_plugin.MAX_SETTINGS + 1)
    except OSError:
        return False
    finally:
        os.close(fd)
    return b"teaminbox.hook" in data or b"\\u" in data


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["record"]:  # the agent waits on this one: no argparse
        return spool.record()
    import argparse  # noqa: PLC0415 - the command line's alone

    p = argparse.ArgumentParser(prog="python -m teaminbox.hook")
    add_arguments(p)
    args = p.parse_args(argv)

    def say(text: str, err: bool = False) -> None:
        print(text, file=sys.stderr if err else sys.stdout)

    return main_cli(args, say)


if __name__ == "__main__":
    sys.exit(main())
