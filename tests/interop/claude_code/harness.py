"""One interactive Claude Code session run offline (`Session`): the CLI installed
(install.py) in a scratch HOME (home.py), under a pty (terminal.py), against the scripted
fake API (fake_api.py, its script api_script.py), with the files it writes recorded
(recorder.py)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .api_script import Request, Script
from .errors import HarnessError
from .fake_api import MODEL, FakeApi
from .home import claude_env, make_home
from .install import install
from .terminal import Pty, strip_ansi


def wait_until(
    pred: Callable[[], Any], timeout: float, what: str, explain: Callable[[], str] = lambda: ""
) -> Any:
    """Poll `pred` every 50 ms; its first truthy value, or a HarnessError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise HarnessError(f"timed out after {timeout:.0f} s waiting for {what}\n{explain()}")
        time.sleep(0.05)


def teaminbox_exe() -> Path:
    """This project's CLI in the venv that runs the tests."""
    import sys

    return Path(sys.executable).parent / "teaminbox"


class Session:
    """One interactive Claude Code session: scratch HOME, fake API, recorder, pty.

    Use as a context manager; `close()` always ends the process group, the recorder
    and the fake API, whatever happened.
    """

    def __init__(
        self,
        version: str,
        base: Path,
        script: Script,
        prompt: str,
        extra_args: Sequence[str] = (),
        hard_limit: float = 180.0,
    ) -> None:
        from .recorder import Recorder

        self.version = version
        self.base = base
        self.home = base / "home"
        self.cwd = base / "work"
        self.claude_dir = self.home / ".claude"
        self.script = script
        self.prompt = prompt
        self.extra_args = list(extra_args)
        self.api = FakeApi(script)
        self.recorder = Recorder(self.claude_dir)
        self.pty: Pty | None = None
        self.exit_code: int | None = None
        self.exit_how: str | None = None
        self.t_start = 0.0
        self.t_exit = 0.0
        self.timings: dict[str, float] = {}
        self.exit_log: list[str] = []
        # the last resort: whatever the test does, the CLI does not outlive this
        self.watchdog = threading.Timer(hard_limit, self._expire)
        self.watchdog.daemon = True
        self.expired = False

    def _expire(self) -> None:
        self.expired = True
        if self.pty is not None:
            self.pty.signal_group(signal.SIGKILL)

    def __enter__(self) -> Session:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        exe = install(self.version)
        self.cwd.mkdir(parents=True, exist_ok=True)
        make_home(self.home, self.cwd)
        (self.claude_dir / "teams").mkdir(parents=True, exist_ok=True)
        self.api.start()
        self.recorder.start()
        argv = [str(exe), "--model", MODEL, "--teammate-mode", "in-process", *self.extra_args]
        argv.append(self.prompt)
        self.t_start = time.monotonic()
        self.api.t0 = self.recorder.t0 = self.t_start
        self.pty = Pty(argv, claude_env(self.home, self.api.port), self.cwd)
        self.watchdog.start()

    def mark(self, name: str) -> None:
        self.timings[name] = time.monotonic() - self.t_start

    # -- waiting

    def explain(self) -> str:
        tail = self.pty.tail(3000) if self.pty else "(not started)"
        expired = " KILLED at the hard limit" if self.expired else ""
        return (
            f"--- Claude Code {self.version}{expired}, HOME={self.home}, exit={self.exit_code}"
            f" ({self.exit_how})\n--- pty output (tail):\n{tail}\n"
            f"--- fake API requests:\n{self.api.log()}\n"
            f"--- files under ~/.claude (teams, tasks):\n{self.recorder.describe()}\n"
            f"--- exit:\n" + "\n".join(self.exit_log)
        )

    def wait(self, pred: Callable[[], Any], timeout: float, what: str) -> Any:
        def check() -> Any:
            if self.pty is not None and not self.pty.alive():
                raise HarnessError(f"claude exited while waiting for {what}\n{self.explain()}")
            return pred()

        return wait_until(check, timeout, what, self.explain)

    def wait_rule(self, name: str, timeout: float = 30.0) -> Request:
        """The request on which the script's rule `name` fired."""

        def fired() -> Request | None:
            hits = self.api.find(lambda r: r.rule == name)
            return hits[0] if hits else None

        req: Request = self.wait(fired, timeout, f"the fake API rule {name!r} to fire")
        self.mark(name)
        return req

    def team_dirs(self) -> list[str]:
        return [d for d in self.recorder.dir_paths("teams/*") if d.count(os.sep) == 1]

    def team(self, timeout: float = 30.0) -> str:
        """The session's team folder name (`session-<8 hex>`)."""
        dirs = self.wait(
            lambda: [d for d in self.team_dirs() if self.recorder.existed(d)],
            timeout,
            "a team folder under ~/.claude/teams",
        )
        return str(Path(dirs[0]).name)

    # -- acting

    def send_cli(self, team: str, to: str, text: str, summary: str) -> str:
        """The person's message, written by this project's CLI (`teaminbox send`)."""
        cmd = [
            str(teaminbox_exe()),
            "--no-default-roots",
            "--root",
            f"claude={self.claude_dir / 'teams'}",
            "send",
            team,
            to,
            text,
            "--summary",
            summary,
        ]
        env = {**os.environ, "HOME": str(self.home)}
        env.pop("TEAMINBOX_ROOTS", None)
        env.pop("CLAUDE_CONFIG_DIR", None)
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env)
        if res.returncode != 0:
            raise HarnessError(
                f"`teaminbox send {team} {to}` failed ({res.returncode}): {res.stderr}"
                f"\n{self.explain()}"
            )
        return res.stdout

    def idle(self, quiet: float = 1.5, timeout: float = 20.0) -> bool:
        """Wait until no model request is in flight and none came for `quiet` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.api.quiet_for() >= quiet:
                return True
            time.sleep(0.1)
        return False

    def exit(self, timeout: float = 30.0) -> int | None:
        """/exit typed at an idle prompt; retyped, then Ctrl-C twice and SIGTERM."""
        pty = self.pty
        assert pty is not None
        self.idle()
        t0 = time.monotonic()

        def twice_ctrl_c() -> None:
            pty.write(b"\x03")
            time.sleep(0.3)
            pty.write(b"\x03")

        def retype() -> None:
            pty.write(b"\x1b")  # Escape: close a menu, or interrupt a turn
            time.sleep(0.5)
            pty.write(b"\x15")  # Ctrl-U: clear the input line
            time.sleep(0.2)
            pty.type("/exit")

        steps: list[tuple[str, Callable[[], None], float]] = [
            ("/exit", lambda: pty.type("/exit"), timeout * 0.4),
            ("/exit again", retype, timeout * 0.4),
            ("ctrl-c", twice_ctrl_c, 5),
            ("sigterm", lambda: pty.signal_group(signal.SIGTERM), 10),
        ]
        for how, act, wait_s in steps:
            if not pty.alive():
                break
            mark = len(pty.output)
            act()
            code = pty.wait(wait_s)
            with pty._lock:
                screen = strip_ansi(bytes(pty.output[mark:]))
            self.exit_log.append(
                f"+{time.monotonic() - self.t_start:.1f}s {how}: exit={code};"
                f" the screen said: {screen[-1500:]!r}"
            )
            if code is not None:
                self.exit_how = how
                break
        self.exit_code = pty.proc.poll()
        self.t_exit = time.monotonic() - self.t_start
        self.timings["exit"] = time.monotonic() - t0
        return self.exit_code

    def close(self) -> None:
        self.watchdog.cancel()
        if self.pty is not None:
            if self.pty.alive():
                self.exit_how = self.exit_how or "killed"
            self.pty.close()
            if self.exit_code is None:
                self.exit_code = self.pty.proc.poll()
        # let a deletion that raced the exit land in the recording
        time.sleep(0.1)
        self.recorder.stop()
        if self.api.thread.is_alive():
            self.api.stop()
        self.save_evidence()

    def save_evidence(self) -> None:
        """The request log, pty output and file timeline beside the scratch HOME."""
        with contextlib.suppress(OSError):
            reqs = [
                {
                    "index": r.index,
                    "t": round(r.t, 3),
                    "path": r.path,
                    "who": r.who,
                    "rule": r.rule,
                    "reply": r.reply,
                    "body": r.body,
                }
                for r in self.api.snapshot()
            ]
            (self.base / "api-requests.json").write_text(json.dumps(reqs, indent=1))
            (self.base / "pty.txt").write_text(self.pty.text() if self.pty else "")
            summary = {
                "version": self.version,
                "timings": {k: round(v, 2) for k, v in self.timings.items()},
                "exit": {"how": self.exit_how, "code": self.exit_code, "log": self.exit_log},
                "session_seconds": round(self.t_exit, 2),
            }
            (self.base / "session.json").write_text(json.dumps(summary, indent=1))
            recording = {
                path: [
                    [
                        round(v.t, 4),
                        v.source,
                        None if v.data is None else v.data.decode("utf-8", "replace"),
                    ]
                    for v in self.recorder.versions(path)
                ]
                for path in self.recorder.paths("*")
                if not path.startswith("projects/")
            }
            (self.base / "recording.json").write_text(json.dumps(recording, indent=1))
            (self.base / "events.txt").write_text(
                "".join(f"{t:.4f} {k} {a} {b}\n" for t, k, a, b in self.recorder.events)
            )
            (self.base / "files.txt").write_text(
                self.recorder.describe(("teams/*", "tasks/*", "projects/*"), limit=100_000)
            )
