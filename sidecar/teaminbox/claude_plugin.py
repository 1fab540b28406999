"""Team Inbox's Claude Code plugin as Claude's settings name it (`enabledPlugins`).

The settings' hook (`teaminbox hook install`) and the plugin's hook must never both ask
about one prompt: the installer refuses while the plugin is enabled, and the plugin's hook
stands aside while the settings hold the entry (claude-plugin/bin/launch.py).
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping

PLUGIN_ID = "team-inbox@teaminbox"
MARKETPLACE = "teaminbox"
MAX_SETTINGS = 4 * 1024 * 1024
INSTALL_HINT = (
    "claude plugin marketplace add <Team Inbox's repository or folder>,"
    f" then claude plugin install {PLUGIN_ID} (README: 'Claude Code users: the plugin')"
)


def settings_files(project: str | None, env: Mapping[str, str] = os.environ) -> list[str]:
    """The settings that may enable the plugin, the one that decides first: a project's
    local and shared settings, then the user's."""
    home = env.get("HOME") or os.path.expanduser("~")
    user = os.path.join(
        env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"), "settings.json"
    )
    if not project:
        return [user]
    folder = os.path.join(os.path.abspath(project), ".claude")
    return [
        os.path.join(folder, "settings.local.json"),
        os.path.join(folder, "settings.json"),
        user,
    ]


def hook_settings_files(project: str | None, env: Mapping[str, str] = os.environ) -> list[str]:
    """Where `teaminbox hook install` may have put its entries: the user's settings and
    the project's local ones (hook_settings.settings_path)."""
    user = settings_files(None, env)
    if not project:
        return user
    return [*user, os.path.join(os.path.abspath(project), ".claude", "settings.local.json")]


def _enabled(path: str) -> bool | None:
    """What `path` says of the plugin: True, False, or None (says nothing, or unreadable)."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SETTINGS:
            return None
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None
    plugins = doc.get("enabledPlugins") if isinstance(doc, dict) else None
    value = plugins.get(PLUGIN_ID) if isinstance(plugins, dict) else None
    return value if isinstance(value, bool) else None


def enabled_in(project: str | None, env: Mapping[str, str] = os.environ) -> str | None:
    """The settings file that enables the plugin for `project` (or for the user), else None."""
    for path in settings_files(project, env):
        said = _enabled(path)
        if said is not None:
            return path if said else None
    return None
