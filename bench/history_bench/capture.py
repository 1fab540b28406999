"""1. Capture under a burst: Claude Code's own writer and its pruner against the real server."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import orjson

from benchlib.node import INTEROP_DIR
from benchlib.runs import loadavg
from benchlib.session import Session, vm
from benchlib.stats import median
from history_bench.generate import WORDS
from history_bench.session_team import epoch_iso, make_session_team

PEER = INTEROP_DIR / "node" / "claude_peer.js"
BURST = 200
PRUNE_EVERY = 0.5


async def prune_loop(inbox: Path, stop: asyncio.Event, log: list[dict[str, Any]]) -> None:
    """Claude Code's consumer: every 500 ms, prune every entry in the file (all delivered)."""
    nxt = time.monotonic()
    while not stop.is_set():
        proc = await asyncio.create_subprocess_exec(
            "node",
            str(PEER),
            "prune",
            str(inbox),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate()
        rec: dict[str, Any] = {"rc": proc.returncode}
        if proc.returncode == 0:
            rec.update(json.loads(out))
        else:
            rec["error"] = err.decode(errors="replace").strip().splitlines()[:1]
        log.append(rec)
        nxt += PRUNE_EVERY
        delay = nxt - time.monotonic()
        if delay < 0:
            nxt = time.monotonic()
        try:
            await asyncio.wait_for(stop.wait(), max(delay, 0))
        except asyncio.TimeoutError:
            pass


def burst_entry(run: str, i: int) -> dict[str, Any]:
    words = " ".join(random.Random(i).choices(WORDS[:60], k=30))
    return {
        "from": "helper",
        "text": f"[{run} {i:03d}] {words}",
        "summary": f"update {i}",
        "timestamp": epoch_iso(time.time()),
        "color": "blue",
        "read": False,
    }


async def capture_run(
    c: Session, team: Path, run: str, pace: float | None, prune: bool
) -> dict[str, Any]:
    inbox = team / "inboxes" / "team-lead.json"
    mark = len(c.changes)
    stop = asyncio.Event()
    prunes: list[dict[str, Any]] = []
    pruner = asyncio.ensure_future(prune_loop(inbox, stop, prunes)) if prune else None
    await asyncio.sleep(0.6 if prune else 0.1)
    writer = await asyncio.create_subprocess_exec(
        "node",
        str(PEER),
        "serve",
        str(inbox),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert writer.stdin and writer.stdout and writer.stderr
    texts: list[str] = []
    acks: list[dict[str, Any]] = []

    async def read_acks() -> None:
        assert writer.stdout
        async for line in writer.stdout:
            acks.append(json.loads(line))

    reader = asyncio.ensure_future(read_acks())
    t0 = time.perf_counter()
    t0_epoch = time.time() * 1000
    for i in range(BURST):
        e = burst_entry(run, i)
        texts.append(e["text"])
        writer.stdin.write(orjson.dumps(e) + b"\n")
        if pace:
            await writer.stdin.drain()
            nxt = t0 + (i + 1) * pace
            await asyncio.sleep(max(0, nxt - time.perf_counter()))
    await writer.stdin.drain()
    writer.stdin.close()
    rc = await writer.wait()
    await reader
    took = time.perf_counter() - t0
    werr = (await writer.stderr.read()).decode(errors="replace").strip()
    if prune:  # until the consumer has taken everything
        for _ in range(40):
            if json.loads(inbox.read_bytes() or b"[]") == []:
                break
            await asyncio.sleep(0.25)
        await asyncio.sleep(0.6)
        stop.set()
        assert pruner is not None
        await pruner
    await asyncio.sleep(1.0)  # the last didChange in flight
    page = await c.call(
        "teamInbox/messages",
        {"team": team.name, "inbox": "team-lead", "includeArchived": True, "limit": 10_000},
    )
    kept = {m["text"] for m in page["messages"]}
    convo = await c.call("teamInbox/conversation", {"team": team.name, "limit": 10_000})
    in_convo = {m["text"] for m in convo["messages"]}
    acked = {texts[a["seq"]]: a for a in acks}
    # Session stamps didChange with perf_counter; the writer's clock is the wall clock.
    to_epoch = time.time() - time.perf_counter()
    changes = [(t + to_epoch, p) for t, p in c.changes[mark:]]
    arrived: dict[str, float] = {}  # text -> the first didChange carrying it (epoch s)
    for t, p in changes:
        for m in p["added"]:
            arrived.setdefault(m["text"], t)
    lat = [
        (arrived[t] * 1000 - a["t"]) for t, a in acked.items() if t in arrived
    ]  # epoch ms: rename (writer) -> didChange (client)
    missed = [i for i, t in enumerate(texts) if t in acked and t not in kept]
    # How long each message stood in the file: its rename to the first prune's rename after it.
    prune_tr = sorted(p["tr"] for p in prunes if p["rc"] == 0 and p.get("removed"))
    life: dict[int, float] = {}
    for i, t in enumerate(texts):
        a = acked.get(t)
        nxt = next((x for x in prune_tr if x > a["tr"]), None) if a else None
        if a and nxt is not None:
            life[i] = nxt - a["tr"]
    return {
        "t0_epoch": t0_epoch,
        "changes": [
            (t * 1000 - t0_epoch, len(p["added"]), len(p["removed"]), p["total"])
            for t, p in changes
        ],
        "acks": [acked.get(t) for t in texts],
        "prune_log": prunes,
        "life": life,
        "run": run,
        "pace": pace,
        "prune": prune,
        "acked": len(acked),
        "writer_rc": rc,
        "writer_err": werr.splitlines()[:1],
        "took": took,
        "captured": sum(1 for t in texts if t in kept),
        "in_convo": sum(1 for t in texts if t in in_convo),
        "notified": sum(1 for t in texts if t in arrived),
        "missed": missed,
        "latency": lat,
        "prunes": len(prunes),
        "prune_fail": sum(1 for p in prunes if p["rc"] != 0),
        "prune_err": next((p["error"] for p in prunes if p["rc"] != 0), None),
        "pruned": sum(p.get("removed", 0) for p in prunes),
        "pruned_nonempty": sum(1 for p in prunes if p.get("removed")),
    }


CAPTURE_PLAN = [
    ("fast-noprune", None, False),
    ("fast-prune", None, True),
    ("paced-noprune", 0.010, False),
    ("paced-prune", 0.010, True),
]


async def bench_capture(base: Path, reps: int) -> list[dict[str, Any]]:
    """The four runs `reps` times, interleaved; one server, a fresh team per run."""
    root = base / "capture" / "teams"
    teams = {
        (rep, run): make_session_team(
            root, f"session-{rep:04x}{k:04x}", "myapp", ["helper", "tester"]
        )
        for rep in range(reps)
        for k, (run, _, _) in enumerate(CAPTURE_PLAN)
    }
    c = Session()
    await c.start(root, base / "capture" / "history.db")
    out = []
    try:
        await asyncio.sleep(0.5)
        for rep in range(reps):
            for run, pace, prune in CAPTURE_PLAN:
                r = await capture_run(c, teams[(rep, run)], f"{run}.{rep}", pace, prune)
                r["rep"], r["run"] = rep, run
                out.append(r)
                lat = r["latency"]
                print(
                    f"  {run} #{rep}: acked {r['acked']}, captured {r['captured']}/{BURST}, missed"
                    f" {len(r['missed'])}, latency p50 {median(lat):.1f} ms max"
                    f" {max(lat) if lat else float('nan'):.1f}, prunes {r['prunes']}"
                    f" ({r['prune_fail']} failed, {r['pruned']} removed), took {r['took']:.2f} s,"
                    f" load {loadavg()}",
                    flush=True,
                )
        hwm = vm(c.pid, "VmHWM")
    finally:
        await c.stop()
    for r in out:
        r["hwm"] = hwm
    return out
