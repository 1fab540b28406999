"""A teammate's send is recorded once, whichever of the settings' record hook and the Claude
Code plugin came first: `teaminbox hook install --record` refuses while the plugin is
enabled, and the plugin's record hook stands aside while the settings hold the entry.

Each hook runs as Claude Code runs it (`/bin/sh -c COMMAND` in the project folder, the
payload on stdin): the settings' command as install wrote it, the plugin's as its
hooks.json says, through its real launcher, this checkout's sidecar standing in for the
installed extension's `bundled/libs`. And the check the plugin's hook makes on every send
loads neither the settings code nor orjson where no settings file names the hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from teaminbox import claude_plugin, hook, hook_settings, spool

REPO = Path(__file__).resolve().parents[2]
TEAMINBOX = Path(sys.executable).parent / "teaminbox"
MSG_ID = "00000000-0000-4000-8000-000000000031"


def payload() -> bytes:
    return json.dumps(
        {
            "session_id": "5e1d0000-0000-4000-8000-000000000001",
            "agent_type": "helper",
            "hook_event_name": "PostToolUse",
            "tool_name": "SendMessage",
            "tool_input": {"to": "team-lead", "message": "RECORD-ONCE", "summary": "s"},
            "tool_response": {"success": True, "msg_id": MSG_ID},
            "tool_use_id": "toolu_once",
        }
    ).encode()


class World:
    def __init__(self, tmp: Path) -> None:
        self.home = tmp / "home"
        self.project = tmp / "proj"
        self.project.mkdir(parents=True)
        self.spool = tmp / "spool"
        pkg = json.loads((REPO / "package.json").read_text())
        ext = self.home / ".vscode" / "extensions" / f"teaminbox.team-inbox-{pkg['version']}"
        (ext / "bundled" / "libs").mkdir(parents=True)
        (ext / "package.json").write_text(json.dumps(pkg))
        (ext / "bundled" / "libs" / "teaminbox").symlink_to(REPO / "sidecar" / "teaminbox")
        self.env = {k: v for k, v in os.environ.items() if k != "CLAUDE_CONFIG_DIR"}
        self.env.update(
            HOME=str(self.home),
            TEAMINBOX_SPOOL_DIR=str(self.spool),
            TEAMINBOX_PYTHON=sys.executable,
            CLAUDE_PLUGIN_ROOT=str(REPO / "claude-plugin"),
        )
        self.env.pop("PYTHONPATH", None)

    @property
    def settings(self) -> Path:
        return self.home / ".claude" / "settings.json"

    def enable_plugin(self) -> None:
        doc = json.loads(self.settings.read_text()) if self.settings.exists() else {}
        doc["enabledPlugins"] = {claude_plugin.PLUGIN_ID: True}
        self.settings.parent.mkdir(parents=True, exist_ok=True)
        self.settings.write_text(json.dumps(doc, indent=2))

    def install_record(self) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(TEAMINBOX), "hook", "install", "--record", "--yes"],
            capture_output=True,
            text=True,
            env=self.env,
            timeout=60,
        )

    def settings_commands(self) -> list[str]:
        doc = json.loads(self.settings.read_text()) if self.settings.exists() else {}
        groups = doc.get("hooks", {}).get("PostToolUse", [])
        return [h["command"] for g in groups for h in g["hooks"]]

    def plugin_commands(self) -> list[str]:
        doc = json.loads((REPO / "claude-plugin" / "hooks" / "hooks.json").read_text())
        groups = doc["hooks"]["PostToolUse"]
        return [h["command"] for g in groups if g["matcher"] == "SendMessage" for h in g["hooks"]]

    def send(self) -> None:
        """One send: every record hook Claude Code would run for it, as it runs them."""
        for command in [*self.settings_commands(), *self.plugin_commands()]:
            res = subprocess.run(
                ["/bin/sh", "-c", command],
                input=payload(),
                capture_output=True,
                cwd=self.project,
                env=self.env,
                timeout=60,
            )
            assert res.returncode == 0, (command, res)

    def recorded(self) -> list[str]:
        got = spool.read(str(self.spool), {})
        assert got.skipped == 0
        return [d["p"]["tool_response"]["msg_id"] for _, _, d in got.records if "p" in d]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_settings_entry_first_then_the_plugin_records_once(world: World) -> None:
    res = world.install_record()
    assert res.returncode == 0, res.stderr
    assert len(world.settings_commands()) == 1
    world.enable_plugin()
    world.send()
    assert world.recorded() == [MSG_ID]


def test_plugin_first_then_install_refuses_and_it_records_once(world: World) -> None:
    world.enable_plugin()
    before = world.settings.read_bytes()
    res = world.install_record()
    assert res.returncode == 1 and "plugin for Claude Code is enabled" in res.stderr, res
    assert world.settings.read_bytes() == before and world.settings_commands() == []
    world.send()
    assert world.recorded() == [MSG_ID]


def test_an_entry_spelled_with_escapes_is_still_seen(world: World) -> None:
    """JSON may spell the module's name with `\\u` escapes: the bytes then do not name it,
    and the check reads the file as hook_settings does."""
    assert world.install_record().returncode == 0
    text = world.settings.read_text().replace("teaminbox.hook", "teaminbox\\u002ehook")
    world.settings.write_text(text)
    assert b"teaminbox.hook" not in world.settings.read_bytes()
    env = {"HOME": str(world.home)}
    assert hook.in_settings(str(world.project), env, hook_settings.RECORD) is True
    world.enable_plugin()
    world.send()
    assert world.recorded() == [MSG_ID]


def test_the_check_on_every_send_loads_no_settings_code_where_none_names_the_hook(
    world: World,
) -> None:
    world.enable_plugin()  # a settings file there, naming the plugin and not the hook
    code = (
        "import sys, os; from teaminbox import hook;"
        " said = hook.in_settings(os.getcwd(), None, 'PostToolUse');"
        " print(said, sorted(m for m in ('teaminbox.hook_settings', 'orjson', 'shlex')"
        " if m in sys.modules))"
    )
    env = {**world.env, "PYTHONPATH": str(REPO / "sidecar")}
    res = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=world.project,
        env=env,
        timeout=60,
    )
    assert res.stdout.strip() == "False []", res
