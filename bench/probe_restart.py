"""A fresh window's restart, builds paired: bench_ui.py's (b) without its first-ever start, with
the CPU each part used.

Per build and round: a new HOME with the UI fixtures, one first start (not counted: it only
leaves the remembered teams behind), then `--restarts` windows on the same install. The builds
take turns window by window, the order reversed each time (blocks of one build's windows in a row
read a load that drifts over minutes as a build's cost). For each restart: activate() -> the first (remembered)
team row, the extension host's activation -> that row and -> the first member row (the
sidecar's answer), and the CPU seconds (utime + stime from /proc) of the sidecar, the extension
host and the rest of code-server's tree when the member row showed, and the browser's (chromium
and its driver) over the window's open. Prints per-window rows and the medians; writes nothing to runs.md.

    .venv/bin/python bench/probe_restart.py old=/tmp/old.vsix new=/tmp/new.vsix --restarts 8
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

try:  # the bench's parts as split into benchlib/, else the one-file bench_ui.py
    from benchlib.codeserver import Browser, CodeServer, tools, write_home
except ImportError:
    from bench_ui import Browser, CodeServer, tools, write_home

TICK = os.sysconf("SC_CLK_TCK")
TIMES = ("activate_to_teams", "activation_to_teams", "activation_to_live")


def procs() -> dict[int, tuple[int, float, str]]:
    """pid -> (parent, CPU seconds, command line)."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
            cmd = (
                Path(f"/proc/{d}/cmdline")
                .read_bytes()
                .replace(b"\0", b" ")
                .decode(errors="replace")
            )
        except OSError:
            continue
        f = stat.rsplit(")", 1)[1].split()
        out[int(d)] = (int(f[1]), (int(f[11]) + int(f[12])) / TICK, cmd)
    return out


def tree_cpu(root: int) -> dict[str, float]:
    """CPU seconds of code-server's process tree: the sidecar, the extension host, the rest."""
    ps = procs()
    kids: dict[int, list[int]] = {}
    for pid, (parent, _, _) in ps.items():
        kids.setdefault(parent, []).append(pid)
    out = {"sidecar": 0.0, "exthost": 0.0, "other": 0.0}
    stack = [root]
    while stack:
        pid = stack.pop()
        stack += kids.get(pid, [])
        if pid in ps:
            _, cpu, cmd = ps[pid]
            part = "sidecar" if "teaminbox" in cmd and "python" in cmd else "other"
            out["exthost" if "extensionHost" in cmd or "bootstrap-fork" in cmd else part] += cpu
    return out


def chromium_cpu(browser: Browser) -> float:
    """CPU seconds of this bench's browser (its driver and chromium; other sessions' are not)."""
    return sum(tree_cpu(browser.proc.pid).values())


def restart(cs: CodeServer, browser: Browser, home: Path) -> dict[str, Any]:
    root = int((home / ".code-server" / "pid").read_text())
    before = chromium_cpu(browser)
    got = browser.call("open", url=cs.url)
    cpu = tree_cpu(root)
    cpu["chromium"] = chromium_cpu(browser) - before
    browser.call("close")
    act, own = cs.wait_activation(), cs.activated_at()
    nan = float("nan")
    return {
        "activate_to_teams": got["teamsAt"] - own * 1000 if own else nan,
        "activation_to_teams": got["teamsAt"] - act * 1000 if act else nan,
        "activation_to_live": got["liveAt"] - act * 1000 if act else nan,
        "cpu": cpu,
        "load": os.getloadavg()[0],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builds", nargs="+", help="LABEL=VSIX, two or more")
    ap.add_argument("--rounds", type=int, default=1, help="a new HOME a build each round")
    ap.add_argument("--restarts", type=int, default=8, help="restarts a build a round")
    ap.add_argument("--port", type=int, default=18397)
    args = ap.parse_args()
    builds = dict(b.split("=", 1) for b in args.builds)
    browser = Browser(tools())
    base = Path(tempfile.mkdtemp(prefix="teaminbox-probe-restart-"))
    rows: list[dict[str, Any]] = []
    for rnd in range(args.rounds):
        homes = {label: base / f"{rnd}-{label}" for label in builds}
        for label, home in homes.items():  # the first start: only leaves the remembered teams
            write_home(home)
            with CodeServer(home, args.port, Path(builds[label])) as cs:
                browser.call("open", url=cs.url)
                browser.call("close")
        # builds take turns window by window, the order reversed each time: a drifting load
        # falls on both alike
        for r in range(args.restarts):
            for label in list(builds)[:: 1 if r % 2 == 0 else -1]:
                home = homes[label]
                with CodeServer(home, args.port, Path(builds[label]), reuse=True) as cs:
                    row = {"round": rnd, "build": label, "run": r + 1, **restart(cs, browser, home)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    browser.close()
    shutil.rmtree(base, ignore_errors=True)
    for label in builds:
        mine = [r for r in rows if r["build"] == label]
        cpu = {k: statistics.median(r["cpu"][k] for r in mine) for k in mine[0]["cpu"]}
        print(
            f"{label}: {len(mine)} restarts; medians "
            + ", ".join(f"{k} {statistics.median(r[k] for r in mine):.0f} ms" for k in TIMES)
            + "; CPU s at the member row "
            + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items())
        )

    first, *others = builds
    for label in others:  # each window against the first build's window beside it
        for k in TIMES:
            pairs = [
                b[k] / a[k]
                for a, b in zip(
                    (r for r in rows if r["build"] == first),
                    (r for r in rows if r["build"] == label),
                    strict=True,
                )
            ]
            print(
                f"{label}/{first} {k}: paired median {statistics.median(pairs):.2f}, "
                f"higher in {sum(x > 1 for x in pairs)} of {len(pairs)}"
            )


if __name__ == "__main__":
    main()
