"""The Claude Code plugin as shipped: the real Claude Code 2.1.332's `claude plugin validate
--strict` passes on the plugin and on the repository's marketplace, and the plugin's version
is the extension's (package.json), in its manifest and in the marketplace entry."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from .plugin_setup import REPO, claude

VERSION = "2.1.332"
PLUGIN = REPO / "claude-plugin"


def test_claude_plugin_validate_strict_passes_on_the_plugin(tmp_path: Path) -> None:
    res = claude(VERSION, tmp_path, "plugin", "validate", "--strict", str(PLUGIN))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Validation passed" in res.stdout
    # what it says the plugin provides: both hooks and the MCP server, through the launcher
    assert (
        'PermissionRequest * command "\\"${CLAUDE_PLUGIN_ROOT}/bin/teaminbox-plugin\\" hook run'
        in res.stdout
    )
    assert "PostToolUse SendMessage command" in res.stdout
    assert "mcpServers: teaminbox stdio ${CLAUDE_PLUGIN_ROOT}/bin/teaminbox-plugin" in res.stdout


def test_claude_plugin_validate_strict_passes_on_the_marketplace(
    tmp_path: Path,
) -> None:
    res = claude(VERSION, tmp_path, "plugin", "validate", "--strict", str(REPO))
    assert res.returncode == 0, res.stdout + res.stderr
    assert "marketplace.json" in res.stdout and "Validation passed" in res.stdout


def test_the_plugins_version_is_the_extensions() -> None:
    version = json.loads((REPO / "package.json").read_text())["version"]
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    [entry] = [p for p in market["plugins"] if p["name"] == manifest["name"]]
    assert (manifest["version"], entry["version"]) == (version, version)
    assert entry["source"] == "./claude-plugin"


def test_the_launcher_is_executable_and_nothing_runs_on_install() -> None:
    """The hooks and the server run the launcher only; the manifest declares no setup step."""
    mode = os.stat(PLUGIN / "bin" / "teaminbox-plugin").st_mode
    assert mode & stat.S_IXUSR
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == ["PermissionRequest", "PostToolUse"]
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    assert all(c.startswith('"${CLAUDE_PLUGIN_ROOT}/bin/teaminbox-plugin" hook ') for c in commands)
    assert [g["matcher"] for g in hooks["PostToolUse"]] == ["SendMessage"]
