"""Benchmark: our Claude inbox writer vs Claude Code's own (proper-lockfile), side by side.

    .venv/bin/python bench/bench_store.py [--quick] [--no-write]

1. Sends per second into ONE contended inbox: N processes of ours
   (`teaminbox.store.append`), N Node processes of Claude Code's writer
   (bench/node_writer.js), and both MIXED; Node give-ups (messages Claude Code
   would lose) are counted and every acknowledged message is checked to be in
   the file exactly once.
2. How long each writer holds the lock per append at 100 .. 100,000 existing
   entries of ~2.7 KB (the issue: 10,000 entries = 27 MB), with a breakdown of
   where our hold time goes.
3. How long it takes to read (parse into messages) those inboxes.

The machine is shared and noisy: quote medians and ratios, not single runs.
Writes the figures to bench/runs.md, section "Core writer (issue 2)".
Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import orjson

from teaminbox import store
from teaminbox.errors import TeamInboxError
from teaminbox.formats.claude import CLAUDE

try:  # this tree (jsonio.py, ensure_claude_inbox in formats/claude.py)
    from teaminbox.formats.claude import ensure_claude_inbox
    from teaminbox.jsonio import dumps_indented
except ImportError:  # an old build on PYTHONPATH (before 7918248's restructuring)
    from teaminbox.formats import dumps_indented  # type: ignore[attr-defined,no-redef]
    from teaminbox.store import ensure_claude_inbox  # type: ignore[attr-defined,no-redef]
from teaminbox.locks import DirLock, PeerLock

try:  # this tree: a message to write is one value
    from teaminbox.model import Draft

    def new_entry(**fields: Any) -> dict[str, Any]:
        return CLAUDE.new_entry(Draft(**fields))
except ImportError:  # an old build: keyword arguments
    new_entry = CLAUDE.new_entry  # type: ignore[assignment]

HERE = os.path.dirname(os.path.abspath(__file__))
# Claude Code's writer: bench/node_writer.js, on tests/interop/node/claude_inbox.js; the one
# Node package (proper-lockfile@4.1.2) is tests/interop's.
INTEROP_DIR = os.path.join(os.path.dirname(HERE), "tests", "interop")
WRITER_JS = os.path.join(HERE, "node_writer.js")
RESULTS = os.path.join(HERE, "runs.md")
SECTION = "## Core writer (issue 2)"

TEXT_BYTES = 2500  # + the other fields and indentation: ~2.7 KB per entry, as in the issue
FILLER = 'The quick brown fox reports: "tests pass"; next step is the auth module.\n'
MARKER = re.compile(r"^bench:([A-Za-z0-9_-]+):(\d+) ")
NODE_FLAGS = ["--max-old-space-size=8192"]


# ---------------------------------------------------------------- helpers


def make_text(tag: str, seq: int, size: int = TEXT_BYTES) -> str:
    """Same text as writer.js makes: a marker, then filler with quotes and newlines."""
    head = f"bench:{tag}:{seq} "
    body = FILLER * ((size - len(head)) // len(FILLER) + 1)
    return (head + body)[:size]


def our_entry(tag: str, seq: int, size: int = TEXT_BYTES) -> dict[str, Any]:
    return new_entry(
        sender=f"py-{tag}",
        recipient="lead",
        text=make_text(tag, seq, size),
        summary=f"message {seq} from {tag}",
        color="blue",
    )


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = (len(s) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def ms(x: float) -> str:
    if x != x:  # nan
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def ratio(a: float, b: float) -> str:
    if a != a or b != b or b == 0:
        return "-"
    return f"{a / b:.2f}"


def fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def prepare_inbox(path: str, n: int) -> int:
    """An inbox of n entries laid out as JSON.stringify(arr, null, 2); returns its size."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    entries = [our_entry("old", i) for i in range(n)]
    data = dumps_indented(entries)
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return len(data)


def copy_inbox(src: str, dst: str) -> None:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    fsync_path(dst)


def ensure_node_modules() -> None:
    """proper-lockfile@4.1.2 in tests/interop/node_modules (`npm ci --prefix tests/interop`)."""
    if os.path.isdir(os.path.join(INTEROP_DIR, "node_modules", "proper-lockfile")):
        return
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm is needed: run `npm ci --prefix tests/interop` (proper-lockfile@4.1.2)")
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--prefix", INTEROP_DIR], check=True, timeout=300
    )


def run_node(args: list[str], timeout: float = 900) -> dict[str, Any]:
    out = subprocess.run(
        ["node", *NODE_FLAGS, WRITER_JS, *args],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"node_writer.js {args[0]} failed: {out.stderr.strip()}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


# ------------------------------------------------- our writer, instrumented


class HoldClock:
    """Times our lock from mkdir succeeding to rmdir done, with the steps in between.

    Installed by monkeypatching the bench process's teaminbox (store and locks
    are not edited): DirLock._create marks the acquisition, DirLock._remove the
    end (the path is free for a peer), PeerLock.release the return to the writer, and
    the store's helpers mark the steps taken under the lock.
    """

    def __init__(self) -> None:
        self.holds: list[float] = []  # ms
        self.steps: dict[str, list[float]] = collections.defaultdict(list)  # ms
        self.redone = 0  # appends whose pre-work was stale and redone under the lock
        self.appends = 0
        self._marks: dict[str, float] | None = None

    def _mark(self, name: str) -> None:
        if self._marks is not None and name not in self._marks:
            self._marks[name] = time.perf_counter()

    def install(self) -> None:
        clock = self
        orig_create = DirLock._create
        orig_remove = DirLock._remove
        orig_release = PeerLock.release
        orig_verify = PeerLock.verify
        # Under the lock the store re-reads the file (`_read_bytes`), or (later stores) only
        # checks that it is still the file it read (`_unchanged`) and re-reads it if not.
        # The write's helpers are looked up where it calls them: store/write.py and
        # store/commit.py, or (an old build) the one store.py under private names.
        try:
            from teaminbox.store import commit as at_commit
            from teaminbox.store import write as at_write
        except ImportError:
            at_commit = at_write = store
        old = at_write is store
        read_name = (
            ("_read_bytes" if hasattr(store, "_read_bytes") else "_unchanged")
            if old
            else "unchanged"
        )
        write_name, commit_name, fsync_name = (
            ("_write_temp", "_commit", "_fsync_dir")
            if old
            else ("write_temp", "commit", "fsync_dir")
        )
        orig_read = getattr(at_write, read_name)
        orig_parse = at_write.parse
        orig_write = getattr(at_write, write_name)
        orig_commit = getattr(at_write, commit_name)
        orig_fsync = getattr(at_commit, fsync_name)
        orig_check = at_commit._verify

        def create(self: DirLock) -> None:
            orig_create(self)
            clock._marks = {"acquired": time.perf_counter()}

        def remove(self: DirLock) -> None:
            orig_remove(self)
            clock._mark("removed")  # the path is free: a peer's mkdir succeeds from here

        def release(self: PeerLock) -> None:
            clock._mark("release_start")
            orig_release(self)
            clock._mark("released")
            clock._finish()

        def verify(self: PeerLock) -> None:
            orig_verify(self)
            clock._mark("lock_verified")

        def read_bytes(*a: Any, **k: Any) -> Any:
            data = orig_read(*a, **k)
            clock._mark("reread")
            return data

        def parse(*a: Any, **k: Any) -> Any:
            clock._mark("redo")
            return orig_parse(*a, **k)

        def write_temp(*a: Any, **k: Any) -> Any:
            clock._mark("write_start")
            inode = orig_write(*a, **k)
            clock._mark("written")
            return inode

        def commit(*a: Any, **k: Any) -> None:
            clock._mark("commit_start")
            orig_commit(*a, **k)
            clock._mark("committed")

        def fsync_dir(folder: str) -> None:
            clock._mark("renamed")
            orig_fsync(folder)
            clock._mark("dir_fsynced")

        def check(*a: Any, **k: Any) -> None:
            orig_check(*a, **k)
            clock._mark("verified")

        DirLock._create = create  # type: ignore[method-assign]
        DirLock._remove = remove  # type: ignore[method-assign]
        PeerLock.release = release  # type: ignore[method-assign]
        PeerLock.verify = verify  # type: ignore[method-assign]
        setattr(at_write, read_name, read_bytes)
        if not old:  # the commit checks the file again right before its swap
            setattr(at_commit, read_name, read_bytes)
        at_write.parse = parse
        setattr(at_write, write_name, write_temp)
        setattr(at_write, commit_name, commit)
        setattr(at_commit, fsync_name, fsync_dir)
        at_commit._verify = check

    def _finish(self) -> None:
        m = self._marks
        self._marks = None
        if not m or "released" not in m:
            return
        self.appends += 1
        self.holds.append((m.get("removed", m["released"]) - m["acquired"]) * 1000)
        if "redo" in m:
            self.redone += 1
        seq = [
            ("re-read file", "acquired", "reread"),
            ("compare / redo", "reread", "commit_start"),
            ("redo: parse+build", "redo", "write_start"),
            ("redo: write+fsync temp", "write_start", "written"),
            ("lock check", "commit_start", "lock_verified"),
            ("rename", "lock_verified", "renamed"),
            ("fsync dir", "renamed", "dir_fsynced"),
            ("verify file", "dir_fsynced", "verified"),
            # until the lock dir is gone (what a peer waits for), and all of release()
            ("release", "release_start", "removed"),
            ("release()", "release_start", "released"),
        ]
        for name, a, b in seq:
            if a in m and b in m:
                self.steps[name].append((m[b] - m[a]) * 1000)

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]


# ------------------------------------------------------------- workers


def worker_ours(inbox: str, count: int, size: int, tag: str, start_at: float) -> None:
    """One of N contending processes of our writer; one JSON line on stdout."""
    clock = HoldClock()
    clock.install()
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    acked: list[int] = []
    lost: list[int] = []
    latency: list[float] = []
    errors: collections.Counter[str] = collections.Counter()
    t0 = time.time()
    for i in range(count):
        entry = our_entry(tag, i, size)
        s = time.perf_counter()
        try:
            ensure_claude_inbox(inbox)
            store.append(CLAUDE, inbox, [entry])
        except (TeamInboxError, OSError) as err:
            lost.append(i)
            errors[type(err).__name__] += 1
        else:
            acked.append(i)
        latency.append((time.perf_counter() - s) * 1000)
    t1 = time.time()
    print(
        json.dumps(
            {
                "tag": tag,
                "acked": acked,
                "lost": lost,
                "errors": dict(errors),
                "holds": clock.holds,
                "steps": clock.steps,
                "latency": latency,
                "redone": clock.redone,
                "appends": clock.appends,
                "start": t0 * 1000,
                "end": t1 * 1000,
            }
        ),
        flush=True,
    )


# ------------------------------------------------- 1. contended throughput


def contended_run(
    base: str, name: str, n_ours: int, n_node: int, count: int, seed_file: str
) -> dict[str, Any]:
    folder = os.path.join(base, f"contended-{name}", "inboxes")
    inbox = os.path.join(folder, "lead.json")
    copy_inbox(seed_file, inbox)
    start_at = time.time() + 2.0 + 0.3 * (n_ours + n_node)  # after every process has started
    procs = []
    for k in range(n_ours):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", inbox]
        cmd += [str(count), str(TEXT_BYTES), f"py{k}", repr(start_at)]
        procs.append(("ours", subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)))
    for k in range(n_node):
        cmd = ["node", *NODE_FLAGS, WRITER_JS, "send", inbox, str(count), str(TEXT_BYTES)]
        cmd += [f"node{k}", str(int(start_at * 1000))]
        procs.append(("node", subprocess.Popen(cmd, cwd=HERE, stdout=subprocess.PIPE, text=True)))
    results: list[tuple[str, dict[str, Any]]] = []
    for who, p in procs:
        out, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            raise RuntimeError(f"{who} worker failed with {p.returncode}")
        results.append((who, json.loads(out.strip().splitlines()[-1])))

    # Integrity: every acknowledged message exactly once, the old ones untouched.
    snap = store.read(CLAUDE, inbox)
    seen: collections.Counter[tuple[str, int]] = collections.Counter()
    old = 0
    for e in snap.entries:
        m = MARKER.match(e.get("text", ""))
        if m and m.group(1) != "old":
            seen[(m.group(1), int(m.group(2)))] += 1
        elif m:
            old += 1
    seed_entries = len(store.read(CLAUDE, seed_file).entries)
    out: dict[str, Any] = {"name": name, "n_ours": n_ours, "n_node": n_node}
    start = min(r["start"] for _, r in results)
    end = max(r["end"] for _, r in results)
    wall = (end - start) / 1000
    out["wall_s"] = wall
    missing = dupes = ghost = 0
    for who in ("ours", "node"):
        rs = [r for w, r in results if w == who]
        if not rs:
            continue
        acked = sum(len(r["acked"]) for r in rs)
        gaveup = sum(len(r["lost"]) for r in rs)
        for r in rs:
            for i in r["acked"]:
                c = seen.get((r["tag"], i), 0)
                missing += c == 0
                dupes += c > 1
            for i in r["lost"]:
                ghost += seen.get((r["tag"], i), 0) > 0
        holds = [h for r in rs for h in r["holds"]]
        steps: dict[str, list[float]] = collections.defaultdict(list)
        for r in rs:
            if who == "ours":
                for k, v in r["steps"].items():
                    steps[k].extend(v)
            else:
                for st in r["steps"]:
                    for k, v in st.items():
                        steps[k].append(v)
        errs: collections.Counter[str] = collections.Counter()
        for r in rs:
            errs.update(r["errors"])
        wall_who = (max(r["end"] for r in rs) - min(r["start"] for r in rs)) / 1000
        row: dict[str, Any] = {
            "sent": acked + gaveup,
            "acked": acked,
            "gave_up": gaveup,
            "errors": dict(errs),
            "per_s": acked / wall_who if wall_who > 0 else float("nan"),
            "wall_s": wall_who,
            "hold_p50": median(holds),
            "hold_p90": pct(holds, 0.9),
            "holds": holds,
            "steps": dict(steps),
        }
        if who == "ours":
            lat = [x for r in rs for x in r["latency"]]
            row["lat"] = lat
            row["redone"] = sum(r["redone"] for r in rs)
            row["appends"] = sum(r["appends"] for r in rs)
        out[who] = row
    out["missing"] = missing
    out["duplicated"] = dupes
    out["given_up_but_present"] = ghost
    out["old_kept"] = old == seed_entries
    out["final_entries"] = len(snap.entries)
    out["total_per_s"] = (
        sum(out[w]["acked"] for w in ("ours", "node") if w in out) / wall if wall else 0
    )
    shutil.rmtree(os.path.dirname(folder), ignore_errors=True)
    return out


def merge_reps(reps: list[dict[str, Any]]) -> dict[str, Any]:
    """Repetitions of one contended run: counts add up, rates are the median rep."""
    first = reps[0]
    out: dict[str, Any] = {k: first[k] for k in ("name", "n_ours", "n_node")}
    out["reps"] = len(reps)
    for who in ("ours", "node"):
        if who not in first:
            continue
        rows = [r[who] for r in reps]
        errs: collections.Counter[str] = collections.Counter()
        steps: dict[str, list[float]] = collections.defaultdict(list)
        for w in rows:
            errs.update(w["errors"])
            for k, v in w["steps"].items():
                steps[k].extend(v)
        holds = [h for w in rows for h in w["holds"]]
        row: dict[str, Any] = {
            "acked": sum(w["acked"] for w in rows),
            "gave_up": sum(w["gave_up"] for w in rows),
            "errors": dict(errs),
            "per_s": median([w["per_s"] for w in rows]),
            "per_s_all": [w["per_s"] for w in rows],
            "hold_p50": median(holds),
            "hold_p90": pct(holds, 0.9),
            "hold_max": max(holds) if holds else float("nan"),
            "steps": {k: median(v) for k, v in steps.items()},
        }
        if who == "ours":
            lat = [x for w in rows for x in w["lat"]]
            row["lat_p50"] = median(lat)
            row["lat_max"] = max(lat) if lat else float("nan")
            row["redone"] = sum(w["redone"] for w in rows)
            row["appends"] = sum(w["appends"] for w in rows)
        out[who] = row
    for k in ("missing", "duplicated", "given_up_but_present"):
        out[k] = sum(r[k] for r in reps)
    out["old_kept"] = all(r["old_kept"] for r in reps)
    out["total_per_s"] = median([r["total_per_s"] for r in reps])
    return out


# --------------------------------------------- 2. hold time, 3. read time


def hold_and_read(base: str, n: int, appends: int, reads: int, clock: HoldClock) -> dict[str, Any]:
    folder = os.path.join(base, f"size-{n}")
    seed = os.path.join(folder, "seed.json")
    t = time.perf_counter()
    size = prepare_inbox(seed, n)
    prep_s = time.perf_counter() - t
    row: dict[str, Any] = {"n": n, "bytes": size, "appends": appends, "prep_s": prep_s}

    # 3. reads first, on the pristine file (page cache warm for both).
    ours_reads = []
    for _ in range(reads):
        t = time.perf_counter()
        msgs = store.messages(CLAUDE, store.read(CLAUDE, seed), "bench", "lead")
        ours_reads.append((time.perf_counter() - t) * 1000)
        assert len(msgs) == n
        del msgs
    ours_parse = []
    for _ in range(reads):
        t = time.perf_counter()
        snap = store.read(CLAUDE, seed)
        ours_parse.append((time.perf_counter() - t) * 1000)
        del snap
    node_reads = run_node(["read", seed, str(reads)])
    assert node_reads["entries"] == n
    row["ours_read"] = median(ours_reads)
    row["ours_parse_only"] = median(ours_parse)
    row["node_read"] = median(node_reads["times"])

    # 2. ours: in this process, instrumented.
    ours_inbox = os.path.join(folder, "ours", "lead.json")
    copy_inbox(seed, ours_inbox)
    clock.reset()
    totals = []
    for i in range(appends):
        entry = our_entry("hold", i)
        t = time.perf_counter()
        store.append(CLAUDE, ours_inbox, [entry])
        totals.append((time.perf_counter() - t) * 1000)
    assert clock.appends == appends, clock.appends
    assert len(store.read(CLAUDE, ours_inbox).entries) == n + appends
    row["ours_hold"] = clock.holds
    row["ours_total"] = totals
    row["ours_steps"] = {k: median(v) for k, v in clock.steps.items()}
    row["ours_redone"] = clock.redone
    shutil.rmtree(os.path.dirname(ours_inbox))

    # 2. node: Claude Code's writer in its own process.
    node_inbox = os.path.join(folder, "node", "lead.json")
    copy_inbox(seed, node_inbox)
    res = run_node(["hold", node_inbox, str(appends), str(TEXT_BYTES)])
    row["node_hold"] = res["holds"]
    row["node_total"] = res["totals"]
    row["node_steps"] = {k: median([st[k] for st in res["steps"]]) for k in res["steps"][0]}
    assert len(store.read(CLAUDE, node_inbox).entries) == n + appends
    shutil.rmtree(folder)
    return row


# ----------------------------------------------------------- reporting


def machine() -> dict[str, str]:
    info: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            cpu = [ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")]
        info["cpu"] = cpu[0] if cpu else platform.processor()
    except OSError:
        info["cpu"] = platform.processor() or "?"
    info["cores"] = str(os.cpu_count())
    try:
        with open("/proc/meminfo") as f:
            kb = int(next(ln for ln in f if ln.startswith("MemTotal")).split()[1])
        info["ram"] = f"{kb / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        info["ram"] = "?"
    info["os"] = f"{platform.system()} {platform.release()}"
    try:
        with open("/etc/debian_version") as f:
            info["os"] += f" (Debian {f.read().strip()})"
    except OSError:
        pass
    info["python"] = platform.python_version()
    info["orjson"] = orjson.__version__
    try:
        info["node"] = subprocess.run(
            ["node", "--version"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        info["node"] = "?"
    info["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return info


def disk_of(path: str) -> str:
    try:
        out = (
            subprocess.run(["df", "-T", path], capture_output=True, text=True, check=True)
            .stdout.splitlines()[-1]
            .split()
        )
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "?"
    dev, fstype = out[0], out[1]
    kind = ""
    name = os.path.basename(dev)
    rot = f"/sys/block/{re.sub(r'[0-9]+$', '', name)}/queue/rotational"
    try:
        with open(rot) as f:
            kind = ", rotational" if f.read().strip() == "1" else ", non-rotational"
    except OSError:
        pass
    return f"{dev} {fstype}{kind} (bench folder {path})"


def pick_base() -> str:
    out = subprocess.run(["df", "-T", "/tmp"], capture_output=True, text=True, check=False)
    fstype = out.stdout.splitlines()[-1].split()[1] if out.returncode == 0 else "tmpfs"
    if fstype in ("tmpfs", "ramfs", "overlay"):
        root = os.path.join(os.path.dirname(HERE), ".bench-tmp")
        os.makedirs(root, exist_ok=True)
        return tempfile.mkdtemp(prefix="teaminbox-bench-", dir=root)
    return tempfile.mkdtemp(prefix="teaminbox-bench-", dir="/tmp")


OUR_STEPS = [
    "re-read file",
    "compare / redo",
    "redo: parse+build",
    "redo: write+fsync temp",
    "lock check",
    "rename",
    "fsync dir",
    "verify file",
    "release",
    "release()",
]
NODE_STEPS = ["read", "parse", "stringify", "write", "rename", "release"]


def throughput_table(runs: list[dict[str, Any]], n: int, count: int, seed_n: int) -> list[str]:
    reps = runs[0]["reps"]
    lines = [
        f"Sends into ONE Claude inbox (starting at {seed_n} entries of ~2.7 KB, growing by "
        f"{count} messages per process per run); {reps} repetition(s) of each run, interleaved: "
        "counts add up over them, sends/s is the median repetition (all of them in brackets). "
        "A give-up is a message Claude Code would lose (its lock() failed after 10 retries).",
        "",
        "| run | writer | procs | acked | gave up | sends/s | lock hold p50 / p90 / max ms "
        "| our send p50 / max ms | our redo under lock |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in runs:
        for who in ("ours", "node"):
            if who not in r:
                continue
            w = r[who]
            procs = r["n_ours"] if who == "ours" else r["n_node"]
            lat = redo = "-"
            if who == "ours":
                lat = f"{ms(w['lat_p50'])} / {ms(w['lat_max'])}"
                redo = f"{w['redone']}/{w['appends']}"
            every = ", ".join(f"{x:.0f}" for x in w["per_s_all"])
            lines.append(
                f"| {r['name']} | {who} | {procs} | {w['acked']} | {w['gave_up']} "
                f"| {w['per_s']:.1f} ({every}) "
                f"| {ms(w['hold_p50'])} / {ms(w['hold_p90'])} / {ms(w['hold_max'])} | {lat} "
                f"| {redo} |"
            )
    lines += ["", "| run | all acked sends/s | missing | duplicated | old entries kept |"]
    lines += ["|---|---|---|---|---|"]
    for r in runs:
        lines.append(
            f"| {r['name']} | {r['total_per_s']:.1f} | {r['missing']} | {r['duplicated']} "
            f"| {'yes' if r['old_kept'] else 'NO'} |"
        )
    alone = {r["name"]: r for r in runs}
    if "ours alone" in alone and "node alone" in alone:
        o = alone["ours alone"]["ours"]["per_s"]
        nd = alone["node alone"]["node"]["per_s"]
        lines += [
            "",
            f"Ratio ours/Node sends per second (each alone, {n} procs): "
            f"**{ratio(o, nd)}** ({o:.1f} vs {nd:.1f}).",
        ]
    lines += [
        "",
        "Lock hold steps under contention, ms, median per step "
        "(ours: redo steps only count the appends that were redone):",
        "",
        "| run | writer | " + " | ".join(OUR_STEPS) + " |",
        "|---|---|" + "---|" * len(OUR_STEPS),
    ]
    for r in runs:
        if "ours" in r:
            st = r["ours"]["steps"]
            lines.append(
                f"| {r['name']} | ours | "
                + " | ".join(ms(st.get(k, float("nan"))) for k in OUR_STEPS)
                + " |"
            )
    lines += [
        "",
        "| run | writer | " + " | ".join(NODE_STEPS) + " |",
        "|---|---|" + "---|" * len(NODE_STEPS),
    ]
    for r in runs:
        if "node" in r:
            st = r["node"]["steps"]
            lines.append(
                f"| {r['name']} | node | "
                + " | ".join(ms(st.get(k, float("nan"))) for k in NODE_STEPS)
                + " |"
            )
    return lines


def size_table(rows: list[dict[str, Any]]) -> list[str]:
    lines = [
        "Lock hold per append (mkdir done to rmdir done), one writer, no contention; "
        "ms, median (p90).",
        "",
        "| entries | file MB | appends | ours hold | Node hold | ours/Node | ours whole send "
        "| Node whole send |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        oh, nh = r["ours_hold"], r["node_hold"]
        lines.append(
            f"| {r['n']:,} | {r['bytes'] / 1e6:.1f} | {r['appends']} "
            f"| {ms(median(oh))} ({ms(pct(oh, 0.9))}) | {ms(median(nh))} ({ms(pct(nh, 0.9))}) "
            f"| {ratio(median(oh), median(nh))} | {ms(median(r['ours_total']))} "
            f"| {ms(median(r['node_total']))} |"
        )
    lines += [
        "",
        "Read (parse into messages), ms, median: ours = store.read + store.messages, "
        "Node = readFileSync + JSON.parse.",
        "",
        "| entries | ours read | ours parse only | Node read | ours/Node |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n']:,} | {ms(r['ours_read'])} | {ms(r['ours_parse_only'])} "
            f"| {ms(r['node_read'])} | {ratio(r['ours_read'], r['node_read'])} |"
        )
    lines += [
        "",
        "Where our hold time goes (ms, median per step, under the lock):",
        "",
        "| entries | " + " | ".join(OUR_STEPS) + " | redone under lock |",
        "|---|" + "---|" * (len(OUR_STEPS) + 1),
    ]
    for r in rows:
        st = r["ours_steps"]
        lines.append(
            f"| {r['n']:,} | "
            + " | ".join(ms(st.get(k, float("nan"))) for k in OUR_STEPS)
            + f" | {r['ours_redone']}/{r['appends']} |"
        )
    lines += [
        "",
        "Where Node's hold time goes (ms, median per step, under the lock):",
        "",
        "| entries | " + " | ".join(NODE_STEPS) + " |",
        "|---|" + "---|" * len(NODE_STEPS),
    ]
    for r in rows:
        st = r["node_steps"]
        lines.append(
            f"| {r['n']:,} | " + " | ".join(ms(st.get(k, float("nan"))) for k in NODE_STEPS) + " |"
        )
    return lines


def verdict(rows: list[dict[str, Any]], runs: list[dict[str, Any]]) -> list[str]:
    out = []
    ten = next((r for r in rows if r["n"] == 10_000), None)
    if ten:
        oh, nh = median(ten["ours_hold"]), median(ten["node_hold"])
        ok = "meets" if oh <= 40 else "MISSES"
        out.append(
            f"- At 10,000 entries ours holds the lock {ms(oh)} ms (median) vs Node {ms(nh)} ms "
            f"(issue's reference ~390 ms); target <= 40 ms: {ok}."
        )
    worst = max((r["ours"]["lat_max"] for r in runs if "ours" in r), default=float("nan"))
    gave = sum(r["ours"]["gave_up"] for r in runs if "ours" in r)
    out.append(
        f"- Our sends under contention: {gave} gave up; slowest send {ms(worst)} ms "
        f"(target: never gives up within 10 s)."
    )
    by = {r["name"]: r for r in runs}
    if "mixed" in by and "node alone x8" in by:
        mx, ctl = by["mixed"]["node"], by["node alone x8"]["node"]
        out.append(
            f"- Node give-ups (messages Claude Code would lose): {mx['gave_up']} of "
            f"{mx['acked'] + mx['gave_up']} when mixed with ours, {ctl['gave_up']} of "
            f"{ctl['acked'] + ctl['gave_up']} among 8 Node writers (control)."
        )
    big = next((r for r in rows if r["n"] == 100_000), None)
    if big:
        out.append(
            f"- At 100,000 entries (~{big['bytes'] / 1e6:.0f} MB) ours holds "
            f"{ms(median(big['ours_hold']))} ms vs Node {ms(median(big['node_hold']))} ms."
        )
    bad = [r["name"] for r in runs if r["missing"] or r["duplicated"] or not r["old_kept"]]
    out.append(
        "- Integrity: every acknowledged message present exactly once in every run."
        if not bad
        else f"- Integrity FAILED in: {', '.join(bad)}"
    )
    return out


def write_results(text: str) -> None:
    try:
        with open(RESULTS) as f:
            old = f.read()
    except FileNotFoundError:
        old = "# Benchmark runs\n"
    start = old.find(SECTION)
    if start < 0:
        new = old.rstrip("\n") + "\n\n" + text
    else:
        nxt = old.find("\n## ", start + len(SECTION))
        new = old[:start] + text + (old[nxt + 1 :] if nxt >= 0 else "")
    with open(RESULTS, "w") as f:
        f.write(new.rstrip("\n") + "\n")


# ---------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller counts, no 100k inbox")
    ap.add_argument("--no-write", action="store_true", help="do not update bench/runs.md")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder")
    ap.add_argument("--worker", nargs=5, metavar="ARG", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        inbox, count, size, tag, start_at = args.worker
        worker_ours(inbox, int(count), int(size), tag, float(start_at))
        return
    ensure_node_modules()

    procs = 4
    count = 20 if args.quick else 40
    n_reps = 1 if args.quick else 5
    seed_n = 100
    sizes = (
        [(100, 30), (1_000, 20), (10_000, 10)]
        if args.quick
        else [(100, 50), (1_000, 30), (10_000, 15), (100_000, 3)]
    )
    reads = {100: 20, 1_000: 10, 10_000: 7, 100_000: 3}

    base = pick_base()
    info = machine()
    info["disk"] = disk_of(base)
    t_start = time.time()
    print(f"# bench_store ({'quick' if args.quick else 'full'}) in {base}", flush=True)
    try:
        # 2 + 3 first (single writer, quiet), then the contended runs.
        clock = HoldClock()
        clock.install()
        rows = []
        for n, appends in sizes:
            print(f"- {n:,} entries: {appends} appends each ...", flush=True)
            rows.append(hold_and_read(base, n, appends, reads[n], clock))
            r = rows[-1]
            print(
                f"  hold ours {ms(median(r['ours_hold']))} ms, node "
                f"{ms(median(r['node_hold']))} ms; read ours {ms(r['ours_read'])} ms, "
                f"node {ms(r['node_read'])} ms",
                flush=True,
            )

        seed = os.path.join(base, "seed", "lead.json")
        prepare_inbox(seed, seed_n)
        plan = [
            ("ours alone", procs, 0),
            ("node alone", 0, procs),
            ("mixed", procs, procs),
            (f"node alone x{2 * procs} (control)", 0, 2 * procs),
        ]
        reps: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for rep in range(n_reps):  # interleaved, so a noisy spell hits every kind of run
            for name, no, nn in plan:
                print(f"- contended, rep {rep + 1}/{n_reps}: {name} ...", flush=True)
                reps[name].append(contended_run(base, name.split(" (")[0], no, nn, count, seed))
                r = reps[name][-1]
                parts = [
                    f"{w} {r[w]['per_s']:.1f}/s gave up {r[w]['gave_up']}"
                    for w in ("ours", "node")
                    if w in r
                ]
                print(
                    f"  {'; '.join(parts)}; missing {r['missing']} dup {r['duplicated']}",
                    flush=True,
                )
        runs = [merge_reps(reps[name]) for name, _, _ in plan]
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    elapsed = time.time() - t_start

    m = info
    head = [
        SECTION,
        "",
        f"`.venv/bin/python bench/bench_store.py{' --quick' if args.quick else ''}`, "
        f"{m['date']}, {elapsed:.0f} s. Our writer: `teaminbox.store.append` "
        "(pre-parse and pre-write+fsync outside the lock; under it re-read, compare, "
        "rename, fsync dir, verify). Node: bench/node_writer.js, Claude Code's protocol with "
        "proper-lockfile 4.1.2 and its exact options (retries 10, 5-100 ms).",
        "",
        f"Machine (shared and noisy: quote medians and ratios): {m['cpu']}, {m['cores']} cores, "
        f"{m['ram']} RAM, {m['os']}; disk {m['disk']}; Python {m['python']} "
        f"(orjson {m['orjson']}), node {m['node']}.",
        "",
        "### Summary",
        "",
        *verdict(rows, runs),
        "",
        "### 1. Contended sends",
        "",
        *throughput_table(runs, procs, count, seed_n),
        "",
        "### 2-3. Lock hold and read time by inbox size",
        "",
        *size_table(rows),
        "",
    ]
    text = "\n".join(head)
    print()
    print(text)
    if not args.no_write:
        write_results(text)
        print(f"(written to {os.path.relpath(RESULTS)})")


if __name__ == "__main__":
    main()
