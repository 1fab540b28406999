"""Requests answered during a flood of writes, and the idle server's CPU.

Not a test: nothing here asserts a time. The real `teaminbox serve` (benchlib's
Session, a pygls client over stdio), with PYTHONPATH set to each build's sidecar in
turn, old and new alternating in one run:

1. flood: Claude Code's own writer (tests/interop/node/flood_writer.js: proper-lockfile
   with Claude Code's options, one locked write per message) puts `--per-inbox` messages
   into each of `--inboxes` person's inboxes (`user.json` of as many teams, among
   `--teams` teams), evenly over `--seconds`, while the client asks `teamInbox/teams`
   and `teamInbox/messages` (a quiet inbox, limit 50) in turn, one at a time, 20 ms
   apart: their latency (asked during the flood), how many were answered during it, and
   that every acknowledged message came as exactly one `replied`;
2. idle: `--idle-teams` teams (3 inboxes each), the server left alone after its start;
   its CPU from /proc/<pid>/stat (utime + stime, all threads) over `--idle-seconds`,
   from 5 s after its first answer (`busy`: the new build still ticks at its busy pace,
   2 s, in its first 30 s of quiet) and again from 35 s after it (`idle`).

    .venv/bin/python bench/bench_flood.py                   # old = main's merge base
    .venv/bin/python bench/bench_flood.py --old 9170ac7 --pairs 3
    options: --only flood|idle, --no-write (leave runs.md alone), --keep
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib.inboxes import make_team  # noqa: E402
from benchlib.runs import machine, write_section  # noqa: E402
from benchlib.session import Session, listen  # noqa: E402
from benchlib.stats import pct  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SECTION = "## Flood and idle"
FLOOD_WRITER = REPO / "tests" / "interop" / "node" / "flood_writer.js"
TICK = os.sysconf("SC_CLK_TCK")


def make_world(root: Path, teams: int) -> list[Path]:
    """`teams` Claude teams (a lead and a worker; their inboxes and the person's `user.json`,
    one message each); returns the person's inboxes in team order."""
    own = []
    for i in range(teams):
        name = f"team{i:04d}"
        team = make_team(root, name, ["team-lead", "worker"])
        for inbox in ("team-lead", "worker", "user"):
            first = {
                "from": "worker",
                "text": f"hello {i}",
                "timestamp": "2026-11-01T00:00:00.000Z",
                "read": False,
            }
            (team / "inboxes" / f"{inbox}.json").write_text(json.dumps([first], indent=2))
        own.append(team / "inboxes" / "user.json")
    return own


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


# --- 1. flood --------------------------------------------------------------------------------


async def flood(base: Path, args: argparse.Namespace) -> dict[str, Any]:
    root = base / "teams"
    own = make_world(root, args.teams)[: args.inboxes]
    s = Session()
    replied: list[tuple[float, str]] = []
    listen(
        s, "teamInbox/replied", lambda ls, p: replied.append((time.time(), p["message"]["text"]))
    )
    await s.start(root, base / "history.db")
    await asyncio.sleep(2.5)  # a tree untouched for 2 s: as a server that runs a while
    asked: list[tuple[str, float, float]] = []  # (method, asked, answered), epoch s
    done = asyncio.Event()

    async def ask() -> None:
        quiet = {"team": f"team{args.teams - 1:04d}", "inbox": "worker", "limit": 50}
        calls = [("teamInbox/teams", {}), ("teamInbox/messages", quiet)]
        k = 0
        while not done.is_set():
            method, params = calls[k % 2]
            k += 1
            t0 = time.time()
            await s.call(method, params)
            asked.append((method, t0, time.time()))
            await asyncio.sleep(0.02)

    asker = asyncio.ensure_future(ask())
    await asyncio.sleep(0.5)
    cpu0, mine0, changes0 = cpu_seconds(s.pid), time.process_time(), len(s.changes)
    proc = await asyncio.create_subprocess_exec(
        "node",
        str(FLOOD_WRITER),
        str(args.per_inbox),
        str(args.seconds),
        "f",
        *map(str, own),
        stdout=asyncio.subprocess.PIPE,
    )
    out, _ = await proc.communicate()
    cpu1, mine1 = cpu_seconds(s.pid), time.process_time()
    lines = out.decode().splitlines()
    start = int(lines[0].split()[1]) / 1000
    end = int(lines[-1].split()[2]) / 1000
    acked = {ln.split()[1]: int(ln.split()[2]) / 1000 for ln in lines if ln.startswith("ACK ")}
    gaveup = [ln for ln in lines if ln.startswith("GAVEUP ")]
    # every acknowledged message once: wait (bounded) for the server to catch up
    deadline = time.time() + 120
    while time.time() < deadline and len({t for _, t in replied} & set(acked)) < len(acked):
        await asyncio.sleep(0.1)
    caught_up = max((t for t, _ in replied), default=end)
    done.set()
    await asker
    # nothing lost: every acknowledged message is in its inbox, as the server has it
    missing = 0
    for k in range(len(own)):
        page = await s.call(
            "teamInbox/messages", {"team": f"team{k:04d}", "inbox": "user", "limit": 1000}
        )
        texts = {m["text"] for m in page["messages"]}
        missing += sum(1 for i in range(args.per_inbox) if f"f-{k}-{i}" not in texts)
    await s.stop()
    counts: dict[str, int] = {}
    for _, t in replied:
        counts[t] = counts.get(t, 0) + 1
    during = [(m, a, b) for m, a, b in asked if start <= a and b <= end]
    teams_ms = [(b - a) * 1000 for m, a, b in asked if m == "teamInbox/teams" and start <= a < end]
    msgs_ms = [
        (b - a) * 1000 for m, a, b in asked if m == "teamInbox/messages" and start <= a < end
    ]
    return {
        "teams_p50": pct(teams_ms, 50),
        "teams_p99": pct(teams_ms, 99),
        "teams_max": max(teams_ms, default=float("nan")),
        "messages_p50": pct(msgs_ms, 50),
        "messages_p99": pct(msgs_ms, 99),
        "answered": len(during),
        "teams_answered": sum(1 for m, _, _ in during if m == "teamInbox/teams"),
        "acked": len(acked),
        "gaveup": len(gaveup),
        "replied_once": sum(1 for t in acked if counts.get(t) == 1),
        "replied_twice": sum(1 for t in acked if counts.get(t, 0) > 1),
        "not_replied": sum(1 for t in acked if t not in counts),
        "lost": missing,
        "flood_s": end - start,
        "lag_s": max(0.0, caught_up - end),
        "cpu": 100 * (cpu1 - cpu0) / (end - start),
        "client_cpu": 100 * (mine1 - mine0) / (end - start),
        "didchange": len(s.changes) - changes0,
    }


# --- 2. idle ---------------------------------------------------------------------------------


async def idle(base: Path, args: argparse.Namespace) -> dict[str, Any]:
    root = base / "teams"
    make_world(root, args.idle_teams)
    s = Session()
    start = await s.start(root, base / "history.db")
    answered = time.monotonic()
    out: dict[str, Any] = {"start_s": start / 1000}
    try:
        for key, after in (("busy_cpu", 5.0), ("idle_cpu", 35.0)):
            await asyncio.sleep(max(0.0, answered + after - time.monotonic()))
            t0, c0 = time.monotonic(), cpu_seconds(s.pid)
            await asyncio.sleep(
                min(args.idle_seconds, 25.0) if key == "busy_cpu" else args.idle_seconds
            )
            out[key] = 100 * (cpu_seconds(s.pid) - c0) / (time.monotonic() - t0)
        a0 = time.perf_counter()
        await s.call("teamInbox/teams", {})
        out["teams_ms"] = (time.perf_counter() - a0) * 1000
    finally:
        await s.stop()
    return out


# --- the builds, the run ---------------------------------------------------------------------


def old_build(ref: str, into: Path) -> Path:
    """The old sidecar as committed at `ref` (git archive: no worktree left behind)."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", ref, "sidecar"], cwd=REPO, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "sidecar"


def merge_base() -> str:
    out = subprocess.run(
        ["git", "merge-base", "HEAD", "main"], cwd=REPO, capture_output=True, text=True
    )
    return out.stdout.strip()[:10] or "main"


FLOOD_KEYS = ("teams_p50", "teams_p99", "messages_p50", "messages_p99", "answered", "cpu")


def render(
    rows: dict[str, list[dict[str, Any]]], ref: str, args: argparse.Namespace, took: float
) -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")

    def med(label: str, key: str) -> float:
        return statistics.median(r[key] for r in rows[label] if key in r)

    def runs(label: str, key: str) -> str:
        return ", ".join(f"{r[key]:.3g}" for r in rows[label] if key in r)

    lines = [
        SECTION,
        "",
        f"`.venv/bin/python bench/bench_flood.py --old {ref} --pairs {args.pairs}`, {now},"
        f" {took:.0f} s; old = the sidecar at {ref} (main where this branch started), new ="
        " this branch; old and new alternate, the medians of the runs are quoted (each run's"
        " figure in brackets).",
        "",
        f"Machine (shared with other agents' work, noisy: read medians and ratios): {machine()}.",
        "",
    ]
    if rows["old"] and "teams_p50" in rows["old"][0]:
        lines += [
            f"Flood: {args.inboxes} person's inboxes (`user.json` of {args.inboxes} of {args.teams}"
            f" Claude teams) each get {args.per_inbox} messages over {args.seconds} s from Claude"
            " Code's own writer (proper-lockfile, one locked write a message:"
            f" {args.inboxes * args.per_inbox:,} in all) while the client asks `teams` and"
            " `messages` in turn, one at a time, 20 ms apart. Latency of the requests asked"
            " during the flood; `answered`: requests asked and answered within it; `cpu`: the"
            " server's CPU during the flood, % of one core.",
            "",
            "| measure | old | new | new / old |",
            "|---|---|---|---|",
        ]
        for key in FLOOD_KEYS:
            o, n = med("old", key), med("new", key)
            lines.append(
                f"| {key} | {o:.4g} ({runs('old', key)}) | {n:.4g} ({runs('new', key)})"
                f" | {ratio(n, o)} |"
            )
        lines.append("")
        for label in ("old", "new"):
            rs = rows[label]
            lines.append(
                f"- {label}: acknowledged {sum(r['acked'] for r in rs):,} (gave up"
                f" {sum(r['gaveup'] for r in rs)}), `replied` exactly once for"
                f" {sum(r['replied_once'] for r in rs):,}, twice or more"
                f" {sum(r['replied_twice'] for r in rs)}, never"
                f" {sum(r['not_replied'] for r in rs)}; missing from the server's inboxes"
                f" {sum(r['lost'] for r in rs)}; the last `replied` came"
                f" {runs(label, 'lag_s')} s after the flood's last write."
            )
        lines.append("")
    if rows["old"] and "idle_cpu" in rows["old"][0]:
        o, n = med("old", "idle_cpu"), med("new", "idle_cpu")
        ob, nb = med("old", "busy_cpu"), med("new", "busy_cpu")
        lines += [
            f"Idle: {args.idle_teams:,} Claude teams (3 inboxes each, one message in each), the"
            " server left alone after its first answer; its CPU (utime + stime of all its"
            f" threads, /proc/<pid>/stat) over {args.idle_seconds:.0f} s, % of one core:",
            "",
            "| window | old | new | new / old |",
            "|---|---|---|---|",
            f"| idle: from 35 s after the first answer | {o:.2f} ({runs('old', 'idle_cpu')})"
            f" | {n:.2f} ({runs('new', 'idle_cpu')}) | {ratio(n, o)} |",
            f"| from 5 s after it (the new build's busy pace, its first 30 s) | {ob:.2f}"
            f" ({runs('old', 'busy_cpu')}) | {nb:.2f} ({runs('new', 'busy_cpu')})"
            f" | {ratio(nb, ob)} |",
            "",
            f"A `teams` answer after that: old {med('old', 'teams_ms'):.0f} ms, new"
            f" {med('new', 'teams_ms'):.0f} ms; spawn to the first answer: old"
            f" {med('old', 'start_s'):.1f} s, new {med('new', 'start_s'):.1f} s.",
            "",
        ]
    return "\n".join(lines)


def ratio(new: float, old: float) -> str:
    return f"{new / old:.2f}x" if old else "-"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--old", default=None, help="git ref of the old build (default: merge base)")
    ap.add_argument("--new", default=str(REPO / "sidecar"), help="the new build's sidecar folder")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--only", choices=["flood", "idle"])
    ap.add_argument("--teams", type=int, default=200)
    ap.add_argument("--inboxes", type=int, default=50)
    ap.add_argument("--per-inbox", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--idle-teams", type=int, default=2000)
    ap.add_argument("--idle-seconds", type=float, default=20)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    t_start = time.monotonic()
    ref = args.old or merge_base()
    tmp = Path(tempfile.mkdtemp(prefix="teaminbox-bench-flood-"))
    builds = {"old": str(old_build(ref, tmp / "old")), "new": args.new}
    for folder in builds.values():  # both start from bytecode (see bench_big_inbox)
        compileall.compile_dir(folder, quiet=1)
    rows: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    try:
        for p in range(args.pairs):
            for label in ["old", "new"] if p % 2 == 0 else ["new", "old"]:
                os.environ["PYTHONPATH"] = builds[label]
                r: dict[str, Any] = {}
                if args.only in (None, "flood"):
                    r |= await flood(tmp / f"{label}{p}f", args)
                if args.only in (None, "idle"):
                    r |= await idle(tmp / f"{label}{p}i", args)
                rows[label].append(r)
                print(
                    f"{time.strftime('%H:%M:%S')} pair {p} {label}: "
                    + ", ".join(f"{k} {v:.3g}" for k, v in r.items()),
                    flush=True,
                )
    finally:
        os.environ.pop("PYTHONPATH", None)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    text = render(rows, ref, args, time.monotonic() - t_start)
    print(text)
    if not args.no_write:
        write_section(text, SECTION)


if __name__ == "__main__":
    asyncio.run(main())
