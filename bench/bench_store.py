"""Benchmark: our Claude inbox writer vs Claude Code's own (proper-lockfile), side by side.

    .venv/bin/python bench/bench_store.py [--quick] [--no-write]

1. Sends per second into ONE contended inbox: N processes of ours
   (`teaminbox.store.append`), N Node processes of Claude Code's writer
   (bench/node_writer.js), and both MIXED; Node give-ups (messages Claude Code
   would lose) are counted and every acknowledged message is checked to be in
   the file exactly once.
2. How long each writer holds the lock per append at 100 .. 100,000 existing
   entries of ~2.7 KB (the issue: 10,000 entries = 27 MB), with a breakdown of
   where our hold time goes.
3. How long it takes to read (parse into messages) those inboxes.

The machine is shared and noisy: quote medians and ratios, not single runs.
Writes the figures to bench/runs.md, section "Core writer".
Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import subprocess
import tempfile
import time
from typing import Any

from benchlib.node import ensure_node_modules
from benchlib.runs import REPO, RESULTS, write_section
from benchlib.stats import median, ms
from store_bench.contended import contended_run, merge_reps, worker_ours
from store_bench.hold import hold_and_read
from store_bench.holdclock import HoldClock
from store_bench.inboxes import prepare_inbox
from store_bench.report import SECTION, disk_of, machine, size_table, throughput_table, verdict


def pick_base() -> str:
    out = subprocess.run(["df", "-T", "/tmp"], capture_output=True, text=True, check=False)
    fstype = out.stdout.splitlines()[-1].split()[1] if out.returncode == 0 else "tmpfs"
    if fstype in ("tmpfs", "ramfs", "overlay"):
        root = os.path.join(REPO, ".bench-tmp")
        os.makedirs(root, exist_ok=True)
        return tempfile.mkdtemp(prefix="teaminbox-bench-", dir=root)
    return tempfile.mkdtemp(prefix="teaminbox-bench-", dir="/tmp")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller counts, no 100k inbox")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/runs.md")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    ap.add_argument("--worker", nargs=5, metavar="ARG", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        inbox, count, size, tag, start_at = args.worker
        worker_ours(inbox, int(count), int(size), tag, float(start_at))
        return
    ensure_node_modules()

    procs = 4
    count = 20 if args.quick else 40
    n_reps = 1 if args.quick else 5
    seed_n = 100
    sizes = (
        [(100, 30), (1_000, 20), (10_000, 10)]
        if args.quick
        else [(100, 50), (1_000, 30), (10_000, 15), (100_000, 3)]
    )
    reads = {100: 20, 1_000: 10, 10_000: 7, 100_000: 3}

    base = pick_base()
    info = machine()
    info["disk"] = disk_of(base)
    t_start = time.time()
    print(f"# bench_store ({'quick' if args.quick else 'full'}) in {base}", flush=True)
    try:
        # 2 + 3 first (single writer, quiet), then the contended runs.
        clock = HoldClock()
        clock.install()
        rows = []
        for n, appends in sizes:
            print(f"- {n:,} entries: {appends} appends each ...", flush=True)
            rows.append(hold_and_read(base, n, appends, reads[n], clock))
            r = rows[-1]
            print(
                f"  hold ours {ms(median(r['ours_hold']))} ms, node "
                f"{ms(median(r['node_hold']))} ms; read ours {ms(r['ours_read'])} ms, "
                f"node {ms(r['node_read'])} ms",
                flush=True,
            )

        seed = os.path.join(base, "seed", "lead.json")
        prepare_inbox(seed, seed_n)
        plan = [
            ("ours alone", procs, 0),
            ("node alone", 0, procs),
            ("mixed", procs, procs),
            (f"node alone x{2 * procs} (control)", 0, 2 * procs),
        ]
        reps: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for rep in range(n_reps):  # interleaved, so a noisy spell hits every kind of run
            for name, no, nn in plan:
                print(f"- contended, rep {rep + 1}/{n_reps}: {name} ...", flush=True)
                reps[name].append(contended_run(base, name.split(" (")[0], no, nn, count, seed))
                r = reps[name][-1]
                parts = [
                    f"{w} {r[w]['per_s']:.1f}/s gave up {r[w]['gave_up']}"
                    for w in ("ours", "node")
                    if w in r
                ]
                print(
                    f"  {'; '.join(parts)}; missing {r['missing']} dup {r['duplicated']}",
                    flush=True,
                )
        runs = [merge_reps(reps[name]) for name, _, _ in plan]
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    elapsed = time.time() - t_start

    m = info
    head = [
        SECTION,
        "",
        f"`.venv/bin/python bench/bench_store.py{' --quick' if args.quick else ''}`, "
        f"{m['date']}, {elapsed:.0f} s. Our writer: `teaminbox.store.append` "
        "(pre-parse and pre-write+fsync outside the lock; under it re-read, compare, "
        "rename, fsync dir, verify). Node: bench/node_writer.js, Claude Code's protocol with "
        "proper-lockfile 4.1.2 and its exact options (retries 10, 5-100 ms).",
        "",
        f"Machine (shared and noisy: quote medians and ratios): {m['cpu']}, {m['cores']} cores, "
        f"{m['ram']} RAM, {m['os']}; disk {m['disk']}; Python {m['python']} "
        f"(orjson {m['orjson']}), node {m['node']}.",
        "",
        "### Summary",
        "",
        *verdict(rows, runs),
        "",
        "### 1. Contended sends",
        "",
        *throughput_table(runs, procs, count, seed_n),
        "",
        "### 2-3. Lock hold and read time by inbox size",
        "",
        *size_table(rows),
        "",
    ]
    text = "\n".join(head)
    print()
    print(text)
    if not args.no_write:
        write_section(text, SECTION)
        print(f"(written to {os.path.relpath(RESULTS)})")


if __name__ == "__main__":
    main()
