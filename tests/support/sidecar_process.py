"""The real `teaminbox serve` as the extension runs it (pipes, initialize), for tests that
stop, starve and kill it; what it kept is read from its history file, read-only."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from support.lsp_wire import INITIALIZED, frame, initialize

T = TypeVar("T")
DEADLINE = 60.0  # seconds a wait for the history gives before the test fails


class Sidecar:
    """One server process. Its stdout is drained on a thread (a full pipe would stall it:
    that is not the stop a test means); its stderr goes to a log file."""

    def __init__(self, env: dict[str, str], init: dict[str, Any], log: Path, nice: int = 0):
        self.log = open(log, "ab")  # noqa: SIM115 (closed in close())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "teaminbox", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
            preexec_fn=(lambda: os.nice(nice)) if nice else None,
        )
        threading.Thread(target=self._drain, daemon=True).start()
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(initialize(1, init, processId=None), INITIALIZED))
        self.proc.stdin.flush()

    def _drain(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while os.read(out.fileno(), 65536):
            pass

    def pause(self) -> None:
        """SIGSTOP, returning once the process is stopped (state T)."""
        os.kill(self.proc.pid, signal.SIGSTOP)
        until(lambda: _state(self.proc.pid) == "T", "the sidecar to stop")

    def resume(self) -> None:
        os.kill(self.proc.pid, signal.SIGCONT)

    def terminate(self) -> None:
        """SIGTERM, as a closing editor or a logout ends it; returns once it has ended."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(DEADLINE)
        self.log.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # the client is gone: the server ends
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"


def until(check: Callable[[], T], what: str, deadline: float = DEADLINE) -> T:
    """`check()` once it is truthy; fails after `deadline` seconds (never a fixed wait)."""
    end = time.monotonic() + deadline
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {deadline:.0f} s waiting for {what}")
        time.sleep(0.05)


def query(history: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows from the history, read-only ([] before the server made it)."""
    if not history.exists():
        return []
    db = sqlite3.connect(f"file:{history}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.OperationalError as err:  # the schema not written yet
        if "no such table" in str(err):
            return []
        raise
    finally:
        db.close()


def message_ids(history: Path, team: str) -> set[str]:
    return {r[0] for r in query(history, "SELECT id FROM messages WHERE team=?", team)}


def gaps(history: Path, team: str) -> list[dict[str, Any]]:
    """The team's gaps as kept: each row's message, `gap` holding its start and end."""
    rows = query(history, "SELECT body FROM messages WHERE team=? AND id LIKE 'gap-%'", team)
    return [json.loads(r[0]) for r in rows]
