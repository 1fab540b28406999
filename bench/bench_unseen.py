"""The state thread's work per change to a teammate's inbox when the person's own big
inbox has ids marked seen (Tracker.unread, each publisher step). Not a test: nothing
here asserts a time. In-process: a Tracker driven as the server's state thread does
(refresh the changed inbox, then the unread count, which every publisher step asks).

    git archive HEAD sidecar | tar -x -C /tmp/old
    .venv/bin/python bench/bench_unseen.py --old /tmp/old/sidecar --pairs 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
from support.entries import claude_entry  # noqa: E402 (tests/ on the path first)


def entry(i: int, read: bool) -> dict[str, Any]:
    ts = f"2026-02-09T17:{i // 60000 % 60:02d}:{i // 1000 % 60:02d}.{i % 1000:03d}Z"
    return claude_entry("team-lead", f"message {i} " + "x" * 200, ts, read=read)


def child(size: int, seen: int, changes: int) -> None:
    """One run with this interpreter's teaminbox: prints JSON figures."""
    from support.world import make_teams
    from teaminbox.history import History
    from teaminbox.tracker import Tracker

    home = Path(tempfile.mkdtemp(prefix="bench-unseen-"))
    teams = make_teams(home)
    own = teams.cinbox("user")
    own.write_text(json.dumps([entry(i, i % 3 == 0) for i in range(size)]))
    tracker = Tracker(teams.settings, History(str(home / "history.db")))
    tracker.scan()
    tid = tracker.resolve("alpha")
    ids = tracker.ids(tid, "user")
    tracker.history.mark_seen(tid, "user", ids[:: max(1, size // seen)][:seen])
    first = tracker.unread()
    mate = teams.cinbox("researcher")
    msgs: list[dict[str, Any]] = json.loads(mate.read_text())
    step, unread = [], []
    for k in range(changes):
        msgs.append(entry(1_000_000 + k, False))
        mate.write_text(json.dumps(msgs))
        t0 = time.perf_counter()
        tracker.refresh_paths({str(mate)})
        t1 = time.perf_counter()
        got = tracker.unread()
        t2 = time.perf_counter()
        assert got == first
        step.append((t2 - t0) * 1000)
        unread.append((t2 - t1) * 1000)
    print(json.dumps({"step": statistics.median(step), "unread": statistics.median(unread)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", help="the old build's sidecar folder")
    ap.add_argument("--new", default=str(REPO / "sidecar"))
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--changes", type=int, default=30)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--seen", type=int, default=1000)
    ap.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(*a.child)
        return
    builds = {"old": a.old, "new": a.new} if a.old else {"new": a.new}
    for size in (int(s) for s in a.sizes.split(",")):
        got: dict[str, list[dict[str, float]]] = {b: [] for b in builds}
        for _ in range(a.pairs):
            for name, path in builds.items():
                env = dict(os.environ, PYTHONPATH=path)
                out = subprocess.run(
                    [sys.executable, __file__, "--child", str(size), str(a.seen), str(a.changes)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
                got[name].append(json.loads(out))
        line = [f"{size:,} entries, {a.seen:,} seen:"]
        for name, runs in got.items():
            step = statistics.median(r["step"] for r in runs)
            unread = statistics.median(r["unread"] for r in runs)
            line.append(f"{name} step {step:.3f} ms (unread {unread:.3f} ms)")
        print("  ".join(line), flush=True)


if __name__ == "__main__":
    main()
