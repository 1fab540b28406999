"""Claude Code's writer: bench/node_writer.js on tests/interop/node/claude_inbox.js (proper-lockfile)."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WRITER_JS = os.path.join(BENCH, "node_writer.js")
NODE_FLAGS = ["--max-old-space-size=8192"]


def run_node(args: list[str], timeout: float = 900) -> dict[str, Any]:
    out = subprocess.run(
        ["node", *NODE_FLAGS, WRITER_JS, *args],
        cwd=BENCH,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"node_writer.js {args[0]} failed: {out.stderr.strip()}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result
