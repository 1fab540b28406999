"""Claude Code's `PermissionRequest` hook: a prompt answered in VS Code, opt-in.

`python -m teaminbox.hook run` is the hook's command. It reads the request from stdin,
offers it to every running sidecar's socket (`<runtime dir>/sidecar-<pid>.sock`, 0600;
a sidecar claims only a session whose team it watches: each window that shows the team
asks), and waits up to `--wait` seconds for the first answer. No sidecar, no answer, or
any error: it prints nothing and exits 0, and Claude Code shows its own prompt as before.

`install` / `remove` / `status` edit one Claude settings file (the user's, or a project's
`.claude/settings.local.json`): install adds one entry under `hooks.PermissionRequest`,
with an explicit `timeout`, merged into what is there; remove takes out only entries
whose command is ours; a file that does not parse is never written. The Claude Code plugin
(claude-plugin/) is the way now: install refuses while it is enabled (claude_plugin.py).

The wire between hook and sidecar: one JSON line each way, then the answer line:
hook -> `{"v": 1, "request": <stdin object>, "wait": seconds}`;
sidecar -> `{"claimed": bool}`, then `{"decision": {...} | null}`; with `"released": true`
the person sent the request back to the terminal, and the hook stops waiting for any
other window.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shlex
import site
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import teaminbox

from . import claude_plugin

if TYPE_CHECKING:  # the server imports this module; argparse is for the command line only
    import argparse

MARK = "teaminbox.hook run"  # how an entry is known to be ours
DEFAULT_WAIT = 110.0  # seconds the hook waits for the person
TIMEOUT_MARGIN = 10  # the settings' timeout is the wait plus this (Claude Code kills at it)
CONNECT_TIMEOUT = 0.5
CLAIM_TIMEOUT = 3.0  # a sidecar says whether it takes the request (its state thread may be busy)
MAX_LINE = 16 * 1024 * 1024  # a request holds the tool input: a Write of a big file
MAX_SETTINGS = 4 * 1024 * 1024
SOCKET_PREFIX = "sidecar-"


# --- where the sockets are ------------------------------------------------------------


def runtime_dirs(env: Mapping[str, str] = os.environ) -> list[str]:
    """Where sidecars listen, first choice first: a hook run by Claude Code may not see
    the editor's environment, so it looks in each."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    dirs = []
    if env.get("TEAMINBOX_RUNTIME_DIR"):
        dirs.append(env["TEAMINBOX_RUNTIME_DIR"])
    if env.get("XDG_RUNTIME_DIR"):
        dirs.append(os.path.join(env["XDG_RUNTIME_DIR"], "teaminbox"))
    dirs.append(os.path.join(f"/run/user/{uid}", "teaminbox"))
    dirs.append(os.path.join(tempfile.gettempdir(), f"teaminbox-{uid}"))
    return list(dict.fromkeys(dirs))


def private_dir(path: str) -> bool:
    """A folder of ours only: not a link, owned by this user, nobody else may enter."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    uid = os.getuid() if hasattr(os, "getuid") else st.st_uid
    return stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o077


def listen_dir(env: Mapping[str, str] = os.environ) -> str | None:
    """The first runtime folder that is (or can be made) private; None when none can."""
    for d in runtime_dirs(env):
        parent = os.path.dirname(d)
        if not os.path.isdir(parent):
            continue
        with contextlib.suppress(FileExistsError, OSError):
            os.mkdir(d, 0o700)
        if private_dir(d):
            return d
    return None


def sockets(env: Mapping[str, str] = os.environ) -> list[str]:
    """Every sidecar socket in the private runtime folders, newest first."""
    found: list[tuple[float, str]] = []
    for d in runtime_dirs(env):
        if not private_dir(d):
            continue
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            if n.startswith(SOCKET_PREFIX) and n.endswith(".sock"):
                path = os.path.join(d, n)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISSOCK(st.st_mode):
                    found.append((st.st_mtime, path))
    return [p for _, p in sorted(found, reverse=True)]


# --- the hook itself ------------------------------------------------------------------


def _offer(path: str, request: dict[str, Any], left: float) -> socket.socket | None:
    """The request sent to one sidecar; its socket when that sidecar claims it."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(CONNECT_TIMEOUT)
        s.connect(path)
        s.settimeout(min(CLAIM_TIMEOUT, left))
        s.sendall(json.dumps({"v": 1, "request": request, "wait": left}).encode() + b"\n")
        buf = b""
        while b"\n" not in buf and len(buf) < MAX_LINE:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        first = json.loads(buf.split(b"\n", 1)[0] or b"null")
        if isinstance(first, dict) and first.get("claimed") is True:
            return s
    except (OSError, ValueError):
        pass  # a stale socket, a slow one, a bad line: not this one
    s.close()
    return None


def ask(request: dict[str, Any], wait: float, env: Mapping[str, str] = os.environ) -> Any:
    """The first decision of any sidecar that claims the request (every window that watches
    the team shows it; the first answer wins, the others' prompts go when the hook closes
    their connections); None when none claims it or none answers in time."""
    deadline = time.monotonic() + wait
    claimed: list[socket.socket] = []
    for path in sockets(env):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        got = _offer(path, request, left)
        if got is not None:
            claimed.append(got)
    sel = selectors.DefaultSelector()
    bufs: dict[socket.socket, bytes] = {}
    try:
        for s in claimed:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
            bufs[s] = b""
        while bufs:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            for key, _ in sel.select(left):
                s = next(c for c in claimed if c.fileno() == key.fd)
                try:
                    chunk = s.recv(65536)
                except OSError:
                    chunk = b""
                bufs[s] += chunk
                if b"\n" in bufs[s]:
                    try:
                        answer = json.loads(bufs[s].split(b"\n", 1)[0])
                    except ValueError:
                        answer = None
                    said = answer.get("decision") if isinstance(answer, dict) else None
                    if said is not None:
                        return said
                    if isinstance(answer, dict) and answer.get("released") is True:
                        return None  # the person sent it to the terminal: no window waits
                    chunk = b""  # "no answer" from this one: it is out
                if not chunk or len(bufs[s]) > MAX_LINE:
                    sel.unregister(s)
                    del bufs[s]
        return None
    finally:
        sel.close()
        for s in claimed:
            s.close()


def output(decision: Any) -> str | None:
    """What the hook prints for a sidecar's decision; None (nothing printed) unless it
    is a well-formed allow or deny."""
    if not isinstance(decision, dict) or decision.get("behavior") not in ("allow", "deny"):
        return None
    out: dict[str, Any] = {"behavior": decision["behavior"]}
    if decision["behavior"] == "deny":
        msg = decision.get("message")
        out["message"] = msg if isinstance(msg, str) and msg else "Denied in Team Inbox"
    perms = decision.get("updatedPermissions")
    if decision["behavior"] == "allow" and isinstance(perms, list) and perms:
        out["updatedPermissions"] = perms
    body = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": out}}
    return json.dumps(body)


def run(wait: float, stdin: Any = None, stdout: Any = None) -> int:
    """The hook: always exit 0; print a decision only when the person gave one."""
    try:
        raw = (stdin or sys.stdin).read(MAX_LINE)
        request = json.loads(raw)
        if not isinstance(request, dict) or request.get("hook_event_name") not in (
            None,
            "PermissionRequest",
        ):
            return 0
        text = output(ask(request, wait))
        if text is not None:
            (stdout or sys.stdout).write(text + "\n")
    except Exception:  # whatever happened: Claude Code's own prompt
        return 0
    return 0


# --- the settings entry ---------------------------------------------------------------


class SettingsError(Exception):
    """A settings file that cannot be edited safely: it is left as it is."""


def settings_path(project: str | None, env: Mapping[str, str] = os.environ) -> str:
    if project:
        return os.path.join(os.path.abspath(project), ".claude", "settings.local.json")
    home = env.get("HOME") or os.path.expanduser("~")
    return os.path.join(
        env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"), "settings.json"
    )


def hook_command(wait: float, python: str = sys.executable) -> str:
    """The shell command Claude Code runs: this Python, this package, `--wait`."""
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(teaminbox.__file__)))
    prefix = f"PYTHONPATH={shlex.quote(pkg_parent)} " if not _importable(pkg_parent) else ""
    return f"{prefix}{shlex.quote(python)} -m {MARK} --wait {wait:g}"


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


def is_our_command(command: Any) -> bool:
    """Exactly the shape `hook_command` writes: [PYTHONPATH=DIR] PYTHON -m teaminbox.hook
    run --wait N, and nothing more (a mention of the module in another command is not it)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    if words and words[0].startswith("PYTHONPATH="):
        words = words[1:]
    if len(words) != 6 or words[1:5] != ["-m", *MARK.split(), "--wait"]:
        return False
    try:
        wait = float(words[5])
    except ValueError:
        return False
    return wait > 0 and "=" not in words[0] and not words[0].startswith("-")


def _ours(group: Any) -> bool:
    hooks = group.get("hooks") if isinstance(group, dict) else None
    return (
        isinstance(hooks, list)
        and len(hooks) == 1
        and isinstance(hooks[0], dict)
        and hooks[0].get("type") == "command"
        and is_our_command(hooks[0].get("command"))
    )


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


def _groups(doc: dict[str, Any], path: str) -> list[Any]:
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: `hooks` is not an object; left alone")
    groups = hooks.get("PermissionRequest", [])
    if not isinstance(groups, list):
        raise SettingsError(f"{path}: `hooks.PermissionRequest` is not a list; left alone")
    return groups


def installed(doc: dict[str, Any] | None, path: str) -> list[Any]:
    return [g for g in _groups(doc, path) if _ours(g)] if doc else []


def in_settings(project: str | None, env: Mapping[str, str] = os.environ) -> bool:
    """Whether our entry is in the user's settings or `project`'s local ones (the plugin's
    hook then stands aside: one prompt is offered once)."""
    paths = [settings_path(None, env)] + ([settings_path(project, env)] if project else [])
    for path in paths:
        try:
            if installed(load(path), path):
                return True
        except (OSError, SettingsError):
            continue
    return False


def with_entry(doc: dict[str, Any] | None, path: str, new: dict[str, Any]) -> dict[str, Any]:
    """`doc` with our entry (replacing an older one of ours); every other key kept."""
    out = dict(doc or {})
    groups = [g for g in _groups(out, path) if not _ours(g)] + [new]
    out["hooks"] = {**out.get("hooks", {}), "PermissionRequest": groups}
    return out


def without_entry(doc: dict[str, Any], path: str) -> dict[str, Any]:
    out = dict(doc)
    groups = [g for g in _groups(out, path) if not _ours(g)]
    hooks = dict(out.get("hooks", {}))
    if groups:
        hooks["PermissionRequest"] = groups
    else:
        hooks.pop("PermissionRequest", None)
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


# --- the command line (`teaminbox hook ...`) -------------------------------------------


def add_arguments(sp: argparse.ArgumentParser) -> None:
    sub = sp.add_subparsers(dest="hook_action", required=True, metavar="ACTION")
    about = (
        "add Team Inbox's PermissionRequest hook to your Claude settings (or a project's"
        " .claude/settings.local.json): teammates' permission prompts can then be answered"
        " in VS Code; shows exactly what it adds and asks first"
    )
    p = sub.add_parser("install", help="add the hook (asks first)", description=about)
    p.add_argument("--project", metavar="DIR", help="the project's settings, not your own")
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
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("status", help="where the hook is installed, and which sidecars listen")
    p.add_argument("--project", metavar="DIR")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("run", help="the hook itself (Claude Code runs it)")
    p.add_argument("--wait", type=float, default=DEFAULT_WAIT)


def main_cli(args: argparse.Namespace, say: Any) -> int:
    """`teaminbox hook ACTION`; `say(text, err=False)` prints. 0 ok, 1 refused/failed."""
    action = args.hook_action
    if action == "run":
        return run(max(0.0, args.wait))
    path = settings_path(getattr(args, "project", None))
    try:
        doc = load(path)
    except SettingsError as err:
        say(f"teaminbox: {err}", err=True)
        return 1
    plugin = claude_plugin.enabled_in(getattr(args, "project", None))
    if action == "status":
        mine = installed(doc, path)
        socks = sockets()
        if args.json:
            body = {"settings": path, "installed": mine, "sidecars": socks, "plugin": plugin}
            say(json.dumps(body, indent=2))
        else:
            say(f"{path}: {'installed' if mine else 'not installed'}")
            for g in mine:
                say(f"  {json.dumps(g)}")
            say(f"sidecars listening: {len(socks)}")
            say(
                f"Claude Code plugin {claude_plugin.PLUGIN_ID}: enabled in {plugin}"
                if plugin
                else f"Claude Code plugin {claude_plugin.PLUGIN_ID}: not enabled"
            )
        return 0
    if action == "remove":
        mine = installed(doc, path)
        if doc is not None and mine:
            write(path, without_entry(doc, path))
        if args.json:
            say(json.dumps({"settings": path, "removed": mine}, indent=2))
        else:
            say(f"{path}: removed {len(mine)} entr{'y' if len(mine) == 1 else 'ies'}")
        return 0
    # install
    if plugin:
        say(
            f"teaminbox: the Team Inbox plugin for Claude Code is enabled in {plugin}: its"
            " hook already offers teammates' prompts to VS Code; nothing written (the same hook"
            f" twice would ask twice). `claude plugin disable {claude_plugin.PLUGIN_ID}` first"
            " to use a settings entry instead.",
            err=True,
        )
        return 1
    if not 1 <= args.wait <= 3600:
        say("teaminbox: --wait must be between 1 and 3600 seconds", err=True)
        return 1
    new = entry(args.wait)
    shown = json.dumps({"hooks": {"PermissionRequest": [new]}}, indent=2)
    if args.dry_run:
        say(json.dumps({"settings": path, "adds": new}, indent=2) if args.json else shown)
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
    write(path, with_entry(doc, path, new))
    if args.json:
        say(json.dumps({"settings": path, "added": new}, indent=2))
    else:
        say(f"{path}: added\n{shown}")
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse  # noqa: PLC0415 - the command line's alone, not the server's start

    p = argparse.ArgumentParser(prog="python -m teaminbox.hook")
    add_arguments(p)
    args = p.parse_args(argv)

    def say(text: str, err: bool = False) -> None:
        print(text, file=sys.stderr if err else sys.stdout)

    return main_cli(args, say)


if __name__ == "__main__":
    sys.exit(main())
