"""Start-up: spawn of `teaminbox serve` (stdio) -> the first `teamInbox/teams` answer.

Not a test: nothing here asserts a time. A raw client (LSP framing over the pipes, no
pygls in this process) does what the extension does: spawns `python -m teaminbox serve`,
writes `initialize` at once (initializationOptions with the roots and the history),
waits for its answer, writes `initialized` and `teamInbox/teams`, and stops the clock at
the `teams` answer. Beside it, in the same run and in turn: the bare interpreter
(`python -c pass`, spawn -> exit) and the old build (`--old`, a sidecar folder, e.g.
`git archive ec69fdc sidecar | tar -x -C /tmp/startup-old`, named by `--old-name`).

Two ways to start, each build as its own extension spawns it (`env_for`):
- bytecode: a later start: what a first start wrote is there (the modules' bytecode, and
  codecache.py's attrs code in the build's folder of the extension's storage);
- first: the extension's first-ever start: the build's sidecar and the bundled libraries
  copied without any bytecode (as the .vsix holds them), nothing written. The old extension
  set PYTHONPYCACHEPREFIX to an empty folder there, so the standard library compiled too;
  the new one sets no prefix (the standard library's own bytecode is used).

Each start's `teams` answer is compared with the old build's: the same teams and the
same states, or the bench says which differ.

    .venv/bin/python bench/bench_start.py --old /tmp/startup-old/sidecar            # ~3 min
    .venv/bin/python bench/bench_start.py --old /tmp/startup-old/sidecar --runs 5 --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib.inboxes import dumps, make_entry, make_team  # noqa: E402
from benchlib.runs import loadavg, machine, write_section  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SECTION = "## Start"


# Where a start's CPU goes, phase by phase, in one process as `__main__` and `serve` do it
# (each phase's imports counted where first needed; libraries before ours).
BREAKDOWN = r"""
import sys, time
P = time.process_time
marks = [("interpreter+site", P())]
from teaminbox import codecache; codecache.install()
marks.append(("codecache.install (attr, cattrs, the cache file)", P()))
import os  # new: the router (found without importing teaminbox.server, which imports the rest)
ROUTER = os.path.exists(os.path.join(os.path.dirname(codecache.__file__), "server", "router.py"))
import asyncio, json, uuid, dataclasses, inspect, logging, sqlite3, platformdirs, filelock  # stdlib etc.
import orjson
marks.append(("stdlib + orjson + sqlite3 + platformdirs/filelock", P()))
import cattrs, attrs, cattrs.gen
marks.append(("cattrs", P()))
if not ROUTER:
    import lsprotocol.types
marks.append(("lsprotocol.types (new: after the answer)", P()))
if not ROUTER:
    import pygls.lsp.server, pygls.protocol, pygls.exceptions
marks.append(("pygls (rest) (new: after the answer)", P()))
import watchdog.observers, watchdog.events
marks.append(("watchdog", P()))
import teaminbox.tracker, teaminbox.protocol, teaminbox.discovery, teaminbox.history, teaminbox.watch
marks.append(("teaminbox core modules (tracker, history, discovery, formats, model, protocol, rows, store, watch...)", P()))
import teaminbox.server.core, teaminbox.server.transport
marks.append(("server.core, transport, encoder (new: + router)", P()))
import teaminbox.server.features
marks.append(("server.features (+transcripts, hook, sessions, sending, member_state...)", P()))
from teaminbox.server import build, transport
s = build(); codecache.save()
marks.append(("build() (old: the pygls server; features setup)", P()))
out = []
class W:
    def write(self, d): out.append(d)
    def close(self): pass
root, hist = sys.argv[1], sys.argv[2]
init = {'jsonrpc':'2.0','id':0,'method':'initialize','params':{'processId':1,'clientInfo':{'name':'Team Inbox'},'rootUri':None,'capabilities':{},'initializationOptions':{'defaultRoots':False,'roots':[f'claude={root}'],'historyPath':hist}}}
initialized = {'jsonrpc':'2.0','method':'initialized','params':{}}
teams = {'jsonrpc':'2.0','id':1,'method':'teamInbox/teams','params':{}}
async def main():
    if ROUTER:
        from teaminbox.server.router import Router
        r = Router(s); r.set_writer(W()); route = r.route
    else:
        import threading
        s.protocol.set_writer(W()); s._stop_event = threading.Event()
        route = lambda raw: transport.handle(s, raw)
    route(init)
    while not out: await asyncio.sleep(0.0005)
    marks.append(("initialize (old: pygls structures the params, builds the capabilities)", P()))
    route(initialized); route(teams)
    while not any(b'"id":1' in d for d in out): await asyncio.sleep(0.0005)
    marks.append(("initialized + teams (history created, scan, publishers, answer)", P()))
    if ROUTER:
        while r.lsp is None: await asyncio.sleep(0.0005)
        codecache.save()  # as the router does after the hand-over
    marks.append(("AFTER the first answer: pygls loaded, handed over (new only)", P()))
asyncio.run(main())
print(json.dumps([(n, round(1000*(t - marks[i-1][1]) if i else 1000*t, 1)) for i, (n, t) in enumerate(marks)]))
"""


def frame(obj: Any) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Reader:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = b""

    def message(self, deadline: float) -> dict[str, Any]:
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end >= 0:
                length = 0
                for line in self.buf[:end].split(b"\r\n"):
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                start = end + 4
                if len(self.buf) >= start + length:
                    body = self.buf[start : start + length]
                    self.buf = self.buf[start + length :]
                    msg: dict[str, Any] = json.loads(body)
                    return msg
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError("no answer from the server")
            data = os.read(self.fd, 65536)
            if not data:
                raise EOFError("the server closed its stdout")
            self.buf += data

    def answer(self, msg_id: int, deadline: float) -> dict[str, Any]:
        while True:
            msg = self.message(deadline)
            if msg.get("id") == msg_id and "method" not in msg:
                return msg


def options(root: Path, history: Path) -> dict[str, Any]:
    return {"defaultRoots": False, "roots": [f"claude={root}"], "historyPath": str(history)}


def start_once(env: dict[str, str], opts: dict[str, Any]) -> tuple[float, float, Any]:
    """(spawn -> initialize answered ms, spawn -> first teams answer ms, the teams result)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "teaminbox", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        init = {
            "processId": os.getpid(),
            "clientInfo": {"name": "Team Inbox"},
            "rootUri": None,
            "capabilities": {},
            "initializationOptions": opts,
        }
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init}))
        proc.stdin.flush()
        reader = Reader(proc.stdout.fileno())
        deadline = time.monotonic() + 60
        got = reader.answer(0, deadline)
        assert "result" in got, got
        t_init = time.perf_counter()
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(
            frame({"jsonrpc": "2.0", "id": 1, "method": "teamInbox/teams", "params": {}})
        )
        proc.stdin.flush()
        teams = reader.answer(1, deadline)
        t_teams = time.perf_counter()
        assert "result" in teams, teams
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.flush()
        reader.answer(2, deadline)
        proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return (t_init - t0) * 1000, (t_teams - t0) * 1000, teams["result"]


def breakdown(env: dict[str, str], root: Path, history: Path, build: str) -> list[list[Any]]:
    out = subprocess.run(
        [sys.executable, "-c", BREAKDOWN, str(root), str(history), build],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[list[Any]] = json.loads(out.stdout.strip().splitlines()[-1])
    return rows


def bare_once(env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    return (time.perf_counter() - t0) * 1000


def make_teams(root: Path) -> None:
    """Three small live teams as Claude Code writes them: a lead and two helpers, a few
    messages each way (some read, one idle frame), so that members have states."""
    for t in range(3):
        name = f"team{t}"
        team = make_team(root, name, ["team-lead", "researcher", "tester"])
        inboxes = team / "inboxes"
        lead = [make_entry(i, 300, "researcher") for i in range(4)]
        lead.append(
            {
                "from": "tester",
                "text": json.dumps(
                    {"type": "idle_notification", "from": "tester", "idleReason": "available"}
                ),
                "timestamp": "2026-11-30T10:00:00.000Z",
                "read": False,
            }
        )
        (inboxes / "team-lead.json").write_bytes(dumps(lead))
        (inboxes / "researcher.json").write_bytes(
            dumps([make_entry(10 + i, 200, "team-lead") for i in range(3)])
        )
        (inboxes / "user.json").write_bytes(dumps([make_entry(20, 200, "team-lead")]))


LIBS = (  # what the .vsix bundles (extension/bundle-python.sh), copied for a first start
    "attr", "attrs", "cattr", "cattrs", "exceptiongroup", "filelock", "lsprotocol", "orjson",
    "platformdirs", "pygls", "typing_extensions", "watchdog",
)  # fmt: skip


def no_bytecode_copy(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def bundle(tmp: Path) -> Path:
    """The libraries as the .vsix holds them: sources only, no bytecode."""
    import importlib.util

    libs = tmp / "libs"
    libs.mkdir()
    for name in LIBS:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        if origin.name == "__init__.py":
            no_bytecode_copy(origin.parent, libs / name)
        else:
            shutil.copy2(origin, libs / origin.name)
    return libs


def extension_style(sidecar: str) -> bool:
    """True if the build's extension names a codecache folder and sets no bytecode prefix."""
    return "TEAMINBOX_CODECACHE" in (Path(sidecar) / "teaminbox" / "codecache.py").read_text()


def env_for(sidecar: str, cache: Path, first: bool, libs: Path | None = None) -> dict[str, str]:
    """The environment the build's extension spawns the sidecar in. `first`: its first-ever
    start (`sidecar` and `libs` hold no bytecode; nothing is written); else a later one
    (`cache` filled by an earlier start)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TEAMINBOX_")
        and k not in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")
    }
    env["PYTHONPATH"] = sidecar if libs is None else f"{sidecar}:{libs}"
    env["PYTHONUNBUFFERED"] = "1"
    env["HOME"] = str(cache.parent / "home")  # no default roots, no user history
    if extension_style(sidecar):  # the bytecode beside the sources, the attrs code in `cache`
        env["TEAMINBOX_CODECACHE"] = str(cache)
    else:  # the old extension: every module's bytecode under a prefix, the stdlib's too
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    if first:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--old", required=True, help="the old build's sidecar folder")
    ap.add_argument("--old-name", default="old", help="the old build's name in the text")
    ap.add_argument("--new", default=str(REPO / "sidecar"))
    ap.add_argument("--runs", type=int, default=15, help="starts of each build and mode")
    ap.add_argument("--breakdown", type=int, default=7, help="in-process CPU breakdowns")
    ap.add_argument(
        "--vsix", type=Path, help="also the new build's first-ever start from this .vsix's files"
    )
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    builds = {"old": args.old, "new": args.new}
    tmp = Path(tempfile.mkdtemp(prefix="teaminbox-bench-start-"))
    began, load0 = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), loadavg()
    t_begin = time.monotonic()
    try:
        root = tmp / "teams"
        make_teams(root)
        (tmp / "home").mkdir()
        caches = {(b, m): tmp / f"pyc-{b}-{m}" for b in builds for m in ("bytecode", "first")}
        libs = bundle(tmp)
        firsts = {}  # each build's sidecar as the .vsix holds it
        for b, sidecar in builds.items():
            no_bytecode_copy(Path(sidecar) / "teaminbox", tmp / f"first-{b}" / "teaminbox")
            firsts[b] = str(tmp / f"first-{b}")
        vlibs = None
        if args.vsix:  # its bundled libraries, their bytecode and the attrs code seed
            with zipfile.ZipFile(args.vsix) as z:
                z.extractall(tmp / "vsix")
            vlibs = tmp / "vsix" / "extension" / "bundled" / "libs"
        vsix_ms: list[float] = []
        vsix_bare: list[float] = []
        for b, sidecar in builds.items():  # fill the bytecode folders: one start each
            start_once(env_for(sidecar, caches[b, "bytecode"], False), options(root, tmp / "warm"))

        def env_of(b: str, mode: str) -> dict[str, str]:
            if mode == "first":
                return env_for(firsts[b], caches[b, mode], True, libs)
            return env_for(builds[b], caches[b, mode], False)

        ms: dict[tuple[str, str], list[float]] = {k: [] for k in caches}
        init: dict[tuple[str, str], list[float]] = {k: [] for k in caches}
        bare: dict[str, list[float]] = {"bytecode": [], "first": []}
        ratios: dict[tuple[str, str], list[float]] = {k: [] for k in caches}  # build / bare
        answers: dict[str, Any] = {}
        differ: list[str] = []
        for r in range(args.runs):
            for mode in ("bytecode", "first"):
                order = ["old", "new"] if r % 2 == 0 else ["new", "old"]
                b_ms = bare_once(env_of("new", mode))
                bare[mode].append(b_ms)
                for b in order:
                    hist = tmp / f"h-{b}-{mode}-{r}" / "history.db"
                    env = env_of(b, mode)
                    i_ms, t_ms, result = start_once(env, options(root, hist))
                    ms[b, mode].append(t_ms)
                    init[b, mode].append(i_ms)
                    ratios[b, mode].append(t_ms / b_ms)
                    answers[b] = json.dumps(result, sort_keys=True)
                if answers["old"] != answers["new"]:
                    differ.append(f"{mode} run {r}")
            if vlibs is not None:  # an empty codecache folder each time: a new user's
                env = env_for(str(vlibs), tmp / f"vsix-cc-{r}", False)
                vsix_bare.append(bare_once(env))
                vsix_ms.append(start_once(env, options(root, tmp / f"h-vsix-{r}" / "h.db"))[1])
            print(
                f"{time.strftime('%H:%M:%S')} run {r}: "
                + ", ".join(f"{b}/{m} {ms[b, m][-1]:.0f}" for b, m in caches)
                + f", bare {bare['bytecode'][-1]:.0f}/{bare['first'][-1]:.0f} ms",
                flush=True,
            )
        cpu: dict[str, list[list[Any]]] = {"old": [], "new": []}
        for r in range(args.breakdown):  # in turn too
            for b in ("old", "new") if r % 2 == 0 else ("new", "old"):
                env = env_for(builds[b], caches[b, "bytecode"], False)
                cpu[b].append(breakdown(env, root, tmp / f"bd-{b}-{r}" / "history.db", b))
        last = json.loads(answers["new"])
        states = sorted(
            {str((m.get("state") or {}).get("kind")) for t in last["teams"] for m in t["members"]}
        )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    minutes = (time.monotonic() - t_begin) / 60
    rows = []
    for mode in ("bytecode", "first"):
        o, n = ms["old", mode], ms["new", mode]
        pair = [nn / oo for nn, oo in zip(n, o, strict=True)]
        rows.append(
            f"| {mode} | {summary(bare[mode])} | {summary(o)} | {summary(n)}"
            f" | {statistics.median(pair):.2f} | {statistics.median(ratios['old', mode]):.1f}"
            f" | {statistics.median(ratios['new', mode]):.1f}"
            f" | {statistics.median(init['old', mode]):.0f} / {statistics.median(init['new', mode]):.0f} |"
        )
    if vsix_ms:
        rows.append(
            f"| the .vsix's files, a first-ever start (new only) | {summary(vsix_bare)} | - |"
            f" {summary(vsix_ms)} | - | - |"
            f" {statistics.median(m / b for m, b in zip(vsix_ms, vsix_bare, strict=True)):.1f} | - |"
        )
    phases = []
    if args.breakdown:
        for i, (name, _) in enumerate(cpu["new"][0][:-1]):
            o = statistics.median(run[i][1] for run in cpu["old"])
            n = statistics.median(run[i][1] for run in cpu["new"])
            phases.append(f"| {name} | {o:.0f} | {n:.0f} |")
        o = statistics.median(sum(p[1] for p in run[:-1]) for run in cpu["old"])
        n = statistics.median(sum(p[1] for p in run[:-1]) for run in cpu["new"])
        phases.append(f"| **total to the first answer** | **{o:.0f}** | **{n:.0f}** |")
        late = statistics.median(run[-1][1] for run in cpu["new"])
        phases.append(f"| after the first answer: pygls loaded, handed over | - | {late:.0f} |")
    same = "identical in every run" if not differ else f"DIFFERENT in {', '.join(differ)}"
    text = "\n".join(
        [
            SECTION,
            "",
            f"`.venv/bin/python bench/bench_start.py --old <{args.old_name}'s sidecar>"
            f" --runs {args.runs} --breakdown {args.breakdown}"
            + (" --vsix FILE" if args.vsix else "")
            + "`,"
            f" {began}, {minutes:.1f} min. Spawn of `python -m teaminbox serve` -> the first"
            " `teamInbox/teams` answer, asked as the extension asks (`initialize` with"
            " initializationOptions at once, its answer, then `initialized` and `teams`); three"
            " live Claude teams of 3 members. Each run starts the bare interpreter"
            " (`python -c pass`, spawn -> exit), then old and new in turn (alternating"
            " which goes first), each build as its own extension spawns it. `bytecode`: a later"
            " start (what a first start wrote is there); `first`: the extension's first-ever"
            " start (the sidecar and the bundled libraries without bytecode, as the .vsix holds"
            " them, nothing written; the old extension's PYTHONPYCACHEPREFIX made the standard"
            " library compile too, the new one sets none). With `--vsix`: the new build as a"
            " new user's first start runs it, from the .vsix's own files (their bytecode and"
            " the attrs code seed) and an empty codecache folder. Median (min-max) ms of"
            f" {args.runs} runs; new / old"
            " is the median of the runs' paired ratios; x bare is each start over its run's"
            f" bare interpreter. The `teams` answers (teams, members, states: {', '.join(states)})"
            f" of new and old: {same}.",
            "",
            f"| start from | bare `python -c pass` ms | old ({args.old_name}) ms | new ms | new / old"
            " | old x bare | new x bare | spawn -> initialize answered ms, old / new |",
            "|---|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"Where a start's CPU goes (from bytecode; median ms of {args.breakdown} runs of each"
            " build, in one process as `python -m teaminbox serve` does it, phase by phase; a"
            " module imported by an earlier phase is counted there; process CPU time, so the"
            " machine's load inflates it less than the wall times above):",
            "",
            "| phase | old CPU ms | new CPU ms |",
            "|---|---|---|",
            *phases,
            "",
            f"Machine (shared and noisy: quote medians and ratios): {machine()};"
            f" load average (1/5/15 min) at the start {load0}, at the end {loadavg()}.",
        ]
    )
    print(text)
    if not args.no_write:
        write_section(text, SECTION)


if __name__ == "__main__":
    main()
