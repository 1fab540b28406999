"""runs.md, the archive every bench writes its run into, and what a run says of its machine."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
RESULTS = REPO / "bench" / "runs.md"


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def machine() -> str:
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) / 1024 / 1024
    fs = (
        subprocess.run(["df", "-T", tempfile.gettempdir()], capture_output=True, text=True)
        .stdout.splitlines()[-1]
        .split()
    )
    osr = ""
    try:
        osr = re.search(r'PRETTY_NAME="([^"]+)"', Path("/etc/os-release").read_text()).group(1)  # type: ignore[union-attr]
    except (OSError, AttributeError):
        pass
    from importlib.metadata import version  # noqa: PLC0415

    import watchdog.version  # noqa: PLC0415

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "sidecar"], cwd=REPO, capture_output=True, text=True
    ).stdout.strip()
    return (
        f"{cpu}, {os.cpu_count()} cores, {mem:.1f} GiB RAM, Linux {platform.release()} ({osr});"
        f" temp folder on {fs[0]} {fs[1]}; Python {platform.python_version()},"
        f" pygls {version('pygls')}, watchdog {watchdog.version.VERSION_STRING},"
        f" orjson {version('orjson')}; sidecar at {commit}"
        + (" (with uncommitted sidecar changes)" if dirty else "")
    )


def write_section(text: str, section: str) -> None:
    """Replace `section` of runs.md with `text` (or append it).

    Only the bench's own part is replaced: a `###` write-up under the section whose heading the
    new text does not have (a person's notes on an earlier run) stays, after the new text."""
    old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark runs\n"
    start = old.find(section)
    if start < 0:
        new = old.rstrip() + "\n\n" + text
    else:
        body = start + len(section)
        own = {line for line in text.splitlines() if line.startswith("#")}
        heads = re.finditer(r"^#{2,3} .*$", old[body:], re.M)
        nxt = next((body + m.start() for m in heads if m.group(0) not in own), -1)
        new = old[:start] + text.rstrip() + "\n" + ("\n" + old[nxt:] if nxt >= 0 else "")
    RESULTS.write_text(new.rstrip() + "\n")
