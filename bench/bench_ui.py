"""Benchmarks of the extension in real VS Code (code-server + Debian chromium), issue 4.

Not a test: nothing here asserts a time. code-server is started with
tests/extension/serve-ui.sh (tools from tests/extension/setup.sh) on the UI
test's fixture teams; bench_ui.js drives chromium and reads the DOM.

(a) A peer's write -> its row in the tree: an entry with a unique summary is
    appended to an inbox as a peer writes it (temp file + rename), and the
    clock stops when a row holding that summary is in the view's DOM (and at
    the next animation frame). Two series: a teammate's inbox (its inbox node
    is redrawn) and the person's own (its team node too, for the unread
    count). Beside them, from the same writes: the didChange at a pygls client
    of a second sidecar on the same folder, and a bare watchdog callback in
    this process (bench_server's Session and BareWatch).
(b) A fresh window: code-server is started anew, the Team Inbox icon is
    clicked as soon as it shows, and the clock stops at the first team row;
    activation is the extension host's `_doActivateExtension` log line.

(c) The team view (--teamview; issue 21): a team with 10,000 archived messages (written into its
    inboxes, archived by the extension's sidecar, then pruned from the inboxes as Claude Code's
    consumer does). The view is opened by a keybinding that runs `teamInbox.openTeam` with the
    team's id: keydown -> the newest message in the view's thread (and the next animation frame);
    then, in the open view, a teammate's write -> its message in the thread; then the thread is
    scrolled up through all 10,000 (older pages from the sidecar as it goes): the webview frame's
    requestAnimationFrame deltas, its long animation frames, and its memory. Run beside (a) and
    (b) in the same invocation: the tree's figures from the same run.

    .venv/bin/python bench/bench_ui.py                             # ~5 min
    .venv/bin/python bench/bench_ui.py --old-vsix /tmp/ti-old.vsix # and an older build, for ratios
    .venv/bin/python bench/bench_ui.py --teamview                  # (a), (b) and (c); ~10 min
    options: --n 30 --fresh 5 --vsix FILE --prefill N --no-write --keep --archived 10000 --opens 10
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from watchdog.observers import Observer

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import bench_server as bs  # noqa: E402  (Session, BareWatch, atomic_write, pct, machine...)
from teaminbox.protocol import NOTIFICATIONS  # noqa: E402

SECTION = "## UI (issue 4)"
SERVE = REPO / "tests" / "extension" / "serve-ui.sh"
FIXTURES = REPO / "tests" / "extension" / "fixtures.js"
WARMUP = 3


def tools() -> dict[str, str]:
    """Node 24, code-server and playwright-core, installed once by tests/extension/setup.sh."""
    out = subprocess.run(
        [
            "bash",
            "-c",
            f'source "{REPO}/tests/extension/setup.sh" >&2; echo "$TI_NODE24"; echo "$PLAYWRIGHT_CORE"',
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {"node": str(Path(out[0]) / "node"), "playwright": out[1]}


def system_python() -> str:
    # a real interpreter path, as run.sh uses: the sidecar runs on the bundled libraries
    return subprocess.run(
        ["python3", "-c", "import sys; print(sys.executable)"], capture_output=True, text=True
    ).stdout.strip()


class CodeServer:
    """code-server with the extension installed, on a scratch HOME, via serve-ui.sh."""

    def __init__(self, home: Path, port: int, vsix: Path, reuse: bool = False) -> None:
        self.home, self.port, self.vsix, self.reuse = home, port, vsix, reuse
        self.url = f"http://127.0.0.1:{port}/?folder={home / 'workspace'}"

    def __enter__(self) -> CodeServer:
        subprocess.run(
            ["bash", str(SERVE), "--home", str(self.home), "--port", str(self.port)]
            + ["--vsix", str(self.vsix), "--python", system_python()],
            check=True,
            capture_output=True,
            env={**os.environ, "TI_REUSE_EXT": "1" if self.reuse else ""},
        )
        return self

    def __exit__(self, *exc: Any) -> None:
        pid = int((self.home / ".code-server" / "pid").read_text())
        try:
            os.killpg(pid, signal.SIGTERM)
            for _ in range(50):
                os.killpg(pid, 0)
                time.sleep(0.1)
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def logs(self, name: str) -> list[Path]:
        return sorted((self.home / ".code-server" / "user" / "logs").rglob(name))

    def activation(self) -> float | None:
        """Epoch seconds of the extension host's latest activation of Team Inbox (local-time stamp)."""
        pat = re.compile(
            r"^(\S+ \S+) \[info\] ExtensionService#_doActivateExtension teaminbox\.team-inbox", re.M
        )
        stamps = [
            m.group(1)
            for f in self.logs("remoteexthost.log")
            for m in pat.finditer(f.read_text(errors="replace"))
        ]
        if not stamps:
            return None
        return max(dt.datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f").timestamp() for s in stamps)

    def wait_activation(self) -> float | None:
        """activation(), once the extension host has logged it (up to 5 s after the row)."""
        for _ in range(50):
            act = self.activation()
            if act is not None:
                return act
            time.sleep(0.1)
        return None

    def activated_at(self) -> float | None:
        """Epoch seconds at the start of the latest activate() (the extension logs it; older builds do not)."""
        stamps = [
            dt.datetime.fromisoformat(m.replace("Z", "+00:00")).timestamp()
            for f in self.logs("Team Inbox.log")
            for m in re.findall(r"activated at (\S+Z)", f.read_text(errors="replace"))
        ]
        return max(stamps) if stamps else None


class Browser:
    """bench_ui.js: one JSON command per line."""

    def __init__(self, t: dict[str, str]) -> None:
        env = {**os.environ, "PLAYWRIGHT_CORE": t["playwright"]}
        self.proc = subprocess.Popen(
            [t["node"], str(HERE / "bench_ui.js")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )

    def call(self, cmd: str, **kw: Any) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps({"cmd": cmd, **kw}) + "\n")
        self.proc.stdin.flush()
        out: dict[str, Any] = json.loads(self.proc.stdout.readline())
        if "error" in out:
            raise RuntimeError(f"bench_ui.js {cmd}: {out['error']}")
        return out

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(30)


def write_home(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    subprocess.run(["node", str(FIXTURES), str(home)], check=True)


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
            data = bs.append_bytes(data, e)
        path.write_bytes(data)
    series: dict[str, dict[str, list[float]]] = {name: {} for name, _, _ in SERIES}
    misses = 0
    offset = time.time() - time.perf_counter()  # perf_counter -> wall clock, as the page reports

    async def one(
        name: str, inbox: str, sender: str, k: int, session: bs.Session | None, bare: Any
    ) -> dict[str, float] | None:
        path = inboxes / f"{inbox}.json"
        summary = f"bench {inbox} {k} {uuid.uuid4().hex[:8]}"
        entry = {
            "from": sender,
            "text": f"{summary}: the row should show at once",
            "summary": summary,
            "timestamp": dt.datetime.now(dt.timezone.utc)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "color": "blue",
            "read": False,
        }
        data = bs.append_bytes(path.read_bytes(), entry)
        await asyncio.to_thread(browser.call, "arm", text=summary)
        if bare is not None:
            bare.arm(path)
        since = len(session.changes) if session else 0
        t0 = bs.atomic_write(path, data)
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

    async def run(session: bs.Session | None, bare: Any, suffix: str) -> None:
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
                f"  {name}{suffix}: DOM p50 {med(acc['dom' + suffix]):.1f} ms"
                + (f", didChange p50 {med(acc['server']):.1f} ms" if session else ""),
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
        session = bs.Session()
        for name in NOTIFICATIONS:
            if name not in session.client.protocol.fm.features:
                session.client.feature(name)(lambda ls, params: None)
        await session.start(root, base / "rows-history.db")
        bare = bs.BareWatch()
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


# --- (c) the team view ----------------------------------------------------------------------

BIG = "big"
BIG_ID = f"claude:{BIG}"
MARKER = "TV-NEWEST-MARK"
OPEN_KEY, CLOSE_KEY = "Control+Alt+F10", "Control+Alt+F11"
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
    with CodeServer(home, port, vsix) as cs:
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
            bs.atomic_write(path, json.dumps(entries[-5:], indent=2).encode())
        t0 = time.perf_counter()
        while history_count(db, gone=True) < archived - 15 and time.perf_counter() - t0 < 60:
            await asyncio.sleep(0.5)
        out["gone"] = history_count(db, gone=True)
        print(
            f"  {archived} archived in {out['archive_s']:.1f} s; {out['gone']} pruned from the inboxes",
            flush=True,
        )
        await asyncio.sleep(2.0)
        # (1) the command -> the newest messages in the view
        out["open"] = []
        for k in range(opens):
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
            return {
                "from": sender,
                "text": f"{summary}: the message should show at once",
                "summary": summary,
                "timestamp": dt.datetime.now(dt.timezone.utc)
                .isoformat(timespec="milliseconds")
                .replace("+00:00", "Z"),
                "color": "blue",
                "read": False,
            }

        for k in range(n + WARMUP):
            if tree_misses < 2:
                summary = f"tree bench {k} {uuid.uuid4().hex[:8]}"
                data = bs.append_bytes(alpha.read_bytes(), entry_for(summary, "team-lead"))
                await asyncio.to_thread(browser.call, "arm", text=summary)
                t0 = bs.atomic_write(alpha, data)
                hit = await asyncio.to_thread(browser.call, "wait", ms=5000)
                if hit.get("timeout"):
                    tree_misses += 1
                elif k >= WARMUP:
                    writes["tree"].append(hit["domAt"] - (t0 + offset) * 1000)
                await asyncio.sleep(0.7)
            summary = f"tv bench {k} {uuid.uuid4().hex[:8]}"
            data = bs.append_bytes(path.read_bytes(), entry_for(summary, "researcher"))
            await asyncio.to_thread(browser.call, "varm", text=summary)
            t0 = bs.atomic_write(path, data)
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
            f"  write -> message in the view: p50 {med(writes['dom']):.1f} ms,"
            f" p90 {bs.pct(writes['dom'], 90):.1f} ms ({misses} missed); the host's upsert in the view p50"
            f" {med(writes['upsert']):.1f} ms; interleaved, the tree's row p50 {med(writes['tree']):.1f} ms"
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
        out["scroll"] = sc
        out["total"] = total
        out["mem_after"] = await asyncio.to_thread(browser.call, "vmem")
        # the same fling over a static copy of the thread: the floor of its frames in this window
        out["floor"] = await asyncio.to_thread(browser.call, "vfloor", step=step)
        fl = out["floor"]["deltas"]
        print(
            f"  the floor (a static copy of {out['floor']['copies']} messages, laid out, the same fling):"
            f" {len(fl)} frames, rAF delta p50 {med(fl):.1f} ms, p95 {bs.pct(fl, 95):.1f} ms,"
            f" p99 {bs.pct(fl, 99):.1f} ms",
            flush=True,
        )
        out["rss_after"] = {p: v for p, v in renderers().items() if p in new_pids}
        out["mem_gc"] = await asyncio.to_thread(browser.call, "vmem", gc=True)
        out["all_renderers"] = {"before": mem0, "pre_scroll": pre_scroll, "after": renderers()}
        kib = lambda d, k: sum(v.get(k, 0) for v in d.values()) / 1024  # noqa: E731
        ar = out["all_renderers"]
        print(
            f"  scroll: {sc['count']} of {total} messages in {sc['ms'] / 1000:.1f} s, {len(sc['deltas'])} frames,"
            f" rAF delta p50 {med(sc['deltas']):.1f} / p95 {bs.pct(sc['deltas'], 95):.1f}"
            f" / p99 {bs.pct(sc['deltas'], 99):.1f} ms (idle p95 {bs.pct(out['idle'], 95):.1f});"
            f" LoAF {len(sc['loafs'])};"
            f" heap {out['mem_before']['used'] / 1e6:.1f} -> {out['mem_after']['used'] / 1e6:.1f} MB;"
            f" renderer {out['rss_before']} -> {out['rss_after']}; every renderer's RSS / PSS MiB: no view"
            f" {kib(ar['before'], 'rss'):.0f} / {kib(ar['before'], 'pss'):.0f}, before the scroll"
            f" {kib(ar['pre_scroll'], 'rss'):.0f} / {kib(ar['pre_scroll'], 'pss'):.0f}, after it (GC)"
            f" {kib(ar['after'], 'rss'):.0f} / {kib(ar['after'], 'pss'):.0f}",
            flush=True,
        )
        await asyncio.to_thread(browser.call, "closeView", key=CLOSE_KEY)
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
            out["scroll_more"].append({"deltas": d, "ms": more["ms"], "idle": idle, "floor": fl})
            print(
                f"  scroll {k + 2}: {more['count']} messages in {more['ms'] / 1000:.1f} s, {len(d)} frames,"
                f" rAF delta p50 {med(d):.1f} / p95 {bs.pct(d, 95):.1f} / p99 {bs.pct(d, 99):.1f} ms;"
                f" idle p95 {bs.pct(idle, 95):.1f}; floor p50 {med(fl):.1f} / p95 {bs.pct(fl, 95):.1f} ms",
                flush=True,
            )
            await asyncio.to_thread(browser.call, "closeView", key=CLOSE_KEY)
    return out


# --- report -----------------------------------------------------------------------------------


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


def stats(xs: list[float]) -> str:
    xs = [x for x in xs if x == x]
    if not xs:
        return "- | - | - | -"
    return (
        f"{len(xs)} | {bs.ms(statistics.median(xs))} | {bs.ms(bs.pct(xs, 90))} | {bs.ms(max(xs))}"
    )


def med(xs: list[float]) -> float:
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def render(
    runs: dict[str, dict[str, Any]], args: argparse.Namespace, seconds: float, load: tuple[str, str]
) -> str:
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = (
        "`.venv/bin/python bench/bench_ui.py"
        + (f" --old-vsix {args.old_vsix}" if args.old_vsix else "")
        + "`"
    )
    lines = [
        SECTION,
        "",
        f"{cmd}, {when}, {seconds:.0f} s. code-server 4.139.1 (VS Code 1.139) with the .vsix installed, Debian chromium headless"
        " through playwright-core (bench_ui.js); times are wall clock, the page's `performance.timeOrigin + now()` against"
        " this process's `time.time()`.",
        "",
        f"Machine (shared and noisy: quote medians and ratios): {bs.machine()}. Load average (1/5/15 min) at the start"
        f" {load[0]}, at the end {load[1]}.",
        "",
    ]
    new = runs.get("new")
    old = runs.get("old")
    for label, r in runs.items():
        lines.append(
            f"Load average while measuring {label}: {r['load'][0]} before, {r['load'][1]} after;"
            f" the controls before / after: CPU (a fixed JSON round trip, `control_ms`) {r['control'][0]:.1f} /"
            f" {r['control'][2]:.1f} ms, wakeup (a byte to another process and back from idle, `wakeup_us`)"
            f" {r['control'][1]:.0f} / {r['control'][3]:.0f} us."
        )
    lines += ["", "### Summary", ""]
    for label, r in runs.items():
        for name, got in r["rows"]["series"].items():
            lines.append(
                f"- {label}, {name}: write -> row in the DOM p50 {bs.ms(med(got['dom']))} ms, p90 {bs.ms(bs.pct(got['dom'], 90))} ms"
                f" (didChange at a client p50 {bs.ms(med(got['server']))} ms)."
            )
        fr = r["fresh"]

        def p50(key: str, part: list[dict[str, float]]) -> str:
            return bs.ms(med([x.get(key, float("nan")) for x in part]))

        lines.append(
            f"- {label}, fresh window, all runs: activation -> teams p50 {p50('activation_to_teams', fr)} ms,"
            f" click -> teams p50 {p50('click_to_teams', fr)} ms; the live teams: activation -> p50"
            f" {p50('activation_to_live', fr)} ms, click -> p50 {p50('click_to_live', fr)} ms."
        )
        if len(fr) > 1:
            lines.append(
                f"- {label}, fresh window after a restart (runs 2-{len(fr)}; the new build draws the last session's teams):"
                f" activation -> teams p50 {p50('activation_to_teams', fr[1:])} ms, click -> teams p50"
                f" {p50('click_to_teams', fr[1:])} ms; first start (run 1, nothing remembered): activation -> teams"
                f" {p50('activation_to_teams', fr[:1])} ms."
            )
    lines.append(
        "- Targets: write -> row p50 <= 30 ms, p90 <= 50 ms; teams <= 1 s after activation, <= 2.5 s after the click."
    )
    if new and old:
        for name in new["rows"]["series"]:
            if name in old["rows"]["series"]:
                a, b = (
                    med(new["rows"]["series"][name]["dom"]),
                    med(old["rows"]["series"][name]["dom"]),
                )
                lines.append(f"- Ratio new/old, {name}: {a / b:.2f} ({bs.ms(a)} vs {bs.ms(b)} ms).")
        for key, what in (
            ("click_to_teams", "click -> teams"),
            ("activation_to_teams", "activation -> teams"),
        ):
            a, b = med([x[key] for x in new["fresh"]]), med([x[key] for x in old["fresh"]])
            lines.append(f"- Ratio new/old, {what}: {a / b:.2f} ({bs.ms(a)} vs {bs.ms(b)} ms).")
    lines += [
        "",
        f"### (a) A peer's write -> its row ({args.n} writes per inbox after {WARMUP} warm-up, 0.7 s apart"
        + (f"; the teammate's inbox holding {args.prefill} messages first" if args.prefill else "")
        + ")",
        "",
    ]
    lines += [
        "Clock starts just before `rename`. Two passes in the same code-server: first the extension's sidecar alone"
        " (what a person sees), then the same number of writes with the instruments running. `DOM`: a MutationObserver"
        " in the page sees a row description holding the summary; `frame`: the next animation frame after it; the"
        " frame rows: the page's websocket frames of that write (kept as they came, decoded after the row showed)."
        " `didChange`: a pygls client of a second sidecar on the same folder (bench_server's Session); `watchdog`: a"
        " bare Observer in this process (bench_server's BareWatch).",
        "",
        "| build | inbox | measure | n | p50 ms | p90 ms | max ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, r in runs.items():
        for name, got in r["rows"]["series"].items():
            for key, what in (
                ("dom", "write -> row in the DOM"),
                ("frame", "write -> next frame"),
                ("refresh", "write -> first frame in (the host's `$refresh`)"),
                ("ask", "write -> first frame out after it (`$getChildren`)"),
                ("reply", "write -> the frame in holding the summary"),
                ("dom+", "with the instruments: write -> row in the DOM"),
                ("server", "with the instruments: write -> didChange at a client"),
                ("bare", "with the instruments: write -> bare watchdog callback"),
            ):
                if key in got:
                    lines.append(f"| {label} | {name} | {what} | {stats(got[key])} |")
        lines.append(
            f"| {label} | | rows that never showed in 10 s | {r['rows']['misses']} | | | |"
        )
    lines += ["", f"### (b) Fresh window ({args.fresh} code-server starts per build)", ""]
    lines += [
        "code-server started anew each time on the same scratch HOME with the extension installed once (run 1 is"
        " the first start after installing; the new build caches the bundled Python's bytecode in its global"
        " storage then, the old one never does); a new browser context; the icon is clicked as soon as it is"
        " visible. `activate()`: the extension's own `activated at` log line (new build only).",
        "",
        "`teams`: the first team row (after a restart, the last session's, which the extension remembers);"
        " `live`: the first member row, which only the sidecar's answer brings. Run 1 has nothing remembered.",
        "",
        "| build | run | " + " | ".join(h for _, h in FRESH_COLUMNS) + " |",
        "|---|---|" + "---|" * len(FRESH_COLUMNS),
    ]
    for label, r in runs.items():
        fr = r["fresh"]
        for i, x in enumerate(fr):
            cells = [f"{x.get(k, float('nan')):.0f}" for k, _ in FRESH_COLUMNS]
            lines.append(f"| {label} | {i + 1} | " + " | ".join(cells).replace("nan", "-") + " |")
        for what, part in (("median", fr), ("median of restarts (2-)", fr[1:])):
            if part:
                cells = [
                    bs.ms(med([x.get(k, float("nan")) for x in part])) for k, _ in FRESH_COLUMNS
                ]
                lines.append(f"| {label} | {what} | " + " | ".join(cells) + " |")
    lines += ["", NOTES.strip()]
    return "\n".join(lines) + "\n"


TV_SECTION = "## Team view (issue 21)"
TV_SUB = "### Speed and memory in code-server (`bench_ui.py --teamview`)"


def dist(xs: list[float]) -> dict[str, float]:
    xs = [x for x in xs if x == x]
    return {
        "n": len(xs),
        "p50": med(xs),
        "p90": bs.pct(xs, 90),
        "p95": bs.pct(xs, 95),
        "p99": bs.pct(xs, 99),
        "max": max(xs) if xs else float("nan"),
    }


def render_teamview(
    r: dict[str, Any], args: argparse.Namespace, seconds: float, load: tuple[str, str]
) -> str:
    """The team view's figures and the tree's from the same run, as the subsection TV_SUB."""
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    tv = r["teamview"]
    cmd = (
        f"`.venv/bin/python bench/bench_ui.py --teamview --n {args.n} --fresh {args.fresh} --opens {args.opens}"
        + (f" --vsix {args.vsix}" if args.vsix else "")
        + "`"
    )
    opens = tv["open"]
    first, rest = opens[:1], opens[1:]
    w = tv["writes"]
    sc = tv["scroll"]
    deltas = sc["deltas"]
    dd, idle = dist(deltas), dist(tv["idle"])
    over = lambda xs, t: sum(1 for x in xs if x > t)  # noqa: E731
    loafs = sc["loafs"]
    mb = lambda b: f"{b / 1e6:.1f}" if isinstance(b, (int, float)) else "-"  # noqa: E731
    kb = lambda d, k: (  # noqa: E731
        " / ".join(f"{v.get(k, 0) / 1024:.0f}" for v in d.values()) if d else "-"
    )
    tree = r["rows"]["series"]
    fr = r["fresh"]
    wd = dist(w["dom"])
    od_rest = dist([x["frame"] for x in rest])
    od_all = dist([x["frame"] for x in opens])
    m0, m1, mg = tv["mem_before"], tv["mem_after"], tv["mem_gc"]
    hv = tv.get("heap_no_view") or {"heap": 0, "nodes": 0}
    hg = m1.get("cdp") or mg.get("cdp") or {"heap": 0, "nodes": 0}
    hg = mg.get("cdp") or hg
    ar = tv["all_renderers"]
    ren0 = sum(v.get("rss", 0) for v in ar["before"].values())
    ren1 = sum(v.get("rss", 0) for v in ar["after"].values())
    pss0 = sum(v.get("pss", 0) for v in ar["before"].values())
    pss1 = sum(v.get("pss", 0) for v in ar["after"].values())
    pre_rss = sum(v.get("rss", 0) for v in ar.get("pre_scroll", {}).values())
    pre_pss = sum(v.get("pss", 0) for v in ar.get("pre_scroll", {}).values())
    lines = [
        TV_SUB,
        "",
        f"{cmd}, {when}, {seconds:.0f} s; code-server 4.139.1 (VS Code 1.139), Debian chromium headless through"
        " playwright-core. Machine: " + bs.machine() + ".",
        f"Load average (1/5/15 min): {load[0]} at the start, {load[1]} at the end; the controls before / after"
        f" (bench_ui's CPU `control_ms`, wakeup `wakeup_us`): {r['control'][0]:.1f} / {r['control'][2]:.1f} ms,"
        f" {r['control'][1]:.0f} / {r['control'][3]:.0f} us. A shared 2-core machine: medians and ratios.",
        "",
        f"Team `big`: {tv['archived']:,} messages written into its three inboxes (one a minute, ~150-300"
        f" characters, every fifth with a markdown list), archived by the extension's sidecar"
        f" ({tv['archive_s']:.1f} s after the window opened), then pruned from the inboxes to the newest 5 each as"
        f" Claude Code's consumer does ({tv['gone']:,} marked gone in the history). The view is opened by a"
        " keybinding that runs `teamInbox.openTeam` with the team's id (`ctrl+alt+f10`, written into the"
        " profile's keybindings.json): the clock starts at its keydown in the workbench and stops when the"
        " newest message is in the view's thread (a MutationObserver on the view's thread, set by a watcher"
        " that `addInitScript` puts into VS Code's webview host frame: it finds the thread within 4 ms of the"
        " view's script making it; VS Code writes the view's document with document.write, which clears"
        " anything installed in the inner frame itself), and at the next animation frame"
        " after it (`frame`). The view is closed between opens (`workbench.action.closeAllEditors`).",
        "",
        "#### Summary",
        "",
        f"- Target 1, a teammate's write -> its message in the open team view: p50 {bs.ms(wd['p50'])} ms, p90"
        f" {bs.ms(wd['p90'])} ms (n {wd['n']}; target p50 <= 30, p90 <= 50: "
        + ("met" if wd["p50"] <= 30 and wd["p90"] <= 50 else "not met")
        + f"); the host's `upsert` reached the view at p50 {bs.ms(med(w.get('upsert', [])))} ms."
        + " Interleaved with those writes, in the same window, a write to the fixture team's researcher"
        f" inbox -> its row in the tree: p50 {bs.ms(med(w.get('tree', [])))} ms, p90"
        f" {bs.ms(bs.pct(w.get('tree', []), 90))} ms (n {len(w.get('tree', []))})."
        + " The tree's rows from bench_ui's own series earlier in the run (its own code-server):"
        + "; ".join(
            f" {name} p50 {bs.ms(med(got['dom']))} ms, p90 {bs.ms(bs.pct(got['dom'], 90))} ms (n {len(got['dom'])})"
            for name, got in tree.items()
        )
        + ".",
        f"- The tree in a fresh profile (run 1 of {len(fr)}: code-server's first start after the install, a new"
        " browser context, nothing remembered): click -> first team row "
        + (bs.ms(fr[0]["click_to_teams"]) if fr else "-")
        + " ms, activation -> first team row "
        + (bs.ms(fr[0]["activation_to_teams"]) if fr else "-")
        + " ms; restarts (runs 2-): click -> teams p50 "
        + (bs.ms(med([x["click_to_teams"] for x in fr[1:]])) if len(fr) > 1 else "-")
        + " ms.",
        f"- Target 2, `teamInbox.openTeam` -> the newest messages painted (a team of {tv['archived']:,}): first open"
        f" {bs.ms(first[0]['frame']) if first else '-'} ms; opens 2-{len(opens)} p50 {bs.ms(od_rest['p50'])} ms,"
        f" p90 {bs.ms(od_rest['p90'])} ms, max {bs.ms(od_rest['max'])} (target <= 300: "
        + (
            "met"
            if od_all["max"] <= 300
            else "met at the median"
            if od_all["p50"] <= 300
            else "not met"
        )
        + ").",
        f"- Target 3, scrolling back through all {tv['total']:,} ({sc['count']:,} in the thread at the end,"
        f" {sc['ms'] / 1000:.1f} s at {args.scroll_step} px a frame): requestAnimationFrame deltas in the webview's"
        f" frame p50 {bs.ms(dd['p50'])} ms, p95 {bs.ms(dd['p95'])} ms, p99 {bs.ms(dd['p99'])}, max {bs.ms(dd['max'])}"
        f" (n {dd['n']}; the same frame idle: p50 {bs.ms(idle['p50'])}, p95 {bs.ms(idle['p95'])}); target p95 < 16"
        " ms (one 60 Hz frame; a delta is at least 16.7 ms at 60 Hz, so read it as no frame dropped: p95 <= 16.7 ms): "
        + ("met" if dd["p95"] <= 17.5 else "not met")
        + f". Memory: the view's share of the renderer's JS heap after a GC (with the view and all"
        f" {sc['count']:,} messages in it, less the same renderer with no view open) {mb(hg['heap'] - hv['heap'])} MB;"
        f" the whole renderer's (the workbench's too, `performance.memory.usedJSHeapSize` in the view's frame)"
        f" {mb(m1['used'])} MB after the scroll, {mb(mg['used'])} after a GC; target <= 100 MB: "
        + ("met" if hg["heap"] - hv["heap"] <= 100e6 else "not met")
        + ".",
        "",
        "#### Figures",
        "",
        "| measure | n | p50 ms | p90 ms | p95 ms | max ms |",
        "|---|---|---|---|---|---|",
    ]

    def row(what: str, xs: list[float]) -> None:
        d = dist(xs)
        lines.append(
            f"| {what} | {d['n']} | {bs.ms(d['p50'])} | {bs.ms(d['p90'])} | {bs.ms(d['p95'])} | {bs.ms(d['max'])} |"
        )

    row(
        "open: command -> VS Code's webview frame made (its timeOrigin), first open",
        [x["outer"] for x in first],
    )
    row(
        "open: command -> the view's script ran (its thread element made), first open",
        [x["thread"] for x in first],
    )
    row("open: command -> the host's `init` in the view, first open", [x["init"] for x in first])
    row("open: command -> newest message in the DOM, first open", [x["dom"] for x in first])
    row("open: command -> next frame, first open", [x["frame"] for x in first])
    row("open: command -> VS Code's webview frame made, opens 2-", [x["outer"] for x in rest])
    row("open: command -> the view's script ran, opens 2-", [x["thread"] for x in rest])
    row("open: command -> the host's `init` in the view, opens 2-", [x["init"] for x in rest])
    row("open: command -> newest message in the DOM, opens 2-", [x["dom"] for x in rest])
    row("open: command -> next frame, opens 2-", [x["frame"] for x in rest])
    row("teammate's write -> the host's `upsert` in the view", w.get("upsert", []))
    row("teammate's write -> message in the view's DOM", w["dom"])
    row(
        "interleaved with those, in the same window: a write to alpha -> its row in the tree",
        w.get("tree", []),
    )
    row("teammate's write -> next frame in the view", w["frame"])
    for name, got in tree.items():
        row(f"tree, {name}: write -> row in the DOM", got["dom"])
        if "reply" in got:
            row(f"tree, {name}: write -> the frame in holding the summary", got["reply"])
    row(
        "tree, fresh window run 1 (nothing remembered): click -> first team row",
        [x["click_to_teams"] for x in fr[:1]],
    )
    row(
        "tree, fresh window runs 2- (restarts): click -> first team row",
        [x["click_to_teams"] for x in fr[1:]],
    )
    row("scroll: rAF delta in the view's frame", deltas)
    row("idle: rAF delta in the view's frame (2 s, before the scroll)", tv["idle"])
    if tv.get("floor"):
        row(
            f"floor: the same fling over a static copy of the thread ({tv['floor']['copies']:,} messages, laid out)",
            tv["floor"]["deltas"],
        )
    row(
        "scroll: an older page's wait (the top reached -> its messages in)",
        [x["wait"] for x in sc["pages"] if x["wait"]],
    )
    lines += [
        "",
        f"Scroll frames over 16.7 ms: {over(deltas, 16.7)} of {len(deltas)}; over 33.4 ms (two or more frames"
        f" dropped): {over(deltas, 33.4)}; over 50 ms: {over(deltas, 50)}. Pages loaded on the way: {len(sc['pages'])}"
        f" (200 each). Long animation frames (the LoAF API, over 50 ms"
        + ("" if sc.get("loafSupported") else "; not supported by this chromium")
        + f"): {len(loafs)}"
        + (
            f", longest {max(x['dur'] for x in loafs):.0f} ms; their script {sum(x['script'] for x in loafs):.0f} ms"
            f" and style and layout {sum(x['layout'] for x in loafs):.0f} ms in all"
            if loafs
            else ""
        )
        + ".",
        "",
        f"Memory of the view (the thread holding {m1['msgs']:,} messages in its DOM"
        + (
            f" of the {m1['held']:,} it holds (a window: at most {sc['maxDom']:,} in the DOM during the scroll)"
            if m1.get("held") == m1.get("held") and m1.get("held") is not None and "maxDom" in sc
            else ""
        )
        + f", {m1['nodes']:,} elements in the frame;"
        f" {m0['msgs']:,} and {m0['nodes']:,} before the scroll): `performance.memory` in the webview's inner frame"
        f" (chromium with `--enable-precise-memory-info`) used / total JS heap {mb(m0['used'])} / {mb(m0['total'])} MB"
        f" before, {mb(m1['used'])} / {mb(m1['total'])} MB after, {mb(mg['used'])} MB used after a GC."
        + (
            " CDP `Performance.getMetrics` on the frame's own target: "
            + ", ".join(f"{k} {v:,.0f}" for k, v in (m1.get("cdp") or {}).items())
            + "."
            if m1.get("cdp") and not tv.get("heap_no_view")
            else " The view's frame is not a process of its own (code-server serves webviews from its own"
            " origin, so chromium keeps them in the workbench's renderer): the heap above is that renderer's"
            " isolate, the workbench's included. The view's own share, after a GC each time (CDP"
            " `HeapProfiler.collectGarbage`, then `Performance.getMetrics` on the page): JS heap"
            f" {mb(hv['heap'])} MB and {hv['nodes']:,.0f} DOM nodes with no view open, {mb(hg['heap'])} MB and"
            f" {hg['nodes']:,.0f} nodes after the scroll with the view open: the view holds"
            f" {mb(hg['heap'] - hv['heap'])} MB of JS heap; the renderers' RSS below counts the rest (layout, style, Blink's own heap)."
        )
        + f" Renderer processes that appeared with the view: {len(tv['view_pids'])}"
        + (
            f" (RSS / PSS MiB before the scroll {kb(tv['rss_before'], 'rss')} / {kb(tv['rss_before'], 'pss')},"
            f" after {kb(tv['rss_after'], 'rss')} / {kb(tv['rss_after'], 'pss')})"
            if tv["view_pids"]
            else ""
        )
        + f". Every chromium renderer's RSS together (/proc/<pid>/smaps_rollup): {ren0 / 1024:.0f} MiB before the view"
        f" was opened, {ren1 / 1024:.0f} MiB after the scroll ({(ren1 - ren0) / 1024:+.0f} MiB; PSS"
        f" {pss0 / 1024:.0f} -> {pss1 / 1024:.0f} MiB)"
        + (
            f"; with the view open and the writes done, just before the scroll: {pre_rss / 1024:.0f} MiB"
            f" (PSS {pre_pss / 1024:.0f}), so the scroll itself added {(ren1 - pre_rss) / 1024:+.0f} MiB RSS,"
            f" {(pss1 - pre_pss) / 1024:+.0f} MiB PSS (after a GC)."
            if pre_rss
            else "."
        ),
    ]
    return "\n".join(lines) + "\n"


def write_teamview(text: str) -> None:
    """Put TV_SUB into the team view's section: in place of the old one, or of the paragraph that
    said it was not measured; the bundle's figures above it stay."""
    old = bs.RESULTS.read_text()
    start = old.find(TV_SECTION)
    if start < 0:
        bs.write_section(TV_SECTION + "\n\n" + text, TV_SECTION)
        return
    end = old.find("\n## ", start + len(TV_SECTION))
    end = len(old) if end < 0 else end + 1
    body = old[start:end]
    cut = body.find(TV_SUB)
    if cut < 0:
        cut = body.find("Not measured yet:")
    if cut < 0:
        cut = len(body.rstrip())
    # a later subsection of the section (### ..., a write-up of its own) stays after the new text
    after = body.find("\n### ", cut + len(TV_SUB)) if body.startswith(TV_SUB, cut) else -1
    rest = body[after + 1 :] if after >= 0 else ""
    new_body = body[:cut].rstrip() + "\n\n" + text.rstrip() + "\n" + ("\n" + rest if rest else "")
    tail = old[end:]
    bs.RESULTS.write_text(old[:start] + new_body + ("\n" + tail if tail else ""))


FRESH_COLUMNS = (
    ("icon_to_click", "icon shown -> click ms"),
    ("click_to_teams", "click -> teams ms"),
    ("activation_to_teams", "activation -> teams ms"),
    ("activate_to_teams", "activate() -> teams ms"),
    ("click_to_live", "click -> live ms"),
    ("activation_to_live", "activation -> live ms"),
)

NOTES = """
### Where the time goes

- A peer's write, new build, frame by frame (the websocket rows above): the sidecar sees the rename
  through inotify at once and hands the hint to its event loop on the next turn (no timer), reads
  and diffs the inbox, and sends `didChange` before any other publisher's work (attention, member
  states). The extension applies the delta to the cached page and fires one refresh of that inbox
  node, with no request to the sidecar; VS Code's extension host sends `$refresh` to the window
  (the first frame in), the window asks `$getChildren` of that inbox (the first frame out), the
  host answers from the cache (the frame holding the summary), and the window renders the rows.
  That render is script (`--trace`): VS Code re-renders every row of the refreshed node (~0.3-0.7
  ms a row: its label, icon, inline actions, indent guides), which is why an inbox draws its
  newest 10; style, layout and paint come after the row is in the DOM. The badge, the status
  bar's count and the team row's counts follow (50 ms later; the team row in VS Code's next
  refresh, which it holds back 200 ms), off the row's path.
- "With the instruments": the same writes while a second sidecar (the `didChange` client) and a
  bare watchdog observer also react to them: on two cores they compete with the extension's own
  sidecar, the extension host and the browser, which is why the row is measured alone first.
- A fresh window: the Python sidecar's start is most of it (importing pygls, whose lsprotocol
  defines ~630 attrs classes). The new build spawns it from activate() at once, keeps the bundled
  libraries' bytecode and attrs' generated code (codecache.py) in its global storage, and draws
  the teams it listed last time (collapsed, from a memo in its workspace storage) until the
  sidecar answers; run 1 has no memo yet. The old build loaded vscode-languageclient first and
  started Python twice (a probe, then the server).
- On a busy machine every hop waits for a core: compare builds from the same run, and the
  didChange and watchdog rows beside them.
"""


def control_ms() -> float:
    """A fixed piece of CPU work, median of 7 (ms): the load average misses the host's own
    neighbours, this does not. Compare runs by it."""
    doc = [{"from": f"member-{i}", "text": "x" * 200, "read": i % 2 == 0} for i in range(2000)]
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(5):
            json.loads(json.dumps(doc))
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


PINGPONG = r"""
import os, sys
r, w = int(sys.argv[1]), int(sys.argv[2])
while (b := os.read(r, 1)) and b != b"q":
    os.write(w, b)
"""


def wakeup_us() -> float:
    """Median round trip of one byte to another process and back over pipes (us): how long a
    process waits to be woken, which is what a row's hops pay. A busy host shows here first."""
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    child = subprocess.Popen([sys.executable, "-c", PINGPONG, str(r1), str(w2)], pass_fds=(r1, w2))
    os.close(r1)
    os.close(w2)
    times = []
    try:
        for i in range(300):
            t0 = time.perf_counter()
            os.write(w1, b"x")
            os.read(r2, 1)
            if i >= 20:
                times.append((time.perf_counter() - t0) * 1e6)
            time.sleep(0.002)  # each one from idle, as a write after a quiet spell
    finally:
        os.write(w1, b"q")
        child.wait(10)
        os.close(w1)
        os.close(r2)
    return statistics.median(times)


def loadavg() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--n", type=int, default=30, help="writes per inbox (after warm-up)")
    ap.add_argument("--fresh", type=int, default=5, help="fresh windows per build")
    ap.add_argument("--vsix", type=Path, help="the build to measure (default: build the work tree)")
    ap.add_argument(
        "--old-vsix", type=Path, help="an older build to measure the same way, for ratios"
    )
    ap.add_argument("--port", type=int, default=18397)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="print every sample")
    ap.add_argument("--profile", action="store_true", help="the page's CPU profile of the rows")
    ap.add_argument(
        "--trace", action="store_true", help="the page's main-thread tasks from frame in to row"
    )
    ap.add_argument(
        "--prefill", type=int, default=0, help="messages already in the teammate's inbox"
    )
    ap.add_argument(
        "--teamview", action="store_true", help="(c) the team view too, written to its own section"
    )
    ap.add_argument("--archived", type=int, default=10000, help="(c) the big team's messages")
    ap.add_argument("--opens", type=int, default=10, help="(c) opens of its view")
    ap.add_argument("--scroll-step", type=int, default=1200, help="(c) px scrolled a frame")
    ap.add_argument(
        "--scrolls", type=int, default=1, help="(c) scrolls per build (the view reopened for each)"
    )
    ap.add_argument(
        "--old-first",
        action="store_true",
        help="the older build first (to balance a drifting load)",
    )
    ap.add_argument(
        "--scroll-trace",
        action="store_true",
        help="(c) a Chrome trace of the scroll: threads' busy time, main-thread events, functions",
    )
    args = ap.parse_args()
    t = tools()
    base = Path(tempfile.mkdtemp(prefix="teaminbox-bench-ui-"))
    t0 = time.perf_counter()
    load0 = loadavg()
    vsix = args.vsix
    if vsix is None:
        # into our own copy: another build in this work tree may replace dist/ meanwhile
        build = REPO / "tests" / "extension" / "build-vsix.sh"
        subprocess.run(["bash", str(build), str(base / "ext")], check=True)
        vsix = base / "ext" / "dist" / "team-inbox.vsix"
    builds = {"new": vsix}
    if args.old_vsix:
        builds = (
            {"old": args.old_vsix, "new": vsix}
            if args.old_first
            else {**builds, "old": args.old_vsix}
        )
    browser = Browser(t)
    runs: dict[str, dict[str, Any]] = {}
    try:
        for label, v in builds.items():
            before = loadavg()
            print(f"{label}: {v} (load {before})", flush=True)
            ctl = [control_ms(), wakeup_us()]
            print(" (b) fresh windows", flush=True)
            fresh = bench_fresh(base / label, v, args.port, args.fresh, browser)
            print(" (a) a peer's write -> the row", flush=True)
            rows = await bench_rows(
                base / label,
                v,
                args.port,
                args.n,
                browser,
                args.verbose,
                args.profile,
                args.prefill,
                args.trace,
            )
            teamview = None
            if args.teamview:
                print(" (c) the team view", flush=True)
                teamview = await bench_teamview(
                    base / label,
                    v,
                    args.port,
                    args.n,
                    args.opens,
                    args.archived,
                    browser,
                    args.scroll_step,
                    args.scroll_trace,
                    args.scrolls,
                )
            ctl += [control_ms(), wakeup_us()]
            runs[label] = {
                "fresh": fresh,
                "rows": rows,
                "load": (before, loadavg()),
                "control": ctl,
                "teamview": teamview,
            }
        seconds = time.perf_counter() - t0
        if args.teamview:
            if args.keep:  # first: the figures stay even if the report fails
                for label, run in runs.items():
                    (base / f"teamview-{label}.json").write_text(json.dumps(run["teamview"]))
            text = render_teamview(runs["new"], args, seconds, (load0, loadavg()))
            print(text)
            if not args.no_write:
                write_teamview(text)
        else:
            text = render(runs, args, seconds, (load0, loadavg()))
            print(text)
            if not args.no_write:
                bs.write_section(text, SECTION)
    finally:
        browser.close()
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


def _interrupted(*_: Any) -> None:
    raise KeyboardInterrupt  # so a SIGTERM still stops code-server and the browser


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _interrupted)
    asyncio.run(main())
