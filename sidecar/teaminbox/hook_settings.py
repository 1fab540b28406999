"""Team Inbox's hooks in a Claude settings file (the user's, or a project's
`.claude/settings.local.json`), and `teaminbox hook install / remove / status`.

Two hooks, each opt-in: the `PermissionRequest` hook (`python -m teaminbox.hook run
--wait N`: a prompt answered in VS Code) and, with `--record`, the `PostToolUse` hook with
matcher `SendMessage` (`python -m teaminbox.hook record`: each send kept in the spool).
Install adds one entry, with an explicit `timeout`, merged into what is there (an entry
of ours of that kind replaced, never a second); remove takes out only entries of ours; an
entry is ours only in the exact shape install writes; a file that does not parse is
never written. The Claude Code plugin (claude-plugin/) is the way now: install refuses while
it is enabled (claude_plugin.py), and the plugin's hooks stand aside for an entry here.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import site
import stat
import sys
import tempfile
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import teaminbox

from . import claude_plugin

if TYPE_CHECKING:  # the command line's alone
    import argparse

MODULE = "teaminbox.hook"
MARK = f"{MODULE} run"  # how a permission entry is known to be ours
DEFAULT_WAIT = 110.0  # seconds the hook waits for the person
TIMEOUT_MARGIN = 10  # the settings' timeout is the wait plus this (Claude Code kills at it)
RECORD_TIMEOUT = 10  # seconds Claude Code gives the record hook (it takes milliseconds)
MAX_SETTINGS = 4 * 1024 * 1024
PERMISSION = "PermissionRequest"
RECORD = "PostToolUse"
RECORD_MATCHER = "SendMessage"


class SettingsError(Exception):
    """A settings file that cannot be edited safely: it is left as it is."""


def settings_path(project: str | None, env: Mapping[str, str] = os.environ) -> str:
    if project:
        return os.path.join(os.path.abspath(project), ".claude", "settings.local.json")
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(
        env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"), "settings.json"
    )


def _python_words(python: str) -> str:
    """This Python and, when it would not find this package by itself, PYTHONPATH."""
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(teaminbox.__file__)))
    prefix = f"PYTHONPATH={shlex.quote(pkg_parent)} " if not _importable(pkg_parent) else ""
    return f"{prefix}{shlex.quote(python)} -m {MODULE}"


def hook_command(wait: float, python: str = sys.executable) -> str:
    """The permission hook's shell command: this Python, this package, `--wait`."""
    return f"{_python_words(python)} run --wait {wait:g}"


def record_command(python: str = sys.executable) -> str:
    """The record hook's shell command (a plugin's hook runs the same `record`)."""
    return f"{_python_words(python)} record"


def _importable(folder: str) -> bool:
    known = set(getattr(site, "getsitepackages", list)())
    with contextlib.suppress(Exception):
        known.add(site.getusersitepackages())
    return folder in known


def entry(wait: float, python: str = sys.executable) -> dict[str, Any]:
    """The one entry install adds under hooks.PermissionRequest."""
    return {
        "matcher": "*",
        "hooks": [
            {
                "type": "command",
                "command": hook_command(wait, python),
                "timeout": int(wait) + TIMEOUT_MARGIN,
            }
        ],
    }


def record_entry(python: str = sys.executable) -> dict[str, Any]:
    """The one entry `install --record` adds under hooks.PostToolUse."""
    return {
        "matcher": RECORD_MATCHER,
        "hooks": [
            {"type": "command", "command": record_command(python), "timeout": RECORD_TIMEOUT}
        ],
    }


def _words(command: Any) -> list[str] | None:
    """A command's words without a leading PYTHONPATH=; None if it does not split."""
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if words and words[0].startswith("PYTHONPATH="):
        words = words[1:]
    if not words or "=" in words[0] or words[0].startswith("-"):
        return None
    return words


def is_our_command(command: Any) -> bool:
    """Exactly the shape `hook_command` writes: [PYTHONPATH=DIR] PYTHON -m teaminbox.hook
    run --wait N, and nothing more (a mention of the module in another command is not it)."""
    words = _words(command)
    if words is None or len(words) != 6 or words[1:5] != ["-m", *MARK.split(), "--wait"]:
        return False
    try:
        wait = float(words[5])
    except ValueError:
        return False
    return wait > 0


def is_record_command(command: Any) -> bool:
    """Exactly the shape `record_command` writes: [PYTHONPATH=DIR] PYTHON -m
    teaminbox.hook record."""
    words = _words(command)
    return words is not None and words[1:] == ["-m", MODULE, "record"]


def _ours(group: Any, event: str) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    if not (
        isinstance(hooks, list)
        and len(hooks) == 1
        and isinstance(hooks[0], dict)
        and hooks[0].get("type") == "command"
    ):
        return False
    assert isinstance(group, dict)
    if event == RECORD:
        return group.get("matcher") == RECORD_MATCHER and is_record_command(hooks[0].get("command"))
    return is_our_command(hooks[0].get("command"))


def load(path: str) -> dict[str, Any] | None:
    """The settings object, None when there is no file; SettingsError when it is not one
    this can edit (does not parse, not an object, a link, too big)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise SettingsError(f"{path}: not a regular file; left alone")
    if st.st_size > MAX_SETTINGS:
        raise SettingsError(f"{path}: over {MAX_SETTINGS} bytes; left alone")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except ValueError as err:
        raise SettingsError(f"{path} does not parse ({err}); left alone: fix it first") from err
    if not isinstance(doc, dict):
        raise SettingsError(f"{path} is not a JSON object; left alone")
    return doc


def _groups(doc: dict[str, Any], path: str, event: str) -> list[Any]:
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: `hooks` is not an object; left alone")
    groups = hooks.get(event, [])
    if not isinstance(groups, list):
        raise SettingsError(f"{path}: `hooks.{event}` is not a list; left alone")
    return groups


def installed(doc: dict[str, Any] | None, path: str, event: str = PERMISSION) -> list[Any]:
    return [g for g in _groups(doc, path, event) if _ours(g, event)] if doc else []


def in_settings(
    project: str | None, env: Mapping[str, str] = os.environ, event: str = PERMISSION
) -> bool:
    """Whether our `event` entry is in the user's settings or `project`'s local ones (the
    plugin's hook then stands aside: one prompt offered once, one send recorded once)."""
    paths = [settings_path(None, env)] + ([settings_path(project, env)] if project else [])
    for path in paths:
        try:
            if installed(load(path), path, event):
                return True
        except (OSError, SettingsError):
            continue
    return False


def with_entry(
    doc: dict[str, Any] | None, path: str, new: dict[str, Any], event: str = PERMISSION
) -> dict[str, Any]:
    """`doc` with our entry (replacing an older one of ours); every other key kept."""
    out = dict(doc or {})
    groups = [g for g in _groups(out, path, event) if not _ours(g, event)] + [new]
    out["hooks"] = {**out.get("hooks", {}), event: groups}
    return out


def without_entry(doc: dict[str, Any], path: str, event: str = PERMISSION) -> dict[str, Any]:
    out = dict(doc)
    groups = [g for g in _groups(out, path, event) if not _ours(g, event)]
    hooks = dict(out.get("hooks", {}))
    if groups:
        hooks[event] = groups
    else:
        hooks.pop(event, None)
    if hooks:
        out["hooks"] = hooks
    else:
        out.pop("hooks", None)
    return out


def write(path: str, doc: dict[str, Any]) -> None:
    """Atomically: a temp file beside it, then a rename (the mode of the old file kept)."""
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        mode = 0o600
    fd, tmp = tempfile.mkstemp(prefix=".settings.", suffix=".teaminbox-tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


# --- install / remove / status -----------------------------------------------------------


def add_arguments(sub: Any) -> None:
    """install, remove and status, on the `teaminbox hook` subparsers."""
    about = (
        "add Team Inbox's PermissionRequest hook to your Claude settings (or a project's"
        " .claude/settings.local.json): teammates' permission prompts can then be answered"
        " in VS Code; with --record, the PostToolUse hook that keeps each SendMessage in"
        " Team Inbox's spool instead; shows exactly what it adds and asks first"
    )
    record = "the SendMessage record hook (PostToolUse), not the permission hook"
    p = sub.add_parser("install", help="add the hook (asks first)", description=about)
    p.add_argument("--project", metavar="DIR", help="the project's settings, not your own")
    p.add_argument("--record", action="store_true", help=record)
    p.add_argument(
        "--wait",
        type=float,
        default=DEFAULT_WAIT,
        help="seconds the hook waits for an answer before the terminal asks"
        f" (default {DEFAULT_WAIT:g})",
    )
    p.add_argument("--yes", action="store_true", help="write without asking")
    p.add_argument("--dry-run", action="store_true", help="only show what would be added")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p = sub.add_parser("remove", help="take the hook out again (only its own entry)")
    p.add_argument("--project", metavar="DIR")
    p.add_argument("--record", action="store_true", help=record)
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("status", help="where the hooks are installed, and which sidecars listen")
    p.add_argument("--project", metavar="DIR")
    p.add_argument("--json", action="store_true")


def act(args: argparse.Namespace, say: Any, sockets: Callable[[], list[str]]) -> int:
    """install, remove or status; `say(text, err=False)` prints. 0 ok, 1 refused/failed."""
    action = args.hook_action
    path = settings_path(getattr(args, "project", None))
    try:
        doc = load(path)
    except SettingsError as err:
        say(f"teaminbox: {err}", err=True)
        return 1
    event = RECORD if getattr(args, "record", False) else PERMISSION
    plugin = claude_plugin.enabled_in(getattr(args, "project", None))
    if action == "status":
        mine = installed(doc, path)
        recording = installed(doc, path, RECORD)
        socks = sockets()
        if args.json:
            body = {
                "settings": path,
                "installed": mine,
                "record": recording,
                "sidecars": socks,
                "plugin": plugin,
            }
            say(json.dumps(body, indent=2))
        else:
            say(f"{path}: {'installed' if mine else 'not installed'}")
            for g in mine:
                say(f"  {json.dumps(g)}")
            say(f"record hook (SendMessage): {'installed' if recording else 'not installed'}")
            for g in recording:
                say(f"  {json.dumps(g)}")
            say(f"sidecars listening: {len(socks)}")
            say(
                f"Claude Code plugin {claude_plugin.PLUGIN_ID}: enabled in {plugin}"
                if plugin
                else f"Claude Code plugin {claude_plugin.PLUGIN_ID}: not enabled"
            )
        return 0
    if action == "remove":
        mine = installed(doc, path, event)
        if doc is not None and mine:
            write(path, without_entry(doc, path, event))
        if args.json:
            say(json.dumps({"settings": path, "event": event, "removed": mine}, indent=2))
        else:
            say(f"{path}: removed {len(mine)} entr{'y' if len(mine) == 1 else 'ies'}")
        return 0
    # install
    if plugin:
        say(
            f"teaminbox: the Team Inbox plugin for Claude Code is enabled in {plugin}: its"
            " hooks already offer teammates' prompts to VS Code and record their sends; nothing"
            " written (the same hook twice would run twice)."
            f" `claude plugin disable {claude_plugin.PLUGIN_ID}` first to use a settings entry"
            " instead.",
            err=True,
        )
        return 1
    if event == PERMISSION and not 1 <= args.wait <= 3600:
        say("teaminbox: --wait must be between 1 and 3600 seconds", err=True)
        return 1
    new = record_entry() if event == RECORD else entry(args.wait)
    shown = json.dumps({"hooks": {event: [new]}}, indent=2)
    if args.dry_run:
        plan: dict[str, Any] = {"settings": path, "event": event, "adds": new}
        say(json.dumps(plan, indent=2) if args.json else shown)
        return 0
    say(f"teaminbox: the Claude Code plugin is the way now: {claude_plugin.INSTALL_HINT}", err=True)
    if not args.yes:
        say(f"This adds to {path}:\n{shown}")
        if not sys.stdin.isatty():
            say("teaminbox: not a terminal to ask: run again with --yes to write it", err=True)
            return 1
        say("Write it? [y/N] ")
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            say("nothing written")
            return 1
    write(path, with_entry(doc, path, new, event))
    if args.json:
        say(json.dumps({"settings": path, "event": event, "added": new}, indent=2))
    else:
        say(f"{path}: added\n{shown}")
    return 0
