"""(d) a teammate's write -> its message in the open team view AND its row in the tree, in a fresh
profile (the first-ever start) and a warm one (a restart); a transcript row -> the member's "now
doing" in the same view."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

from benchlib.codeserver import Browser, CodeServer, write_home
from benchlib.inboxes import append_bytes, atomic_write, now_entry
from benchlib.stats import median, pct
from ui_bench.tree import WARMUP

TEAM, TEAM_ID = "alpha", "claude:alpha"
MARKER = "TV-WRITES-MARK"
SESSION = "33333333-4444-4555-8666-777777777777"
MODEL = "claude-sonnet-4-5-20250929"


def transcript_row(content: list[dict[str, Any]], kind: str = "assistant") -> bytes:
    """A row as Claude Code appends it to a teammate's transcript (one JSON object a line)."""
    t = time.time()
    now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"
    message: dict[str, Any] = {"role": "user", "content": content}
    if kind == "assistant":
        usage = {"input_tokens": 20, "output_tokens": 60, "cache_read_input_tokens": 30000}
        message = {"id": f"msg_{uuid.uuid4().hex[:12]}", "model": MODEL, "role": "assistant"}
        message |= {"content": content, "usage": usage}
    row = {"type": kind, "isSidechain": False, "uuid": str(uuid.uuid4()), "timestamp": now}
    return (json.dumps(row | {"message": message}, separators=(",", ":")) + "\n").encode()


CALLS: list[str] = []  # the tool_use ids written, the last without a result yet


def bash_call(command: str) -> bytes:
    """The last call's result, then a new Bash call: its step is the member's "now doing"."""
    done = b""
    if CALLS:
        result = {"type": "tool_result", "tool_use_id": CALLS[-1], "content": "ok"}
        done = transcript_row([result], "user")
    CALLS.append(f"toolu_{uuid.uuid4().hex[:12]}")
    tool = {"type": "tool_use", "id": CALLS[-1], "name": "Bash"}
    return done + transcript_row([tool | {"input": {"command": command}}])


def prepare(home: Path) -> tuple[Path, Path]:
    """The UI fixtures, a newest message holding MARKER in alpha, a key that opens alpha's view, and
    the researcher's transcript where Claude Code keeps it. Returns (its inbox, its transcript)."""
    write_home(home)
    team = home / ".claude" / "teams" / TEAM
    cfg_path = team / "config.json"
    cfg = json.loads(cfg_path.read_text())
    cfg["leadSessionId"] = SESSION
    cfg_path.write_text(json.dumps(cfg, indent=2))
    inbox = team / "inboxes" / "researcher.json"
    entry = now_entry("team-lead", "the newest", f"the newest message {MARKER}")
    atomic_write(inbox, append_bytes(inbox.read_bytes(), entry))
    project = home / ".claude" / "projects" / "-tmp-alpha"
    sub = project / SESSION / "subagents"
    sub.mkdir(parents=True, exist_ok=True)
    # the lead's transcript: a team's session is found by it, its teammates' beside it
    (project / f"{SESSION}.jsonl").write_bytes(transcript_row([{"type": "text", "text": "go"}]))
    (sub / "agent-abench.meta.json").write_text(
        json.dumps({"name": "researcher", "teamName": TEAM})
    )
    transcript = sub / "agent-abench.jsonl"
    transcript.write_bytes(bash_call("echo started"))
    user = home / ".code-server" / "user" / "User"
    user.mkdir(parents=True, exist_ok=True)
    keys = [
        {"key": "ctrl+alt+f10", "command": "teamInbox.openTeam", "args": TEAM_ID},
        {"key": "ctrl+alt+f11", "command": "workbench.action.closeAllEditors"},
    ]
    (user / "keybindings.json").write_text(json.dumps(keys))
    return inbox, transcript


async def one_window(
    home: Path, vsix: Path, port: int, n: int, browser: Browser, fresh: bool
) -> dict[str, list[float]]:
    inbox = home / ".claude" / "teams" / TEAM / "inboxes" / "researcher.json"
    transcript = next((home / ".claude" / "projects").rglob("agent-abench.jsonl"))
    offset = time.time() - time.perf_counter()
    got: dict[str, list[float]] = {"view": [], "tree": [], "both": [], "doing": []}
    misses = 0
    call = browser.call
    with CodeServer(home, port, vsix, reuse=not fresh) as cs:
        await asyncio.to_thread(call, "open", url=cs.url, marker=MARKER)
        await asyncio.to_thread(call, "openView", key="Control+Alt+F10")
        await asyncio.to_thread(call, "viewFrame", team=TEAM_ID)
        await asyncio.sleep(1.0)
        for k in range(n + WARMUP):
            summary = f"both bench {k} {uuid.uuid4().hex[:8]}"
            entry = now_entry("team-lead", summary, f"{summary}: the message should show at once")
            data = append_bytes(inbox.read_bytes(), entry)
            await asyncio.to_thread(call, "arm", text=summary)
            await asyncio.to_thread(call, "varm", text=summary)
            wall0 = (atomic_write(inbox, data) + offset) * 1000
            view = await asyncio.to_thread(call, "vwait", ms=10000)
            tree = await asyncio.to_thread(call, "wait", ms=10000)
            if view.get("timeout") or tree.get("timeout"):
                misses += 1
            elif k >= WARMUP:
                got["view"].append(view["domAt"] - wall0)
                got["tree"].append(tree["domAt"] - wall0)
                got["both"].append(max(view["domAt"], tree["domAt"]) - wall0)
            await asyncio.sleep(0.7)
        for k in range(n // 2 + WARMUP):
            command = f"pytest -k doing_{k}_{uuid.uuid4().hex[:8]}"
            await asyncio.to_thread(call, "varm", text=command, sel="body")
            with transcript.open("ab") as f:  # Claude Code appends a row and flushes
                f.write(bash_call(command))
            wall0 = time.time() * 1000
            hit = await asyncio.to_thread(call, "vwait", ms=10000)
            if hit.get("timeout"):
                misses += 1
            elif k >= WARMUP:
                got["doing"].append(hit["domAt"] - wall0)
            await asyncio.sleep(0.7)
        await asyncio.to_thread(call, "close")
    got["misses"] = [float(misses)]
    return got


async def bench_writes(
    base: Path, vsix: Path, port: int, n: int, browser: Browser, rounds: int
) -> list[dict[str, Any]]:
    """`rounds` profiles, each its first-ever start then a restart: pairs taken in the same minutes."""
    out = []
    for r in range(rounds):
        home = base / f"writes-{r}"
        prepare(home)
        for kind in ("fresh", "warm"):
            got = await one_window(home, vsix, port, n, browser, kind == "fresh")
            both = got["both"]
            print(
                f"  writes round {r + 1}, {kind}: view p50 {median(got['view']):.1f}, tree p50"
                f" {median(got['tree']):.1f}, both p50 {median(both):.1f} / p90 {pct(both, 90):.1f} ms;"
                f" now doing p50 {median(got['doing']):.0f} ms ({got['misses'][0]:.0f} missed)",
                flush=True,
            )
            out.append({"round": r + 1, "kind": kind, **got})
    return out
