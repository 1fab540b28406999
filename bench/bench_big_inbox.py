"""Old vs new sidecar, alternating in one period: the 27 MB inbox and `teams`.

Not a test: nothing here asserts a time. Each run is the real `teaminbox serve`
(benchlib's Session), with PYTHONPATH set to each build's sidecar in turn:

1. start with a 10,000-entry inbox of ~27 MB (`--entry-bytes 300`: bench_server's 3 MB one;
   spawn -> every inbox loaded; `first`:
   spawn -> the first `teams` answer), then
   appends to it -> didChange, and the server's peak RSS;
2. `teams` at 1,000 entries, `--calls` requests.

    git archive 38c3eb2 sidecar | tar -x -C /tmp/old
    .venv/bin/python bench/bench_big_inbox.py --old /tmp/old/sidecar --pairs 4
    .venv/bin/python bench/bench_big_inbox.py --old /tmp/old/sidecar --only big --entry-bytes 300
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import big_appends  # noqa: E402
from benchlib.inboxes import dumps, make_entry, make_team  # noqa: E402
from benchlib.session import Session, vm  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


async def big(base: Path, data: bytes, appends: int) -> dict[str, Any]:
    root = base / "teams"
    team = make_team(root, "heavy", ["team-lead", "researcher"])
    path = team / "inboxes" / "user.json"
    path.write_bytes(data)
    s = Session()
    start = await s.start(root, base / "history.db")
    try:
        await asyncio.sleep(0.5)
        lat, _, _ = await big_appends(s, path, data, 10**6, appends)
        hwm = vm(s.pid, "VmHWM")
    finally:
        await s.stop()
    return {"start": start, "first": s.first_teams_ms, "append": statistics.median(lat), "hwm": hwm}


async def teams(base: Path, n: int, calls: int) -> dict[str, Any]:
    root = base / "teams"
    team = make_team(root, "big", ["team-lead", "researcher"])
    (team / "inboxes" / "user.json").write_bytes(dumps([make_entry(i, 70) for i in range(n)]))
    s = Session()
    await s.start(root, base / "history.db")
    out: list[float] = []
    try:
        await asyncio.sleep(2.5)  # a tree untouched for 2 s: the rescan may skip the listing
        for _ in range(calls):
            t0 = time.perf_counter()
            await s.call("teamInbox/teams", {})
            out.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.005)
    finally:
        await s.stop()
    return {"teams": statistics.median(out)}


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", required=True, help="the old build's sidecar folder")
    ap.add_argument("--new", default=str(REPO / "sidecar"))
    ap.add_argument("--pairs", type=int, default=4)
    ap.add_argument("--appends", type=int, default=15)
    ap.add_argument("--calls", type=int, default=130)
    ap.add_argument("--only", choices=["big", "teams"])
    ap.add_argument(
        "--entry-bytes",
        type=int,
        default=2700,
        help="1.'s entries as written (300: bench_server's)",
    )
    args = ap.parse_args()
    builds = {"old": args.old, "new": args.new}
    # Both builds start from bytecode, as installed ones do (the extension keeps it in its
    # storage): with PYTHONDONTWRITEBYTECODE set, each start compiled every module from source,
    # and the build with more code paid more for it (~40 ms of a start here).
    for folder in builds.values():
        compileall.compile_dir(folder, quiet=1)
    data = dumps([make_entry(i, args.entry_bytes - 230) for i in range(10_000)])
    rows: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    tmp = Path(tempfile.mkdtemp(prefix="teaminbox-bench-big-"))
    try:
        for p in range(args.pairs):
            order = ["old", "new"] if p % 2 == 0 else ["new", "old"]
            for label in order:
                os.environ["PYTHONPATH"] = builds[label]
                r: dict[str, Any] = {}
                if args.only in (None, "big"):
                    r |= await big(tmp / f"{label}{p}b", data, args.appends)
                if args.only in (None, "teams"):
                    r |= await teams(tmp / f"{label}{p}t", 1000, args.calls)
                rows[label].append(r)
                print(
                    f"{time.strftime('%H:%M:%S')} pair {p} {label}: "
                    + ", ".join(f"{k} {v:.2f}" for k, v in r.items()),
                    flush=True,
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("medians (old / new, ratio):")
    for key in rows["old"][0]:
        o = statistics.median(r[key] for r in rows["old"])
        n = statistics.median(r[key] for r in rows["new"])
        print(f"  {key}: {o:.2f} / {n:.2f}  {n / o:.2f}x")
        print(f"    old {[round(r[key], 2) for r in rows['old']]}")
        print(f"    new {[round(r[key], 2) for r in rows['new']]}")


if __name__ == "__main__":
    asyncio.run(main())
