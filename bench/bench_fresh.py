"""A fresh window's first-ever start, against its floor.

Not a test: nothing here asserts a time. Each round starts code-server on a new scratch HOME
(nothing installed, nothing remembered: a new user's first window), installs one build, opens
the window in a new browser context and clicks the Team Inbox icon as soon as it shows
(bench_ui.py's (b), one run). The builds take turns within a round, so a change in the
machine's load falls on each alike:

- `new`: this work tree's .vsix (or --vsix);
- `floor`: bench/floor, an extension with the same view and two static rows, no sidecar and
  no code of ours: what the window itself takes from the click to a first row;
- `old` (--old-vsix): an older build.

From the extension's own log (new and old builds): activate(), the sidecar's `initialized`
and its `teams` answer in the extension host, so a row's time splits into the window's and
the extension host's start, ours, and the window's render after the host has the teams.

    .venv/bin/python bench/bench_fresh.py --rounds 5            # ~6 min
    .venv/bin/python bench/bench_fresh.py --rounds 5 --old-vsix /tmp/old.vsix --no-write
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from benchlib.codeserver import Browser, CodeServer, tools, write_home  # noqa: E402
from benchlib.runs import loadavg, machine, write_section  # noqa: E402
from benchlib.stats import median  # noqa: E402

SECTION = "## Fresh window: the first-ever start against its floor"
VSCE = HERE.parent / "node_modules" / ".bin" / "vsce"


def floor_vsix(out: Path) -> Path:
    vsix = out / "floor.vsix"
    license_ = HERE / "floor" / "LICENSE"
    license_.write_bytes((HERE.parent / "LICENSE").read_bytes())
    try:
        subprocess.run(
            [str(VSCE), "package", "--allow-missing-repository", "-o", str(vsix)],
            cwd=HERE / "floor",
            check=True,
            capture_output=True,
        )
    finally:
        license_.unlink()
    return vsix


def log_times(cs: CodeServer) -> dict[str, float]:
    """Epoch seconds of the extension's own log lines: the sidecar initialized, the teams in."""
    out: dict[str, float] = {}
    marks = (("initialized", r"sidecar running: "), ("teams_in", r"teams: \d+ in "))
    for f in cs.logs("Team Inbox.log"):
        text = f.read_text(errors="replace")
        for key, pat in marks:
            m = re.search(r"^(\S+ \S+) \[info\] " + pat, text, re.M)
            if m and key not in out:
                stamp = dt.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S.%f")
                out[key] = stamp.timestamp()
    return out


def one_start(base: Path, vsix: Path, port: int, browser: Browser) -> dict[str, float]:
    home = base / "home"
    write_home(home)
    with CodeServer(home, port, vsix) as cs:
        got = browser.call("open", url=cs.url)
        browser.call("close")
        act = cs.wait_activation()
        own = cs.activated_at()
        marks = log_times(cs)
    nan = float("nan")
    click = got["clickAt"]

    def after_click(t: float | None) -> float:
        return t * 1000 - click if t else nan

    return {
        "icon_to_click": click - got["iconAt"],
        "click_to_activation": after_click(act),
        "click_to_activate": after_click(own),
        "click_to_initialized": after_click(marks.get("initialized")),
        "click_to_host_teams": after_click(marks.get("teams_in")),
        "click_to_teams": got["teamsAt"] - click,
        "click_to_live": got["liveAt"] - click,
    }


COLUMNS = (
    ("icon_to_click", "icon shown -> click"),
    ("click_to_activation", "-> activation event"),
    ("click_to_activate", "-> activate()"),
    ("click_to_initialized", "-> sidecar initialized"),
    ("click_to_host_teams", "-> teams in the extension host"),
    ("click_to_teams", "-> first team row"),
    ("click_to_live", "-> first member row"),
)


def render(
    runs: dict[str, list[dict[str, float]]],
    args: argparse.Namespace,
    seconds: float,
    load: tuple[str, str],
) -> str:
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = f"`.venv/bin/python bench/bench_fresh.py --rounds {args.rounds}" + (
        " --old-vsix FILE`" if args.old_vsix else "`"
    )
    lines = [
        SECTION,
        "",
        f"{cmd}, {when}, {seconds:.0f} s. Each round: code-server on a new HOME for each build in"
        " turn (a new user's first window: the extension installed, nothing remembered, no"
        " bytecode written yet but what the .vsix ships), a new browser context, the icon clicked"
        " as soon as it shows. `floor` is bench/floor: the same view with two static rows, no"
        " sidecar. Times in ms after the click (log lines: the extension host's and the"
        " extension's own, ms resolution); median (min-max) of the rounds.",
        "",
        f"Machine (shared and noisy: quote medians and ratios): {machine()}. Load average"
        f" (1/5/15 min) at the start {load[0]}, at the end {load[1]}.",
        "",
        "| build | " + " | ".join(h for _, h in COLUMNS) + " |",
        "|---|" + "---|" * len(COLUMNS),
    ]
    for label, rows in runs.items():
        cells = []
        for key, _ in COLUMNS:
            xs = [r[key] for r in rows if r[key] == r[key]]
            cells.append(f"{median(xs):.0f} ({min(xs):.0f}-{max(xs):.0f})" if xs else "-")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if "floor" in runs:
        lines.append("")
        floor = median([r["click_to_teams"] for r in runs["floor"]])
        for label, rows in runs.items():
            if label == "floor":
                continue
            pairs = [
                a["click_to_teams"] - b["click_to_teams"]
                for a, b in zip(rows, runs["floor"], strict=True)
            ]
            after = [r["click_to_teams"] - r["click_to_host_teams"] for r in rows]
            lines.append(
                f"- {label}: click -> first team row {median([r['click_to_teams'] for r in rows]):.0f}"
                f" ms, the floor's {floor:.0f} ms; above the floor, paired by round: median"
                f" {median(pairs):.0f} ms ({', '.join(f'{p:.0f}' for p in pairs)}); the teams in"
                f" the extension host -> the row (the tree's round trips): median {median(after):.0f}"
                " ms."
            )
    lines.append("")
    lines.append("Every round (ms after the click):")
    lines.append("")
    for i in range(args.rounds):
        parts = []
        for label, rows in runs.items():
            if i < len(rows):
                r = rows[i]
                parts.append(
                    f"{label} {r['click_to_teams']:.0f}"
                    + (
                        f" (host teams {r['click_to_host_teams']:.0f})"
                        if r["click_to_host_teams"] == r["click_to_host_teams"]
                        else ""
                    )
                )
        lines.append(f"- round {i + 1}: " + ", ".join(parts))
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--vsix", type=Path, help="the build to measure (default: build the work tree)")
    ap.add_argument("--old-vsix", type=Path, help="an older build, measured the same way")
    ap.add_argument("--port", type=int, default=18397)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    t = tools()
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-fresh-"))
    t0 = time.perf_counter()
    load0 = loadavg()
    vsix = args.vsix
    if vsix is None:
        build = HERE.parent / "tests" / "extension" / "build-vsix.sh"
        subprocess.run(["bash", str(build), str(base / "ext")], check=True)
        vsix = base / "ext" / "dist" / "team-inbox.vsix"
    builds: dict[str, Path] = {"new": vsix, "floor": floor_vsix(base)}
    if args.old_vsix:
        builds["old"] = args.old_vsix
    runs: dict[str, list[dict[str, Any]]] = {label: [] for label in builds}
    browser = Browser(t)
    try:
        for i in range(args.rounds):
            labels = list(builds)
            labels = (
                labels[i % len(labels) :] + labels[: i % len(labels)]
            )  # each goes first in turn
            for label in labels:
                row = one_start(base / f"{label}-{i}", builds[label], args.port, browser)
                runs[label].append(row)
                print(
                    f"round {i + 1} {label}: "
                    + ", ".join(f"{k} {v:.0f}" for k, v in row.items() if v == v),
                    flush=True,
                )
    finally:
        browser.close()
    text = render(runs, args, time.perf_counter() - t0, (load0, loadavg()))
    print(text)
    if not args.no_write:
        write_section(text, SECTION)


if __name__ == "__main__":
    main()
