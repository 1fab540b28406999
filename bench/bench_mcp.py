"""Benchmarks of `teaminbox mcp`: start to first answer, and `search_messages`
round trips on a heavy history beside the same queries through the JSON-RPC server.

Not a test: nothing here asserts a time. The official MCP SDK's client (`mcp.client.stdio`
+ `ClientSession`) drives the real `teaminbox mcp` subprocess; a pygls client drives
`python -m teaminbox serve` (benchlib.session.Session), both on the same copy of the heavy
history that bench_history.py generates and caches (5,000 ended teams and 1,000,000
messages, or with --quick 500 and 100,000), with one live Claude team.

1. Start: spawn -> `initialize` answered -> first `list_teams` answered, the median of
   several starts, on an empty history and on the heavy one; the JSON-RPC server's spawn
   -> first `teamInbox/teams` beside it.
2. Search: bench_history's ~30 queries (common words, rare ids, phrases, within one
   ended team), several passes, each a round trip: `search_messages` (limit 20) through
   MCP, `teamInbox/search` (limit 20) through JSON-RPC, and the CLI's search command when
   it has one (a process per query).
3. The `mcp` extra's size: its closure installed into a fresh venv (pip, the pinned
   version), beside the core's own pinned dependencies.

    .venv/bin/python bench/bench_mcp.py            # 1,000,000 messages (~15 min to generate once)
    .venv/bin/python bench/bench_mcp.py --quick    # 100,000 messages
    options: --no-write (leave runs.md alone), --starts N, --passes N, --no-size
"""

from __future__ import annotations

import argparse
import asyncio
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

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from benchlib.runs import machine, write_section
from benchlib.session import Session
from benchlib.stats import ms, pct
from history_bench.generate import cached_history
from history_bench.heavy import live_team, pick_teams, queries

REPO = Path(__file__).resolve().parent.parent
SECTION = "## MCP server"
VENV_BIN = Path(sys.executable).parent
LIMIT = 20  # search_messages' default, asked of every path


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def mcp_params(root: Path, db: Path, home: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "TEAMINBOX_ROOTS")}
    env["HOME"] = str(home)  # no default roots of the person's own
    return StdioServerParameters(
        command=str(VENV_BIN / "teaminbox"),
        args=["--no-default-roots", "--root", f"claude={root}", "mcp", "--history", str(db)],
        env=env,
    )


async def mcp_start(params: StdioServerParameters, errlog: Any) -> dict[str, float]:
    """ms from spawn to `initialize` answered and to the first `list_teams` answered."""
    t0 = time.perf_counter()
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=300) as s:
            await s.initialize()
            t1 = time.perf_counter()
            res = await s.call_tool("list_teams", {})
            t2 = time.perf_counter()
            assert not res.is_error, res
    return {"initialize": (t1 - t0) * 1000, "first": (t2 - t0) * 1000}


async def rpc_start(root: Path, db: Path) -> float:
    s = Session()
    try:
        await s.start(root, db)
        return s.first_teams_ms
    finally:
        await s.stop()


def cli_search_command() -> bool:
    """Does this teaminbox have a `search` command (other work may add one)?"""
    from teaminbox.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return "search" in getattr(sub, "choices", {})


async def bench(
    base: Path, db_src: Path | None, n_msgs: int, starts: int, passes: int
) -> dict[str, Any]:
    label = "heavy" if db_src is not None else "empty"
    folder = base / label
    home = folder / "home"
    home.mkdir(parents=True)
    root = folder / "teams"
    team = live_team(root)
    db = folder / "history.db"
    if db_src is not None:
        shutil.copyfile(db_src, db)
    out: dict[str, Any] = {"label": label, "bytes": db.stat().st_size if db.exists() else 0}
    params = mcp_params(root, db, home)
    errlog = open(folder / "mcp-stderr.log", "a")  # noqa: SIM115 - closed below
    try:
        runs = [await mcp_start(params, errlog) for _ in range(starts)]
        out["mcp_start"] = runs
        out["rpc_start"] = [await rpc_start(root, db) for _ in range(max(3, starts // 2))]
        if db_src is None:
            return out
        teams = pick_teams(db)
        qs = queries(n_msgs, teams)
        out["queries"] = len(qs)
        mcp_times: list[tuple[str, float, int]] = []
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=300) as s:
                await s.initialize()
                await s.call_tool("list_teams", {})
                for _ in range(passes):
                    for kind, q, tid in qs:
                        args: dict[str, Any] = {"query": q, "limit": LIMIT}
                        if kind == "team":
                            args["team"] = tid or team.name
                        t0 = time.perf_counter()
                        res = await s.call_tool("search_messages", args)
                        dt = (time.perf_counter() - t0) * 1000
                        n = 0 if res.is_error else json.loads(res.content[0].text)["count"]  # type: ignore[union-attr]
                        mcp_times.append((kind, dt, n))
        out["mcp_search"] = mcp_times
        rpc_times: list[tuple[str, float, int]] = []
        c = Session()
        await c.start(root, db)
        try:
            for _ in range(passes):
                for kind, q, tid in qs:
                    p: dict[str, Any] = {"query": q, "limit": LIMIT}
                    if kind == "team":
                        p["team"] = tid or team.name
                    t0 = time.perf_counter()
                    r = await c.call("teamInbox/search", p)
                    rpc_times.append((kind, (time.perf_counter() - t0) * 1000, len(r["messages"])))
        finally:
            await c.stop()
        out["rpc_search"] = rpc_times
        out["in_process"] = await in_process(db, qs, passes)
        out["cli"] = cli_search_command()
        if out["cli"]:
            cli_times = []
            for kind, q, tid in qs:
                argv = [
                    str(VENV_BIN / "teaminbox"),
                    "--no-default-roots",
                    "--root",
                    f"claude={root}",
                ]
                argv += ["search", q, "--json", "--history", str(db)]
                if kind == "team":
                    argv += ["--team", tid or team.name]
                t0 = time.perf_counter()
                done = subprocess.run(argv, capture_output=True, timeout=120)
                cli_times.append((kind, (time.perf_counter() - t0) * 1000, done.returncode))
            out["cli_search"] = cli_times
        return out
    finally:
        errlog.close()


async def in_process(
    db: Path, qs: list[tuple[str, str, str | None]], passes: int
) -> dict[str, Any]:
    """Where a round trip's time goes, in this process on the same history: the JSON-RPC
    handler alone, the tool's whole body (handler, names, messages described), and the
    SDK's client and server joined in memory (no stdio)."""
    from mcp.client.client import Client

    from teaminbox import mcpserver
    from teaminbox.discovery import Settings
    from teaminbox.server.tools import Tools

    settings = Settings.build([], defaults=False)
    b = mcpserver.Backend(settings, str(db))
    tools = Tools(b.server, b.tracker)
    out: dict[str, list[float]] = {"handler": [], "tool": [], "memory": []}
    try:
        b.start()
        await b.tracker()
        for _ in range(passes):
            for kind, q, _tid in qs:
                if kind == "team":
                    continue  # the live team is not in this process's roots
                t0 = time.perf_counter()
                await b.server.handlers["teamInbox/search"]({"query": q, "limit": LIMIT})
                t1 = time.perf_counter()
                await tools.call("search_messages", {"query": q, "limit": LIMIT})
                t2 = time.perf_counter()
                out["handler"].append((t1 - t0) * 1000)
                out["tool"].append((t2 - t1) * 1000)
    finally:
        await b.stop()
    app = mcpserver.build(settings, str(db))
    async with Client(app) as c:
        await c.call_tool("list_teams", {})
        for _ in range(passes):
            for kind, q, _tid in qs:
                if kind != "team":
                    t0 = time.perf_counter()
                    await c.call_tool("search_messages", {"query": q, "limit": LIMIT})
                    out["memory"].append((time.perf_counter() - t0) * 1000)
    return out


IMPORTS = ("teaminbox.server", "mcp.server.mcpserver", "teaminbox.mcpserver")


def import_cpu(module: str, n: int = 5) -> float:
    """CPU ms to import `module` in a fresh interpreter, the median of n (CPU time: less
    loud than the wall clock on a shared machine)."""
    code = f"import time; t = time.process_time(); import {module}; print(time.process_time() - t)"
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout)
        for _ in range(n)
    ]
    return statistics.median(runs) * 1000


def site_mb(venv: Path) -> float:
    [site] = list((venv / "lib").glob("python3*/site-packages"))
    total = 0
    for dirpath, _, files in os.walk(site):
        for f in files:
            total += os.lstat(os.path.join(dirpath, f)).st_size
    return total / 1e6


def venv_with(base: Path, name: str, *pip_args: str) -> tuple[float, list[str]]:
    """MB installed into a fresh venv by pip_args (beyond the venv's own pip), and what."""
    venv = base / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    empty = site_mb(venv)
    py = str(venv / "bin" / "python")
    before = set(_freeze(py))
    if pip_args:
        subprocess.run(
            [py, "-m", "pip", "install", "-q", "--disable-pip-version-check", *pip_args],
            check=True,
            stderr=subprocess.DEVNULL,
        )
    return site_mb(venv) - empty, sorted(set(_freeze(py)) - before)


def _freeze(py: str) -> list[str]:
    out = subprocess.run([py, "-m", "pip", "freeze", "--all"], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line]


def sizes(base: Path) -> dict[str, Any]:
    pin = next(
        line.strip()
        for line in (REPO / "requirements-dev.lock").read_text().splitlines()
        if line.startswith("mcp==")
    )
    core_mb, core = venv_with(base, "core", "-r", str(REPO / "requirements.lock"))
    extra_mb, extra = venv_with(base, "extra", pin)
    both_mb, _ = venv_with(base, "both", "-r", str(REPO / "requirements.lock"), pin)
    return {
        "pin": pin,
        "core_mb": core_mb,
        "core_n": len(core),
        "extra_mb": extra_mb,
        "extra_n": len(extra),
        "extra": extra,
        "added_mb": both_mb - core_mb,
    }


def summary(label: str, times: list[tuple[str, float, int]]) -> str:
    v = [t for _, t, _ in times]
    return f"{label}: p50 {ms(pct(v, 50))} ms, p99 {ms(pct(v, 99))} ms, n={len(v)}"


def render(
    empty: dict[str, Any],
    heavy: dict[str, Any],
    size: dict[str, Any] | None,
    imports: dict[str, float],
    n_msgs: int,
    n_teams: int,
    cmd: str,
    load: tuple[str, str],
) -> str:
    def med(runs: list[dict[str, float]], key: str) -> float:
        return statistics.median(r[key] for r in runs)

    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        SECTION,
        "",
        f"`{cmd}`, {when}; {machine()}. Load average {load[0]} at the start, {load[1]} at the"
        " end: the machine is shared (2 cores, other agents' builds and tests), so the"
        " absolute figures are loud; the ratios between the paths, measured back to back,"
        " hold better. The official MCP SDK's client drives the real `teaminbox mcp`"
        " subprocess over stdio; a pygls client drives `python -m teaminbox serve`.",
        "",
        f"Heavy history: {n_msgs:,} archived messages in {n_teams:,} ended teams"
        f" ({heavy['bytes'] / 1e6:.0f} MB, bench_history.py's generator), one live Claude team.",
        "",
        "**Start to first answer** (median of the starts; ms):",
        "",
        "| | empty history | heavy history |",
        "|---|---|---|",
        f"| `teaminbox mcp`: spawn -> `initialize` answered (n={len(empty['mcp_start'])})"
        f" | {ms(med(empty['mcp_start'], 'initialize'))} | {ms(med(heavy['mcp_start'], 'initialize'))} |",
        f"| `teaminbox mcp`: spawn -> first `list_teams` answered"
        f" | {ms(med(empty['mcp_start'], 'first'))} | {ms(med(heavy['mcp_start'], 'first'))} |",
        f"| `teaminbox serve` (JSON-RPC): spawn -> first `teamInbox/teams` (n={len(empty['rpc_start'])})"
        f" | {ms(statistics.median(empty['rpc_start']))} | {ms(statistics.median(heavy['rpc_start']))} |",
        "",
        "Most of a start is importing. CPU ms to import in a fresh interpreter (median of 5):"
        f" `teaminbox.server` (what `serve` imports) {ms(imports['teaminbox.server'])};"
        f" `mcp.server.mcpserver` (the SDK alone: its `mcp_types` builds pydantic models of"
        f" two protocol versions) {ms(imports['mcp.server.mcpserver'])};"
        f" `teaminbox.mcpserver` (both) {ms(imports['teaminbox.mcpserver'])}. `teaminbox`'s"
        " other commands never import the SDK (tests/e2e/test_mcp.py checks).",
        "",
        f"**`search_messages` round trip on the heavy history** ({heavy['queries']} queries x"
        f" {len(heavy['mcp_search']) // heavy['queries']} passes, limit {LIMIT}; ms):",
        "",
        "| path | p50 | p99 | max |",
        "|---|---|---|---|",
    ]
    paths = [
        ("MCP `search_messages`", heavy["mcp_search"]),
        ("JSON-RPC `teamInbox/search`", heavy["rpc_search"]),
    ]
    if heavy.get("cli_search"):
        paths.append(("CLI `teaminbox search` (a process each)", heavy["cli_search"]))
    for name, times in paths:
        v = [t for _, t, _ in times]
        lines.append(f"| {name} | {ms(pct(v, 50))} | {ms(pct(v, 99))} | {ms(max(v))} |")
    for kind in ("common", "rare", "phrase", "team"):
        a = [t for k, t, _ in heavy["mcp_search"] if k == kind]
        b = [t for k, t, _ in heavy["rpc_search"] if k == kind]
        if a and b:
            lines.append(
                f"| {kind} queries: MCP / JSON-RPC p50 | {ms(pct(a, 50))} / {ms(pct(b, 50))} | | |"
            )
    if not heavy.get("cli"):
        lines += [
            "",
            "The CLI has no search command at this commit (`read --archived` reads one live"
            " inbox), so there is no CLI column; the bench runs one when `teaminbox search`"
            " exists.",
        ]
    a50 = pct([t for _, t, _ in heavy["mcp_search"]], 50)
    b50 = pct([t for _, t, _ in heavy["rpc_search"]], 50)
    ip = {k: pct(v, 50) for k, v in heavy["in_process"].items()}
    lines += [
        "",
        f"The MCP round trip costs {ms(a50 - b50)} ms more than JSON-RPC's at p50. Where it"
        " goes, measured in one process on the same history (p50, the queries without a"
        f" team): the JSON-RPC handler alone {ms(ip['handler'])} ms; the tool's whole body"
        f" (the handler, the members' names, each message described) {ms(ip['tool'])} ms;"
        f" the SDK's own client and server joined in memory, no stdio, {ms(ip['memory'])} ms"
        f" (its dispatch and pydantic validation on both sides: {ms(ip['memory'] - ip['tool'])}"
        f" ms over the tool's body); the stdio pipes the remaining {ms(a50 - ip['memory'])} ms"
        " (the SDK reads and writes them through worker threads). What this server adds to"
        f" the handler's work is {ms(ip['tool'] - ip['handler'])} ms.",
    ]
    if size is not None:
        lines += [
            "",
            f"**The `mcp` extra** (`pip install 'teaminbox[mcp]'`, `{size['pin']}`): its closure"
            f" installed into a fresh venv is {size['extra_mb']:.1f} MB in {size['extra_n']}"
            f" packages; over the core's own pinned dependencies ({size['core_mb']:.1f} MB,"
            f" {size['core_n']} packages) it adds {size['added_mb']:.1f} MB. Much of it is"
            " compiled and per platform (pydantic-core, cryptography, rpds-py), which one"
            " .vsix for every platform cannot carry: it stays an optional extra, and"
            " requirements.lock (what the .vsix bundles) is unchanged.",
            "",
            "Packages: " + ", ".join(size["extra"]) + ".",
        ]
    return "\n".join(lines) + "\n"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="100,000 messages / 500 teams")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--no-size", action="store_true", help="skip measuring the extra's size")
    ap.add_argument("--starts", type=int, default=7)
    ap.add_argument("--passes", type=int, default=5)
    args = ap.parse_args()
    n_msgs, n_teams = (100_000, 500) if args.quick else (1_000_000, 5_000)
    cmd = "bench/bench_mcp.py" + (" --quick" if args.quick else "")
    load0 = loadavg()
    path, meta = cached_history(n_msgs, n_teams, False)
    print(f"history {path} ({meta['bytes'] / 1e6:.0f} MB)", flush=True)
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-mcp-"))
    try:
        size = None if args.no_size else sizes(base / "venvs")
        if size:
            print(f"extra: {size['extra_mb']:.1f} MB, adds {size['added_mb']:.1f} MB", flush=True)
        empty = await bench(base, None, n_msgs, args.starts, args.passes)
        print("empty start", [round(r["first"]) for r in empty["mcp_start"]], flush=True)
        heavy = await bench(base, path, n_msgs, args.starts, args.passes)
        print("heavy start", [round(r["first"]) for r in heavy["mcp_start"]], flush=True)
        print(summary("mcp search", heavy["mcp_search"]), flush=True)
        print(summary("rpc search", heavy["rpc_search"]), flush=True)
        imports = {m: import_cpu(m) for m in IMPORTS}
        print("import CPU ms", {m: round(v) for m, v in imports.items()}, flush=True)
        text = render(empty, heavy, size, imports, n_msgs, n_teams, cmd, (load0, loadavg()))
        print(text)
        if not args.no_write:
            write_section(text, SECTION)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
