"""(c) the team view: a team of 10,000 archived messages opened, written to and scrolled in real VS Code."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

from benchlib.codeserver import Browser, CodeServer, write_home
from benchlib.inboxes import append_bytes, atomic_write, now_entry
from benchlib.runs import loadavg
from benchlib.stats import median, pct
from ui_bench.tree import WARMUP

BIG = "big"
BIG_ID = f"claude:{BIG}"
MARKER = "TV-NEWEST-MARK"
OPEN_KEY, CLOSE_KEY, FLOOR_KEY = "Control+Alt+F10", "Control+Alt+F11", "Control+Alt+F9"
VSCE = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "vsce"
FLOOR = Path(__file__).resolve().parents[1] / "floor" / "webview"


def floor_vsix(out: Path) -> Path:
    """bench/floor/webview packaged: a command opening a webview of static HTML, no script."""
    vsix, license_ = out / "floor-webview.vsix", FLOOR / "LICENSE"
    license_.write_bytes((FLOOR.parents[2] / "LICENSE").read_bytes())
    try:
        cmd = [str(VSCE), "package", "--allow-missing-repository", "-o", str(vsix)]
        subprocess.run(cmd, cwd=FLOOR, check=True, capture_output=True)
    finally:
        license_.unlink()
    return vsix


WORDS = (
    "the check inverts when the token is stale so the retry loop never ends; I moved it behind"
    " the lock and added a test for the expired case, `pytest -k auth` passes now"
).split()


def big_team(home: Path, n: int) -> Path:
    """Team `big`: team-lead, researcher and the person; n messages over their three inboxes,
    one a minute up to a minute ago, read. The newest holds MARKER. Returns the inboxes folder."""
    d = home / ".claude" / "teams" / BIG
    (d / "inboxes").mkdir(parents=True, exist_ok=True)
    now = time.time() * 1000

    def member(name: str, **extra: Any) -> dict[str, Any]:
        return {
            "agentId": f"{name}@{BIG}",
            "name": name,
            "agentType": "team-lead" if name == "team-lead" else "general-purpose",
            "model": "sonnet",
            "joinedAt": now - 86400_000 * 8,
            "tmuxPaneId": "" if name == "team-lead" else "in-process",
            "cwd": f"/tmp/{BIG}",
            "subscriptions": [],
            **extra,
        }

    config = {
        "name": BIG,
        "description": "a long-lived team",
        "createdAt": now - 86400_000 * 8,
        "leadAgentId": f"team-lead@{BIG}",
        "leadSessionId": "session-big",
        "members": [
            member("team-lead"),
            member("researcher", color="blue", backendType="in-process", isActive=True),
        ],
    }
    (d / "config.json").write_text(json.dumps(config, indent=2))
    boxes: dict[str, list[dict[str, Any]]] = {"team-lead": [], "researcher": [], "user": []}
    senders = {"team-lead": "researcher", "researcher": "team-lead", "user": "team-lead"}
    for i in range(n):
        inbox = ("team-lead", "researcher", "user")[i % 3]
        k = 12 + (i * 7) % 30
        words = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(k))
        text = f"BIG-{i:05d} {words}"
        if i % 5 == 0:
            text += f"\n\n- **step {i % 9}**: done\n- next: `make test`"
        if i == n - 1:
            text += f" {MARKER}"
        t = dt.datetime.fromtimestamp((now - (n - i) * 60_000) / 1000, dt.timezone.utc)
        boxes[inbox].append(
            {
                "from": senders[inbox],
                "text": text,
                "summary": text[:60],
                "timestamp": t.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "color": "blue",
                "read": True,
            }
        )
    for inbox, entries in boxes.items():
        (d / "inboxes" / f"{inbox}.json").write_text(json.dumps(entries, indent=2))
    return d / "inboxes"


def keybindings(home: Path) -> None:
    """The command with the team's id as its argument, on a key (the clock starts at its keydown)."""
    user = home / ".code-server" / "user" / "User"
    user.mkdir(parents=True, exist_ok=True)
    (user / "keybindings.json").write_text(
        json.dumps(
            [
                {"key": "ctrl+alt+f10", "command": "teamInbox.openTeam", "args": BIG_ID},
                {"key": "ctrl+alt+f11", "command": "workbench.action.closeAllEditors"},
                # the floor: a bare webview of static HTML (bench/floor/webview)
                {"key": "ctrl+alt+f9", "command": "teamInboxFloor.openWebview", "args": MARKER},
            ]
        )
    )


def history_count(db: Path, gone: bool = False) -> int:
    import sqlite3

    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            q = "SELECT count(*) FROM messages WHERE team LIKE ?" + (
                " AND gone_at IS NOT NULL" if gone else ""
            )
            return int(con.execute(q, (f"%{BIG}%",)).fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def renderers() -> dict[int, dict[str, int]]:
    """Chromium's renderer processes: pid -> rss and pss (kB, /proc/<pid>/smaps_rollup)."""
    out: dict[int, dict[str, int]] = {}
    for p in Path("/proc").iterdir():
        if not p.name.isdigit():
            continue
        try:
            # chromium rewrites its process title: the arguments may be one string
            cmd = (p / "cmdline").read_bytes().replace(b"\0", b" ")
            if b"chrom" not in cmd.split(b" ")[0] or b"--type=renderer" not in cmd:
                continue
            vals = {}
            for line in (p / "smaps_rollup").read_text().splitlines():
                key = line.split(":")[0]
                if key in ("Rss", "Pss"):
                    vals[key.lower()] = int(line.split()[1])
            out[int(p.name)] = vals
        except (OSError, ValueError, IndexError):
            continue
    return out


async def bench_teamview(
    base: Path,
    vsix: Path,
    port: int,
    n: int,
    opens: int,
    archived: int,
    browser: Browser,
    step: int = 1200,
    trace: bool = False,
    scrolls: int = 1,
) -> dict[str, Any]:
    home = base / "teamview"
    write_home(home)
    inboxes = big_team(home, archived)
    keybindings(home)
    db = home / ".local" / "share" / "teaminbox" / "history.db"
    offset = time.time() - time.perf_counter()
    out: dict[str, Any] = {"archived": archived}
    with CodeServer(home, port, vsix, extra=floor_vsix(base)) as cs:
        _ = cs
        await asyncio.to_thread(browser.call, "open", url=cs.url, marker=MARKER)
        # the sidecar archives the inboxes; then Claude Code's consumer prunes them (newest 5 kept)
        t0 = time.perf_counter()
        while history_count(db) < archived:
            if time.perf_counter() - t0 > 300:
                raise RuntimeError(f"only {history_count(db)} of {archived} archived after 300 s")
            await asyncio.sleep(0.5)
        out["archive_s"] = time.perf_counter() - t0
        for path in inboxes.glob("*.json"):
            entries = json.loads(path.read_bytes())
            atomic_write(path, json.dumps(entries[-5:], indent=2).encode())
        t0 = time.perf_counter()
        while history_count(db, gone=True) < archived - 15 and time.perf_counter() - t0 < 60:
            await asyncio.sleep(0.5)
        out["gone"] = history_count(db, gone=True)
        print(
            f"  {archived} archived in {out['archive_s']:.1f} s; {out['gone']} pruned from the inboxes",
            flush=True,
        )
        await asyncio.sleep(2.0)
        # (1) the command -> the newest messages in the view; paired with the floor's open (a bare
        # webview), the order swapped each pair
        out["open"], out["open_floor"] = [], []
        await open_floor(browser, [])  # its extension's activation: not the webview's creation
        for k in range(opens):
            if k % 2 == 0:
                await open_floor(browser, out["open_floor"])
            got = await asyncio.to_thread(browser.call, "openView", key=OPEN_KEY)
            row = {
                "dom": got["domAt"] - got["cmdAt"],
                "frame": got["frameAt"] - got["cmdAt"],
                "count": got["count"],
                "outer": got["outerAt"] - got["cmdAt"],
                "thread": got["threadAt"] - got["cmdAt"],
                "init": (got["initAt"] or float("nan")) - got["cmdAt"],
                "late": got["late"],
            }
            out["open"].append(row)
            print(
                f"  open {k + 1}: command -> VS Code's webview frame {row['outer']:.0f} ms, the view's script ran {row['thread']:.0f} ms, the host's init in {row['init']:.0f} ms,"
                f" newest in the DOM {row['dom']:.0f} ms, frame {row['frame']:.0f} ms"
                f" ({row['count']} messages)",
                flush=True,
            )
            await asyncio.to_thread(browser.call, "closeView", key=CLOSE_KEY)
            await asyncio.sleep(1.0)
            if k % 2 == 1:
                await open_floor(browser, out["open_floor"])
        # (2) a teammate's write -> its message in the open view
        before = set(renderers())
        mem0 = renderers()
        out["heap_no_view"] = await asyncio.to_thread(browser.call, "pmem")
        await asyncio.to_thread(browser.call, "openView", key=OPEN_KEY)
        vf = await asyncio.to_thread(browser.call, "viewFrame", team=BIG_ID)
        await asyncio.sleep(1.0)
        new_pids = [p for p in renderers() if p not in before]
        out["oopif"] = vf["oopif"]
        out["view_pids"] = new_pids
        # interleaved with writes to the fixture's alpha (researcher's inbox, its row in the tree of
        # the same window): the tree's row and the view's message under the same load
        path = inboxes / "team-lead.json"
        alpha = home / ".claude" / "teams" / "alpha" / "inboxes" / "researcher.json"
        writes: dict[str, list[float]] = {"dom": [], "frame": [], "upsert": [], "tree": []}
        misses, tree_misses = 0, 0

        def entry_for(summary: str, sender: str) -> dict[str, Any]:
            return now_entry(sender, summary, f"{summary}: the message should show at once")

        for k in range(n + WARMUP):
            if tree_misses < 2:
                summary = f"tree bench {k} {uuid.uuid4().hex[:8]}"
                data = append_bytes(alpha.read_bytes(), entry_for(summary, "team-lead"))
                await asyncio.to_thread(browser.call, "arm", text=summary)
                t0 = atomic_write(alpha, data)
                hit = await asyncio.to_thread(browser.call, "wait", ms=5000)
                if hit.get("timeout"):
                    tree_misses += 1
                elif k >= WARMUP:
                    writes["tree"].append(hit["domAt"] - (t0 + offset) * 1000)
                await asyncio.sleep(0.7)
            summary = f"tv bench {k} {uuid.uuid4().hex[:8]}"
            data = append_bytes(path.read_bytes(), entry_for(summary, "researcher"))
            await asyncio.to_thread(browser.call, "varm", text=summary)
            t0 = atomic_write(path, data)
            hit = await asyncio.to_thread(browser.call, "vwait", ms=10000)
            if hit.get("timeout"):
                misses += 1
            elif k >= WARMUP:
                wall0 = (t0 + offset) * 1000
                writes["dom"].append(hit["domAt"] - wall0)
                writes["frame"].append(hit["frameAt"] - wall0)
                if hit.get("upsertAt"):
                    writes["upsert"].append(hit["upsertAt"] - wall0)
            await asyncio.sleep(0.7)
        out["writes"], out["write_misses"], out["tree_misses"] = writes, misses, tree_misses
        print(
            f"  write -> message in the view: p50 {median(writes['dom']):.1f} ms,"
            f" p90 {pct(writes['dom'], 90):.1f} ms ({misses} missed); the host's upsert in the view p50"
            f" {median(writes['upsert']):.1f} ms; interleaved, the tree's row p50 {median(writes['tree']):.1f} ms"
            f" ({tree_misses} missed)",
            flush=True,
        )
        # (3) scrolling back through the whole history
        out["idle"] = (await asyncio.to_thread(browser.call, "vidle", ms=2000))["deltas"]
        out["mem_before"] = await asyncio.to_thread(browser.call, "vmem")
        out["rss_before"] = {p: v for p, v in renderers().items() if p in new_pids}
        pre_scroll = renderers()  # the view open, the writes done: what the scroll alone adds
        total = history_count(db)  # what the sidecar has: the conversation's length
        sc = await asyncio.to_thread(browser.call, "vscroll", step=step, total=total, trace=trace)
        if sc.get("trace"):
            print_trace(sc["trace"])
        out["scroll"] = sc | {"load": loadavg()}
        out["total"] = total
        out["mem_after"] = await asyncio.to_thread(browser.call, "vmem")
        # the same fling over a static copy of the thread: the floor of its frames in this window
        out["floor"] = await asyncio.to_thread(browser.call, "vfloor", step=step)
        fl = out["floor"]["deltas"]
        print(
            f"  the floor (a static copy of {out['floor']['copies']} messages, laid out, the same fling):"
            f" {len(fl)} frames, rAF delta p50 {median(fl):.1f} ms, p95 {pct(fl, 95):.1f} ms,"
            f" p99 {pct(fl, 99):.1f} ms",
            flush=True,
        )
        out["rss_after"] = {p: v for p, v in renderers().items() if p in new_pids}
        out["mem_gc"] = await asyncio.to_thread(browser.call, "vmem", gc=True)
        out["all_renderers"] = {"before": mem0, "pre_scroll": pre_scroll, "after": renderers()}
        kib = lambda d, k: sum(v.get(k, 0) for v in d.values()) / 1024  # noqa: E731
        ar = out["all_renderers"]
        print(
            f"  scroll: {sc['count']} of {total} messages in {sc['ms'] / 1000:.1f} s, {len(sc['deltas'])} frames,"
            f" rAF delta p50 {median(sc['deltas']):.1f} / p95 {pct(sc['deltas'], 95):.1f}"
            f" / p99 {pct(sc['deltas'], 99):.1f} ms (idle p95 {pct(out['idle'], 95):.1f});"
            f" LoAF {len(sc['loafs'])};"
            f" heap {out['mem_before']['used'] / 1e6:.1f} -> {out['mem_after']['used'] / 1e6:.1f} MB;"
            f" renderer {out['rss_before']} -> {out['rss_after']}; every renderer's RSS / PSS MiB: no view"
            f" {kib(ar['before'], 'rss'):.0f} / {kib(ar['before'], 'pss'):.0f}, before the scroll"
            f" {kib(ar['pre_scroll'], 'rss'):.0f} / {kib(ar['pre_scroll'], 'pss'):.0f}, after it (GC)"
            f" {kib(ar['after'], 'rss'):.0f} / {kib(ar['after'], 'pss'):.0f}",
            flush=True,
        )
        await asyncio.to_thread(browser.call, "closeView", key=CLOSE_KEY)
        out["page_floor"] = [await page_floor(browser, step)]
        # more scrolls of the same history, each in a view opened afresh: samples over more of the
        # run's time (a shared machine's load drifts)
        out["scroll_more"] = []
        for k in range(scrolls - 1):
            await asyncio.sleep(1.0)
            await asyncio.to_thread(browser.call, "openView", key=OPEN_KEY)
            await asyncio.to_thread(browser.call, "viewFrame", team=BIG_ID)
            await asyncio.sleep(1.0)
            idle = (await asyncio.to_thread(browser.call, "vidle", ms=2000))["deltas"]
            more = await asyncio.to_thread(browser.call, "vscroll", step=step, total=total)
            fl = (await asyncio.to_thread(browser.call, "vfloor", step=step))["deltas"]
            d = more["deltas"]
            out["scroll_more"].append(
                {"deltas": d, "ms": more["ms"], "idle": idle, "floor": fl, "load": loadavg()}
            )
            print(
                f"  scroll {k + 2}: {more['count']} messages in {more['ms'] / 1000:.1f} s, {len(d)} frames,"
                f" rAF delta p50 {median(d):.1f} / p95 {pct(d, 95):.1f} / p99 {pct(d, 99):.1f} ms;"
                f" idle p95 {pct(idle, 95):.1f}; floor p50 {median(fl):.1f} / p95 {pct(fl, 95):.1f} ms",
                flush=True,
            )
            await asyncio.to_thread(browser.call, "closeView", key=CLOSE_KEY)
            out["page_floor"].append(await page_floor(browser, step))
    return out


async def open_floor(browser: Browser, rows: list[dict[str, float]]) -> None:
    got = await asyncio.to_thread(browser.call, "openView", key=FLOOR_KEY)
    rows.append({"frame": got["frameAt"] - got["cmdAt"], "outer": got["outerAt"] - got["cmdAt"]})
    print(
        f"  the floor's open (a bare webview): its frame made {rows[-1]['outer']:.0f} ms, painted"
        f" {rows[-1]['frame']:.0f} ms",
        flush=True,
    )
    await asyncio.to_thread(browser.call, "closeView", key=CLOSE_KEY)
    await asyncio.sleep(1.0)


async def page_floor(browser: Browser, step: int) -> list[float]:
    """The same fling in the workbench's page with the view closed: no view code at all."""
    await asyncio.sleep(1.0)
    got = (await asyncio.to_thread(browser.call, "vfloor", step=step, page=True))["deltas"]
    print(
        f"  the page's floor (no view code): {len(got)} frames, rAF delta p50 {median(got):.1f}"
        f" / p95 {pct(got, 95):.1f} ms, load {loadavg()}",
        flush=True,
    )
    return list(got)


def print_trace(tr: dict[str, Any]) -> None:
    """The scroll's trace (bench_ui.js traceSummary), ms over the whole scroll and per frame."""
    n = max(1, tr["frames"])
    print(
        f"  trace of the scroll: {tr['wall'] / 1000:.1f} s, {n} frames; busy ms (per frame) by thread:"
    )
    for name, ms in tr["threads"]:
        print(f"    {name:<60} {ms:>7} ({ms / n:.2f})")
    for name, rows in tr["self"].items():
        print(f"  self time by event, {name}:")
        for ev, ms in rows:
            print(f"    {ev:<60} {ms:>7} ({ms / n:.2f})")
    print("  CPU profile, self ms by script:")
    for k, ms in tr["scripts"][:15]:
        print(f"    {k:<60} {ms:>7} ({ms / n:.2f})")
    print("  CPU profile, self ms by function:")
    for k, ms in tr["functions"][:25]:
        print(f"    {k:<60} {ms:>7} ({ms / n:.2f})")
