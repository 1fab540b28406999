"""A heavy user's 90-day history, generated through `teaminbox.history.History` and cached."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import orjson

import teaminbox.history as history_module
from history_bench.session_team import epoch_iso, session_config
from teaminbox.discovery import Settings, TeamDir, describe, roster
from teaminbox.formats import get
from teaminbox.history import History, activity, boards, messages, teams
from teaminbox.model import converter

CLAUDE = get("claude")
GEN_VERSION = 1  # bump when the generated history changes shape
SPAN_DAYS = 88  # the generated history ends when it was made and goes back this far
CACHE_DAYS = 2  # ... so it is still all inside the 90 days kept for this long

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
