"""Interop helpers. The Node peers need `npm ci --prefix tests/interop`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

INTEROP = Path(__file__).resolve().parents[1] / "interop"
NODE_DIR = INTEROP / "node"


def node_exe() -> str:
    """The node binary, failing (never skipping) when it or proper-lockfile is missing."""
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node is not on PATH: the interop tests need Node.js 20")
    if not (INTEROP / "node_modules" / "proper-lockfile" / "package.json").is_file():
        pytest.fail(
            f"{INTEROP / 'node_modules'} is missing proper-lockfile:"
            " run `npm ci --prefix tests/interop` first"
        )
    return exe


PY_WRITER = INTEROP / "py_writer.py"
PY_MARKER = INTEROP / "py_marker.py"


def parse_log(out: str) -> dict[str, list[str]]:
    """ACK / GAVEUP / FAIL tokens of a writer's stdout."""
    found: dict[str, list[str]] = {"ACK": [], "GAVEUP": [], "FAIL": []}
    for line in out.splitlines():
        kind, _, rest = line.partition(" ")
        if kind in found:
            found[kind].append(rest.split(" ")[0])
    return found
