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
import datetime as dt
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from inspect import isawaitable
from pathlib import Path
from typing import Any

import orjson

import teaminbox.history as history_module
from bench_server import Session, machine, ms, pct, vm, write_section
from session_extras import widen_start
from teaminbox.discovery import Settings, TeamDir, describe, roster
from teaminbox.formats import get
from teaminbox.history import History, activity, boards, messages, teams
from teaminbox.model import converter

REPO = Path(__file__).resolve().parent.parent
SECTION = "## History and capture (Claude Code today)"
NODE_DIR = REPO / "tests" / "interop"
PEER = NODE_DIR / "node" / "claude_peer.js"
CLAUDE = get("claude")
GEN_VERSION = 1  # bump when the generated history changes shape
SPAN_DAYS = 88  # the generated history ends when it was made and goes back this far
CACHE_DAYS = 2  # ... so it is still all inside the 90 days kept for this long
BURST = 200
PRUNE_EVERY = 0.5


def epoch_iso(t: float) -> str:
    return (
        dt.datetime.fromtimestamp(t, dt.timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


# --- a session team as Claude Code 2.1.3xx writes it -----------------------------------------


def session_config(name: str, project: str, created_ms: int, helpers: list[str], pid: int) -> Any:
    cwd = f"/home/dev/projects/{project}"
    return {
        "name": name,
        "createdAt": created_ms,
        "leadAgentId": f"team-lead@{name}",
        "leadSessionId": f"{name[8:]}-0000-4000-8000-000000000000",
        "leadProcess": {"pid": pid, "pidSpace": "host", "claimedAt": created_ms, "procStart": "x"},
        "members": [
            {
                "agentId": f"team-lead@{name}",
                "name": "team-lead",
                "tmuxPaneId": "leader",
                "cwd": cwd,
            }
        ]
        + [
            {
                "agentId": f"{h}@{name}",
                "name": h,
                "color": CLAUDE_COLORS[i % len(CLAUDE_COLORS)],
                "agentType": "general-purpose",
                "model": "claude-sonnet-4-5",
                "tmuxPaneId": "in-process",
                "cwd": cwd,
            }
            for i, h in enumerate(helpers)
        ],
    }


CLAUDE_COLORS = ("blue", "green", "yellow", "purple", "cyan", "orange")


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.setup")
    tmp.write_text(json.dumps(value, indent=2))
    tmp.rename(path)


def make_session_team(root: Path, name: str, project: str, helpers: list[str]) -> Path:
    team = root / name
    write_json(
        team / "config.json",
        session_config(name, project, int(time.time() * 1000), helpers, os.getpid()),
    )
    for m in ["team-lead", *helpers]:
        write_json(team / "inboxes" / f"{m}.json", [])
    return team


# --- 1. capture under a burst ------------------------------------------------------------------


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
                    f" {len(r['missed'])}, latency p50 {p50(lat):.1f} ms max"
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


# --- 2. a heavy user's 90-day history ----------------------------------------------------------

WORDS = (
    "the to and a of in is it for that this on with we test tests pass fix fixed build"
    " auth module error review deploy branch merge commit change file files function"
    " api endpoint request response handler server client cache config session token"
    " user users check checks run running done next step plan task tasks update updated"
    " added removed refactor rename move split schema migration database query index"
    " table column field type types lint format style docs readme changelog release"
    " version bump dependency package lock install script ci pipeline job green red"
    " failing flaky timeout retry slow fast memory leak crash stack trace log logs"
    " warning debug trace issue bug ticket pr feature flag rollout rollback staging"
    " production prod env variable secret key permission role access login logout"
    " password reset email notification queue worker cron scheduler event events"
    " stream batch parse parser serialize json yaml csv upload download image thumbnail"
    " search filter sort page pagination limit offset cursor frontend backend component"
    " button form modal layout css theme dark mode mobile desktop browser chrome safari"
    " benchmark profile profiler hotspot latency throughput p50 p99 regression baseline"
    " coverage unit integration e2e fixture mock stub snapshot assert expected actual"
    " looks good lgtm approve approved blocked waiting ready shipped landed reverted"
).split()
PROJECTS = (
    "myapp webshop billing api-gateway mobile-app infra data-pipeline docs-site"
    " auth-service search-ui admin-portal ml-serving"
).split()
HELPERS = (
    "researcher tester reviewer implementer frontend backend docs-writer debugger"
    " planner security-auditor perf-analyst migrator"
).split()
MODULES = "auth billing search session cache router scheduler uploader parser notifier".split()
TEMPLATES = (
    "Tests pass on the {m} module: {n} passed, 0 failed.",
    "I fixed the {w} in src/{m}/{w2}.ts and added a regression test for {t}.",
    "The {m} module still fails {n} checks; looking into the {w} now.",
    "Merge request for {t} is ready for review: it touches the {m} module and the {w2} handler.",
    "Next step: refactor the {w} in the {m} module, then run the e2e suite again.",
    "Blocked on {t}: the {w} endpoint returns 500 when the {w2} is missing.",
    "Done with {t}. Summary: {w}, {w2} and the {m} config are updated; CI is green.",
    "Can you check whether the {m} cache is invalidated after a {w} change?",
    "Profiling the {m} module: the {w} hotspot is {n} ms at p50, the baseline was {n2} ms.",
    "Reviewed {t}: looks good apart from the {w} naming in {m}/{w2}.py.",
)


def zipf_words(rng: random.Random, k: int) -> str:
    return " ".join(rng.choices(WORDS, weights=ZIPF, k=k))


ZIPF = [1 / (r + 1) for r in range(len(WORDS))]


def make_text(rng: random.Random, tickets: int) -> str:
    target = rng.randint(200, 400)
    parts: list[str] = []
    size = 0
    while size < target:
        if rng.random() < 0.6:
            s = rng.choice(TEMPLATES).format(
                m=rng.choice(MODULES),
                w=rng.choice(WORDS[16:]),
                w2=rng.choice(WORDS[16:]),
                t=f"tkt{rng.randrange(tickets):05d}",
                n=rng.randint(1, 400),
                n2=rng.randint(1, 400),
            )
        else:
            s = zipf_words(rng, rng.randint(6, 16)).capitalize() + "."
        parts.append(s)
        size += len(s) + 1
    return " ".join(parts)[:target]


def idle_frame(sender: str, ts: str, rng: random.Random) -> str:
    frame: dict[str, Any] = {
        "type": "idle_notification",
        "from": sender,
        "timestamp": ts,
        "idleReason": "available",
    }
    if rng.random() < 0.5:
        frame.update(summary="[to team-lead] report", result=make_text(rng, 20_000)[:200])
    return json.dumps(frame)


class FakeClock:
    """`time` as teaminbox.history sees it during generation: the history's own clock."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def team_body(name: str, project: str, created: float, helpers: list[str]) -> bytes:
    """A Team as the server archives it (discovery.describe of the config)."""
    config = session_config(name, project, int(created * 1000), helpers, 4_194_000 + len(name))
    tid = f"claude:{name}"
    path = f"/home/dev/.claude/teams/{name}"
    td = TeamDir(tid, "claude", name, path, "/home/dev/.claude/teams", config, None)
    r = roster(td, Settings(roots=[]))
    return orjson.dumps(converter.unstructure(describe(r)))


def generate(path: Path, n_msgs: int, n_teams: int, seed: int = 1) -> dict[str, Any]:
    """5,000 session teams over 88 days, each 1-8 hours long, their messages all delivered
    (pruned by Claude Code a second after they were written) and the teams ended."""
    rng = random.Random(seed)
    clock = FakeClock()
    end = clock.now
    start = end - SPAN_DAYS * 86400
    tmp = path.with_name(path.name + ".part")
    for suffix in ("", "-wal", "-shm", ".init.lock"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    stamping = (history_module, messages, teams, activity, boards)  # each that calls time()
    real_time = history_module.time
    for mod in stamping:
        mod.time = clock  # type: ignore[assignment]
    t0 = time.perf_counter()
    try:
        h = History(str(tmp), keep_days=90)
        h.db.execute("PRAGMA synchronous=OFF")  # generation only: the file is the same
        starts = sorted(rng.uniform(start, end - 9 * 3600) for _ in range(n_teams))
        weights = [rng.lognormvariate(0, 0.8) for _ in range(n_teams)]
        scale = n_msgs / sum(weights)
        counts = [max(4, int(w * scale)) for w in weights]
        counts[-1] += n_msgs - sum(counts)  # exactly n_msgs
        tickets = max(100, n_msgs // 20)  # ~20 messages mention each ticket id
        done = 0
        for k, (t_start, count) in enumerate(zip(starts, counts, strict=True)):
            name = f"session-{rng.getrandbits(32):08x}"
            tid = f"claude:{name}"
            project = rng.choice(PROJECTS)
            helpers = rng.sample(HELPERS, rng.choice((2, 3)))
            length = rng.uniform(3600, 8 * 3600)
            clock.now = t_start
            h.save_team(tid, team_body(name, project, t_start, helpers))
            members = ["team-lead", *helpers]
            times = sorted(rng.uniform(t_start, t_start + length) for _ in range(count))
            by_inbox: dict[str, list[Any]] = {m: [] for m in members}
            for i, t in enumerate(times):
                if rng.random() < 0.55:  # a helper reports to the lead
                    sender, inbox = rng.choice(helpers), "team-lead"
                else:  # the lead hands out work
                    sender, inbox = "team-lead", rng.choice(helpers)
                ts = epoch_iso(t)
                idle = sender != "team-lead" and rng.random() < 0.2
                entry = {
                    "from": sender,
                    "text": idle_frame(sender, ts, rng) if idle else make_text(rng, tickets),
                    "summary": None if idle else zipf_words(rng, 4),
                    "timestamp": ts,
                    "color": None if sender == "team-lead" else "blue",
                    "read": False,
                }
                entry = {k2: v for k2, v in entry.items() if v is not None}
                by_inbox[inbox].append((t, CLAUDE.message(entry, i, tid, inbox)))
            for inbox, msgs in by_inbox.items():  # archived in the file's order, a day's worth
                for c in range(0, len(msgs), 50):
                    chunk = msgs[c : c + 50]
                    clock.now = chunk[-1][0]
                    h.record(tid, inbox, [m for _, m in chunk], [])
                    clock.now = chunk[-1][0] + 1.0  # delivered: Claude Code prunes it
                    h.record(tid, inbox, [], [m.id for _, m in chunk])
            clock.now = t_start + length + 60
            h.end_teams([])
            done += count
            if k % max(1, n_teams // 20) == 0:
                el = time.perf_counter() - t0
                print(f"    {k}/{n_teams} teams, {done:,} messages, {el:.0f} s", flush=True)
        h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        h.close()
    finally:
        for mod in stamping:
            mod.time = real_time
    tmp.rename(path)
    for suffix in ("-wal", "-shm", ".init.lock"):
        Path(str(tmp) + suffix).unlink(missing_ok=True)
    return {"made_at": end, "seconds": time.perf_counter() - t0, "messages": n_msgs}


def cached_history(n_msgs: int, n_teams: int, regenerate: bool) -> tuple[Path, dict[str, Any]]:
    cache = Path(os.environ.get("TEAMINBOX_CACHE") or Path.home() / ".cache" / "teaminbox")
    folder = cache / "bench"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"history-v{GEN_VERSION}-{n_msgs}-{n_teams}.db"
    meta_path = path.with_suffix(".json")
    if path.exists() and meta_path.exists() and not regenerate:
        meta = json.loads(meta_path.read_text())
        if time.time() - meta["made_at"] < CACHE_DAYS * 86400:
            meta["cached"] = True
            return path, meta
    print(f"  generating {n_msgs:,} messages in {n_teams:,} teams -> {path}", flush=True)
    path.unlink(missing_ok=True)
    meta = generate(path, n_msgs, n_teams)
    meta["bytes"] = path.stat().st_size
    meta_path.write_text(json.dumps(meta))
    meta["cached"] = False
    return path, meta


COMMON = ["test", "module", "auth", "build", "review", "deploy", "cache", "error"]
PHRASES = [
    '"tests pass"',
    '"auth module"',
    '"ready for review"',
    '"the e2e suite"',
    '"returns 500"',
    '"ci is green"',
    '"cache is invalidated"',
]


def pick_teams(db_path: Path) -> dict[str, str]:
    """Ended teams to ask about: the largest, a median one, the smallest, the oldest, the newest."""
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        sizes = db.execute(
            "SELECT team, count(*) FROM messages GROUP BY team ORDER BY 2 DESC"
        ).fetchall()
        order = [r[0] for r in db.execute("SELECT id FROM teams ORDER BY ended_at")]
    finally:
        db.close()
    if not sizes:
        return {}
    return {
        "largest": sizes[0][0],
        "median": sizes[len(sizes) // 2][0],
        "smallest": sizes[-1][0],
        "oldest": order[0],
        "newest": order[-1],
        "median_n": str(sizes[len(sizes) // 2][1]),
        "largest_n": str(sizes[0][1]),
    }


def queries(n_msgs: int, teams: dict[str, str]) -> list[tuple[str, str, str | None]]:
    """(kind, query, team) x ~30: common words, rare ticket ids and a word that is nowhere,
    phrases, and common words within one ended team."""
    tickets = max(100, n_msgs // 20)
    rng = random.Random(7)
    out: list[tuple[str, str, str | None]] = [("common", w, None) for w in COMMON]
    out += [("rare", f"tkt{rng.randrange(tickets):05d}", None) for _ in range(7)]
    out.append(("rare", "kubernetes", None))
    out += [("phrase", p, None) for p in PHRASES]
    for kind, w in zip(
        ("largest", "median", "smallest", "oldest", "newest", "median", "largest"),
        ("test", "auth", "module", "review", "build", '"tests pass"', "tkt00042"),
        strict=True,
    ):
        out.append(("team", w, teams.get(kind)))
    return out


def live_team(root: Path) -> Path:
    """The session the person has open: a lead and two helpers, a few messages delivered."""
    team = make_session_team(root, "session-0000live", "myapp", ["helper", "tester"])
    rng = random.Random(3)
    entries = [
        {
            "from": "helper",
            "text": make_text(rng, 100),
            "summary": zipf_words(rng, 4),
            "timestamp": epoch_iso(time.time() - 600 + i),
            "color": "blue",
            "read": False,
        }
        for i in range(20)
    ]
    write_json(team / "inboxes" / "team-lead.json", entries)
    return team


async def heavy_server(
    base: Path, label: str, db_src: Path | None, n_msgs: int, reps: int
) -> dict[str, Any]:
    folder = base / label
    root = folder / "teams"
    team = live_team(root)
    db = folder / "history.db"
    if db_src is not None:
        t0 = time.perf_counter()
        shutil.copyfile(db_src, db)
        print(
            f"  copied the history ({db.stat().st_size / 1e9:.2f} GB) in"
            f" {time.perf_counter() - t0:.1f} s",
            flush=True,
        )
    teams = pick_teams(db) if db_src is not None else {}
    out: dict[str, Any] = {"label": label, "bytes": db.stat().st_size if db.exists() else 0}
    c = Session()
    marks = widen_start(c)
    await c.start(root, db)
    spawn = c.first_teams_ms
    out["start"] = {  # ms to the first `teams` from spawn and from `initialize`; initialize's own
        "spawn": spawn,
        "init": spawn - (marks["initialize"] - marks["spawn"]) * 1000,
        "initialize": (marks["initialized"] - marks["initialize"]) * 1000,
    }
    out["rss_start"] = vm(c.pid, "VmRSS")
    try:
        out["teams"], _ = await timed(lambda: c.call("teamInbox/teams", {}), reps)
        out["teams_live"], _ = await timed(
            lambda: c.call("teamInbox/teams", {"includeEnded": False}), reps
        )
        qs = queries(n_msgs, teams)
        search: list[dict[str, Any]] = []
        for rep in range(2):  # the first pass warms the page cache; both are reported
            for kind, q, tid in qs:
                params: dict[str, Any] = {"query": q}
                if kind == "team":
                    params["team"] = tid or team.name
                try:
                    [t], res = await timed(lambda p=params: c.call("teamInbox/search", p))
                    n, err = len(res["messages"]), None
                except Exception as e:  # noqa: BLE001 - an error is a figure here
                    t, n, err = float("nan"), 0, str(getattr(e, "message", e))[:80]
                search.append(
                    {"rep": rep, "kind": kind, "q": q, "team": tid, "ms": t, "n": n, "err": err}
                )
        out["search"] = search
        convo_team = teams.get("median", f"claude:{team.name}")
        bare = convo_team.partition(":")[2]
        few = max(3, reps // 4)
        out["convo"], res = await timed(
            lambda: c.call("teamInbox/conversation", {"team": convo_team, "limit": 200}), reps
        )
        out["convo_n"] = len(res["messages"])
        out["convo_name"], _ = await timed(
            lambda: c.call("teamInbox/conversation", {"team": bare, "limit": 200}), few
        )
        out["page"], _ = await timed(
            lambda: c.call(
                "teamInbox/messages", {"team": convo_team, "inbox": "team-lead", "limit": 200}
            ),
            few,
        )
        out["page_big"], _ = await timed(
            lambda: c.call(
                "teamInbox/messages",
                {"team": teams.get("largest", convo_team), "inbox": "team-lead", "limit": 200},
            ),
            few,
        )
        out["hwm"] = vm(c.pid, "VmHWM")
        out["rss"] = vm(c.pid, "VmRSS")
    finally:
        await c.stop()
    out["direct"] = await direct(db, qs, teams, reps)
    out["teams_picked"] = teams
    return out


async def timed(fn: Callable[[], Any], reps: int = 1) -> tuple[list[float], Any]:
    """ms of each of `reps` calls of fn (a request to the server or History in this process),
    and what the last one returned."""
    out, res = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        res = fn()
        if isawaitable(res):
            res = await res
        out.append((time.perf_counter() - t0) * 1000)
    return out, res


async def direct(
    db: Path, qs: list[tuple[str, str, str | None]], teams: dict[str, str], reps: int
) -> dict[str, Any]:
    """The same history in this process, through History's own methods."""
    t0 = time.perf_counter()
    h = History(str(db))
    out: dict[str, Any] = {"open": (time.perf_counter() - t0) * 1000}
    try:
        out["ended50"], _ = await timed(lambda: h.ended_teams(50), reps)
        out["ended_all"], ended = await timed(lambda: h.ended_teams(), max(3, reps // 4))
        out["ended_all_n"] = len(ended)
        out["search"] = [
            (kind, (await timed(lambda q=q, tid=tid: h.search(q, tid), 3))[0])
            for kind, q, tid in qs
        ]
        if teams:
            out["convo"], _ = await timed(lambda: h.team_messages(teams["median"]), reps)
        t0 = time.perf_counter()
        h.db.execute("PRAGMA quick_check").fetchone()
        out["quick_check"] = (time.perf_counter() - t0) * 1000
    finally:
        h.close()
    return out


async def bench_heavy(
    base: Path, n_msgs: int, n_teams: int, regenerate: bool, reps: int
) -> dict[str, Any]:
    path, meta = cached_history(n_msgs, n_teams, regenerate)
    print(
        f"  history {path} ({'cached' if meta['cached'] else 'generated'},"
        f" {meta['seconds']:.0f} s to make)",
        flush=True,
    )
    empty = await heavy_server(base, "empty", None, n_msgs, reps)
    report("empty", empty)
    heavy = await heavy_server(base, "heavy", path, n_msgs, reps)
    report("heavy", heavy)
    return {"empty": empty, "heavy": heavy, "meta": meta, "n_msgs": n_msgs, "n_teams": n_teams}


def p50(v: list[float]) -> float:
    v = [x for x in v if x == x]
    return statistics.median(v) if v else float("nan")


def report(label: str, r: dict[str, Any]) -> None:
    s = [x["ms"] for x in r["search"] if x["rep"] == 1]
    print(
        f"  {label}: first teams {r['start']['init']:.0f} ms from initialize"
        f" ({r['start']['spawn']:.0f} from spawn), teams p50 {p50(r['teams']):.1f} ms,"
        f" search p50 {p50(s):.1f} p90 {pct([x for x in s if x == x], 90):.1f} ms,"
        f" conversation p50 {p50(r['convo']):.1f} ms, HWM {r['hwm']:.0f} MB;"
        f" direct: open {r['direct']['open']:.0f} ms, ended_teams(50)"
        f" {p50(r['direct']['ended50']):.2f} ms",
        flush=True,
    )
    errs = {x["err"] for x in r["search"] if x["err"]}
    if errs:
        print(f"    search errors: {sorted(errs)}", flush=True)


# --- report -------------------------------------------------------------------------------------


def fmt_ms(v: float) -> str:
    return "-" if v != v else ms(v)


def merged(runs: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """One configuration's repetitions added up."""
    rs = [r for r in runs if r["run"] == name]
    m: dict[str, Any] = {k: rs[0][k] for k in ("run", "pace", "prune")}
    for k in (
        "acked",
        "captured",
        "in_convo",
        "notified",
        "prunes",
        "prune_fail",
        "pruned",
        "took",
    ):
        m[k] = sum(r[k] for r in rs)
    m["reps"] = len(rs)
    m["latency"] = [x for r in rs for x in r["latency"]]
    m["missed"] = [(r["rep"], i, r["life"].get(i)) for r in rs for i in r["missed"]]
    m["life"] = [x for r in rs for x in r["life"].values()]
    m["writer_err"] = [(r["rep"], r["writer_rc"], r["writer_err"]) for r in rs if r["writer_rc"]]
    m["prune_err"] = next((r["prune_err"] for r in rs if r["prune_err"]), None)
    return m


def render_capture(runs: list[dict[str, Any]]) -> list[str]:
    reps = max(r["rep"] for r in runs) + 1
    lines = [
        "### 1. Capture under a burst",
        "",
        f"A session team (lead + 2 helpers) as Claude Code 2.1.3xx writes it; {BURST} messages"
        " into the lead's inbox (`team-lead.json`) by Claude Code's own writer (`node"
        " tests/interop/node/claude_peer.js serve`: one locked write per message, proper-lockfile"
        " with Claude Code's options, `JSON.stringify(arr, null, 2)`, temp file + rename). The"
        " consumer: `claude_peer.js prune` (every entry in the file, all delivered) started every"
        f" {PRUNE_EVERY * 1000:.0f} ms as Claude Code polls (a fresh node process each time, so a"
        " prune lands some 50-150 ms after its tick, after waiting for the writer's lock)."
        f" Each of the four runs {reps} times, interleaved; one server, a fresh team per run;"
        " figures add up over the repetitions. Captured = in `teamInbox/messages` with"
        " `includeArchived` afterwards (the conversation agrees); latency = the writer's clock"
        " just before its rename -> the client's clock when the `didChange` carrying the message"
        " arrives (both wall clocks on this machine; the server archives before it publishes).",
        "",
        "| writer | pruner | acked | captured | in conversation | notified | missed (pruned unseen) |"
        " write -> archived p50 / p90 / max ms | prunes (failed) / entries pruned | burst took s (each) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    ms_ = [merged(runs, name) for name, _, _ in CAPTURE_PLAN]
    for r in ms_:
        lat = r["latency"]
        pace = "as fast as it goes" if r["pace"] is None else f"one per {r['pace'] * 1000:.0f} ms"
        total = BURST * r["reps"]
        lines.append(
            f"| {pace} | {'every 500 ms' if r['prune'] else 'none'} | {r['acked']} |"
            f" {r['captured']} ({r['captured'] / total:.1%}) | {r['in_convo']} | {r['notified']} |"
            f" {len(r['missed'])} | {fmt_ms(p50(lat))} / {fmt_ms(pct(lat, 90))} /"
            f" {fmt_ms(max(lat) if lat else float('nan'))} |"
            + (f" {r['prunes']} ({r['prune_fail']}) / {r['pruned']} |" if r["prune"] else " - |")
            + f" {r['took'] / r['reps']:.2f} |"
        )
    lines.append("")
    for r in ms_:
        if r["writer_err"]:
            lines.append(f"- Writer in `{r['run']}` failed: {r['writer_err'][:3]}")
        if r["prune_err"]:
            lines.append(f"- A prune in `{r['run']}` failed: {r['prune_err']}")
        if r["prune"] and r["life"]:
            short = sorted(r["life"])
            lines.append(
                f"- `{r['run']}`: a message stood in the file (its rename to the next prune's"
                f" rename) min {fmt_ms(short[0])} ms, p10 {fmt_ms(pct(short, 10))} ms, p50"
                f" {fmt_ms(pct(short, 50))} ms; under 20 ms: {sum(x < 20 for x in short)}, under"
                f" 50 ms: {sum(x < 50 for x in short)}, of {len(short)}."
                + (
                    " Missed (repetition, burst index, how long it stood): "
                    + ", ".join(
                        f"{rep}/#{i} ({fmt_ms(life) if life is not None else '?'} ms)"
                        for rep, i, life in r["missed"][:20]
                    )
                    + "."
                    if r["missed"]
                    else ""
                )
            )
    first = next((r for r in runs if r["missed"]), None)
    if first is not None:
        lines += ["", timeline(first)]
    return lines


def timeline(r: dict[str, Any]) -> str:
    """What happened around the first message missed in one run (ms from the burst's start)."""
    i = r["missed"][0]
    last = r["missed"][-1]
    a, b = r["acks"][i]["tr"] - r["t0_epoch"], r["acks"][last]["tr"] - r["t0_epoch"]
    prunes = [
        (p["tr"] - r["t0_epoch"], p.get("removed"))
        for p in r["prune_log"]
        if p.get("tr") is not None and a - 300 <= p["tr"] - r["t0_epoch"] <= b + 300
    ]
    changes = [x for x in r["changes"] if a - 300 <= x[0] <= b + 300]
    return (
        f"Timeline of `{r['run']}` #{r['rep']}, ms from the burst's start: messages"
        f" #{i}..#{last} ({len(r['missed'])} missed) renamed into the file from {a:.0f} to"
        f" {b:.0f}; prunes (rename, entries removed): "
        + ", ".join(f"{t:.0f} ({n})" for t, n in prunes)
        + "; didChange arrivals (+added -removed =total): "
        + ", ".join(f"{t:.0f} (+{ad} -{rm} ={n})" for t, ad, rm, n in changes[:40])
        + (" ..." if len(changes) > 40 else "")
        + "."
    )


def render_heavy(h: dict[str, Any]) -> list[str]:
    e, v = h["empty"], h["heavy"]
    ed, vd = e["direct"], v["direct"]

    def row(what: str, a: float, b: float, unit: str = "ms") -> str:
        ratio = f"{b / a:.1f}x" if a and a == a and b == b else "-"
        f = (lambda x: f"{x:.0f}") if unit == "MB" else fmt_ms
        return f"| {what} | {f(a)} | {f(b)} | {ratio} |"

    def srch(r: dict[str, Any], kind: str | None, rep: int = 1) -> list[float]:
        return [
            x["ms"]
            for x in r["search"]
            if x["rep"] == rep and (kind is None or x["kind"] == kind) and x["err"] is None
        ]

    def dsrch(d: dict[str, Any], kind: str | None) -> list[float]:
        return [p50(t) for k, t in d["search"] if kind is None or k == kind]

    meta = h["meta"]
    lines = [
        "### 2. A heavy user's 90-day history",
        "",
        f"Generated through `History` itself (generator v{GEN_VERSION},"
        f" {'cached' if meta['cached'] else 'made in this run'}, {meta['seconds']:.0f} s to make):"
        f" {h['n_teams']:,} ended session teams (lead + 2-3 helpers, project label) over"
        f" {SPAN_DAYS} days and {h['n_msgs']:,} archived messages (200-400 bytes of text from a"
        " ~250-word list, templates with ticket ids, 20% of the helpers' as idle frames), every"
        f" one delivered (`gone_at` set). File {v['bytes'] / 1e9:.2f} GB (copied fresh for the run,"
        " so in the page cache: a warm start). Beside it the same work on an empty history."
        " Both servers also watch one live session team (20 messages). Server figures are"
        f" at the client over stdio, {len(e['teams'])} calls each unless said; `direct` ="
        " History's method in this process on the same file afterwards.",
        "",
        "| measure | empty history | heavy history | heavy / empty |",
        "|---|---|---|---|",
        row("first `teams` answer, from spawn", e["start"]["spawn"], v["start"]["spawn"]),
        row(
            "... of which spawn -> `initialize` answered (interpreter, imports)",
            e["start"]["initialize"],
            v["start"]["initialize"],
        ),
        row(
            "... `initialize` answered -> first `teams` (history open, first scan)",
            e["start"]["init"] - e["start"]["initialize"],
            v["start"]["init"] - v["start"]["initialize"],
        ),
        row("`teams` (default: 50 ended listed) p50", p50(e["teams"]), p50(v["teams"])),
        row("`teams` p90", pct(e["teams"], 90), pct(v["teams"], 90)),
        row("`teams` includeEnded false p50", p50(e["teams_live"]), p50(v["teams_live"])),
        row("direct `History.ended_teams(50)` p50", p50(ed["ended50"]), p50(vd["ended50"])),
        row(
            f"direct `History.ended_teams()` (all {vd['ended_all_n']:,}) p50",
            p50(ed["ended_all"]),
            p50(vd["ended_all"]),
        ),
        row("`search` all ~30 queries p50 (second pass)", p50(srch(e, None)), p50(srch(v, None))),
        row("`search` p90 (second pass)", pct(srch(e, None), 90), pct(srch(v, None), 90)),
        row("`search` p50, first pass", p50(srch(e, None, 0)), p50(srch(v, None, 0))),
    ]
    for kind in ("common", "rare", "phrase", "team"):
        v_kind = srch(v, kind)
        lines.append(
            row(
                f"`search` {kind} p50 (heavy max {fmt_ms(max(v_kind, default=float('nan')))})",
                p50(srch(e, kind)),
                p50(v_kind),
            )
        )
    lines += [
        row(
            "direct `History.search` p50 (all queries)", p50(dsrch(ed, None)), p50(dsrch(vd, None))
        ),
        row(
            f"`conversation` of one ended team by id ({v.get('convo_n', 0)} of"
            f" {v['teams_picked'].get('median_n', '?')} messages) p50",
            p50(e["convo"]),
            p50(v["convo"]),
        ),
        row("`conversation` by bare team name p50", p50(e["convo_name"]), p50(v["convo_name"])),
        row("`messages` of that ended team's lead inbox p50", p50(e["page"]), p50(v["page"])),
        row(
            f"`messages` of the largest ended team's lead inbox ({v['teams_picked'].get('largest_n', '?')}"
            " messages in the team) p50",
            p50(e["page_big"]),
            p50(v["page_big"]),
        ),
        row("direct `History.__init__` (open, quick_check, prune)", ed["open"], vd["open"]),
        row("direct `PRAGMA quick_check`", ed["quick_check"], vd["quick_check"]),
        row("RSS after start", e["rss_start"], v["rss_start"], "MB"),
        row("peak RSS (VmHWM) at the end", e["hwm"], v["hwm"], "MB"),
        "",
        "Search queries (second pass, ms, heavy history; n = messages returned, limit 50):",
        "",
        "| kind | query | team | ms | n |",
        "|---|---|---|---|---|",
    ]
    for x in v["search"]:
        if x["rep"] == 1:
            lines.append(
                f"| {x['kind']} | `{x['q']}` | {x['team'] or '-'} |"
                f" {fmt_ms(x['ms']) if x['err'] is None else 'error: ' + x['err']} | {x['n']} |"
            )
    return lines


def render(
    cap: list[dict[str, Any]] | None,
    heavy: dict[str, Any] | None,
    args: Any,
    took: float,
    load: tuple[str, str],
) -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    flags = " ".join(
        f
        for f in ("--quick" if args.quick else "", f"--only {args.only}" if args.only else "")
        if f
    )
    lines = [
        SECTION,
        "",
        f"`.venv/bin/python bench/bench_history.py{(' ' + flags) if flags else ''}`, {now},"
        f" {took:.0f} s. A pygls client over stdio against the real `python -m teaminbox serve`"
        " subprocess; times are taken in the client process.",
        "",
        f"Machine (shared and noisy: quote medians and ratios): {machine()}; node"
        f" {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()};"
        f" load average {load[0]} at the start, {load[1]} at the end (other sessions' tests"
        " ran meanwhile).",
        "",
        "### Summary",
        "",
    ]
    ok = lambda good: "meets" if good else "MISSES"  # noqa: E731
    if cap:
        for name, _, _ in CAPTURE_PLAN:
            r = merged(cap, name)
            lat, total = r["latency"], BURST * r["reps"]
            pace = (
                "as fast as it goes" if r["pace"] is None else f"one per {r['pace'] * 1000:.0f} ms"
            )
            lines.append(
                f"- {r['reps']} bursts of {BURST} ({pace}), {'pruned every 500 ms' if r['prune'] else 'no pruner'}:"
                f" captured {r['captured']}/{total} ({r['captured'] / total:.1%}),"
                f" {len(r['missed'])} pruned before the server saw them; write -> archived p50"
                f" {fmt_ms(p50(lat))} ms, p90 {fmt_ms(pct(lat, 90))} ms, max"
                f" {fmt_ms(max(lat) if lat else float('nan'))} ms."
            )
    if heavy:
        v = heavy["heavy"]
        s = [x["ms"] for x in v["search"] if x["rep"] == 1 and x["err"] is None]
        first = v["start"]["init"] - v["start"]["initialize"]
        base = heavy["empty"]["start"]
        lines += [
            f"- Heavy history ({heavy['n_msgs']:,} messages, {heavy['n_teams']:,} ended teams,"
            f" {v['bytes'] / 1e9:.2f} GB): first `teams` {v['start']['spawn']:.0f} ms after spawn"
            f" (empty history: {base['spawn']:.0f} ms), {first:.0f} ms after the `initialize`"
            f" answer (empty: {base['init'] - base['initialize']:.0f} ms); target <= 1 s after"
            f" start: {ok(v['start']['spawn'] <= 1000)}.",
            f"- Ended teams listing: `teams` p50 {fmt_ms(p50(v['teams']))} ms, History.ended_teams(50)"
            f" {fmt_ms(p50(v['direct']['ended50']))} ms (target <= 50 ms: {ok(p50(v['teams']) <= 50)}).",
            f"- Search p50 {fmt_ms(p50(s))} ms, p90 {fmt_ms(pct(s, 90))} ms over {len(s)} queries"
            f" (target p50 <= 50 ms: {ok(p50(s) <= 50)}).",
            f"- Conversation of one ended team p50 {fmt_ms(p50(v['convo']))} ms.",
            f"- Peak RSS {v['hwm']:.0f} MB (target <= 150 MB: {ok(v['hwm'] <= 150)}).",
        ]
    lines.append("")
    if cap:
        lines += render_capture(cap) + [""]
    if heavy:
        lines += render_heavy(heavy) + [""]
    lines.append(NOTES)
    return "\n".join(lines)


NOTES = """### What was fixed, and what is left (measured 2026-11-30, same machine, load ~8-11)

Before = the same bench at 16edf36 (before 4619658; some of its hunks landed with 57efdff),
1,000,000 messages: first `teams` 9288 ms after spawn (empty history 2140 ms), search p50
1894 ms / p90 3792 ms, conversation by bare team name 1777 ms, peak RSS 79 MB.

- **Search** (`History.search`): `ORDER BY m.ts DESC LIMIT 50` joined every FTS match to its
  row and sorted them all; a common word matches a third of a million messages here: 1.9-5.5 s
  each. Now `ORDER BY f.rowid DESC LIMIT 50`: FTS5 walks its index from the newest row and
  stops at 50; those 50 are then ordered by timestamp. A team's search also keeps to
  `f.rowid BETWEEN` the team's first and last rowid (read from the (team, ts) index). What the
  user gets: the newest *archived* matches, which is timestamp order except for the backlog
  of an inbox seen for the first time (archived file by file).
- **Start-up** (`History.__init__`): `PRAGMA quick_check` read the whole 2.4 GB file on every
  start (7.8-9.9 s here). Files up to 128 MiB are still checked when opened (~0.2 s); a bigger
  one on a low-priority thread with a connection of its own. Damage it finds is logged and a
  `history.db.damaged` marker moves the file aside at the next start; damage that the start-up
  prune runs into moves it aside at once. History open: 8.3 s -> 21 ms.
- **Ended team by bare name** (`Tracker.find`, new `History.ended_teams_named`): a Team was
  structured (cattrs) from each of the 5,000 bodies to pick one by name; now SQLite's
  `json_extract` finds the name. By id it was and is a primary-key lookup.
- **An ended team's inbox page** (`Tracker._ended_page`, `History.archived(newest=)`): every
  archived message of the inbox was parsed, then sorted (219 ms in process for 1,456); now
  only the newest `offset + limit`, in SQL order.
- Met before and unchanged: ended-team listing (`teams` ~11 ms: 50 teams structured by cattrs,
  ~6 ms of it) and peak RSS.

Left:
- First `teams` <= 1 s after spawn: ~1 s with the heavy history and with an empty one alike
  (the table); nearly all of it is spawn -> `initialize` answered, the interpreter and imports
  (2-3.5 s of it at load ~9-10; `python -X importtime`: `lsprotocol.types` 2.4 s of 4.3 s
  then). The history's own share (initialize answered -> first `teams`) is tens of ms, as
  with an empty one.
- `teamInbox/search` with the `team` of an ended team answers `unknown_team`:
  `server/features/search.py` resolves live teams only (`tracker.resolve`);
  `tracker.find(p.team).id` would take ended ones. Team-filtered figures above are therefore
  `History.search` in process (all queries p50 in the `direct` row).
- A live inbox's page with `includeArchived` (`Tracker.page`) still parses every archived
  message of the inbox; with Claude Code today every message in an agent's inbox is archived
  (delivered), so a long session's lead inbox grows that cost (0.2 s per 1,500 messages here);
  `history.archived(..., newest=offset + limit)` as in `_ended_page` would bound it.
- Storage: ~2.4 KB per archived message (the text is kept three times: the `text` column and
  `text` and `raw.text` in the body, plus FTS), so 1,000,000 messages take 2.4 GB.
- Capture under pruning: below.

### Why messages were missed under Claude Code's pruning (diagnosed 2026-11-30)

A message is lost when the server does not read the file between the message's rename and
the prune's rename. A server instrumented with a timestamped line per watchdog hint, per
inbox read and per state-thread step showed the main cause: ~500 ms stretches in which
watchdog delivered no event at all while the writer renamed dozens of messages into the file,
then all the held events at once. It is watchdog 6.0.0's `InotifyBuffer`: an `IN_MOVED_FROM`
read without its `IN_MOVED_TO` (the inotify thread woke between the two halves of a rename)
is held `InotifyBuffer.delay` = 0.5 s to be paired, and `DelayedQueue.get` sleeps that delay
out at the head of the queue even when the pair arrived meanwhile, so every later event waits
behind it. Without a pruner nothing is lost (the next read takes the whole file; the stall
shows only as a latency of up to ~0.5 s); with Claude Code's 500 ms pruner, whatever was written
and pruned inside the stall is never seen. Same period, interleaved A/B (2 x 8 runs of 200,
fast and paced, pruner on): 137 of 3,200 missed by the server as it is, 38 of 3,200 with
`InotifyBuffer.delay = 0.0` set before the observer starts (the move's halves then arrive as
the temp file's deletion and the inbox's creation, which the hints treat alike). That is a
one-line fix in `watch.py` (not this bench's file). What remains: messages that stood a few ms
to tens of ms in the file (the prune right behind the write) while the server was still on
its way to read: the 2 ms coalescing, the hop to the state thread and whatever step it was in
(at load ~10 here up to 100-300 ms at times: a periodic rescan, a step archiving many
messages; ~7 ms on a quiet machine). Reading the bytes on watchdog's thread as each event
arrives did not change the figures on its own in a prototype (the stalls were upstream, in
watchdog); recovering from the session transcripts could close what remains.
"""


def ensure_node_modules() -> None:
    if not (NODE_DIR / "node_modules" / "proper-lockfile").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(NODE_DIR)],
            check=True,
            timeout=300,
        )


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
