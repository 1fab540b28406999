"""The Claude Code plugin's launcher (claude-plugin/bin/teaminbox-plugin and launch.py):
which Team Inbox it finds, what it runs, and that a hook with nothing found stays silent.

The Team Inbox it runs here is a stand-in package (`teaminbox/__main__.py` and
`teaminbox/hook.py` that report their argv, path and stdin), so each case shows exactly
what the launcher handed over; the real sidecar through the real Claude Code is
tests/interop/claude_code/test_plugin_real.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = REPO / "claude-plugin" / "bin"
LAUNCHER = BIN / "teaminbox-plugin"

REPORT = """import json, os, sys
def report():
    print(json.dumps({"who": __name__ + ":" + __file__, "argv": sys.argv[1:],
                      "path": sys.path[:3], "env": os.environ.get("PYTHONPATH", ""),
                      "stdin": sys.stdin.read()}))
"""
MAIN = (
    REPORT
    + """report()
code = os.environ.get("STANDIN_EXIT")
if code is not None:
    sys.exit(int(code) if code else None)
"""
)
HOOK = (
    REPORT
    + """
def in_settings(project):
    return os.path.exists(os.path.join(project, "SETTINGS-HAVE-IT"))

if __name__ == "__main__":
    report()
"""
)


def launch_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("plugin_launch", BIN / "launch.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def extension(folder: Path, version: str, publisher: str = "teaminbox", suffix: str = "") -> Path:
    """An installed extension folder with the stand-in sidecar in bundled/libs."""
    ext = folder / f"teaminbox.team-inbox-{version}{suffix}"
    pkg = ext / "bundled" / "libs" / "teaminbox"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(MAIN)
    (pkg / "hook.py").write_text(HOOK)
    doc = {"publisher": publisher, "name": "team-inbox", "version": version}
    (ext / "package.json").write_text(json.dumps(doc))
    return ext


def py_bin(base: Path, with_teaminbox: bool = False) -> Path:
    """A PATH folder: this Python as python3, and maybe a `teaminbox` that reports argv."""
    folder = base / "pathbin"
    folder.mkdir(exist_ok=True)
    (folder / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    (folder / "python3").chmod(0o755)
    if with_teaminbox:
        (folder / "teaminbox").write_text('#!/bin/sh\necho "pipx-teaminbox $*"\n')
        (folder / "teaminbox").chmod(0o755)
    return folder


def run(home: Path, path: str, *args: str, stdin: str = "", **env: str) -> Any:
    full = {"HOME": str(home), "PATH": path, **env}
    return subprocess.run(
        ["/bin/sh", str(LAUNCHER), *args],  # as the plugin runs it
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        cwd=str(home),
        timeout=60,
    )


def sys_path(base: Path, with_teaminbox: bool = False) -> str:
    """The stand-in folder, then only the system folders (no venv, no other teaminbox)."""
    return f"{py_bin(base, with_teaminbox)}:/usr/bin:/bin"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


def test_the_newest_installed_version_wins_across_editors(home: Path) -> None:
    launch = launch_module()
    extension(home / ".vscode" / "extensions", "0.9.0")
    newest = extension(home / ".vscode-server" / "extensions", "0.10.0", suffix="-linux-x64")
    extension(home / ".local" / "share" / "code-server" / "extensions", "0.2.0")
    assert launch.find_extension(str(home))[0] == str(newest)


def test_another_publisher_an_obsolete_or_an_empty_folder_is_not_it(home: Path) -> None:
    launch = launch_module()
    exts = home / ".vscode" / "extensions"
    good = extension(exts, "0.1.0")
    extension(exts, "0.3.0", publisher="someone-else")
    gone = extension(exts, "0.2.0")
    (exts / ".obsolete").write_text(json.dumps({gone.name: True}))
    (exts / "teaminbox.team-inbox-0.4.0").mkdir()  # a half-removed one: no package.json
    assert launch.find_extension(str(home))[0] == str(good)
    assert launch.find_extension(str(home / "nobody")) is None


def test_where_names_the_extension_else_a_teaminbox_on_path_else_nothing(
    home: Path, tmp_path: Path
) -> None:
    res = run(home, sys_path(tmp_path), "where")
    assert res.returncode == 1 and res.stdout == ""
    res = run(home, sys_path(tmp_path, with_teaminbox=True), "where")
    assert res.returncode == 0 and res.stdout.strip() == str(tmp_path / "pathbin" / "teaminbox")
    ext = extension(home / ".cursor" / "extensions", "0.1.0")
    res = run(home, sys_path(tmp_path, with_teaminbox=True), "where")
    assert res.returncode == 0 and res.stdout.startswith(f"extension {ext} with "), res


def test_with_nothing_found_a_hook_prints_nothing_and_exits_0(home: Path, tmp_path: Path) -> None:
    for args in (["hook", "run", "--wait", "110"], ["hook", "record"]):
        res = run(home, sys_path(tmp_path), *args, stdin='{"hook_event_name": "X"}')
        assert (res.returncode, res.stdout, res.stderr) == (0, "", ""), res
    # no python3 at all (an empty PATH), and no teaminbox: the same
    res = run(home, str(tmp_path / "empty"), "hook", "run", stdin="{}")
    assert (res.returncode, res.stdout, res.stderr) == (0, "", ""), res


def test_with_nothing_found_the_mcp_server_says_what_is_missing(home: Path, tmp_path: Path) -> None:
    for path in (sys_path(tmp_path), str(tmp_path / "empty")):
        res = run(home, path, "mcp")
        assert res.returncode == 1 and res.stdout == "", res
        assert "no Team Inbox found" in res.stderr and "pipx install" in res.stderr, res


def test_the_hook_runs_the_extensions_sidecar_with_its_stdin(home: Path, tmp_path: Path) -> None:
    ext = extension(home / ".vscode" / "extensions", "0.1.0")
    res = run(home, sys_path(tmp_path), "hook", "run", "--wait", "5", stdin='{"a": 1}')
    assert res.returncode == 0, res
    got = json.loads(res.stdout)
    assert got["who"].startswith("__main__:") and got["who"].endswith("teaminbox/hook.py")
    assert got["argv"] == ["run", "--wait", "5"] and got["stdin"] == '{"a": 1}'
    assert got["path"][0] == str(ext / "bundled" / "libs")


def test_the_plugins_hook_stands_aside_while_the_settings_hold_ours(
    home: Path, tmp_path: Path
) -> None:
    extension(home / ".vscode" / "extensions", "0.1.0")
    (home / "SETTINGS-HAVE-IT").write_text("")  # the stand-in's in_settings says yes
    res = run(home, sys_path(tmp_path), "hook", "run", "--wait", "5", stdin="{}")
    assert (res.returncode, res.stdout) == (0, ""), res
    res = run(home, sys_path(tmp_path), "hook", "record", stdin="{}")  # not a prompt: runs
    assert json.loads(res.stdout)["argv"] == ["record"]


def test_the_mcp_server_is_read_only_unless_sending_is_allowed(home: Path, tmp_path: Path) -> None:
    # the pipx one
    path = sys_path(tmp_path, with_teaminbox=True)
    assert run(home, path, "mcp").stdout.strip() == "pipx-teaminbox mcp --read-only"
    # ${user_config.allow_send} left unset or false: still read-only
    for value in ("", "false", "${user_config.allow_send}"):
        res = run(home, path, "mcp", TEAMINBOX_MCP_SEND=value)
        assert res.stdout.strip() == "pipx-teaminbox mcp --read-only", (value, res)
    assert run(home, path, "mcp", TEAMINBOX_MCP_SEND="true").stdout.strip() == "pipx-teaminbox mcp"
    res = run(home, path, "mcp", CLAUDE_PLUGIN_OPTION_ALLOW_SEND="true")
    assert res.stdout.strip() == "pipx-teaminbox mcp"
    # the extension's, with the MCP SDK its command installed in the editor's storage
    ext = extension(home / ".vscode" / "extensions", "0.1.0")
    sdk = home / ".config" / "Code" / "User" / "globalStorage" / "teaminbox.team-inbox" / "mcp-libs"
    sdk.mkdir(parents=True)
    got = json.loads(run(home, path, "mcp", "--history", "h.db").stdout)
    assert got["who"].endswith("teaminbox/__main__.py")
    assert got["argv"] == ["mcp", "--read-only", "--history", "h.db"]
    libs = str(ext / "bundled" / "libs")
    assert got["path"][:2] == [libs, str(sdk)]
    assert got["env"].split(os.pathsep)[:2] == [libs, str(sdk)]
    got = json.loads(run(home, path, "mcp", TEAMINBOX_MCP_SEND="true").stdout)
    assert got["argv"] == ["mcp"]


def test_without_the_mcp_sdk_the_server_says_how_to_get_it(home: Path, tmp_path: Path) -> None:
    """The extension found, its python without the SDK (`-S`: no site-packages) and no SDK
    in the editor's storage: a plain message naming the VS Code command, exit 1."""
    extension(home / ".vscode" / "extensions", "0.1.0")
    bare = tmp_path / "bare-python"
    bare.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    bare.chmod(0o755)
    res = run(home, "/usr/bin:/bin", "mcp", TEAMINBOX_PYTHON=str(bare))
    assert res.returncode == 1 and res.stdout == "", res
    assert "needs the MCP Python SDK" in res.stderr and "Install the MCP SDK" in res.stderr, res


def test_the_mcp_servers_exit_status_is_passed_on(home: Path, tmp_path: Path) -> None:
    extension(home / ".vscode" / "extensions", "0.1.0")
    path = sys_path(tmp_path)
    assert run(home, path, "mcp", STANDIN_EXIT="3").returncode == 3
    assert run(home, path, "mcp", STANDIN_EXIT="").returncode == 0  # sys.exit(None)
    assert run(home, path, "mcp").returncode == 0
