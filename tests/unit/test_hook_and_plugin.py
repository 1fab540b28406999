"""The settings' hook and the Claude Code plugin's never both ask about one prompt:
`teaminbox hook install` refuses while the plugin is enabled (the user's settings, or the
project's, the most specific one deciding), says the plugin is the way now, and
`hook.in_settings` tells the plugin's hook that the settings hold ours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from teaminbox import claude_plugin, hook, hook_settings

TEAMINBOX = Path(sys.executable).parent / "teaminbox"


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
    env["HOME"] = str(home)
    return subprocess.run(
        [str(TEAMINBOX), "hook", *args], capture_output=True, text=True, env=env, timeout=60
    )


def settings(home: Path) -> Path:
    return home / ".claude" / "settings.json"


ENABLED = {"enabledPlugins": {claude_plugin.PLUGIN_ID: True}, "model": "opus"}


def write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def test_install_refuses_while_the_plugin_is_enabled(tmp_path: Path) -> None:
    write(settings(tmp_path), ENABLED)
    before = settings(tmp_path).read_bytes()
    for args in (["install", "--yes"], ["install", "--dry-run", "--json"]):
        res = cli(tmp_path, *args)
        assert res.returncode == 1, res
        assert "plugin for Claude Code is enabled" in res.stderr
        assert str(settings(tmp_path)) in res.stderr
    assert settings(tmp_path).read_bytes() == before
    status = json.loads(cli(tmp_path, "status", "--json").stdout)
    assert status["plugin"] == str(settings(tmp_path)) and status["installed"] == []


def test_the_most_specific_settings_decide(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    write(settings(tmp_path), ENABLED)
    # the project's local settings turn it off for that project: its own entry may go in
    write(
        project / ".claude" / "settings.local.json",
        {"enabledPlugins": {claude_plugin.PLUGIN_ID: False}},
    )
    res = cli(tmp_path, "install", "--yes", "--project", str(project))
    assert res.returncode == 0, res.stderr
    assert "the Claude Code plugin is the way now" in res.stderr
    # the project enables it while the user has it off: refused there
    other = tmp_path / "other"
    write(settings(tmp_path), {"enabledPlugins": {claude_plugin.PLUGIN_ID: False}})
    write(other / ".claude" / "settings.json", ENABLED)
    assert cli(tmp_path, "install", "--yes", "--project", str(other)).returncode == 1
    assert cli(tmp_path, "install", "--yes").returncode == 0


def test_a_settings_file_that_does_not_parse_enables_nothing(tmp_path: Path) -> None:
    settings(tmp_path).parent.mkdir(parents=True)
    settings(tmp_path).write_text("{not json")
    assert claude_plugin.enabled_in(None, {"HOME": str(tmp_path)}) is None


def test_in_settings_sees_our_entry_in_the_users_or_the_projects_settings(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    project = tmp_path / "proj"
    assert hook.in_settings(str(project), env) is False
    local = Path(hook_settings.settings_path(str(project), env))
    write(local, hook_settings.with_entry(None, str(local), hook_settings.entry(30)))
    assert hook.in_settings(str(project), env) is True
    assert hook.in_settings(str(tmp_path / "elsewhere"), env) is False
    write(
        settings(tmp_path),
        hook_settings.with_entry(None, str(settings(tmp_path)), hook_settings.entry(30)),
    )
    assert hook.in_settings(str(tmp_path / "elsewhere"), env) is True
    # the record hook is asked for by its event, and is not there
    assert hook.in_settings(str(tmp_path / "elsewhere"), env, "PostToolUse") is False
    record = hook_settings.with_entry(
        None, str(local), hook_settings.record_entry(), hook_settings.RECORD
    )
    write(local, record)
    assert hook.in_settings(str(project), env, "PostToolUse") is True
    # one that does not parse: not ours, and no error
    settings(tmp_path).write_text("{")
    assert hook.in_settings(str(tmp_path / "elsewhere"), env) is False
