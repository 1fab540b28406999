"""The server's own CPU to start and per `messages` page and `teams`, two builds in turn (a probe).

On a loaded machine a round trip's wall time is mostly waiting for a core; the CPU the server
process spends on the same requests (from /proc/<pid>/stat) is not. Each run starts the real
`teaminbox serve` with PYTHONPATH set to one build's sidecar on one inbox of 10,000 entries
(bench_server's), asks the first page, the page at N/2 and `teams` `--calls` times each, and
then `--calls` writes by a peer into a small inbox, each to its `didChange`; it reads the server's
CPU at its first `teams` answer (the start: every entry archived) and
before and after each series.

    .venv/bin/python bench/probe_page_cpu.py --old /tmp/old/sidecar --pairs 6
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from benchlib.inboxes import append_bytes, atomic_write, dumps, make_entry, make_team
from benchlib.session import Session

REPO = Path(__file__).resolve().parent.parent
TICK = os.sysconf("SC_CLK_TCK")
N = 10_000


def cpu_ms(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


async def one(base: Path, data: bytes, calls: int) -> dict[str, float]:
    root = base / "teams"
    make_team(root, "big", ["team-lead", "researcher"])
    (root / "big" / "inboxes" / "user.json").write_bytes(data)
    small = root / "big" / "inboxes" / "researcher.json"
    small.write_bytes(dumps([make_entry(i, 300) for i in range(5)]))
    s = Session()
    out = {"start": await s.start(root, base / "history.db")}
    out["start_cpu"] = cpu_ms(s.pid)
    try:
        await asyncio.sleep(1.0)
        series = {
            "page": ("teamInbox/messages", {"team": "big", "inbox": "user", "limit": 200}),
            "deep": (
                "teamInbox/messages",
                {"team": "big", "inbox": "user", "limit": 200, "offset": N // 2},
            ),
            "teams": ("teamInbox/teams", {}),
        }
        for name, (method, params) in series.items():
            c0 = cpu_ms(s.pid)
            for _ in range(calls):
                await s.call(method, params)
            out[name] = (cpu_ms(s.pid) - c0) / calls
        c0 = cpu_ms(s.pid)
        for k in range(calls):  # a peer's write -> its didChange, 20 ms apart
            e = make_entry(1000 + k, 300, sender="team-lead")
            since = len(s.changes)
            atomic_write(small, append_bytes(small.read_bytes(), e))
            await s.wait_change("researcher", e["text"], since, timeout=30)
            await asyncio.sleep(0.02)
        out["write"] = (cpu_ms(s.pid) - c0) / calls
    finally:
        await s.stop()
    return out


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", required=True, help="the old build's sidecar folder")
    ap.add_argument("--new", default=str(REPO / "sidecar"))
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()
    builds = {"old": args.old, "new": args.new}
    data = dumps([make_entry(i, 300 - 230) for i in range(N)])
    rows: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    tmp = Path(tempfile.mkdtemp(prefix="teaminbox-probe-page-"))
    try:
        for p in range(args.pairs):
            for label in ["old", "new"] if p % 2 == 0 else ["new", "old"]:
                os.environ["PYTHONPATH"] = builds[label]
                r = await one(tmp / f"{label}{p}", data, args.calls)
                rows[label].append(r)
                print(f"pair {p} {label}: " + ", ".join(f"{k} {v:.2f}" for k, v in r.items()))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        "server CPU ms a request (start: wall ms; start_cpu: CPU ms to the start), old / new, paired ratio:"
    )
    for key in rows["old"][0]:
        o = [r[key] for r in rows["old"]]
        n = [r[key] for r in rows["new"]]
        ratios = [b / a for a, b in zip(o, n, strict=True) if a]
        print(
            f"  {key}: {statistics.median(o):.2f} / {statistics.median(n):.2f}"
            f"  {statistics.median(ratios):.2f}"
        )


if __name__ == "__main__":
    asyncio.run(main())
