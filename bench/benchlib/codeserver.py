"""code-server with a built .vsix on a scratch HOME (tests/extension/serve-ui.sh) and chromium
driven by bench_ui.js: what bench_ui.py and bench_fresh.py run VS Code with."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
REPO = HERE.parent
SERVE = REPO / "tests" / "extension" / "serve-ui.sh"
FIXTURES = REPO / "tests" / "extension" / "fixtures.js"


def tools() -> dict[str, str]:
    """Node 24, code-server and playwright-core, installed once by tests/extension/setup.sh."""
    out = subprocess.run(
        [
            "bash",
            "-c",
            f'source "{REPO}/tests/extension/setup.sh" >&2; echo "$TI_NODE24"; echo "$PLAYWRIGHT_CORE"',
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {"node": str(Path(out[0]) / "node"), "playwright": out[1]}


def system_python() -> str:
    # a real interpreter path, as run.sh uses: the sidecar runs on the bundled libraries
    return subprocess.run(
        ["python3", "-c", "import sys; print(sys.executable)"], capture_output=True, text=True
    ).stdout.strip()


class CodeServer:
    """code-server with the extension installed, on a scratch HOME, via serve-ui.sh."""

    def __init__(
        self, home: Path, port: int, vsix: Path, reuse: bool = False, extra: Path | None = None
    ) -> None:
        self.home, self.port, self.vsix, self.reuse = home, port, vsix, reuse
        self.extra = extra  # another extension installed beside ours
        self.url = f"http://127.0.0.1:{port}/?folder={home / 'workspace'}"

    def __enter__(self) -> CodeServer:
        subprocess.run(
            ["bash", str(SERVE), "--home", str(self.home), "--port", str(self.port)]
            + ["--vsix", str(self.vsix), "--python", system_python()],
            check=True,
            capture_output=True,
            env={
                **os.environ,
                "TI_REUSE_EXT": "1" if self.reuse else "",
                "TI_EXTRA_VSIX": str(self.extra or ""),
            },
        )
        return self

    def __exit__(self, *exc: Any) -> None:
        pid = int((self.home / ".code-server" / "pid").read_text())
        try:
            os.killpg(pid, signal.SIGTERM)
            for _ in range(50):
                os.killpg(pid, 0)
                time.sleep(0.1)
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def logs(self, name: str) -> list[Path]:
        return sorted((self.home / ".code-server" / "user" / "logs").rglob(name))

    def activation(self) -> float | None:
        """Epoch seconds of the extension host's latest activation of Team Inbox (local-time stamp)."""
        pat = re.compile(
            r"^(\S+ \S+) \[info\] ExtensionService#_doActivateExtension teaminbox\.team-inbox", re.M
        )
        stamps = [
            m.group(1)
            for f in self.logs("remoteexthost.log")
            for m in pat.finditer(f.read_text(errors="replace"))
        ]
        if not stamps:
            return None
        return max(dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f").timestamp() for s in stamps)

    def wait_activation(self) -> float | None:
        """activation(), once the extension host has logged it (up to 5 s after the row)."""
        for _ in range(50):
            act = self.activation()
            if act is not None:
                return act
            time.sleep(0.1)
        return None

    def activated_at(self) -> float | None:
        """Epoch seconds at the start of the latest activate() (the extension logs it; older builds do not)."""
        stamps = [
            dt.datetime.fromisoformat(m.replace("Z", "+00:00")).timestamp()
            for f in self.logs("Team Inbox.log")
            for m in re.findall(r"activated at (\S+Z)", f.read_text(errors="replace"))
        ]
        return max(stamps) if stamps else None


class Browser:
    """bench_ui.js: one JSON command per line."""

    def __init__(self, t: dict[str, str]) -> None:
        env = {**os.environ, "PLAYWRIGHT_CORE": t["playwright"]}
        self.proc = subprocess.Popen(
            [t["node"], str(HERE / "bench_ui.js")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def call(self, cmd: str, **kw: Any) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"cmd": cmd, **kw}) + "\n")
        self.proc.stdin.flush()
        out: dict[str, Any] = json.loads(self.proc.stdout.readline())
        if "error" in out:
            raise RuntimeError(f"bench_ui.js {cmd}: {out['error']}")
        return out

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(30)


def write_home(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(["node", str(FIXTURES), str(home)], check=True)
