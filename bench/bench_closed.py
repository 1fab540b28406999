"""What rebuilding the teams that lived while no sidecar ran costs (activity/unseen.py). Not
a test: nothing here asserts a figure.

A heavy user's Claude Code home: 200 ended sessions (their team folders gone), each a lead
and 5 teammates (meta.json naming the team), 50,000 `SendMessage` calls in all (rows as
Claude Code 2.1.332 writes them, with a filler assistant row between sends), in 20 project
folders, beside 200 sessions without a team. The real server (a pygls client over stdio,
as the extension starts it) on a fresh history:
- spawn -> the first `teams` answer, beside the same home without its projects folder
  (nothing to rebuild), interleaved pairs;
- spawn -> every session looked at (the history's `session_scans`, read from the bench's
  own read-only connection), the server's peak RSS (VmHWM), and the same for the empty home;
- a later start's look at the unchanged home (`find_sessions` with what the history
  remembers), in this process: the median of 7.

    .venv/bin/python bench/bench_closed.py            # ~3 min: 3 pairs
    .venv/bin/python bench/bench_closed.py --quick    # ~1 min: 1 pair
    options: --no-write (leave runs.md alone), --keep (keep the temp folder)
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_server import Session, machine, vm, write_section
from teaminbox.history import History
from teaminbox.transcripts.discover import find_sessions

SECTION = "## Teams that lived while no sidecar ran (bench_closed.py)"
SESSIONS = 200
TEAMMATES = 5
SENDS = 50_000


def _row(kind: str, sid: str, n: int, ts: str, agent: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "parentUuid": None,
        "isSidechain": agent is not None,
        "type": kind,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": ts,
        "cwd": "/home/dev/app",
        "sessionId": sid,
        "version": "2.1.332",
    }
    if agent:
        row["agentId"] = agent
    return row


def _sends(sid: str, agent: str | None, sender: str, to: str, k: int, base: int) -> bytes:
    out = []
    for i in range(k):
        n = base + i
        ts = f"2026-11-{1 + n % 28:02d}T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        text = f"{sender} to {to}: result {n} of the auth module, tests pass on the branch."
        tid = f"toolu_{sid[:8]}_{n}"
        filler = _row("assistant", sid, n * 3, ts, agent)
        filler["message"] = {
            "role": "assistant",
            "content": [{"type": "text", "text": "working on it " * 20}],
            "usage": {"input_tokens": 1000, "output_tokens": 50},
        }
        call = _row("assistant", sid, n * 3 + 1, ts, agent)
        call["message"] = {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": tid,
                    "name": "SendMessage",
                    "input": {"to": to, "message": text, "summary": f"result {n}"},
                }
            ],
            "usage": {"input_tokens": 10, "output_tokens": 2},
        }
        result = {
            "success": True,
            "message": f"Message sent to {to}'s inbox",
            "msg_id": f"{sid[:8]}-{n:08d}",
            "routing": {"sender": sender, "target": f"@{to}", "summary": f"result {n}"},
        }
        res = _row("user", sid, n * 3 + 2, ts, agent)
        res["message"] = {
            "role": "user",
            "content": [{"tool_use_id": tid, "type": "tool_result", "content": json.dumps(result)}],
        }
        res["toolUseResult"] = result
        out += [json.dumps(r, separators=(",", ":")) for r in (filler, call, res)]
    return ("\n".join(out) + "\n").encode()


def make_home(home: Path) -> int:
    """The sessions; returns the bytes written."""
    claude = home / ".claude"
    (claude / "teams").mkdir(parents=True)
    per = -(-SENDS // SESSIONS // (TEAMMATES + 1))  # rounded up: at least SENDS
    size = 0
    for s in range(SESSIONS * 2):
        sid = f"{s:08x}-0000-4000-8000-{s:012d}"
        project = claude / "projects" / f"-home-dev-app{s % 20}"
        project.mkdir(parents=True, exist_ok=True)
        lead = project / f"{sid}.jsonl"
        if s >= SESSIONS:  # a session without a team
            lead.write_bytes(_sends(sid, None, "team-lead", "nobody", 5, 0))
            continue
        team = f"session-{sid[:8]}"
        data = _sends(sid, None, "team-lead", "mate0", per, 0)
        lead.write_bytes(data)
        size += len(data)
        sub = project / sid / "subagents"
        sub.mkdir(parents=True)
        for m in range(TEAMMATES):
            agent = f"a{m:015x}{s:08x}"
            meta = {"agentType": "general-purpose", "name": f"mate{m}", "teamName": team}
            (sub / f"agent-{agent}.meta.json").write_text(json.dumps(meta))
            data = _sends(sid, agent, f"mate{m}", "team-lead", per, (m + 1) * per)
            (sub / f"agent-{agent}.jsonl").write_bytes(data)
            size += len(data)
    return size


def count(history: Path, table: str) -> int:
    try:
        db = sqlite3.connect(f"file:{history}?mode=ro", uri=True)
        try:
            return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return 0


async def one(home: Path, history: Path, want: int) -> dict[str, float]:
    s = Session()
    t0 = time.perf_counter()
    await s.start(home / ".claude" / "teams", history)
    first = s.first_teams_ms
    done = float("nan")
    if want:
        while count(history, "session_scans") < want:
            await asyncio.sleep(0.2)
        done = (time.perf_counter() - t0) * 1000
    peak = vm(s.pid, "VmHWM")
    await s.stop()
    kept = count(history, "messages")
    return {"first_teams_ms": first, "all_ms": done, "peak_mb": peak, "messages": kept}


def unchanged_ms(home: Path, history: Path) -> float:
    h = History(str(history), 0)
    known = h.session_scans()
    h.close()
    dirs = [str(home / ".claude" / "projects")]
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        left = find_sessions(dirs, known)
        times.append((time.perf_counter() - t0) * 1000)
        assert left == [], len(left)
    return statistics.median(times)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    pairs = 1 if args.quick else 3
    tmp = Path(tempfile.mkdtemp(prefix="bench-closed-"))
    try:
        full, empty = tmp / "full", tmp / "empty"
        size = make_home(full)
        (empty / ".claude" / "teams").mkdir(parents=True)
        runs: dict[str, list[dict[str, float]]] = {"full": [], "empty": []}
        load = os.getloadavg()
        for i in range(pairs):
            for name, home, want in (("full", full, SESSIONS * 2), ("empty", empty, 0)):
                history = tmp / f"{name}-{i}.db"
                runs[name].append(await one(home, history, want))
        last = tmp / f"full-{pairs - 1}.db"
        again = unchanged_ms(full, last)
        load2 = os.getloadavg()
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)

    def med(name: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[name])

    ratio = med("full", "first_teams_ms") / med("empty", "first_teams_ms")
    text = "\n".join(
        [
            SECTION,
            "",
            f"{dt.datetime.now().strftime('%Y-%m-%d %H:%M')}, {machine()}, load"
            f" {load[0]:.1f} -> {load2[0]:.1f}, {pairs} interleaved pairs, medians.",
            f"The home: {SESSIONS} ended sessions with a team (a lead and {TEAMMATES}"
            f" teammates), {SENDS:,} SendMessage calls, {size / 1e6:.0f} MB of transcripts;"
            f" {SESSIONS} sessions without a team beside them.",
            "",
            "| measured | that home | the same home, no transcripts | ratio |",
            "|---|---|---|---|",
            f"| spawn -> first `teams` answer | {med('full', 'first_teams_ms'):.0f} ms |"
            f" {med('empty', 'first_teams_ms'):.0f} ms | {ratio:.2f} |",
            f"| spawn -> every session looked at, {SESSIONS} teams rebuilt"
            f" ({med('full', 'messages'):,.0f} messages archived) |"
            f" {med('full', 'all_ms') / 1000:.1f} s | - | - |",
            f"| server peak RSS (VmHWM) | {med('full', 'peak_mb'):.0f} MB |"
            f" {med('empty', 'peak_mb'):.0f} MB | {med('full', 'peak_mb') / med('empty', 'peak_mb'):.2f} |",
            f"| a later start's look at the unchanged home (`find_sessions`, {SESSIONS * 2}"
            f" sessions known) | {again:.1f} ms | - | - |",
            "",
            "Each run: " + json.dumps(runs),
            "",
        ]
    )
    print(text)
    if not args.no_write:
        write_section(text, SECTION)


if __name__ == "__main__":
    asyncio.run(main())
