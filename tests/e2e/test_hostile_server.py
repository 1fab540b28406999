"""The real server against hostile files at start-up, unexpected parse failures, inotify
limits, a huge inbox and hostile params: it keeps answering for everything else.

Issue "No hostile file, signal or byte stream can hang, crash or blind the sidecar",
items 1, 2, 4, 7, 13 and 15. Faults the file system cannot make by itself (an
inotify limit, a parser bug) are injected by starting the real `teaminbox serve`
through a few lines that patch one function first (`patched_server`): no test hook
lives in the product.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsp_session import (
    SERVER,
    WAIT,
    call,
    call_error,
    claude_inbox,
    entry,
    error_code,
    finish,
    make_home,
    make_recording_client,
    options,
    rec,
    start,
    write_json,
)
from pytest_lsp import LanguageClient

CLAUDE_TEAMS = ".claude/teams"


def patched_server(patch: str) -> list[str]:
    """`teaminbox serve` with `patch` (Python source) run first in the server process."""
    code = f"import sys\n{patch}\nfrom teaminbox.cli import main\nsys.exit(main(['serve']))\n"
    return [sys.executable, "-c", code]


async def launch(home: Path, command: list[str] = SERVER, **extra: Any) -> LanguageClient:
    client = make_recording_client()
    await client.start_io(*command)
    await asyncio.wait_for(start(client, options(home, **extra)), 2 * WAIT)
    return client


async def stop(client: LanguageClient) -> None:
    await finish(client)
    await asyncio.wait_for(client.stop(), 15)


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[list[LanguageClient]]:
    """Clients appended here are shut down after the test, whatever happened."""
    clients: list[LanguageClient] = []
    yield clients
    for c in clients:
        try:
            await stop(c)
        except Exception:  # noqa: BLE001 - the test's own failure says more
            if c._server is not None and c._server.returncode is None:
                c._server.kill()


def team_of(teams: list[dict[str, Any]], tid: str) -> dict[str, Any]:
    return next(t for t in teams if t["id"] == tid)


def member_of(team: dict[str, Any], inbox: str) -> dict[str, Any]:
    return next(m for m in team["members"] if m["inbox"] == inbox)


async def teams_by_id(client: LanguageClient) -> dict[str, dict[str, Any]]:
    teams = (await asyncio.wait_for(call(client, "teamInbox/teams", {}), WAIT))["teams"]
    return {t["id"]: t for t in teams}


def claude_team(home: Path, name: str, inbox: Any = None) -> Path:
    """A Claude team `name` with members team-lead and researcher; researcher's inbox is
    `inbox` (JSON-dumped unless bytes). Returns the researcher's inbox path."""
    team = home / ".claude" / "teams" / name
    write_json(
        team / "config.json",
        {
            "name": name,
            "leadAgentId": f"team-lead@{name}",
            "members": [
                {"agentId": f"team-lead@{name}", "name": "team-lead", "agentType": "team-lead"},
                {"agentId": f"researcher@{name}", "name": "researcher"},
            ],
        },
    )
    path = team / "inboxes" / "researcher.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(inbox, bytes):
        path.write_bytes(inbox)
    elif inbox is not None:
        write_json(path, inbox)
    return path


async def until(check: Any, timeout: float = WAIT) -> Any:
    """Poll an async check until it returns a truthy value (fails after `timeout`)."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = await check()
        except Exception as err:  # noqa: BLE001 - kept for the failure message
            last = err
        else:
            if last:
                return last
        await asyncio.sleep(0.2)
    raise AssertionError(f"not within {timeout} s; last: {last!r}")


async def assert_others_serve(client: LanguageClient) -> None:
    """`teams`, `messages` and `send` answer for the well-behaved teams."""
    teams = await teams_by_id(client)
    assert {"claude:alpha", "pseudoclaude:beta"} <= set(teams)
    page = await asyncio.wait_for(
        call(client, "teamInbox/messages", {"team": "claude:alpha", "inbox": "user"}), WAIT
    )
    assert [m["text"] for m in page["messages"]] == ["old news"]
    page = await asyncio.wait_for(
        call(client, "teamInbox/messages", {"team": "pseudoclaude:beta", "inbox": "coder"}), WAIT
    )
    assert page["total"] == 0
    res = await asyncio.wait_for(
        call(
            client,
            "teamInbox/send",
            {"team": "claude:alpha", "to": "researcher", "text": "still here"},
        ),
        WAIT,
    )
    assert res["results"][0]["ok"] is True, res


# --- item 1: odd files present when `serve` starts -------------------------------------

LONE = '"\\ud83d"'  # JSON.stringify("\ud83d") writes this escape
DEEP = 1100


def deep_inbox() -> bytes:
    payload = "[" * DEEP + "]" * DEEP
    return (
        '[{"from": "team-lead", "text": "deep", "timestamp": "2026-11-29T10:00:00.000Z",'
        f' "read": false, "payload": {payload}}}]'
    ).encode()


def surrogate_inbox() -> bytes:
    return (
        f'[{{"from": "team-lead", "text": {LONE}, "timestamp": "2026-11-29T10:00:00.000Z",'
        ' "read": false}]'
    ).encode()


async def test_odd_files_at_start_up(tmp_path: Path, served: list[LanguageClient]) -> None:
    home = tmp_path
    make_home(home)
    dirbox = claude_team(home, "dirbox")
    dirbox.mkdir()
    fifobox = claude_team(home, "fifobox")
    os.mkfifo(fifobox)
    fifocfg_inbox = claude_team(home, "fifocfg", [])
    fifocfg = fifocfg_inbox.parent.parent / "config.json"
    good_config = fifocfg.read_bytes()
    fifocfg.unlink()
    os.mkfifo(fifocfg)
    deep = claude_team(home, "deep", deep_inbox())
    claude_team(home, "lone", surrogate_inbox())
    (home / "history.db").write_bytes(os.urandom(64 * 1024))

    t0 = time.monotonic()
    client = await launch(home)
    served.append(client)
    assert time.monotonic() - t0 < WAIT
    await assert_others_serve(client)

    teams = await teams_by_id(client)
    codes = {
        "dirbox": (member_of(teams["claude:dirbox"], "researcher")["error"] or {}).get("code"),
        "fifobox": (member_of(teams["claude:fifobox"], "researcher")["error"] or {}).get("code"),
        "deep": (member_of(teams["claude:deep"], "researcher")["error"] or {}).get("code"),
        "fifocfg": (teams["claude:fifocfg"]["error"] or {}).get("code"),
    }
    assert codes == {
        "dirbox": "not_regular_file",
        "fifobox": "not_regular_file",
        "deep": "corrupt_inbox",
        "fifocfg": "not_regular_file",
    }, codes
    for name, path in (("dirbox", dirbox), ("fifobox", fifobox), ("deep", deep)):
        problem = member_of(teams[f"claude:{name}"], "researcher")["error"]
        assert problem["path"] == str(path), problem
        err = await call_error(
            client, "teamInbox/messages", {"team": f"claude:{name}", "inbox": "researcher"}
        )
        assert error_code(err) == problem["code"], (name, err)
    # A lone surrogate is what JSON.parse reads: served as it is, no error.
    assert member_of(teams["claude:lone"], "researcher")["error"] is None
    page = await call(client, "teamInbox/messages", {"team": "claude:lone", "inbox": "researcher"})
    assert [m["text"] for m in page["messages"]] == ["\ud83d"]
    assert "ud83d" in json.dumps(page["messages"][0]["raw"])
    # The corrupt history was replaced: search answers (with what it archived since).
    found = await call(client, "teamInbox/search", {"query": "news"})
    assert [m["text"] for m in found["messages"]] == ["old news"]

    # Each odd file removed: that inbox (team) serves again.
    dirbox.rmdir()
    fifobox.unlink()
    fifocfg.unlink()
    fixed = [entry("team-lead", "fixed", "2026-11-29T12:00:00.000Z")]
    for path in (dirbox, fifobox, deep):
        tmp = path.with_name("fix.tmp.setup")
        tmp.write_text(json.dumps(fixed))
        tmp.replace(path)
    tmp = fifocfg.with_name("config.json.tmp.setup")
    tmp.write_bytes(good_config)
    tmp.replace(fifocfg)

    async def all_fixed() -> bool:
        teams = await teams_by_id(client)
        if teams["claude:fifocfg"]["error"] is not None:
            return False
        return all(
            member_of(teams[f"claude:{n}"], "researcher")["error"] is None
            for n in ("dirbox", "fifobox", "deep")
        )

    await until(all_fixed)
    for name in ("dirbox", "fifobox", "deep"):
        page = await call(
            client, "teamInbox/messages", {"team": f"claude:{name}", "inbox": "researcher"}
        )
        assert [m["text"] for m in page["messages"]] == ["fixed"], name
    await assert_others_serve(client)


# --- item 4: a parse that fails for an unexpected reason --------------------------------

# A parser bug stand-in: loading an inbox whose bytes hold BOOM raises a KeyError (no
# error the tracker knows of), wherever the load happens.
BOOM_PATCH = """
import teaminbox.tracker as _t
_load = _t.load_rows
def _boom(fmt, path, data, *args, **kwargs):
    if data is not None and b"BOOM" in data:
        raise KeyError("BOOM: a bug in some parser")
    return _load(fmt, path, data, *args, **kwargs)
_t.load_rows = _boom
"""


def atomic_write(path: Path, value: Any) -> None:
    tmp = path.with_name(path.name + ".tmp.setup")
    tmp.write_text(json.dumps(value, indent=2))
    tmp.replace(path)


async def test_unexpected_parse_failure_at_start_and_later(
    tmp_path: Path, served: list[LanguageClient]
) -> None:
    home = tmp_path
    make_home(home)
    boom = claude_team(home, "boom", [entry("team-lead", "BOOM", "2026-11-29T10:00:00.000Z")])
    client = await launch(home, patched_server(BOOM_PATCH))
    served.append(client)
    await assert_others_serve(client)
    teams = await teams_by_id(client)
    problem = member_of(teams["claude:boom"], "researcher")["error"]
    assert problem and problem["code"] and problem["path"] == str(boom), problem
    err = await call_error(client, "teamInbox/messages", {"team": "boom", "inbox": "researcher"})
    assert error_code(err) == problem["code"]

    # A good inbox that turns bad later: the error shows, the others still see changes.
    r = rec(client)
    researcher = claude_inbox(home, "alpha", "researcher")
    atomic_write(researcher, [entry("team-lead", "BOOM again", "2026-11-29T11:00:00.000Z")])

    async def broken() -> bool:
        t = (await teams_by_id(client))["claude:alpha"]
        return member_of(t, "researcher")["error"] is not None

    await until(broken)
    mark = r.mark()
    user = claude_inbox(home, "alpha", "user")
    atomic_write(
        user,
        [
            entry("researcher", "old news", "2026-11-29T10:00:00.000Z", color="blue"),
            entry("researcher", "fresh", "2026-11-29T11:30:00.000Z"),
        ],
    )
    change = await r.wait(
        "teamInbox/didChange", lambda p: p["inbox"] == "user", since=mark, timeout=WAIT
    )
    assert [m["text"] for m in change["added"]] == ["fresh"]

    # Retried (on hints and the periodic rescan) until a good write appears.
    for path, text in ((boom, "good boom"), (researcher, "good researcher")):
        atomic_write(path, [entry("team-lead", text, "2026-11-29T12:00:00.000Z")])
    for team, text in (("boom", "good boom"), ("alpha", "good researcher")):

        async def fixed(team: str = team) -> list[str]:
            page = await call(client, "teamInbox/messages", {"team": team, "inbox": "researcher"})
            return [m["text"] for m in page["messages"]]

        assert await until(fixed) == [text]
    teams = await teams_by_id(client)
    assert member_of(teams["claude:boom"], "researcher")["error"] is None
    assert member_of(teams["claude:alpha"], "researcher")["error"] is None


# --- item 2: inotify's limits -----------------------------------------------------------

# inotify refuses every watch (ENOSPC, as when fs.inotify.max_user_watches is used up), at
# the place the kernel says so; the periodic rescan is off, so only a watcher can notice.
NO_INOTIFY_PATCH = """
import errno
import watchdog.observers.inotify as _inotify
def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "inotify watch limit reached")
_inotify.InotifyBuffer = _full
import teaminbox.server.core as _core
_core.RESCAN_SECONDS = 3600.0
"""


async def test_inotify_limit_falls_back_to_polling(
    tmp_path: Path, served: list[LanguageClient]
) -> None:
    home = tmp_path
    make_home(home)
    client = await launch(home, patched_server(NO_INOTIFY_PATCH))
    served.append(client)
    r = rec(client)
    mark = r.mark()
    user = claude_inbox(home, "alpha", "user")
    atomic_write(
        user,
        [
            entry("researcher", "old news", "2026-11-29T10:00:00.000Z", color="blue"),
            entry("researcher", "seen by polling", "2026-11-29T11:00:00.000Z"),
        ],
    )
    change = await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "user", since=mark)
    assert [m["text"] for m in change["added"]] == ["seen by polling"]


# --- items 13 and 15: doctor on an odd inbox, out-of-range params ------------------------


async def test_doctor_with_odd_inboxes(tmp_path: Path, served: list[LanguageClient]) -> None:
    """`doctor` answers with findings (never -32603, never a hang) for each odd file."""
    make_home(tmp_path)
    dirbox = claude_team(tmp_path, "dirbox")
    dirbox.mkdir()
    fifobox = claude_team(tmp_path, "fifobox")
    deep = claude_team(tmp_path, "deep", deep_inbox())
    fifocfg = claude_team(tmp_path, "fifocfg", []).parent.parent / "config.json"
    client = await launch(tmp_path)
    served.append(client)
    os.mkfifo(fifobox)  # after start-up: the start-up test covers FIFOs there
    fifocfg.unlink()
    os.mkfifo(fifocfg)
    found = (await asyncio.wait_for(call(client, "teamInbox/doctor", {}), WAIT))["findings"]
    by_path = {f["path"]: f["message"] for f in found}
    assert "directory" in by_path.get(str(dirbox), ""), found
    assert "FIFO" in by_path.get(str(fifobox), "").upper(), found
    assert "deeper" in by_path.get(str(deep), ""), found
    assert str(fifocfg) in by_path, found
    await assert_others_serve(client)


HUGE_PARAMS: list[tuple[str, dict[str, Any]]] = [
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "limit": 10**30}),
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "offset": 2**63}),
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "offset": -(2**63)}),
    ("teamInbox/messages", {"team": "alpha", "inbox": "user", "limit": -1}),
    ("teamInbox/search", {"query": "news", "limit": 10**20}),
    ("teamInbox/search", {"query": "news", "limit": -1}),
    ("teamInbox/markSeen", {"team": "alpha", "inbox": "user", "ids": [{"id": "x"}]}),
    ("teamInbox/markSeen", {"team": "alpha", "inbox": "user", "ids": [["x"]]}),
    ("teamInbox/markRead", {"team": "alpha", "inbox": "user", "ids": [{}]}),
]


async def test_huge_and_odd_params_are_invalid_params(
    tmp_path: Path, served: list[LanguageClient]
) -> None:
    make_home(tmp_path)
    client = await launch(tmp_path)
    served.append(client)
    wrong = []
    for method, params in HUGE_PARAMS:
        err = await call_error(client, method, params)
        if (err.code, error_code(err)) != (-32602, "invalid_params"):
            wrong.append((method, params, err.code, error_code(err), err.message))
    assert wrong == [], wrong
    await assert_others_serve(client)


# --- item 7: one huge inbox must not hold up every team --------------------------------

BIG_BYTES = 60_000_000


def big_inbox(path: Path, size: int) -> int:
    """A Claude inbox of about `size` bytes, as JSON.stringify(…, null, 2) lays it out."""
    filler = "lorem ipsum dolor sit amet " * 20
    entries = []
    total = 0
    while total < size:
        i = len(entries)
        entries.append(
            {
                "from": "researcher",
                "text": f"message {i} {filler}",
                "timestamp": f"2026-01-{1 + i // 86400:02d}T{i // 3600 % 24:02d}"
                f":{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                "color": "blue",
                "read": i % 3 == 0,
            }
        )
        total += len(json.dumps(entries[-1], indent=4)) + 4  # as nested at indent 2
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(entries, indent=2))
    return len(entries)


async def timed(client: LanguageClient, method: str, params: dict[str, Any]) -> float:
    t0 = time.monotonic()
    await asyncio.wait_for(call(client, method, params), WAIT)
    return time.monotonic() - t0


@pytest.mark.slow
async def test_big_inbox_does_not_hold_up_other_teams(
    tmp_path: Path, served: list[LanguageClient]
) -> None:
    make_home(tmp_path)
    big = claude_team(tmp_path, "big")
    count = big_inbox(big, BIG_BYTES)
    assert big.stat().st_size > BIG_BYTES
    client = make_recording_client()
    await client.start_io(*SERVER)
    served.append(client)
    from lsprotocol import types

    await asyncio.wait_for(
        client.initialize_session(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(), initialization_options=options(tmp_path)
            )
        ),
        WAIT,
    )
    t0 = time.monotonic()  # `initialized` sent: the first scan starts
    teams = await asyncio.wait_for(call(client, "teamInbox/teams", {}), WAIT)
    page = await asyncio.wait_for(
        call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"}), WAIT
    )
    took = time.monotonic() - t0
    # Not a time bound (a busy machine is slow everywhere): the answers came while the
    # big inbox was still loading, which the "loading" errors below show.
    assert [m["text"] for m in page["messages"]] == ["old news"]
    member = member_of(team_of(teams["teams"], "claude:big"), "researcher")
    assert (member["error"] or {}).get("code") == "loading", member
    err = await call_error(client, "teamInbox/messages", {"team": "big", "inbox": "researcher"})
    assert error_code(err) == "loading"

    # While it loads, every other request still answers: rounds answered before it loaded.
    slowest: dict[str, float] = {}
    rounds_while_loading = 0
    loaded: dict[str, Any] | None = None
    deadline = time.monotonic() + 300
    while loaded is None and time.monotonic() < deadline:
        for method, params in (
            ("teamInbox/teams", {}),
            ("teamInbox/messages", {"team": "beta", "inbox": "coder"}),
            ("teamInbox/send", {"team": "alpha", "to": "researcher", "text": "meanwhile"}),
        ):
            slowest[method] = max(slowest.get(method, 0.0), await timed(client, method, params))
        try:
            loaded = await asyncio.wait_for(
                call(
                    client,
                    "teamInbox/messages",
                    {"team": "big", "inbox": "researcher", "limit": 3},
                ),
                WAIT,
            )
        except Exception as err:  # noqa: BLE001 - still loading
            assert error_code(err) == "loading", err  # type: ignore[arg-type]
            rounds_while_loading += 1
            await asyncio.sleep(0.5)
    print(f"first answers in {took:.3f} s; the slowest while loading: {slowest}")
    assert loaded is not None, "the big inbox never loaded"
    assert rounds_while_loading >= 1, f"no request answered while the big inbox loaded: {slowest}"
    assert loaded["total"] == count
    assert [m["text"].split(" ")[1] for m in loaded["messages"]] == [
        str(count - 1),
        str(count - 2),
        str(count - 3),
    ]
    teams = await teams_by_id(client)
    assert member_of(teams["claude:big"], "researcher")["error"] is None


async def test_entries_nested_to_the_limit_are_served(
    tmp_path: Path, served: list[LanguageClient]
) -> None:
    """An inbox may nest 1,024 deep (jsonio.MAX_DEPTH): such an entry is served with its
    payload whole, and the entries beside it with it, not an internal error for the page."""
    make_home(tmp_path)
    depth = 1000
    payload = "[" * depth + "]" * depth
    path = claude_team(
        tmp_path,
        "nested",
        (
            '[{"from": "team-lead", "text": "plain", "timestamp": "2026-11-29T10:00:00.000Z",'
            ' "read": false},'
            ' {"from": "team-lead", "text": "deep", "timestamp": "2026-11-29T10:00:01.000Z",'
            f' "read": false, "payload": {payload}}}]'
        ).encode(),
    )
    # this test's client is pygls, whose json.loads recurses; the extension's JSON.parse does not
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * depth))
    try:
        await _serve_nested(tmp_path, served, path, depth)
    finally:
        sys.setrecursionlimit(limit)


async def _serve_nested(
    tmp_path: Path, served: list[LanguageClient], path: Path, depth: int
) -> None:
    client = await launch(tmp_path)
    served.append(client)
    teams = await teams_by_id(client)
    assert member_of(teams["claude:nested"], "researcher")["error"] is None
    page = await asyncio.wait_for(
        call(client, "teamInbox/messages", {"team": "claude:nested", "inbox": "researcher"}), WAIT
    )
    by_text = {m["text"]: m for m in page["messages"]}
    assert set(by_text) == {"plain", "deep"}, page
    got, levels = by_text["deep"]["raw"]["payload"], 1
    while got:
        got, levels = got[0], levels + 1
    assert levels == depth, levels
    # and the inbox read again after an append
    before = path.read_bytes()
    path.write_bytes(
        before[:-1] + b', {"from": "team-lead", "text": "after", "timestamp":'
        b' "2026-11-29T10:00:02.000Z", "read": false}]'
    )
    page = await asyncio.wait_for(
        call(client, "teamInbox/messages", {"team": "claude:nested", "inbox": "researcher"}), WAIT
    )
    assert {m["text"] for m in page["messages"]} == {"plain", "deep", "after"}
