"""Benchmarks of the history (SQLite archive) and of capture under Claude Code's pruning.

Not a test: nothing here asserts a time. A pygls client drives the real
`python -m teaminbox serve` subprocess over stdio, as the extension does.

1. Capture under a burst: a Claude session team whose lead inbox gets 200
   messages from Claude Code's own writer (`tests/interop/node/claude_peer.js
   serve`: proper-lockfile, JSON.stringify, temp file + rename), once as fast as
   it goes and once paced at one every 10 ms, each with Claude Code's consumer
   pruning every delivered entry every 500 ms (`claude_peer.js prune`) and,
   side by side, with no pruner. Capture rate = messages the history holds
   afterwards / 200; write -> archived latency = the writer's rename to the
   `didChange` that carries the message (the server archives before it
   publishes); messages pruned before the server saw them.
2. A heavy user's 90-day history: 5,000 ended session teams and 1,000,000
   archived messages generated through `teaminbox.history.History` itself
   (cached under ${TEAMINBOX_CACHE:-~/.cache/teaminbox}/bench/), then the
   server's first `teams` answer, the ended-team listing, full-text search,
   one ended team's conversation and the server's peak RSS, side by side with
   the same work on an empty history.

    npm ci --prefix tests/interop                   # once: proper-lockfile@4.1.2, pinned
    .venv/bin/python bench/bench_history.py         # ~10 min (+ ~15 min the first time: generation)
    .venv/bin/python bench/bench_history.py --quick # 100,000 messages / 500 teams, fewer reps
    options: --no-write (leave runs.md alone), --keep (keep the temp folder),
             --only capture|history, --regenerate (ignore the cached history)
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

from benchlib.node import ensure_node_modules
from benchlib.runs import loadavg, write_section
from history_bench.capture import bench_capture
from history_bench.generate import cached_history
from history_bench.heavy import bench_heavy
from history_bench.report import SECTION, render


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--regenerate", action="store_true")
    ap.add_argument("--only", choices=("capture", "history"))
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-history-"))
    t0 = time.perf_counter()
    load0 = loadavg()
    cap = heavy = None
    try:
        if args.only != "history":
            ensure_node_modules()
            print("1. capture under a burst", flush=True)
            cap = await bench_capture(base, 2 if args.quick else 5)
        if args.only != "capture":
            print("2. a heavy user's history", flush=True)
            n_msgs, n_teams = (100_000, 500) if args.quick else (1_000_000, 5_000)
            heavy = await bench_heavy(
                base, n_msgs, n_teams, args.regenerate, 5 if args.quick else 20
            )
        text = render(cap, heavy, args, time.perf_counter() - t0, (load0, loadavg()))
        print(text)
        if not args.no_write:
            write_section(text, SECTION)
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["gen"]:  # generate (or find) a cached history: gen N_MSGS N_TEAMS
        print(*cached_history(int(sys.argv[2]), int(sys.argv[3]), "--regenerate" in sys.argv))
    else:
        asyncio.run(main())
