"""A flood of Claude Code's own writes (proper-lockfile, one locked write a message) into
50 person's inboxes while a client keeps asking: nothing is lost, each reply is notified
once, and the requests are answered all through the flood, not after it (a `teams` must
not rescan every team behind the flood's whole backlog on the state thread)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from bisect import bisect
from pathlib import Path

import pytest

from support.node import NODE_DIR, node_exe

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from lsp_session import (  # noqa: E402
    SERVER,
    call,
    finish,
    make_recording_client,
    options,
    rec,
    start,
    write_json,
)

TEAMS = 50
PER_INBOX = 100  # 5,000 messages, the flood
SECONDS = 10.0
WAIT = 90.0  # for the last `replied` after the flood (bounded; a loaded machine is slow)


def make_teams(home: Path) -> list[Path]:
    own = []
    for i in range(TEAMS):
        name = f"team{i:02d}"
        team = home / ".claude" / "teams" / name
        write_json(
            team / "config.json",
            {
                "name": name,
                "leadAgentId": f"team-lead@{name}",
                "members": [
                    {"agentId": f"team-lead@{name}", "name": "team-lead"},
                    {"agentId": f"worker@{name}", "name": "worker"},
                ],
            },
        )
        for inbox in ("team-lead", "worker", "user"):
            write_json(team / "inboxes" / f"{inbox}.json", [])
        own.append(team / "inboxes" / "user.json")
    return own


@pytest.mark.slow
async def test_flood_loses_nothing_replies_once_and_keeps_answering(tmp_path: Path) -> None:
    exe = node_exe()
    own = make_teams(tmp_path)
    client = make_recording_client()
    await client.start_io(*SERVER)
    try:
        await start(client, options(tmp_path))
        r = rec(client)
        answers: list[tuple[str, float, float]] = []  # (method, asked, answered), epoch s
        stop = asyncio.Event()

        async def ask() -> None:
            quiet = {"team": "team00", "inbox": "worker"}
            while not stop.is_set():
                t0 = time.time()
                teams = (await call(client, "teamInbox/teams", {}))["teams"]
                assert len([t for t in teams if not t["ended"]]) == TEAMS
                answers.append(("teams", t0, time.time()))
                t0 = time.time()
                await call(client, "teamInbox/messages", quiet)
                answers.append(("messages", t0, time.time()))
                await asyncio.sleep(0.02)

        asker = asyncio.ensure_future(ask())
        writer = await asyncio.create_subprocess_exec(
            exe,
            str(NODE_DIR / "flood_writer.js"),
            str(PER_INBOX),
            str(SECONDS),
            "f",
            *map(str, own),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await asyncio.wait_for(writer.communicate(), 120)
        assert writer.returncode == 0
        lines = out.decode().splitlines()
        acks = sorted(
            (int(ln.split()[2]) / 1000, ln.split()[1]) for ln in lines if ln.startswith("ACK ")
        )
        tokens = {t for _, t in acks}
        assert len(acks) == TEAMS * PER_INBOX, [ln for ln in lines if not ln.startswith("ACK")]

        def replied() -> list[str]:
            return [p["message"]["text"] for p in r.since("teamInbox/replied")]

        deadline = time.monotonic() + WAIT
        while not tokens <= set(replied()) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        stop.set()
        await asyncio.wait_for(asker, 60)
        await r.quiet(1.0)  # a second `replied` for any of them would come by now

        # each reply once, and nothing else
        got = replied()
        assert sorted(got) == sorted(tokens), (
            f"{len(tokens - set(got))} never notified, {len(got) - len(set(got))} twice"
        )
        # nothing lost: every acknowledged message is in its inbox, on disk and served
        for k, path in enumerate(own):
            want = {f"f-{k}-{i}" for i in range(PER_INBOX)}
            assert {e["text"] for e in json.loads(path.read_bytes())} == want
            page = await call(
                client, "teamInbox/messages", {"team": f"team{k:02d}", "inbox": "user"}
            )
            assert {m["text"] for m in page["messages"]} == want

        # Answered all through the flood: in each third of its writes, not all after it;
        # and a request waits through a few of the flood's writes, not through its backlog.
        # Before the fix: 3 to 15 `teams` answers, all in the first third (5 runs of 6).
        times = [t for t, _ in acks]
        first, last = times[0], times[-1]
        thirds = [first, times[len(times) // 3], times[2 * len(times) // 3], last]
        for method in ("teams", "messages"):
            asked = [(a, b) for m, a, b in answers if m == method and first <= a and b <= last]
            per_third = [
                sum(1 for _, b in asked if lo <= b < hi)
                for lo, hi in zip(thirds[:-1], thirds[1:], strict=True)
            ]
            waited = sorted(bisect(times, b) - bisect(times, a) for a, b in asked)
            assert all(n >= 5 for n in per_third), (method, per_third, waited)
            assert waited[len(waited) // 2] <= len(times) // 20, (method, per_third, waited)
    finally:
        await finish(client)
        await asyncio.wait_for(client.stop(), 15)
