"""What following session transcripts costs `teaminbox serve` (issue: close the loop with the
lead). Not a test: nothing here asserts a figure.

One Claude Code session team whose lead transcript is a 50 MB JSONL file (rows shaped as
Claude Code 2.1.332 writes them: prompts, assistant rows with usage, big tool results,
attachments). The real server subprocess is started by a pygls client over stdio (as the
extension does) and the transcript then grows by one row every 100 ms for 30 s (every
100th row the person writes to the lead and the lead answers). The same run with
`readTranscripts: false` is the baseline. Runs are interleaved (on, off, on, off...).

Measured in the server process (/proc): CPU while growing (% of one core), RSS sampled
every 0.5 s, peak RSS (VmHWM); and, reading on, the first catch-up of the 50 MB
(ready -> tokens in `teamInbox/teams`), the answer -> `teamInbox/replied` latency and a
check that every row's tokens were counted.

    .venv/bin/python bench/bench_transcripts.py            # ~4 min: 3 runs of each
    .venv/bin/python bench/bench_transcripts.py --quick    # ~1 min: 1 run each, 10 s
    .venv/bin/python bench/bench_transcripts.py --five --seconds 20   # five busy teammates
    options: --no-write (leave runs.md alone), --keep (keep the temp folder),
             --mb N (transcript size), --seconds S (growth time)

--five: five teammates each append a row every 50 ms; the server's CPU time per wall second
while they do (from /proc), and its first `teams` answer, with `readTranscripts` on and off,
the order swapped each pair (--pairs). Prints its figures; runs.md's entry is written by hand.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import logging
import os
import random
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from benchlib.runs import machine, write_section
from benchlib.session import Session, listen, vm, widen_start

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "runs.md"
SECTION = "## Transcripts"
TEAM = "session-bench0001"
SID = "be0c0001-0000-4000-8000-000000000001"
CWD = "/home/dev/bench-app"
MODEL = "claude-sonnet-4-5-20250929"
WORDS = (
    "the auth module now checks the token expiry before it refreshes; tests pass on the"
    " branch; next the session store and the retry budget of the client, then docs. "
)
TICK = os.sysconf("SC_CLK_TCK")


# --- the transcript ----------------------------------------------------------------------


class Writer:
    """Rows as Claude Code 2.1.332 writes them: compact JSON, one a line."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0
        self.input = 0
        self.output = 0
        self.parent: str | None = None

    def _base(self, kind: str) -> dict[str, Any]:
        self.n += 1
        uuid = f"00000000-0000-4000-8000-{self.n:012d}"
        row = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": SID,
            "version": "2.1.332",
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": dt.datetime.now(dt.timezone.utc)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
        }
        self.parent = uuid
        return row

    def text(self, size: int) -> str:
        return (WORDS * (size // len(WORDS) + 1))[:size]

    def assistant(self, text: str | None = None) -> dict[str, Any]:
        row = self._base("assistant")
        i, o = self.rng.randint(2000, 60000), self.rng.randint(20, 800)
        self.input += i
        self.output += o
        block: dict[str, Any] = (
            {"type": "text", "text": text}
            if text is not None
            else {
                "type": "tool_use",
                "id": f"toolu_{self.n:08d}",
                "name": "Read",
                "input": {"file_path": f"{CWD}/src/module_{self.n % 97}.py"},
            }
        )
        row["requestId"] = f"req_{self.n:024d}"
        row["message"] = {
            "id": f"msg_{self.n:024d}",
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [block],
            "stop_reason": "tool_use" if text is None else "end_turn",
            "usage": {
                "input_tokens": i,
                "output_tokens": o,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
            },
        }
        return row

    def tool_result(self, size: int) -> dict[str, Any]:
        row = self._base("user")
        body = self.text(size)
        row["message"] = {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{self.n - 1:08d}", "content": body}
            ],
        }
        row["toolUseResult"] = {"type": "text", "file": {"content": body, "numLines": 400}}
        return row

    def attachment(self) -> dict[str, Any]:
        row = self._base("attachment")
        row["attachment"] = {
            "type": "total_tokens_reminder",
            "text": "<total_tokens>1</total_tokens>",
        }
        return row

    def person(self, text: str) -> dict[str, Any]:
        row = self._base("user")
        row["message"] = {
            "role": "user",
            "content": "Another Claude session sent a message:\n"
            f'<teammate-message teammate_id="user" summary="asks" verified="false">\n{text}\n'
            "</teammate-message>\n\nThis came from another Claude session.",
        }
        return row

    def turn(self) -> list[dict[str, Any]]:
        """One step of a working lead: a tool call, its (big) result, now and then words."""
        rows = [self.assistant(), self.tool_result(self.rng.randint(2000, 24000))]
        if self.rng.random() < 0.3:
            rows.append(self.attachment())
        if self.rng.random() < 0.2:
            rows.append(self.assistant(self.text(self.rng.randint(100, 1500))))
        return rows


def line(row: dict[str, Any]) -> bytes:
    return json.dumps(row, separators=(",", ":")).encode() + b"\n"


def make_home(base: Path, mb: int, seed: int) -> tuple[Path, Path, Writer]:
    home = base / "home"
    team = home / ".claude" / "teams" / TEAM
    (team / "inboxes").mkdir(parents=True)
    config = {
        "name": TEAM,
        "createdAt": int(time.time() * 1000),
        "leadAgentId": f"team-lead@{TEAM}",
        "leadSessionId": SID,
        "members": [
            {"agentId": f"team-lead@{TEAM}", "name": "team-lead", "cwd": CWD},
            {"agentId": f"helper@{TEAM}", "name": "helper", "cwd": CWD},
        ],
    }
    (team / "config.json").write_text(json.dumps(config, indent=2))
    for name in ("team-lead", "helper"):
        (team / "inboxes" / f"{name}.json").write_text("[]")
    project = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", CWD)
    project.mkdir(parents=True)
    path = project / f"{SID}.jsonl"
    w = Writer(random.Random(seed))
    with open(path, "wb") as f:
        size = 0
        while size < mb * 1024 * 1024:
            data = b"".join(line(r) for r in w.turn())
            f.write(data)
            size += len(data)
    return home, path, w


# --- the server --------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


async def start_server(home: Path, on: bool) -> tuple[Session, list[tuple[float, dict[str, Any]]]]:
    """The server with HOME at `home` (where transcripts are looked for); the replied list."""
    s = Session()
    widen_start(s, env={**os.environ, "HOME": str(home)}, readTranscripts=on)
    replied: list[tuple[float, dict[str, Any]]] = []
    listen(s, "teamInbox/replied", lambda ls, p: replied.append((time.perf_counter(), p)))
    for method in ("teamInbox/activity", "teamInbox/tasksChanged"):
        listen(s, method)
    await s.start(home / ".claude" / "teams", home / "history.db")
    return s, replied


async def lead_tokens(s: Session) -> dict[str, Any] | None:
    teams = (await s.call("teamInbox/teams", {}))["teams"]
    team = next(t for t in teams if t["id"] == f"claude:{TEAM}")
    return team["tokens"]


async def run_once(base: Path, mb: int, seconds: float, on: bool, seed: int) -> dict[str, Any]:
    folder = base / f"run-{'on' if on else 'off'}-{seed}"
    home, path, w = make_home(folder, mb, seed)
    size = path.stat().st_size
    t0 = time.perf_counter()
    c, replied = await start_server(home, on)
    pid = c.pid
    ready = c.first_teams_ms / 1000
    out: dict[str, Any] = {"on": on, "mb": size / 1024 / 1024, "ready_s": ready}
    cpu0, t_ready = cpu_seconds(pid), time.perf_counter()
    if on:  # the first read of the 50 MB
        while True:
            tokens = await lead_tokens(c)
            if tokens and tokens["input"] == w.input:
                break
            if time.perf_counter() - t0 > 120:
                raise TimeoutError(f"no full catch-up: {tokens} vs {w.input}")
            await asyncio.sleep(0.02)
        out["catchup_s"] = time.perf_counter() - t_ready
        out["catchup_cpu_s"] = cpu_seconds(pid) - cpu0
    else:
        await asyncio.sleep(3)  # the same settling time, give or take
    out["rss_settled"] = vm(pid, "VmRSS")
    # growth: one row every 100 ms; every 100th row the person asks and the lead answers
    rss: list[float] = []
    asked: list[tuple[float, str]] = []
    cpu1, t1 = cpu_seconds(pid), time.perf_counter()
    start = time.perf_counter()
    i = 0
    with open(path, "ab") as f:
        while time.perf_counter() - start < seconds:
            i += 1
            if i % 100 == 50:
                f.write(line(w.person(f"PERSON-{i}: status?")))
                f.flush()
                await asyncio.sleep(0.05)
                answer = f"ANSWER-{i}: on it"
                f.write(line(w.assistant(answer)))
                f.flush()
                asked.append((time.perf_counter(), answer))
            else:
                row = w.assistant() if i % 2 else w.tool_result(w.rng.randint(500, 6000))
                f.write(line(row))
                f.flush()
            if i % 5 == 0:
                rss.append(vm(pid, "VmRSS"))
            await asyncio.sleep(max(0.0, start + i * 0.1 - time.perf_counter()))
    wall = time.perf_counter() - t1
    out["cpu_pct"] = 100 * (cpu_seconds(pid) - cpu1) / wall
    out["rows"] = i
    out["rss_median"] = statistics.median(rss)
    out["rss_max"] = max(rss)
    if on:
        deadline = time.perf_counter() + 10
        while (await lead_tokens(c) or {}).get("input") != w.input:
            if time.perf_counter() > deadline:
                raise AssertionError("not every row's tokens were counted")
            await asyncio.sleep(0.05)
        out["counted"] = True
        lat = []
        for t, text in asked:
            hit = [at for at, p in replied if p["message"]["text"] == text]
            if hit:
                lat.append((hit[0] - t) * 1000)
        out["replied_ms"] = lat
        out["replied_missing"] = len(asked) - len(lat)
    out["hwm"] = vm(pid, "VmHWM")
    await c.stop()
    shutil.rmtree(folder, ignore_errors=True)
    return out


def micro(base: Path, mb: int) -> dict[str, float]:
    """The reading alone, in this process: the first read, then a row at a time."""
    from teaminbox.transcripts import Session

    home, path, w = make_home(base / "micro", mb, 99)
    s = Session([str(home / ".claude" / "projects")], SID, CWD, "team-lead", "user", [TEAM])
    t0 = time.process_time()
    while s.poll(16 * 1024 * 1024):
        pass
    first = time.process_time() - t0
    n = 2000
    rows = [
        line(w.assistant() if i % 2 else w.tool_result(w.rng.randint(500, 6000))) for i in range(n)
    ]
    spent = 0.0
    with open(path, "ab") as f:
        for data in rows:
            f.write(data)
            f.flush()
            t0 = time.process_time()
            s.poll(16 * 1024 * 1024)
            s.activity()
            spent += time.process_time() - t0
    t0 = time.process_time()
    for _ in range(n):
        s.poll(16 * 1024 * 1024)
    idle = time.process_time() - t0
    shutil.rmtree(base / "micro", ignore_errors=True)
    return {"first_s": first, "row_us": spent / n * 1e6, "stat_us": idle / n * 1e6}


# --- five busy teammates ------------------------------------------------------------------

FIVE = [f"helper{k}" for k in range(1, 6)]


def make_five(base: Path, mb: int, seed: int) -> tuple[Path, list[tuple[Path, Writer]]]:
    """make_home's team with five teammates, each a transcript of `mb` MB where Claude Code
    keeps a teammate's (the lead session's subagents/, a meta.json naming it)."""
    home, lead, _ = make_home(base, 1, seed)
    cfg_path = home / ".claude" / "teams" / TEAM / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["members"] += [{"agentId": f"{n}@{TEAM}", "name": n, "cwd": CWD} for n in FIVE]
    cfg_path.write_text(json.dumps(cfg, indent=2))
    sub = lead.parent / SID / "subagents"
    sub.mkdir(parents=True)
    out = []
    for k, name in enumerate(FIVE):
        (sub / f"agent-a{name}.meta.json").write_text(json.dumps({"name": name, "teamName": TEAM}))
        w = Writer(random.Random(seed * 10 + k))
        data = b""
        while len(data) < mb * 1024 * 1024:
            data += b"".join(line(r) for r in w.turn())
        (sub / f"agent-a{name}.jsonl").write_bytes(data)
        out.append((sub / f"agent-a{name}.jsonl", w))
    return home, out


async def run_five(base: Path, mb: int, seconds: float, on: bool, seed: int) -> dict[str, Any]:
    """Five teammates, each appending a row every 50 ms (staggered): the server's CPU time per
    wall second while they write, and its first `teams` answer (spawn -> answer)."""
    folder = base / f"five-{'on' if on else 'off'}-{seed}"
    home, files = make_five(folder, mb, seed)
    c, _ = await start_server(home, on)
    out: dict[str, Any] = {
        "on": on,
        "first_ms": c.first_teams_ms,
        "answer_ms": c.first_teams_ms - c.initialize_ms,
        "load": os.getloadavg()[0],
    }
    await asyncio.sleep(3)  # the first read of the transcripts done
    handles = [open(p, "ab") for p, _ in files]  # noqa: SIM115
    try:
        cpu0, t0 = cpu_seconds(c.pid), time.perf_counter()
        i = 0
        while time.perf_counter() - t0 < seconds:
            k = i % 5
            w = files[k][1]
            row = w.assistant() if (i // 5) % 2 else w.tool_result(w.rng.randint(500, 6000))
            handles[k].write(line(row))
            handles[k].flush()
            i += 1
            await asyncio.sleep(max(0.0, t0 + i * 0.01 - time.perf_counter()))
        wall = time.perf_counter() - t0
        out["cpu_pct"] = 100 * (cpu_seconds(c.pid) - cpu0) / wall
        out["rows"] = i
    finally:
        for h in handles:
            h.close()
    if on:  # every teammate's rows counted
        deadline = time.perf_counter() + 30
        while True:
            teams = (await c.call("teamInbox/teams", {}))["teams"]
            team = next(t for t in teams if t["id"] == f"claude:{TEAM}")
            got = {
                m["name"]: ((m.get("activity") or {}).get("tokens") or {}).get("input")
                for m in team["members"]
            }
            if all(got.get(n) == w.input for n, (_, w) in zip(FIVE, files, strict=True)):
                break
            if time.perf_counter() > deadline:
                raise AssertionError(f"not every teammate's rows were counted: {got}")
            await asyncio.sleep(0.1)
    await c.stop()
    shutil.rmtree(folder, ignore_errors=True)
    return out


async def main_five(args: Any) -> None:
    """--five: pairs (on, off; the order swapped each pair), medians and paired ratios."""
    runs: list[dict[str, Any]] = []
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-five-"))
    try:
        for rep in range(args.pairs):
            for on in (True, False) if rep % 2 == 0 else (False, True):
                r = await run_five(base, args.five_mb, args.seconds, on, seed=rep)
                runs.append(r)
                print(
                    f"pair {rep + 1} readTranscripts={'on' if on else 'off'}: CPU"
                    f" {r['cpu_pct']:.2f} % of a core ({r['rows']} rows), first answer"
                    f" {r['first_ms']:.0f} ms (after `initialize` answered {r['answer_ms']:.1f}),"
                    f" load {r['load']:.1f}",
                    flush=True,
                )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    on = [r for r in runs if r["on"]]
    off = [r for r in runs if not r["on"]]
    ratio = [a["first_ms"] / b["first_ms"] for a, b in zip(on, off, strict=True)]
    slower = sum(a["answer_ms"] > b["answer_ms"] for a, b in zip(on, off, strict=True))
    print(
        f"five teammates, a row each 50 ms, {args.pairs} pairs: CPU on {med(on, 'cpu_pct'):.2f} %"
        f" vs off {med(off, 'cpu_pct'):.2f} % (the following costs"
        f" {med(on, 'cpu_pct') - med(off, 'cpu_pct'):.2f} % of a core); first answer on"
        f" {med(on, 'first_ms'):.0f} ms vs off {med(off, 'first_ms'):.0f} ms, paired ratio median"
        f" {statistics.median(ratio):.2f} ({', '.join(f'{x:.2f}' for x in ratio)}); from"
        f" `initialize` answered to the first answer on {med(on, 'answer_ms'):.1f} ms vs off"
        f" {med(off, 'answer_ms'):.1f} ms, on slower in {slower} of {len(on)} pairs; load"
        f" {min(r['load'] for r in runs):.1f}-{max(r['load'] for r in runs):.1f}; {machine()}",
        flush=True,
    )


# --- the report --------------------------------------------------------------------------


def med(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def render(runs: list[dict[str, Any]], m: dict[str, float], args: Any, took: float) -> str:
    on = [r for r in runs if r["on"]]
    off = [r for r in runs if not r["on"]]
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lat = [x for r in on for x in r["replied_ms"]]
    missing = sum(r["replied_missing"] for r in on)

    def each(rs: list[dict[str, Any]], key: str, fmt: str) -> str:
        return ", ".join(format(r[key], fmt) for r in rs)

    lines = [
        SECTION,
        "",
        f"`.venv/bin/python bench/bench_transcripts.py{' --quick' if args.quick else ''}`,"
        f" {now}, {took:.0f} s. The real `python -m teaminbox serve` subprocess over stdio"
        f" (a pygls client, as the extension); one session team whose lead transcript is"
        f" {med(on, 'mb'):.0f} MB of rows shaped as Claude Code 2.1.332 writes them, then"
        f" grows by one row every 100 ms for {args.seconds:.0f} s (every 100th row the person"
        f" writes and the lead answers); {len(on)} run(s) with `readTranscripts` on and"
        f" {len(off)} off, interleaved. CPU and memory read from /proc of the server.",
        "",
        f"Machine (shared and noisy: quote medians and ratios): {machine()};"
        f" load average at the start {os.getloadavg()[0]:.1f}.",
        "",
        "### Summary",
        "",
        f"- While the transcript grows: server CPU {med(on, 'cpu_pct'):.1f} % of one core"
        f" reading transcripts vs {med(off, 'cpu_pct'):.1f} % with `readTranscripts: false`"
        f" (medians); RSS {med(on, 'rss_median'):.0f} MB vs {med(off, 'rss_median'):.0f} MB.",
        f"- First read of the {med(on, 'mb'):.0f} MB transcript: {med(on, 'catchup_s'):.2f} s"
        f" from ready to its tokens in `teamInbox/teams` ({med(on, 'catchup_cpu_s'):.2f} s of"
        f" CPU), peak RSS {med(on, 'hwm'):.0f} MB vs {med(off, 'hwm'):.0f} MB off.",
        f"- Lead's answer written -> `teamInbox/replied`: p50"
        f" {statistics.median(lat) if lat else float('nan'):.0f} ms,"
        f" max {max(lat) if lat else float('nan'):.0f} ms ({len(lat)} answers,"
        f" {missing} missing); every row's tokens counted: "
        f"{'yes' if all(r.get('counted') for r in on) else 'NO'}.",
        f"- Where the CPU goes: the reading itself (in this process) is {m['row_us']:.0f} us a"
        f" row appended (poll, parse, activity) and {m['stat_us']:.0f} us a look at an"
        f" unchanged file, {m['first_s']:.2f} s for the first read of the {args.mb} MB; the"
        " rest of the difference is wakeups: watchdog's threads for each write event, the"
        " hops to a pool thread and the state thread for each pass, one `teamInbox/activity`"
        " a second.",
        "",
        "### Runs",
        "",
        "| readTranscripts | runs | CPU % while growing | RSS median / max MB | peak RSS (VmHWM) MB"
        " | start -> ready s | ready -> first read done s (CPU s) |",
        "|---|---|---|---|---|---|---|",
        f"| on | {len(on)} | {med(on, 'cpu_pct'):.1f} ({each(on, 'cpu_pct', '.1f')})"
        f" | {med(on, 'rss_median'):.0f} / {med(on, 'rss_max'):.0f}"
        f" | {med(on, 'hwm'):.0f} ({each(on, 'hwm', '.0f')}) | {med(on, 'ready_s'):.2f}"
        f" | {med(on, 'catchup_s'):.2f} ({med(on, 'catchup_cpu_s'):.2f}) |",
        f"| off | {len(off)} | {med(off, 'cpu_pct'):.1f} ({each(off, 'cpu_pct', '.1f')})"
        f" | {med(off, 'rss_median'):.0f} / {med(off, 'rss_max'):.0f}"
        f" | {med(off, 'hwm'):.0f} ({each(off, 'hwm', '.0f')}) | {med(off, 'ready_s'):.2f} | - |",
        "",
        "How it reads: each file is followed from the byte offset last read (a stat first:"
        " unchanged files cost one syscall); only `assistant` rows and the lead's"
        " `teammate-message` rows are parsed (a substring test picks them), the rest is"
        " skipped as bytes; a first read is cut into 16 MB passes, each merged on the state"
        " thread; an event from watching the project folder (not recursively) starts a pass"
        " 20 ms later, passes start at most every 300 ms (a busy transcript is read a few rows"
        " at a time), `teamInbox/activity` goes out at most once a second a team. The RSS"
        " difference is the code, a partial line, one 256 KiB read and its lines (freed after"
        " it); nothing of the file is kept.",
    ]
    return "\n".join(lines) + "\n"


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--mb", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--five", action="store_true", help="five busy teammates instead; prints only")
    ap.add_argument("--five-mb", type=int, default=2, help="--five: each teammate's transcript")
    ap.add_argument("--pairs", type=int, default=4, help="--five: pairs of runs (on, off)")
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 10.0 if args.quick else 30.0
    logging.getLogger("pygls").setLevel(logging.ERROR)
    if args.five:
        await main_five(args)
        return
    reps = 1 if args.quick else 3
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-transcripts-"))
    t0 = time.perf_counter()
    runs = []
    try:
        for rep in range(reps):
            for on in (True, False):
                r = await run_once(base, args.mb, args.seconds, on, seed=rep)
                runs.append(r)
                extra = (
                    f" first read {r['catchup_s']:.2f} s, replied p50"
                    f" {statistics.median(r['replied_ms']) if r['replied_ms'] else float('nan'):.0f} ms"
                    if on
                    else ""
                )
                print(
                    f"run {rep + 1} readTranscripts={'on' if on else 'off'}: CPU"
                    f" {r['cpu_pct']:.1f} %, RSS {r['rss_median']:.0f}/{r['rss_max']:.0f} MB,"
                    f" HWM {r['hwm']:.0f} MB{extra}",
                    flush=True,
                )
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    micro_base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-micro-"))
    try:
        m = micro(micro_base, args.mb)
    finally:
        shutil.rmtree(micro_base, ignore_errors=True)
    print(f"in-process: {m}", flush=True)
    text = render(runs, m, args, time.perf_counter() - t0)
    print(text)
    if not args.no_write:
        write_section(text, SECTION)
        print(f"wrote {RESULTS.relative_to(REPO)}")


if __name__ == "__main__":
    asyncio.run(main())
