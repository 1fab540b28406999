"""Finds Team Inbox for the Claude Code plugin and runs its hook or its MCP server.

Where, first found first: the Team Inbox extension installed in VS Code, its Remote
servers, code-server, VS Code Insiders, VSCodium or Cursor (the newest version of
`teaminbox.team-inbox` whose `bundled/libs` holds the sidecar; the MCP SDK that the
extension's "Install the MCP SDK" command put in its storage comes along), else a
`teaminbox` on PATH.

    launch.py hook ARGS...   python -m teaminbox.hook ARGS; exits 0 whatever happens
    launch.py mcp ARGS...    teaminbox mcp ARGS, with --read-only unless the plugin's
                             allow_send option is on (TEAMINBOX_MCP_SEND, which .mcp.json
                             sets from it, or CLAUDE_PLUGIN_OPTION_ALLOW_SEND is "true")
    launch.py where          prints what would run; exit 1 when nothing
"""

from __future__ import annotations

import importlib
import json
import os
import runpy
import sys

PUBLISHER, NAME = "teaminbox", "team-inbox"
OPTION = "CLAUDE_PLUGIN_OPTION_ALLOW_SEND"  # the plugin's allow_send, as Claude Code exports it
SDK_HELP = (
    "In VS Code run 'Team Inbox: Install the MCP SDK for the Team Inbox MCP Server' (into the"
    " extension's storage, where this plugin finds it), or install 'mcp>=2.3,<3' into that Python."
)
MCP_HELP = (
    "Install the Team Inbox extension in VS Code (then its command 'Team Inbox: Install the"
    " MCP SDK'), or `pipx install 'teaminbox[mcp]'`."
)


def editors(home: str) -> list[tuple[str, str]]:
    """(extensions folder, user data folder) of each editor that may hold the extension."""
    if sys.platform == "darwin":
        config = os.path.join(home, "Library", "Application Support")
    elif sys.platform == "win32":
        config = os.environ.get("APPDATA") or os.path.join(home, "AppData", "Roaming")
    else:
        config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    share = os.environ.get("XDG_DATA_HOME") or os.path.join(home, ".local", "share")
    return [
        (os.path.join(home, ".vscode", "extensions"), os.path.join(config, "Code")),
        (
            os.path.join(home, ".vscode-server", "extensions"),
            os.path.join(home, ".vscode-server", "data"),
        ),
        (
            os.path.join(home, ".vscode-insiders", "extensions"),
            os.path.join(config, "Code - Insiders"),
        ),
        (
            os.path.join(home, ".vscode-server-insiders", "extensions"),
            os.path.join(home, ".vscode-server-insiders", "data"),
        ),
        (
            os.path.join(share, "code-server", "extensions"),
            os.path.join(share, "code-server"),
        ),
        (os.path.join(home, ".vscode-oss", "extensions"), os.path.join(config, "VSCodium")),
        (os.path.join(home, ".cursor", "extensions"), os.path.join(config, "Cursor")),
        (
            os.path.join(home, ".cursor-server", "extensions"),
            os.path.join(home, ".cursor-server", "data"),
        ),
    ]


def _version(text: object) -> tuple[int, ...]:
    parts = []
    for p in str(text).split("-", 1)[0].split("."):
        if not p.isdigit():
            return ()
        parts.append(int(p))
    return tuple(parts)


def _candidates(folder: str) -> list[tuple[tuple[int, ...], str]]:
    """This extension's installed versions in one extensions folder (not the obsolete ones)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    try:
        with open(os.path.join(folder, ".obsolete"), encoding="utf-8") as f:
            obsolete = set(json.load(f))
    except (OSError, ValueError, TypeError):
        obsolete = set()
    out = []
    for n in names:
        if not n.lower().startswith(f"{PUBLISHER}.{NAME}-") or n in obsolete:
            continue
        path = os.path.join(folder, n)
        try:
            with open(os.path.join(path, "package.json"), encoding="utf-8") as f:
                pkg = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(pkg, dict) or (pkg.get("publisher"), pkg.get("name")) != (
            PUBLISHER,
            NAME,
        ):
            continue
        if os.path.isfile(os.path.join(path, "bundled", "libs", "teaminbox", "__init__.py")):
            out.append((_version(pkg.get("version")), path))
    return out


def find_extension(home: str) -> tuple[str, str] | None:
    """(the newest installed extension's folder, its editor's data folder), or None."""
    found = []
    for rank, (folder, data) in enumerate(editors(home)):
        for version, path in _candidates(folder):
            found.append((version, -rank, path, data))
    if not found:
        return None
    _, _, path, data = max(found)
    return path, data


def mcp_sdk(data: str) -> str | None:
    """Where the extension's "Install the MCP SDK" command put the SDK, if it did."""
    libs = os.path.join(data, "User", "globalStorage", f"{PUBLISHER}.{NAME}", "mcp-libs")
    return libs if os.path.isdir(libs) else None


HOOK_EVENTS = {"run": "PermissionRequest", "record": "PostToolUse"}


def settings_hook_installed(action: str) -> bool:
    """The settings' own entry (`teaminbox hook install [--record]`) runs already: the
    plugin's stands aside (Claude Code runs hooks in the project's folder)."""
    try:  # the installed version's module, found on the path just set (an old one lacks it)
        check = getattr(importlib.import_module("teaminbox.hook"), "in_settings", None)
        if check is None:
            return False
        if action == "run":
            return bool(check(os.getcwd()))
        return bool(check(os.getcwd(), None, HOOK_EVENTS[action]))
    except Exception:
        return False


def _find_spec(name: str) -> object:
    import importlib.util  # noqa: PLC0415 - the MCP server's alone

    return importlib.util.find_spec(name)


def main(argv: list[str]) -> int:
    mode, args = (argv[0], argv[1:]) if argv else ("", [])
    if mode not in ("hook", "mcp", "where"):
        print("usage: launch.py hook|mcp|where [ARGS...]", file=sys.stderr)
        return 2
    send = "true" in (os.environ.get("TEAMINBOX_MCP_SEND"), os.environ.get(OPTION))
    if mode == "mcp" and not send:
        args = ["--read-only", *args]
    home = os.environ.get("HOME") or os.path.expanduser("~")
    ext = find_extension(home)
    if ext is not None:
        libs = os.path.join(ext[0], "bundled", "libs")
        sdk = mcp_sdk(ext[1])
        if mode == "where":
            print(
                f"extension {ext[0]} with {sys.executable}" + (f" (MCP SDK: {sdk})" if sdk else "")
            )
            return 0
        paths = [libs, *([sdk] if sdk and mode == "mcp" else [])]
        sys.path[:0] = paths
        # a process the sidecar starts finds the same libraries
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [*paths, os.environ.get("PYTHONPATH", "")]
        ).rstrip(os.pathsep)
        if mode == "mcp" and _find_spec("mcp") is None:
            print(
                f"Team Inbox's MCP server needs the MCP Python SDK, which {sys.executable} does"
                f" not have. {SDK_HELP}",
                file=sys.stderr,
            )
            return 1
        module = "teaminbox.hook" if mode == "hook" else "teaminbox"
        if mode == "hook":  # a hook's words on stderr reach no one; an old version's usage error
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            if args[:1] and args[0] in HOOK_EVENTS and settings_hook_installed(args[0]):
                return 0
        sys.argv = [module, *(args if mode == "hook" else ["mcp", *args])]
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as done:
            if mode == "hook" or done.code is None:
                return 0
            return done.code if isinstance(done.code, int) else 1
        except Exception:
            if mode != "hook":
                raise
        return 0
    import shutil  # noqa: PLC0415 - a hook found in the extension loads only what it needs

    exe = shutil.which("teaminbox")
    if mode == "where":
        if exe:
            print(exe)
            return 0
        print("no Team Inbox found", file=sys.stderr)
        return 1
    if mode == "hook":
        if exe:
            import subprocess  # noqa: PLC0415

            subprocess.run([exe, "hook", *args], stderr=subprocess.DEVNULL, check=False)
        return 0
    if not exe:
        print(f"Team Inbox's MCP server: no Team Inbox found. {MCP_HELP}", file=sys.stderr)
        return 1
    os.execv(exe, [exe, "mcp", *args])
    return 1  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
