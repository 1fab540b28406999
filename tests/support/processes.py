"""Helpers for tests that pause a writer process at a point of its own (SIGSTOP from inside)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest


def wait_stopped(proc: subprocess.Popen[str], timeout: float = 20) -> None:
    """Until `proc` is stopped (state T in /proc); fails if it ends or never pauses."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            state = "gone"
        if state == "T":
            return
        if proc.poll() is not None:
            out, err = proc.communicate()
            pytest.fail(f"the writer ended without pausing: {proc.returncode} {out} {err}")
        time.sleep(0.01)
    proc.kill()
    pytest.fail("the writer never paused")
