"""The plugin as a person installs it, for the real Claude Code CLI: `claude plugin`
commands on a scratch HOME, a Team Inbox extension installed where VS Code puts it, and a
PATH with or without a Team Inbox on it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .errors import HarnessError
from .home import claude_env
from .install import install

REPO = Path(__file__).resolve().parents[3]
PLUGIN_ID = "team-inbox@teaminbox"
MARKETPLACE = "teaminbox"

# the person's own settings before the plugin: they must be the same after it is gone
OWN_SETTINGS: dict[str, Any] = {
    "permissions": {"allow": ["Bash(ls)"]},
    "env": {"PERSON_OWN": "1"},
    "hooks": {
        "PermissionRequest": [
            {"matcher": "Read", "hooks": [{"type": "command", "command": "true"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "true"}]}],
    },
}


def claude(version: str, home: Path, *args: str, stdin: str = "", timeout: float = 120) -> Any:
    """`claude ARGS` on the scratch HOME, offline, no terminal; the completed process."""
    env = claude_env(home, 9)  # no model is asked: the port is never used
    res = subprocess.run(
        [str(install(version)), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        input=stdin,
    )
    return res


def claude_ok(version: str, home: Path, *args: str) -> str:
    res = claude(version, home, *args)
    if res.returncode != 0:
        raise HarnessError(
            f"claude {' '.join(args)} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}"
        )
    return str(res.stdout)


def install_plugin(version: str, home: Path) -> list[Any]:
    """The README's two commands, then `claude plugin list --json`."""
    claude_ok(version, home, "plugin", "marketplace", "add", str(REPO))
    claude_ok(version, home, "plugin", "install", PLUGIN_ID)
    listed = json.loads(claude_ok(version, home, "plugin", "list", "--json"))
    assert isinstance(listed, list)
    return listed


def remove_plugin(version: str, home: Path) -> None:
    claude_ok(version, home, "plugin", "uninstall", PLUGIN_ID)
    claude_ok(version, home, "plugin", "marketplace", "remove", MARKETPLACE)


def write_own_settings(home: Path) -> None:
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(OWN_SETTINGS, indent=2))


def fake_extension(home: Path) -> Path:
    """Team Inbox as VS Code installs it (`~/.vscode/extensions/<id>-<version>-<platform>`):
    its package.json, and the sidecar in `bundled/libs`. A stand-in only for the .vsix's
    bundled libraries: `bundled/libs/teaminbox` links to this checkout's sidecar, whose
    dependencies come from the test's own Python (`python_bin`)."""
    pkg = json.loads((REPO / "package.json").read_text())
    ext = home / ".vscode" / "extensions" / f"teaminbox.team-inbox-{pkg['version']}-linux-x64"
    (ext / "bundled" / "libs").mkdir(parents=True)
    (ext / "package.json").write_text(json.dumps(pkg))
    (ext / "bundled" / "libs" / "teaminbox").symlink_to(REPO / "sidecar" / "teaminbox")
    return ext


def python_bin(base: Path, log: Path | None = None) -> Path:
    """A folder whose `python3` is the test's Python (it has the sidecar's libraries); with
    `log`, each start appends its arguments and TEAMINBOX_MCP_SEND there first."""
    folder = base / "bin"
    folder.mkdir(exist_ok=True)
    py = folder / "python3"
    note = f'echo "$* send=${{TEAMINBOX_MCP_SEND-unset}}" >> "{log}"\n' if log else ""
    py.write_text(f'#!/bin/sh\n{note}exec {sys.executable} "$@"\n')
    py.chmod(0o755)
    return folder


def path_without_teaminbox(first: Path | None = None) -> str:
    """PATH with no folder that holds a `teaminbox` (the venv's), `first` in front."""
    keep = [
        p
        for p in os.environ.get("PATH", "").split(os.pathsep)
        if p and not os.access(os.path.join(p, "teaminbox"), os.X_OK)
    ]
    return os.pathsep.join(([str(first)] if first else []) + keep)


def teaminbox_in_settings(home: Path) -> list[str]:
    """Every mention of Team Inbox or the plugin left in the user settings and plugin files."""
    hits = []
    settings = home / ".claude" / "settings.json"
    text = settings.read_text() if settings.is_file() else ""
    for word in ("teaminbox", "team-inbox"):
        if word in text:
            hits.append(f"settings.json mentions {word}")
    plugins = home / ".claude" / "plugins"
    for name in ("installed_plugins.json", "known_marketplaces.json"):
        p = plugins / name
        if p.is_file() and "teaminbox" in p.read_text():
            hits.append(f"{name} mentions teaminbox")
    return hits
