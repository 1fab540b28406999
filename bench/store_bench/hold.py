"""2. The lock held per append, and 3. the read time, at one inbox size, for both writers."""

from __future__ import annotations

import os
import shutil
import time
from typing import Any

from benchlib.stats import median
from store_bench.holdclock import HoldClock
from store_bench.inboxes import TEXT_BYTES, copy_inbox, our_entry, prepare_inbox
from store_bench.node_writer import run_node
from teaminbox import store
from teaminbox.formats.claude import CLAUDE


def hold_and_read(base: str, n: int, appends: int, reads: int, clock: HoldClock) -> dict[str, Any]:
    folder = os.path.join(base, f"size-{n}")
    seed = os.path.join(folder, "seed.json")
    t = time.perf_counter()
    size = prepare_inbox(seed, n)
    prep_s = time.perf_counter() - t
    row: dict[str, Any] = {"n": n, "bytes": size, "appends": appends, "prep_s": prep_s}

    # 3. reads first, on the pristine file (page cache warm for both).
    ours_reads = []
    for _ in range(reads):
        t = time.perf_counter()
        msgs = store.messages(CLAUDE, store.read(CLAUDE, seed), "bench", "lead")
        ours_reads.append((time.perf_counter() - t) * 1000)
        assert len(msgs) == n
        del msgs
    ours_parse = []
    for _ in range(reads):
        t = time.perf_counter()
        snap = store.read(CLAUDE, seed)
        ours_parse.append((time.perf_counter() - t) * 1000)
        del snap
    node_reads = run_node(["read", seed, str(reads)])
    assert node_reads["entries"] == n
    row["ours_read"] = median(ours_reads)
    row["ours_parse_only"] = median(ours_parse)
    row["node_read"] = median(node_reads["times"])

    # 2. ours: in this process, instrumented.
    ours_inbox = os.path.join(folder, "ours", "lead.json")
    copy_inbox(seed, ours_inbox)
    clock.reset()
    totals = []
    for i in range(appends):
        entry = our_entry("hold", i)
        t = time.perf_counter()
        store.append(CLAUDE, ours_inbox, [entry])
        totals.append((time.perf_counter() - t) * 1000)
    assert clock.appends == appends, clock.appends
    assert len(store.read(CLAUDE, ours_inbox).entries) == n + appends
    row["ours_hold"] = clock.holds
    row["ours_total"] = totals
    row["ours_steps"] = {k: median(v) for k, v in clock.steps.items()}
    row["ours_redone"] = clock.redone
    shutil.rmtree(os.path.dirname(ours_inbox))

    # 2. node: Claude Code's writer in its own process.
    node_inbox = os.path.join(folder, "node", "lead.json")
    copy_inbox(seed, node_inbox)
    res = run_node(["hold", node_inbox, str(appends), str(TEXT_BYTES)])
    row["node_hold"] = res["holds"]
    row["node_total"] = res["totals"]
    row["node_steps"] = {k: median([st[k] for st in res["steps"]]) for k in res["steps"][0]}
    assert len(store.read(CLAUDE, node_inbox).entries) == n + appends
    shutil.rmtree(folder)
    return row
