"""2. The real server on the heavy history beside an empty one: teams, search, a conversation, memory."""

from __future__ import annotations

import random
import shutil
import sqlite3
import time
from collections.abc import Callable
from inspect import isawaitable
from pathlib import Path
from typing import Any

from benchlib.session import Session, vm, widen_start
from benchlib.stats import median, pct
from history_bench.generate import cached_history, make_text, zipf_words
from history_bench.session_team import epoch_iso, make_session_team, write_json
from teaminbox.history import History

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


def report(label: str, r: dict[str, Any]) -> None:
    s = [x["ms"] for x in r["search"] if x["rep"] == 1]
    print(
        f"  {label}: first teams {r['start']['init']:.0f} ms from initialize"
        f" ({r['start']['spawn']:.0f} from spawn), teams p50 {median(r['teams']):.1f} ms,"
        f" search p50 {median(s):.1f} p90 {pct([x for x in s if x == x], 90):.1f} ms,"
        f" conversation p50 {median(r['convo']):.1f} ms, HWM {r['hwm']:.0f} MB;"
        f" direct: open {r['direct']['open']:.0f} ms, ended_teams(50)"
        f" {median(r['direct']['ended50']):.2f} ms",
        flush=True,
    )
    errs = {x["err"] for x in r["search"] if x["err"]}
    if errs:
        print(f"    search errors: {sorted(errs)}", flush=True)
