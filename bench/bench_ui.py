"""Benchmarks of the extension in real VS Code (code-server + Debian chromium).

Not a test: nothing here asserts a time. code-server is started with
tests/extension/serve-ui.sh (tools from tests/extension/setup.sh) on the UI
test's fixture teams; bench_ui.js drives chromium and reads the DOM.

(a) A peer's write -> its row in the tree: an entry with a unique summary is
    appended to an inbox as a peer writes it (temp file + rename), and the
    clock stops when a row holding that summary is in the view's DOM (and at
    the next animation frame). Two series: a teammate's inbox (its inbox node
    is redrawn) and the person's own (its team node too, for the unread
    count). Beside them, from the same writes: the didChange at a pygls client
    of a second sidecar on the same folder, and a bare watchdog callback in
    this process (benchlib's Session and BareWatch).
(b) A fresh window: code-server is started anew, the Team Inbox icon is
    clicked as soon as it shows, and the clock stops at the first team row;
    activation is the extension host's `_doActivateExtension` log line.

(c) The team view (--teamview): a team with 10,000 archived messages (written into its
    inboxes, archived by the extension's sidecar, then pruned from the inboxes as Claude Code's
    consumer does). The view is opened by a keybinding that runs `teamInbox.openTeam` with the
    team's id: keydown -> the newest message in the view's thread (and the next animation frame);
    then, in the open view, a teammate's write -> its message in the thread; then the thread is
    scrolled up through all 10,000 (older pages from the sidecar as it goes): the webview frame's
    requestAnimationFrame deltas, its long animation frames, and its memory. Run beside (a) and
    (b) in the same invocation: the tree's figures from the same run.

    .venv/bin/python bench/bench_ui.py                             # ~5 min
    .venv/bin/python bench/bench_ui.py --old-vsix /tmp/ti-old.vsix # and an older build, for ratios
    .venv/bin/python bench/bench_ui.py --teamview                  # (a), (b) and (c); ~10 min
(d) With --teamview: a teammate's write -> its message in the open view and its row in the tree
    (the later of the two), in a fresh profile's first-ever start and in a restart; a transcript
    row -> the member's "now doing" in the view. The report sets each target beside its comparison
    from the same run: the scroll's p95 beside the same fling in the workbench's page with no view
    code, the open beside VS Code's own webview creation.

    options: --n 30 --fresh 5 --vsix FILE --prefill N --no-write --keep --archived 10000 --opens 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib.codeserver import Browser, tools
from benchlib.runs import REPO, loadavg, write_section
from ui_bench.host import control_ms, wakeup_us
from ui_bench.report_teamview import render_teamview, write_teamview
from ui_bench.report_tree import SECTION, render
from ui_bench.teamview import bench_teamview
from ui_bench.tree import bench_fresh, bench_rows
from ui_bench.writes import bench_writes


def port_taken(port: int) -> bool:
    """Something listens on the port (a code-server a killed bench left: it would be driven
    instead of the build under test)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=30, help="writes per inbox (after warm-up)")
    ap.add_argument("--fresh", type=int, default=5, help="fresh windows per build")
    ap.add_argument("--vsix", type=Path, help="the build to measure (default: build the work tree)")
    ap.add_argument(
        "--old-vsix", type=Path, help="an older build to measure the same way, for ratios"
    )
    ap.add_argument("--port", type=int, default=18397)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="print every sample")
    ap.add_argument("--profile", action="store_true", help="the page's CPU profile of the rows")
    ap.add_argument(
        "--trace", action="store_true", help="the page's main-thread tasks from frame in to row"
    )
    ap.add_argument(
        "--prefill", type=int, default=0, help="messages already in the teammate's inbox"
    )
    ap.add_argument(
        "--teamview", action="store_true", help="(c) the team view too, written to its own section"
    )
    ap.add_argument("--archived", type=int, default=10000, help="(c) the big team's messages")
    ap.add_argument("--opens", type=int, default=10, help="(c) opens of its view")
    ap.add_argument("--scroll-step", type=int, default=150, help="(c) px scrolled a frame")
    ap.add_argument(
        "--scrolls", type=int, default=1, help="(c) scrolls per build (the view reopened for each)"
    )
    ap.add_argument(
        "--writes",
        type=int,
        default=2,
        help="(c) profiles for a write -> view and tree, each a first-ever start and a restart",
    )
    ap.add_argument("--no-tree", action="store_true", help="(c) without (a) and (b)")
    ap.add_argument(
        "--old-first",
        action="store_true",
        help="the older build first (to balance a drifting load)",
    )
    ap.add_argument(
        "--scroll-trace",
        action="store_true",
        help="(c) a Chrome trace of the scroll: threads' busy time, main-thread events, functions",
    )
    args = ap.parse_args()
    if port_taken(args.port):
        raise SystemExit(
            f"port {args.port} is taken (a code-server a killed bench left? `ss -ltnp | grep "
            f"{args.port}`): stop it, or pass --port"
        )
    t = tools()
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-ui-"))
    t0 = time.perf_counter()
    load0 = loadavg()
    vsix = args.vsix
    if vsix is None:
        # into our own copy: another build in this work tree may replace dist/ meanwhile
        build = REPO / "tests" / "extension" / "build-vsix.sh"
        subprocess.run(["bash", str(build), str(base / "ext")], check=True)
        vsix = base / "ext" / "dist" / "team-inbox.vsix"
    builds = {"new": vsix}
    if args.old_vsix:
        builds = (
            {"old": args.old_vsix, "new": vsix}
            if args.old_first
            else {**builds, "old": args.old_vsix}
        )
    browser = Browser(t)
    runs: dict[str, dict[str, Any]] = {}
    try:
        for label, v in builds.items():
            before = loadavg()
            print(f"{label}: {v} (load {before})", flush=True)
            ctl = [control_ms(), wakeup_us()]
            fresh: list[dict[str, float]] = []
            rows: dict[str, Any] = {}
            if not (args.teamview and args.no_tree):
                print(" (b) fresh windows", flush=True)
                fresh = bench_fresh(base / label, v, args.port, args.fresh, browser)
                print(" (a) a peer's write -> the row", flush=True)
                rows = await bench_rows(
                    base / label,
                    v,
                    args.port,
                    args.n,
                    browser,
                    args.verbose,
                    args.profile,
                    args.prefill,
                    args.trace,
                )
            teamview, writes = None, None
            if args.teamview:
                print(" (d) a write -> the view and the tree, fresh and warm profiles", flush=True)
                writes = await bench_writes(
                    base / label, v, args.port, args.n, browser, args.writes
                )
                print(" (c) the team view", flush=True)
                teamview = await bench_teamview(
                    base / label,
                    v,
                    args.port,
                    args.n,
                    args.opens,
                    args.archived,
                    browser,
                    args.scroll_step,
                    args.scroll_trace,
                    args.scrolls,
                )
            ctl += [control_ms(), wakeup_us()]
            runs[label] = {
                "fresh": fresh,
                "rows": rows,
                "load": (before, loadavg()),
                "control": ctl,
                "teamview": teamview,
                "writes": writes,
            }
        seconds = time.perf_counter() - t0
        if args.teamview:
            if args.keep:  # first: the figures stay even if the report fails
                for label, run in runs.items():
                    (base / f"teamview-{label}.json").write_text(json.dumps(run))
            text = render_teamview(runs["new"], args, seconds, (load0, loadavg()))
            print(text)
            if not args.no_write:
                write_teamview(text)
        else:
            text = render(runs, args, seconds, (load0, loadavg()))
            print(text)
            if not args.no_write:
                write_section(text, SECTION)
    finally:
        browser.close()
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


def _interrupted(*_: Any) -> None:
    raise KeyboardInterrupt  # so a SIGTERM still stops code-server and the browser


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _interrupted)
    asyncio.run(main())
