"""Team Inbox's Claude Code plugin (claude-plugin/), against the REAL Claude Code 2.1.332.

One session, set up as a person would: their own settings (a permission rule, an env key,
two hooks of their own), Team Inbox installed in VS Code (~/.vscode/extensions, see
plugin_setup.fake_extension), no `teaminbox` on PATH, then the README's two commands
(`claude plugin marketplace add <this repository>`, `claude plugin install
team-inbox@teaminbox`). The real `teaminbox serve` watches, as an editor's would. The lead
waits until the plugin's MCP server has scanned the team, then spawns helper, which runs
`touch x1` (the person allows it through the plugin's PermissionRequest hook) and
`touch x2` (denied with a reason), then sends the lead a message; the person asks the lead
about it and the scripted model calls the plugin's MCP `search_messages`. After the session
`claude plugin uninstall` and `marketplace remove` leave the settings as the person had them.

A second session has no Team Inbox anywhere: the plugin's hook prints nothing and Claude
Code asks in its own terminal, as without the plugin.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from teaminbox import spool

from .api_script import Rule, Script, call, say
from .errors import HarnessError
from .harness import Session
from .own_session import (
    VERSION,
    allowed,
    answer_prompts,
    denied,
    result_text,
    spawn_helper,
    tool_result,
    touch,
)
from .plugin_setup import (
    OWN_SETTINGS,
    PLUGIN_ID,
    REPO,
    claude,
    fake_extension,
    install_plugin,
    path_without_teaminbox,
    python_bin,
    remove_plugin,
    teaminbox_in_settings,
    write_own_settings,
)
from .scenario import has_results
from .sidecar_client import Sidecar

TOOL = "mcp__plugin_team-inbox_teaminbox__search_messages"
PROMPT = "PLUG-START: wait for the person."
PERSON_GO = "PLUG-PERSON-GO: spawn a teammate named helper."
HELPER_PROMPT = "PLUG-HELPER-TASK: make two files, then report."
DENY_REASON = "PLUG-DENY-REASON: not x2"
SECRET = "PLUG-SECRET-HELPER-7"
HELPER_TEXT = f"{SECRET}: both files asked for"
PERSON_ASKS = "PLUG-PERSON-ASKS: what did helper tell you?"


def make_script(cwd: Path) -> Script:
    return Script(
        [
            Rule("waiting", "lead", "PLUG-START", say("PLUG-LEAD-WAITING")),
            spawn_helper("PLUG-PERSON-GO", HELPER_PROMPT),
            Rule("lead-ack", "lead", SECRET, say("PLUG-LEAD-ACK")),
            Rule("search", "lead", "PLUG-PERSON-ASKS", call(TOOL, {"query": f'"{SECRET}"'})),
            Rule("search-seen", "lead", has_results, say("PLUG-LEAD-FOUND"), after=("search",)),
            Rule("h-1", "helper", "PLUG-HELPER-TASK", touch(cwd, 1)),
            Rule("h-2", "helper", has_results, touch(cwd, 2), after=("h-1",)),
            Rule(
                "h-send",
                "helper",
                has_results,
                call(
                    "SendMessage",
                    {"to": "team-lead", "message": HELPER_TEXT, "summary": "helper reports"},
                ),
                after=("h-2",),
            ),
            Rule("h-done", "helper", has_results, say("PLUG-HELPER-IDLE"), after=("h-send",)),
        ]
    )


@dataclass
class PluginRun:
    session: Session
    listed: list[Any] = field(default_factory=list)
    settings_with: Any = None
    data_on_install: bool | None = None  # Team Inbox's data folder, right after the install
    team: str = ""
    asked: dict[str, Any] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)
    search: Any = None
    error: str | None = None
    settings_after: Any = None
    left: list[str] = field(default_factory=list)
    listed_after: list[Any] = field(default_factory=list)
    after: Any = None  # a session after the uninstall

    def require(self) -> None:
        if self.error:
            raise HarnessError(f"Claude Code {VERSION} with the plugin: {self.error}")


def history_knows(home: Path, team: str) -> bool:
    """The plugin's MCP server (its default history, in the scratch HOME) saw the team."""
    import contextlib
    import sqlite3

    path = home / ".local" / "share" / "teaminbox" / "history.db"
    if not path.is_file():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            row = db.execute("SELECT id FROM teams WHERE id = ?", (f"claude:{team}",)).fetchone()
            return row is not None
    except sqlite3.Error:
        return False


def _play(s: Session, sidecar: Sidecar, out: PluginRun) -> None:
    out.team = s.team(timeout=40)
    s.wait_rule("waiting", 40)
    s.wait(lambda: history_knows(s.home, out.team), 60, "the plugin's MCP server to scan")
    s.idle()
    assert s.pty is not None
    s.pty.type(PERSON_GO)

    answers = ((1, {"behavior": "allow"}), (2, {"behavior": "deny", "message": DENY_REASON}))
    answer_prompts(s, sidecar, answers, out.asked, out.answers)
    s.wait_rule("h-send", 60)
    s.wait_rule("lead-ack", 60)
    s.idle()
    s.send_cli(out.team, "team-lead", PERSON_ASKS, "person asks the lead")
    s.wait_rule("search", 60)
    s.wait_rule("search-seen", 60)
    out.search = tool_result(s, "search")


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PluginRun]:
    base = tmp_path_factory.mktemp(f"claude-code-plugin-{VERSION}")
    home = base / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", path_without_teaminbox(python_bin(base)))
        write_own_settings(home)
        fake_extension(home)
        s = Session(VERSION, base, make_script(base / "work"), PROMPT, hard_limit=300.0)
        s.extra_args = [f"--allowedTools={TOOL}"]
        out = PluginRun(s)
        out.listed = install_plugin(VERSION, home)
        out.settings_with = json.loads((home / ".claude" / "settings.json").read_text())
        out.data_on_install = (home / ".local" / "share" / "teaminbox").exists()
        (home / ".claude" / "teams").mkdir(parents=True, exist_ok=True)
        sidecar = Sidecar(home).start()
        try:
            with s:
                try:
                    _play(s, sidecar, out)
                except HarnessError as exc:
                    out.error = str(exc)
                except Exception as exc:
                    out.error = f"{exc!r}\n{s.explain()}"
                finally:
                    s.exit()
            remove_plugin(VERSION, home)
            out.settings_after = json.loads((home / ".claude" / "settings.json").read_text())
            out.left = teaminbox_in_settings(home)
            out.listed_after = json.loads(claude(VERSION, home, "plugin", "list", "--json").stdout)
            out.after = after_uninstall(base, sidecar)
        finally:
            sidecar.stop()
        yield out


@dataclass
class After:
    session: Session
    asked: Any = None  # what the sidecar had while Claude Code's own prompt was up
    session_file: Any = None  # the lead's session file, waiting on that prompt
    tools: list[str] = field(default_factory=list)


def terminal_prompt(home: Path) -> Any:
    """The session file that says Claude Code's own permission prompt is up, or None."""
    for p in (home / ".claude" / "sessions").glob("*.json"):
        try:
            doc = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(doc, dict) and doc.get("waitingFor") == "permission prompt":
            return doc
    return None


def close_prompt(s: Session) -> None:
    """No to Claude Code's own prompt (Escape), once the session file says it is gone: the
    `/exit` typed next must not land on the prompt, whose Enter would say yes."""
    assert s.pty is not None
    s.pty.write(b"\x1b")
    s.wait(lambda: terminal_prompt(s.home) is None, 60, "the prompt to close")


def after_uninstall(base: Path, sidecar: Sidecar) -> After:
    """A new session in the same HOME, the sidecar still watching: a teammate's Bash call is
    asked about in Claude Code's own terminal, and the sidecar never hears of it."""
    cwd = base / "work"
    script = Script(
        [
            Rule(
                "spawn",
                "lead",
                "PLUG-AFTER",
                call("Agent", {"description": "Spawn", "name": "helper", "prompt": "PLUG-H3"}),
            ),
            Rule("h-3", "helper", "PLUG-H3", touch(cwd, 3)),
        ]
    )
    after_base = base / "after"
    after_base.mkdir()
    s = Session(VERSION, after_base, script, "PLUG-AFTER: spawn helper")
    # the same HOME and project as before the uninstall
    s.home, s.cwd, s.claude_dir = base / "home", cwd, base / "home" / ".claude"
    s.recorder = type(s.recorder)(s.claude_dir)
    out = After(s)
    with s:
        s.wait_rule("h-3", 90)
        out.session_file = s.wait(
            lambda: terminal_prompt(s.home), 60, "Claude Code's own permission prompt"
        )
        out.asked = sidecar.call("teamInbox/permissionRequests", {})["requests"]
        out.tools = [r for r in s.api.snapshot() if r.who == "lead"][0].tools
        close_prompt(s)
        s.exit()
    return out


@dataclass
class Bare:
    session: Session
    session_file: Any = None
    where: Any = None  # the launcher's answer in that HOME and PATH
    mcp: Any = None  # the launcher started as the MCP server


def _bare(base: Path) -> Bare:
    """The plugin installed, and no Team Inbox: no extension, none on PATH, no sidecar."""
    import subprocess

    from .home import claude_env

    home = base / "home"
    cwd = base / "work"
    script = Script(
        [
            Rule(
                "spawn",
                "lead",
                "PLUG-BARE",
                call("Agent", {"description": "Spawn", "name": "helper", "prompt": "PLUG-H4"}),
            ),
            Rule("h-4", "helper", "PLUG-H4", touch(cwd, 4)),
        ]
    )
    install_plugin(VERSION, home)
    s = Session(VERSION, base, script, "PLUG-BARE: spawn helper")
    out = Bare(s)
    launcher = REPO / "claude-plugin" / "bin" / "teaminbox-plugin"
    env = claude_env(home, 9)
    out.where = subprocess.run(
        ["sh", str(launcher), "where"], capture_output=True, text=True, env=env, timeout=60
    )
    out.mcp = subprocess.run(
        ["sh", str(launcher), "mcp"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    with s:
        s.wait_rule("h-4", 90)
        out.session_file = s.wait(
            lambda: terminal_prompt(home), 60, "Claude Code's own permission prompt"
        )
        close_prompt(s)
        s.exit()
    return out


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bare]:
    base = tmp_path_factory.mktemp(f"claude-code-plugin-bare-{VERSION}")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", path_without_teaminbox())
        yield _bare(base)


# --- with Team Inbox installed in VS Code ---------------------------------------------


def test_the_plugin_installs_from_the_repository_folder(plugin_run: PluginRun) -> None:
    [mine] = [p for p in plugin_run.listed if p["id"] == PLUGIN_ID]
    assert mine["enabled"] is True and mine["scope"] == "user", mine
    assert mine["readFromFolder"] == str(REPO / "claude-plugin"), mine
    pkg = json.loads((REPO / "package.json").read_text())
    assert mine["version"] == pkg["version"], mine
    assert "teaminbox" in mine["mcpServers"], mine
    assert plugin_run.settings_with["enabledPlugins"][PLUGIN_ID] is True
    # installing ran nothing of ours: the MCP server makes its history when it starts
    assert plugin_run.data_on_install is False


def test_a_teammates_prompt_reaches_team_inbox_through_the_plugins_hook(
    plugin_run: PluginRun,
) -> None:
    plugin_run.require()
    cwd = plugin_run.session.cwd
    for n in (1, 2):
        p = plugin_run.asked[f"x{n}"]
        assert (p["member"], p["toolName"]) == ("helper", "Bash"), p
        assert p["toolInput"]["command"] == f"touch {cwd}/x{n}", p
        assert p["team"] == f"claude:{plugin_run.team}", p
    # the person's own settings hold no hook of ours: the plugin's is the one that asked
    own = plugin_run.settings_with["hooks"]["PermissionRequest"]
    assert own == OWN_SETTINGS["hooks"]["PermissionRequest"], own


def test_allow_through_the_plugin_runs_the_call(plugin_run: PluginRun) -> None:
    plugin_run.require()
    allowed(plugin_run.session, plugin_run.answers, 1)


def test_deny_through_the_plugin_refuses_with_the_reason(plugin_run: PluginRun) -> None:
    plugin_run.require()
    denied(plugin_run.session, plugin_run.answers, 2, DENY_REASON)


def test_the_model_searches_through_the_plugins_mcp_server(plugin_run: PluginRun) -> None:
    """The plugin's server, read-only (the allow_send option is off): search finds helper's
    message, and no send tool is offered."""
    plugin_run.require()
    block = plugin_run.search
    assert not block.get("is_error"), block
    data = json.loads(result_text(block))
    hits = [m for m in data["messages"] if m.get("text") == HELPER_TEXT]
    assert len(hits) == 1, data
    assert (hits[0]["from"], hits[0]["team"]) == ("helper", f"claude:{plugin_run.team}")
    seen = [r for r in plugin_run.session.api.snapshot() if r.rule == "search-seen"][0]
    ours = [t for t in seen.tools if t.startswith("mcp__plugin_team-inbox_teaminbox__")]
    assert TOOL in ours and not [t for t in ours if "send" in t], ours


def test_a_teammates_send_reaches_the_spool_through_the_plugin(plugin_run: PluginRun) -> None:
    """The plugin's PostToolUse `SendMessage` hook appended helper's send to the spool in the
    scratch HOME (`spool.folder`), with the entry's own msg_id, helper's name."""
    plugin_run.require()
    got = spool.read(spool.folder({"HOME": str(plugin_run.session.home)}), {})
    assert got.skipped == 0
    sends = [d["p"] for _, _, d in got.records if "p" in d]
    hits = [p for p in sends if p["tool_input"].get("message") == HELPER_TEXT]
    assert len(hits) == 1, sends
    assert (hits[0]["tool_name"], hits[0]["agent_type"]) == ("SendMessage", "helper")
    assert hits[0]["tool_response"]["msg_id"], hits[0]


def test_uninstall_leaves_the_persons_settings_as_they_were(plugin_run: PluginRun) -> None:
    """What is left besides the person's own keys is Claude Code's: the empty
    `enabledPlugins` and `extraKnownMarketplaces` it leaves, and what it migrates from the
    scratch `.claude.json` (home.py: `autoUpdates: false`, `bypassPermissionsModeAccepted`)."""
    after = json.loads(json.dumps(plugin_run.settings_after))
    assert after.pop("enabledPlugins", {}) == {}, plugin_run.settings_after
    assert after.pop("extraKnownMarketplaces", {}) == {}, plugin_run.settings_after
    after.pop("skipDangerousModePermissionPrompt", None)
    if after.get("env", {}).get("DISABLE_AUTOUPDATER") == "1":
        del after["env"]["DISABLE_AUTOUPDATER"]
    assert after == OWN_SETTINGS, after
    assert plugin_run.left == [], plugin_run.left
    assert not [p for p in plugin_run.listed_after if p["id"] == PLUGIN_ID]


def test_after_uninstall_none_of_it_fires(plugin_run: PluginRun) -> None:
    """The same HOME, the sidecar still watching: Claude Code asks in its own terminal and
    Team Inbox never hears of the request; the model is offered no Team Inbox tool."""
    a = plugin_run.after
    assert a.session_file["waitingFor"] == "permission prompt", a.session_file
    assert a.asked == [], a.asked
    assert not (plugin_run.session.cwd / "x3").exists()
    assert not [t for t in a.tools if "teaminbox" in t], a.tools


# --- with no Team Inbox anywhere --------------------------------------------------------


def test_without_team_inbox_claude_code_asks_as_it_would(bare: Bare) -> None:
    """The plugin's hook found nothing: it printed nothing and Claude Code's own prompt came
    up, as without the plugin; nothing was run."""
    assert bare.session_file["waitingFor"] == "permission prompt", bare.session_file
    assert not (bare.session.cwd / "x4").exists()
    assert bare.where.returncode == 1, bare.where
    screen = bare.session.pty.text() if bare.session.pty else ""
    assert "hook error" not in screen and "non-blocking status" not in screen, screen[-3000:]


def test_without_team_inbox_the_mcp_server_says_what_is_missing(bare: Bare) -> None:
    assert bare.mcp.returncode == 1, bare.mcp
    assert bare.mcp.stdout == ""
    assert "no Team Inbox found" in bare.mcp.stderr, bare.mcp.stderr
    assert "pipx install" in bare.mcp.stderr and "VS Code" in bare.mcp.stderr
