"""A command under a pseudo-terminal in its own session and process group, with the output
kept for failure messages and a teardown that always ends the group."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Sequence
from pathlib import Path

ANSI = re.compile(
    rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]"  # CSI
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    rb"|\x1b[()][0-9A-Za-z]|\x1b[=>78MDEc]"
)


def strip_ansi(data: bytes) -> str:
    text = ANSI.sub(b"", data).decode("utf-8", "replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return re.sub(r"\n{3,}", "\n\n", text)


class Pty:
    """A command under a pseudo-terminal, leading its own session and process group."""

    def __init__(
        self, argv: Sequence[str], env: dict[str, str], cwd: Path, rows: int = 50, cols: int = 200
    ) -> None:
        self.argv = list(argv)
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.output = bytearray()
        self._lock = threading.Lock()
        self.proc = subprocess.Popen(
            self.argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            # the pty becomes the controlling terminal of the new session
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0),  # noqa: PLW0108
            close_fds=True,
        )
        os.close(slave)
        self.pgid = self.proc.pid
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                r, _, _ = select.select([self.master], [], [], 0.2)
            except (OSError, ValueError):
                return
            if not r:
                if self.proc.poll() is not None:
                    return
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output += data
            self._answer_queries(data)

    def _answer_queries(self, data: bytes) -> None:
        # Terminal queries an xterm would answer; a TUI may wait for them.
        if b"\x1b[6n" in data:
            self.write(b"\x1b[1;1R")
        if b"\x1b[c" in data or b"\x1b[0c" in data:
            self.write(b"\x1b[?62;22c")

    def write(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode()
        with contextlib.suppress(OSError):
            os.write(self.master, data)

    def type(self, text: str, enter: bool = True, delay: float = 0.02) -> None:
        """Type like a person: a character at a time, then Enter."""
        for ch in text:
            self.write(ch)
            time.sleep(delay)
        if enter:
            time.sleep(0.2)
            self.write(b"\r")

    def text(self) -> str:
        with self._lock:
            return strip_ansi(bytes(self.output))

    def tail(self, chars: int = 4000) -> str:
        return self.text()[-chars:]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait(self, timeout: float) -> int | None:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)

    def close(self) -> None:
        """End the whole process group (TERM, then KILL) and close the pty. Idempotent."""
        if self.alive():
            self.signal_group(signal.SIGTERM)
            if self.wait(5) is None:
                self.signal_group(signal.SIGKILL)
                self.wait(5)
        # stragglers that outlived the leader
        self.signal_group(signal.SIGKILL)
        self._reader.join(2)
        with contextlib.suppress(OSError):
            os.close(self.master)
