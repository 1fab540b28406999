"""Claude Code's own writer runs on Node with proper-lockfile@4.1.2, tests/interop's one package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

INTEROP_DIR = Path(__file__).resolve().parent.parent.parent / "tests" / "interop"


def ensure_node_modules() -> None:
    """proper-lockfile@4.1.2 in tests/interop/node_modules (`npm ci --prefix tests/interop`)."""
    if (INTEROP_DIR / "node_modules" / "proper-lockfile").is_dir():
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed: run `npm ci --prefix tests/interop` (proper-lockfile@4.1.2)")
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--prefix", str(INTEROP_DIR)],
        check=True,
        timeout=300,
    )
