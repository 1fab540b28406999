"""1. Sends per second into one contended inbox: processes of our writer and of Claude Code's."""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys
import time
from typing import Any

from benchlib.stats import median, pct
from store_bench.holdclock import HoldClock
from store_bench.inboxes import MARKER, TEXT_BYTES, copy_inbox, our_entry
from store_bench.node_writer import BENCH, NODE_FLAGS, WRITER_JS
from teaminbox import store
from teaminbox.errors import TeamInboxError
from teaminbox.formats.claude import CLAUDE

try:  # this tree (ensure_claude_inbox in formats/claude.py)
    from teaminbox.formats.claude import ensure_claude_inbox
except ImportError:  # an old build on PYTHONPATH (before 7918248's restructuring)
    from teaminbox.store import ensure_claude_inbox  # type: ignore[attr-defined,no-redef]


# the workers are bench_store.py itself, run with --worker
BENCH_STORE = os.path.join(BENCH, "bench_store.py")


def worker_ours(inbox: str, count: int, size: int, tag: str, start_at: float) -> None:
    """One of N contending processes of our writer; one JSON line on stdout."""
    clock = HoldClock()
    clock.install()
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    acked: list[int] = []
    lost: list[int] = []
    latency: list[float] = []
    errors: collections.Counter[str] = collections.Counter()
    t0 = time.time()
    for i in range(count):
        entry = our_entry(tag, i, size)
        s = time.perf_counter()
        try:
            ensure_claude_inbox(inbox)
            store.append(CLAUDE, inbox, [entry])
        except (TeamInboxError, OSError) as err:
            lost.append(i)
            errors[type(err).__name__] += 1
        else:
            acked.append(i)
        latency.append((time.perf_counter() - s) * 1000)
    t1 = time.time()
    print(
        json.dumps(
            {
                "tag": tag,
                "acked": acked,
                "lost": lost,
                "errors": dict(errors),
                "holds": clock.holds,
                "steps": clock.steps,
                "latency": latency,
                "redone": clock.redone,
                "appends": clock.appends,
                "start": t0 * 1000,
                "end": t1 * 1000,
            }
        ),
        flush=True,
    )


def contended_run(
    base: str, name: str, n_ours: int, n_node: int, count: int, seed_file: str
) -> dict[str, Any]:
    folder = os.path.join(base, f"contended-{name}", "inboxes")
    inbox = os.path.join(folder, "lead.json")
    copy_inbox(seed_file, inbox)
    start_at = time.time() + 2.0 + 0.3 * (n_ours + n_node)  # after every process has started
    procs = []
    for k in range(n_ours):
        cmd = [sys.executable, BENCH_STORE, "--worker", inbox]
        cmd += [str(count), str(TEXT_BYTES), f"py{k}", repr(start_at)]
        procs.append(("ours", subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)))
    for k in range(n_node):
        cmd = ["node", *NODE_FLAGS, WRITER_JS, "send", inbox, str(count), str(TEXT_BYTES)]
        cmd += [f"node{k}", str(int(start_at * 1000))]
        procs.append(("node", subprocess.Popen(cmd, cwd=BENCH, stdout=subprocess.PIPE, text=True)))
    results: list[tuple[str, dict[str, Any]]] = []
    for who, p in procs:
        out, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"{who} worker failed with {p.returncode}")
        results.append((who, json.loads(out.strip().splitlines()[-1])))

    # Integrity: every acknowledged message exactly once, the old ones untouched.
    snap = store.read(CLAUDE, inbox)
    seen: collections.Counter[tuple[str, int]] = collections.Counter()
    old = 0
    for e in snap.entries:
        m = MARKER.match(e.get("text", ""))
        if m and m.group(1) != "old":
            seen[(m.group(1), int(m.group(2)))] += 1
        elif m:
            old += 1
    seed_entries = len(store.read(CLAUDE, seed_file).entries)
    out: dict[str, Any] = {"name": name, "n_ours": n_ours, "n_node": n_node}
    start = min(r["start"] for _, r in results)
    end = max(r["end"] for _, r in results)
    wall = (end - start) / 1000
    out["wall_s"] = wall
    missing = dupes = ghost = 0
    for who in ("ours", "node"):
        rs = [r for w, r in results if w == who]
        if not rs:
            continue
        acked = sum(len(r["acked"]) for r in rs)
        gaveup = sum(len(r["lost"]) for r in rs)
        for r in rs:
            for i in r["acked"]:
                c = seen.get((r["tag"], i), 0)
                missing += c == 0
                dupes += c > 1
            for i in r["lost"]:
                ghost += seen.get((r["tag"], i), 0) > 0
        holds = [h for r in rs for h in r["holds"]]
        steps: dict[str, list[float]] = collections.defaultdict(list)
        for r in rs:
            if who == "ours":
                for k, v in r["steps"].items():
                    steps[k].extend(v)
            else:
                for st in r["steps"]:
                    for k, v in st.items():
                        steps[k].append(v)
        errs: collections.Counter[str] = collections.Counter()
        for r in rs:
            errs.update(r["errors"])
        wall_who = (max(r["end"] for r in rs) - min(r["start"] for r in rs)) / 1000
        row: dict[str, Any] = {
            "sent": acked + gaveup,
            "acked": acked,
            "gave_up": gaveup,
            "errors": dict(errs),
            "per_s": acked / wall_who if wall_who > 0 else float("nan"),
            "wall_s": wall_who,
            "hold_p50": median(holds),
            "hold_p90": pct(holds, 90),
            "holds": holds,
            "steps": dict(steps),
        }
        if who == "ours":
            lat = [x for r in rs for x in r["latency"]]
            row["lat"] = lat
            row["redone"] = sum(r["redone"] for r in rs)
            row["appends"] = sum(r["appends"] for r in rs)
        out[who] = row
    out["missing"] = missing
    out["duplicated"] = dupes
    out["given_up_but_present"] = ghost
    out["old_kept"] = old == seed_entries
    out["final_entries"] = len(snap.entries)
    out["total_per_s"] = (
        sum(out[w]["acked"] for w in ("ours", "node") if w in out) / wall if wall else 0
    )
    shutil.rmtree(os.path.dirname(folder), ignore_errors=True)
    return out


def merge_reps(reps: list[dict[str, Any]]) -> dict[str, Any]:
    """Repetitions of one contended run: counts add up, rates are the median rep."""
    first = reps[0]
    out: dict[str, Any] = {k: first[k] for k in ("name", "n_ours", "n_node")}
    out["reps"] = len(reps)
    for who in ("ours", "node"):
        if who not in first:
            continue
        rows = [r[who] for r in reps]
        errs: collections.Counter[str] = collections.Counter()
        steps: dict[str, list[float]] = collections.defaultdict(list)
        for w in rows:
            errs.update(w["errors"])
            for k, v in w["steps"].items():
                steps[k].extend(v)
        holds = [h for w in rows for h in w["holds"]]
        row: dict[str, Any] = {
            "acked": sum(w["acked"] for w in rows),
            "gave_up": sum(w["gave_up"] for w in rows),
            "errors": dict(errs),
            "per_s": median([w["per_s"] for w in rows]),
            "per_s_all": [w["per_s"] for w in rows],
            "hold_p50": median(holds),
            "hold_p90": pct(holds, 90),
            "hold_max": max(holds) if holds else float("nan"),
            "steps": {k: median(v) for k, v in steps.items()},
        }
        if who == "ours":
            lat = [x for w in rows for x in w["lat"]]
            row["lat_p50"] = median(lat)
            row["lat_max"] = max(lat) if lat else float("nan")
            row["redone"] = sum(w["redone"] for w in rows)
            row["appends"] = sum(w["appends"] for w in rows)
        out[who] = row
    for k in ("missing", "duplicated", "given_up_but_present"):
        out[k] = sum(r[k] for r in reps)
    out["old_kept"] = all(r["old_kept"] for r in reps)
    out["total_per_s"] = median([r["total_per_s"] for r in reps])
    return out
