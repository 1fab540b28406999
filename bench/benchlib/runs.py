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

    return (
        f"{cpu}, {os.cpu_count()} cores, {mem:.1f} GiB RAM, Linux {platform.release()} ({osr});"
        f" temp folder on {fs[0]} {fs[1]}; Python {platform.python_version()},"
        f" pygls {version('pygls')}, watchdog {watchdog.version.VERSION_STRING},"
        f" orjson {version('orjson')}; {sidecar_build()}"
    )


def sidecar_build() -> str:
    """Where the sidecar the bench runs comes from: the commit of the tree `teaminbox` is
    imported from (PYTHONPATH may name another build than this work tree)."""
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.find_spec("teaminbox")
    where = Path(spec.origin).parent if spec and spec.origin else REPO / "sidecar"

    def git(*a: str) -> str:
        r = subprocess.run(["git", "-C", str(where), *a], capture_output=True, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if not commit:
        return f"sidecar from {where} (no git tree)"
    dirty = git("status", "--porcelain", ".")
    return f"sidecar at {commit}" + (" (with uncommitted sidecar changes)" if dirty else "")


_TAG = re.compile(r"\s*\([^()]*\bissue\b[^()]*\)\s*$")


def heading(line: str) -> str:
    """A heading by its plain name: a tag an older bench still adds, `(issue ...)`, dropped."""
    return _TAG.sub("", line.rstrip()) if line.startswith("#") else line


def write_section(text: str, section: str) -> None:
    """Replace `section` of runs.md with `text` (or append it).

    The section is the one whose heading line is `section`, whole (`## Start` is not `## Start-up:
    ...`), by its plain name. Only the bench's own part is replaced: a `###` write-up under the
    section whose heading the new text does not have (a person's notes on an earlier run) stays,
    after the new text."""
    section = heading(section)
    text = "\n".join(heading(line) for line in text.splitlines()) + "\n"
    old = RESULTS.read_text() if RESULTS.exists() else "# Benchmark runs\n"
    found = re.search(rf"^{re.escape(section)}[ \t]*$", old, re.M)
    if found is None:
        new = old.rstrip() + "\n\n" + text
    else:
        start, body = found.start(), found.end()
        own = {line for line in text.splitlines() if line.startswith("#")}
        heads = re.finditer(r"^#{2,3} .*$", old[body:], re.M)
        nxt = next((body + m.start() for m in heads if m.group(0) not in own), -1)
        new = old[:start] + text.rstrip() + "\n" + ("\n" + old[nxt:] if nxt >= 0 else "")
    RESULTS.write_text(new.rstrip() + "\n")
