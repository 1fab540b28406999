"""The Claude Code plugin as shipped: the real Claude Code 2.1.332's `claude plugin validate
--strict` passes on the plugin and on the repository's marketplace, and the plugin's version
is the extension's (package.json), in its manifest and in the marketplace entry."""

from __future__ import annotations

import json
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
        'PermissionRequest * command "sh \\"${CLAUDE_PLUGIN_ROOT}/bin/teaminbox-plugin\\" hook run'
        in res.stdout
    )
    assert "PostToolUse SendMessage command" in res.stdout
    assert "mcpServers: teaminbox stdio sh" in res.stdout


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


def test_the_hooks_and_the_server_run_only_the_launcher() -> None:
    """Through `sh` (a copy that lost its executable bit still runs); no setup step."""
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == ["PermissionRequest", "PostToolUse"]
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    assert all(
        c.startswith('sh "${CLAUDE_PLUGIN_ROOT}/bin/teaminbox-plugin" hook ') for c in commands
    )
    mcp = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]
    assert list(mcp) == ["teaminbox"]
    assert mcp["teaminbox"]["command"] == "sh"
    assert mcp["teaminbox"]["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/teaminbox-plugin", "mcp"]
    assert [g["matcher"] for g in hooks["PostToolUse"]] == ["SendMessage"]
