"""Search's bound and its own thread: the worst accepted query's cost, and `teams` while it runs.

Not a test: nothing here asserts a time. A pygls client drives the real `python -m teaminbox
serve` (benchlib.session.Session) on a copy of bench_history.py's cached history (100,000
messages in 500 ended teams by default) and one live Claude team, once per build, each
build's sidecar first on PYTHONPATH:

1. each query's round trip alone (`teamInbox/search`, limit 20): a 32 KB phrase of the
   commonest words (what a pasted page costs: accepted before, refused now), and the
   largest queries the bound lets through (MAX_QUERY_TERMS words, MAX_QUERY_PREFIXES short
   prefixes, none matching, so the whole index is read);
2. the same search again with `teamInbox/teams` asked every TEAMS_EVERY seconds while it
   runs (it waited behind the search on the state thread before), beside `teams` on the
   idle server.

The builds take turns (`--pairs` rounds, the order swapped each round): the machine's load
moves, and both see the same.

    git archive main sidecar | tar -x -C /tmp/search-old      # the build before
    .venv/bin/python bench/bench_search_bound.py --old /tmp/search-old/sidecar
    options: --messages N (a cached history of N messages, N/200 teams), --pairs N,
             --no-write (leave runs.md alone)
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib.runs import machine, write_section
from benchlib.session import Session, widen_start
from benchlib.stats import ms
from history_bench.generate import WORDS, cached_history
from history_bench.heavy import live_team

REPO = Path(__file__).resolve().parent.parent
SECTION = "## Search's bound"
LIMIT = 20
IDLE_TEAMS = 20  # `teams` round trips on the idle server, for the baseline
TEAMS_EVERY = 0.02  # seconds between two `teams` while a search runs
WAIT = 1800.0  # seconds: the longest a search may take here (the 32 KB phrase before)
SETTLE = 15.0  # seconds after the start: a big history's check reads the whole file meanwhile
COMMON = WORDS[:5]  # the commonest words of the generated history (Zipf's first five)


def queries() -> dict[str, str]:
    """name -> query. The bound's: 32 words, 4 two-letter prefixes, at most 1,000 characters."""
    pasted = '"' + (" ".join(COMMON) + " ") * 2200
    words = [COMMON[i % 5] for i in range(32)]
    return {  # the slow one last: what it leaves in the caches is no build's help
        "phrase of 32 common words (bound)": '"' + " ".join(words) + '"',
        "31 common words + a word nowhere (bound)": " ".join([*words[:31], "zzqqxx"]),
        "4 two-letter prefixes + 27 words + a word nowhere (bound)": " ".join(
            ["tk*", "re*", "st*", "co*", *words[:27], "zzqqxx"]
        ),
        "32 KB phrase of the commonest words": pasted[:32767] + '"',
    }


async def one_round(
    label: str, sidecar: str, folder: Path, db_src: Path, out: dict[str, Any]
) -> None:
    """One server of the build on a fresh copy of the history: every query, alone and with
    `teams` beside it; what it measured added to `out`."""
    if folder.exists():
        shutil.rmtree(folder)
    root = folder / "teams"
    live_team(root)
    db = folder / "history.db"
    shutil.copyfile(db_src, db)
    s = Session()
    widen_start(s, env=dict(os.environ, PYTHONPATH=sidecar))
    await s.start(root, db)
    try:
        await asyncio.sleep(SETTLE)
        for _ in range(IDLE_TEAMS):
            t0 = time.perf_counter()
            await s.call("teamInbox/teams", {})
            out["idle_teams"].append((time.perf_counter() - t0) * 1000)
        for name, query in queries().items():
            alone, outcome = await search(s, query)
            beside = await with_teams(s, query)
            got = out["queries"].setdefault(name, {"alone": [], "teams": [], "outcome": outcome})
            got["alone"].append(alone)
            got["teams"].extend(beside)
            print(
                f"  {label}: {name}: {alone:.0f} ms ({outcome}); teams beside it:"
                f" max {max(beside, default=0):.0f} ms over {len(beside)} calls",
                flush=True,
            )
    finally:
        await s.stop()


async def search(s: Session, query: str) -> tuple[float, str]:
    """One search's round trip (ms) and what it gave."""
    params = {"query": query, "limit": LIMIT}
    t0 = time.perf_counter()
    try:
        found = await asyncio.wait_for(
            s.client.protocol.send_request_async("teamInbox/search", params), WAIT
        )
        outcome = f"{len(found['messages'])} found"
    except Exception as err:  # noqa: BLE001 - a refused query is an outcome
        outcome = f"refused: {getattr(err, 'message', err)}"
    return (time.perf_counter() - t0) * 1000, outcome


async def with_teams(s: Session, query: str) -> list[float]:
    """The search again, and `teams` asked every TEAMS_EVERY seconds until it is answered."""
    running = asyncio.ensure_future(search(s, query))
    teams: list[float] = []
    while True:
        await asyncio.sleep(TEAMS_EVERY)
        if running.done():
            break
        t1 = time.perf_counter()
        await asyncio.wait_for(s.client.protocol.send_request_async("teamInbox/teams", {}), WAIT)
        teams.append((time.perf_counter() - t1) * 1000)
    await running
    return teams


def render(results: list[dict[str, Any]], meta: dict[str, Any], args: Any) -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    builds = ", ".join(f"{r['label']} = `{r['sidecar']}`" for r in results)
    lines = [
        SECTION,
        "",
        f"### A history of {meta['messages']:,} messages",
        "",
        f"`bench/bench_search_bound.py`, {now}; {machine()}. Load average"
        f" {args.load[0]} at the start, {args.load[1]} at the end (shared: 2 cores, other"
        f" agents' work). Builds: {builds}. History: {meta['messages']:,} archived messages"
        f" ({meta['bytes'] / 1e6:.0f} MB, bench_history.py's generator), one live Claude team;"
        f" `teamInbox/search` limit {LIMIT}; {args.pairs} round{'s' * (args.pairs != 1)} a build,"
        f" taking turns; `teams`"
        f" every {TEAMS_EVERY * 1000:.0f} ms beside a search; medians (ms).",
        "",
        "| query | build | search alone | `teams` while it runs: median / max (calls) | outcome |",
        "|---|---|---|---|---|",
    ]
    for name in queries():
        for r in results:
            got = r["queries"][name]
            teams = got["teams"]
            cell = (
                f"{ms(statistics.median(teams))} / {ms(max(teams))} ({len(teams)})"
                if teams
                else "none asked"
            )
            lines.append(
                f"| {name} | {r['label']} | {ms(statistics.median(got['alone']))}"
                f" | {cell} | {got['outcome']} |"
            )
    lines.append("")
    idle = " ; ".join(f"{r['label']} {ms(statistics.median(r['idle_teams']))}" for r in results)
    lines.append(f"`teams` on the idle server (median of {IDLE_TEAMS}): {idle}.")
    return "\n".join(lines) + "\n"


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--old", help="the build before: its sidecar folder")
    ap.add_argument("--new", default=str(REPO / "sidecar"))
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    db_src, meta = cached_history(args.messages, max(1, args.messages // 200), False)
    meta["messages"] = args.messages
    start_load = os.getloadavg()[0]
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-search-"))
    builds = [("before", args.old)] if args.old else []
    builds.append(("after", args.new))
    results = [
        {"label": label, "sidecar": sidecar, "idle_teams": [], "queries": {}}
        for label, sidecar in builds
    ]
    try:
        for p in range(args.pairs):
            for r in results if p % 2 == 0 else results[::-1]:
                print(f"round {p + 1}, {r['label']}: {r['sidecar']}", flush=True)
                await one_round(r["label"], r["sidecar"], base / r["label"], db_src, r)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    args.load = (f"{start_load:.2f}", f"{os.getloadavg()[0]:.2f}")
    text = render(results, meta, args)
    print(text)
    if not args.no_write:
        write_section(text, SECTION)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
