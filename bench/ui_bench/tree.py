"""(a) a peer's write -> its row in the tree, and (b) fresh windows: the tree's benches in real VS Code."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

from watchdog.observers import Observer

from benchlib.codeserver import Browser, CodeServer, write_home
from benchlib.inboxes import append_bytes, atomic_write, now_entry
from benchlib.session import BareWatch, Session
from benchlib.stats import median
from teaminbox.protocol import NOTIFICATIONS

WARMUP = 3

# --- (b) fresh windows ------------------------------------------------------------------------


def bench_fresh(
    base: Path, vsix: Path, port: int, reps: int, browser: Browser
) -> list[dict[str, float]]:
    home = base / "fresh"
    write_home(home)
    out = []
    for r in range(reps):
        # installed once, as a user's: later starts are restarts of the same install
        with CodeServer(home, port, vsix, reuse=r > 0) as cs:
            got = browser.call("open", url=cs.url)
            browser.call("close")
            act = cs.wait_activation()
            own = cs.activated_at()
        row = {
            "click_to_teams": got["teamsAt"] - got["clickAt"],
            "activation_to_teams": got["teamsAt"] - act * 1000 if act else float("nan"),
            "activate_to_teams": got["teamsAt"] - own * 1000 if own else float("nan"),
            "icon_to_click": got["clickAt"] - got["iconAt"],
            "click_to_live": got["liveAt"] - got["clickAt"],
            "activation_to_live": got["liveAt"] - act * 1000 if act else float("nan"),
        }
        print(
            f"  fresh window {r + 1}: " + ", ".join(f"{k} {v:.0f} ms" for k, v in row.items()),
            flush=True,
        )
        out.append(row)
    return out


# --- (a) a peer's write -> the row ------------------------------------------------------------


SERIES = (
    ("teammate's inbox (inbox node redrawn)", "researcher", "team-lead"),
    ("own inbox (team node redrawn)", "user", "researcher"),
)


def breakdown(frames: list[dict[str, Any]], wall0: float, dom: float) -> dict[str, float]:
    """The websocket frames of one write, as the page saw them: the first frame in (the extension
    host's `$refresh`), the first frame out after it (the window's `$getChildren`), the first
    frame in holding the summary (its answer); ms after the write."""
    seen = [f for f in frames if f["t"] >= wall0 and f["t"] <= dom + 1]
    first_in = next((f for f in seen if f["dir"] == "in"), None)
    out: dict[str, float] = {}
    if first_in is None:
        return out
    out["refresh"] = first_in["t"] - wall0
    ask = next((f for f in seen if f["dir"] == "out" and f["t"] >= first_in["t"]), None)
    if ask is not None:
        out["ask"] = ask["t"] - wall0
        reply = next(
            (f for f in seen if f["dir"] == "in" and f["t"] >= ask["t"] and f["hit"]), None
        )
        if reply is not None:
            out["reply"] = reply["t"] - wall0
    return out


async def bench_rows(
    base: Path,
    vsix: Path,
    port: int,
    n: int,
    browser: Browser,
    verbose: bool = False,
    profile: bool = False,
    prefill: int = 0,
    trace: bool = False,
) -> dict[str, Any]:
    """Two passes in the same code-server: the extension's sidecar alone (what a person sees), then
    with the instruments (a second sidecar's client, a bare watchdog) on the same writes.
    `prefill`: messages already in the teammate's inbox, as a busy team's hold."""
    home = base / "rows"
    write_home(home)
    root = home / ".claude" / "teams"
    inboxes = root / "alpha" / "inboxes"
    # only the teammate's inbox: the own inbox above it stays short, so the new row is in view
    for _, inbox, sender in SERIES[:1]:
        path = inboxes / f"{inbox}.json"
        data = path.read_bytes()
        for i in range(prefill):
            text = f"earlier message {i}: " + "a few words of what was said " * 4
            e = {
                "from": sender,
                "text": text,
                "summary": f"earlier {i}",
                "read": True,
                "timestamp": f"2026-11-29T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
            }
            data = append_bytes(data, e)
        path.write_bytes(data)
    series: dict[str, dict[str, list[float]]] = {name: {} for name, _, _ in SERIES}
    misses = 0
    offset = time.time() - time.perf_counter()  # perf_counter -> wall clock, as the page reports

    async def one(
        name: str, inbox: str, sender: str, k: int, session: Session | None, bare: Any
    ) -> dict[str, float] | None:
        path = inboxes / f"{inbox}.json"
        summary = f"bench {inbox} {k} {uuid.uuid4().hex[:8]}"
        entry = now_entry(sender, summary, f"{summary}: the row should show at once")
        data = append_bytes(path.read_bytes(), entry)
        await asyncio.to_thread(browser.call, "arm", text=summary)
        if bare is not None:
            bare.arm(path)
        since = len(session.changes) if session else 0
        t0 = atomic_write(path, data)
        hit = await asyncio.to_thread(browser.call, "wait", ms=10000)
        got: dict[str, float] = {}
        if session is not None:
            try:
                got["server"] = (
                    await session.wait_change(inbox, entry["text"], since, timeout=10) - t0
                ) * 1000
            except TimeoutError:
                got["server"] = float("nan")
            for _ in range(100):
                if bare.hit is not None:
                    break
                await asyncio.sleep(0.001)
            if bare.hit is not None:
                got["bare"] = (bare.hit - t0) * 1000
        if hit.get("timeout"):
            return None
        wall0 = (t0 + offset) * 1000
        got["dom"] = hit["domAt"] - wall0
        got["frame"] = hit["frameAt"] - wall0
        if session is None:
            got.update(breakdown(hit.get("frames", []), wall0, hit["domAt"]))
        if verbose:
            print(
                f"    {summary}: " + ", ".join(f"{key} +{v:.1f}" for key, v in got.items()) + " ms",
                flush=True,
            )
        return got

    async def run(session: Session | None, bare: Any, suffix: str) -> None:
        nonlocal misses
        for name, inbox, sender in SERIES:
            acc = series[name]
            for k in range(n + WARMUP):
                got = await one(name, inbox, sender, k, session, bare)
                if got is None:
                    misses += 1
                elif k >= WARMUP:
                    for key, v in got.items():
                        acc.setdefault(key + suffix if key in ("dom", "frame") else key, []).append(
                            v
                        )
                # VS Code holds back a tree refresh that follows another within 200 ms
                await asyncio.sleep(0.7)
            print(
                f"  {name}{suffix}: DOM p50 {median(acc['dom' + suffix]):.1f} ms"
                + (f", didChange p50 {median(acc['server']):.1f} ms" if session else ""),
                flush=True,
            )

    with CodeServer(home, port, vsix) as cs:
        await asyncio.to_thread(browser.call, "open", url=cs.url)
        await asyncio.sleep(1.0)
        if profile:
            await asyncio.to_thread(browser.call, "pstart")
        if trace:
            await asyncio.to_thread(browser.call, "tstart")
        await run(None, None, "")
        if trace:
            tr = await asyncio.to_thread(browser.call, "tstop")
            print("  the answer -> row, the page's script per write (inclusive ms):", flush=True)
            for name, ms in tr["script"]:
                print(f"    {ms:8.2f}  {name}", flush=True)
            for w in tr["writes"]:
                print(
                    f"  first frame in -> row {w['span']:.1f} ms, busy {w['busy']:.1f};"
                    f" in {w['ins']} out {w['outs']}",
                    flush=True,
                )
                for line in w["tasks"]:
                    print(f"      {line}", flush=True)
        if profile:
            prof = await asyncio.to_thread(browser.call, "pstop")
            top = prof["top"]
            print(
                f"  the page's self time in the first 40 ms of {prof['bursts']} bursts of work (ms):",
                flush=True,
            )
            for name, ms in top:
                print(f"    {ms:8.1f}  {name}", flush=True)
        session = Session()
        for name in NOTIFICATIONS:
            if name not in session.client.protocol.fm.features:
                session.client.feature(name)(lambda ls, params: None)
        await session.start(root, base / "rows-history.db")
        bare = BareWatch()
        obs = Observer()
        obs.schedule(bare, str(root), recursive=True)
        obs.start()
        await asyncio.sleep(1.0)
        try:
            await run(session, bare, "+")
        finally:
            obs.stop()
            obs.join(2)
            await session.stop()
    return {"series": series, "misses": misses}
