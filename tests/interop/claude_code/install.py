"""The real Claude Code CLI, installed with npm once per version into
`${TEAMINBOX_CACHE:-~/.cache/teaminbox}/claude-code/<version>` (idempotent, locked,
atomic: a half-finished install is never used)."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

from .errors import HarnessError

VERSIONS: tuple[str, ...] = ("2.1.197", "2.1.332")
PACKAGE = "@anthropic-ai/claude-code"
INSTALL_TIMEOUT = 900.0


def cache_root() -> Path:
    base = os.environ.get("TEAMINBOX_CACHE") or str(Path.home() / ".cache" / "teaminbox")
    return Path(base) / "claude-code"


def _binary(prefix: Path) -> Path:
    return prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"


def _version_of(exe: Path) -> str:
    out = subprocess.run(
        [str(exe), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env={
            **os.environ,
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
        stdin=subprocess.DEVNULL,
    )
    return out.stdout.strip().split(" ")[0]


def install(version: str) -> Path:
    """The `claude` executable of `version`, installed with npm on first use (a few s cached)."""
    root = cache_root()
    prefix = root / version
    marker = prefix / ".teaminbox-installed"
    if marker.is_file() and _binary(prefix).is_file():
        return _binary(prefix)
    root.mkdir(parents=True, exist_ok=True)
    npm = shutil.which("npm")
    if npm is None:
        raise HarnessError("npm is not on PATH: the Claude Code interop tests need Node.js + npm")
    with open(root / f".{version}.lock", "w") as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)  # another pytest process may be installing it
        if marker.is_file() and _binary(prefix).is_file():
            return _binary(prefix)
        tmp = root / f".tmp-{version}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        (tmp / "package.json").write_text('{"private": true}\n')
        cmd = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--loglevel=error",
            "--include=optional",
            f"{PACKAGE}@{version}",
        ]
        env = {**os.environ, "npm_config_update_notifier": "false"}
        try:
            res = subprocess.run(
                cmd, cwd=tmp, capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=env
            )
        except subprocess.TimeoutExpired as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            raise HarnessError(f"`{' '.join(cmd)}` took over {INSTALL_TIMEOUT:.0f} s") from exc
        exe = _binary(tmp)
        if res.returncode != 0 or not exe.is_file():
            shutil.rmtree(tmp, ignore_errors=True)
            raise HarnessError(
                f"`{' '.join(cmd)}` failed ({res.returncode}):\n{res.stdout[-3000:]}\n"
                f"{res.stderr[-3000:]}"
            )
        got = _version_of(exe)
        if got != version:
            shutil.rmtree(tmp, ignore_errors=True)
            raise HarnessError(f"installed {PACKAGE}@{version} but `claude --version` says {got!r}")
        (tmp / ".teaminbox-installed").write_text(version + "\n")
        if prefix.exists():
            shutil.rmtree(prefix)
        os.rename(tmp, prefix)
        return _binary(prefix)
