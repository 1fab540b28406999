"""The plugin's `allow_send` option through the real Claude Code 2.1.332: `claude mcp list`
starts the plugin's MCP server to check it (with Team Inbox installed in VS Code, see
plugin_setup.fake_extension), and the launcher is handed what the option says:
read-only until the person sets it with `claude plugin configure`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .plugin_setup import (
    PLUGIN_ID,
    claude,
    fake_extension,
    install_plugin,
    path_without_teaminbox,
    python_bin,
)

VERSION = "2.1.332"
SERVER = "plugin:team-inbox:teaminbox"


def mcp_line(home: Path) -> str:
    res = claude(VERSION, home, "mcp", "list", timeout=180)
    lines = [line for line in res.stdout.splitlines() if line.startswith(SERVER)]
    assert lines, res.stdout + res.stderr
    return lines[0]


def starts(log: Path) -> list[str]:
    """The launcher's MCP starts the python3 stand-in saw (the hooks do not run here)."""
    if not log.is_file():
        return []
    return [line for line in log.read_text().splitlines() if "launch.py mcp" in line]


def test_sending_is_off_until_the_person_allows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    log = tmp_path / "python-starts.txt"
    monkeypatch.setenv("PATH", path_without_teaminbox(python_bin(tmp_path, log)))
    fake_extension(home)
    install_plugin(VERSION, home)
    line = mcp_line(home)
    assert "Connected" in line, line
    [first] = starts(log)
    assert first.endswith("send=false"), first  # the option's default, substituted
    res = claude(
        VERSION,
        home,
        "plugin",
        "configure",
        PLUGIN_ID,
        "--values-stdin",
        stdin=json.dumps({"allow_send": "true"}),
    )
    assert res.returncode == 0, res.stdout + res.stderr
    line = mcp_line(home)
    assert "Connected" in line, line
    assert starts(log)[-1].endswith("send=true"), starts(log)
    assert len(starts(log)) == 2
