"""The one way the tests run this project's CLI in a subprocess: the test interpreter's own
`teaminbox` (or `python -m teaminbox`), a scratch HOME, none of the machine's Team Inbox
settings, and the scratch HOME's roots where a test names them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

VENV_BIN = Path(sys.executable).parent
TEAMINBOX = str(VENV_BIN / "teaminbox")
# what would point a run at the machine's own teams instead of the scratch HOME's
MACHINE_SETTINGS = ("CLAUDE_CONFIG_DIR", "TEAMINBOX_ROOTS")


def environment(home: Path | None = None, **extra: str) -> dict[str, str]:
    """This process's environment without the machine's settings; HOME the scratch one."""
    env = {k: v for k, v in os.environ.items() if k not in MACHINE_SETTINGS}
    if home is not None:
        env["HOME"] = str(home)
    env.update(extra)
    return env


def scratch_roots(home: Path, *more: str) -> list[str]:
    """`--no-default-roots` and the Claude Code and PseudoClaude roots under `home`, then a
    `--root` for each of `more` (PATH or FORMAT=PATH)."""
    args = ["--no-default-roots"]
    for root in (
        f"claude={home / '.claude' / 'teams'}",
        f"pseudoclaude={home / '.PseudoClaude' / 'teams'}",
        *more,
    ):
        args += ["--root", root]
    return args


def command(*args: str, module: bool = False) -> list[str]:
    """The argv: the venv's `teaminbox` script, or `python -m teaminbox` (`module`)."""
    return [*((sys.executable, "-m", "teaminbox") if module else (TEAMINBOX,)), *args]


def run(
    *args: str,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    input: str | None = None,
    module: bool = False,
    check: bool = False,
    timeout: float = 60,
    **popen: Any,
) -> subprocess.CompletedProcess[str]:
    """Run the CLI to its end, its output captured as text. `env` replaces the environment
    outright (a test that wants exactly its own); else `environment(home)`."""
    return subprocess.run(
        command(*args, module=module),
        input=input,
        capture_output=True,
        text=True,
        env=dict(env) if env is not None else environment(home),
        check=check,
        timeout=timeout,
        **popen,
    )
