"""What a first `teams` answer costs without pygls and lsprotocol.

Not a test and not the design: a measurement of its floor. In one process, as
bench_start.py's breakdown does it, but with `pygls` and `lsprotocol` replaced by stubs in
`sys.modules` (a LanguageServer that only records its handlers): the sidecar's own modules,
the features, the history, the first scan, the publishers (their notifications encoded) and
the `teams` answer, all through the real engine code, and never a byte of pygls. Paired in
turn with bench_start.py's real breakdown (the same phases with pygls), from the same
bytecode folder; the answers' teams and member states are compared.

    .venv/bin/python bench/probe_start_without_pygls.py --runs 9
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_start import BREAKDOWN, env_for, make_teams, options, start_once  # noqa: E402

REPO = Path(__file__).resolve().parent.parent

STUBBED = r"""
import gc, json, sys, time, types as _t
P = time.process_time
marks = [("interpreter+site", P())]
gc.disable()
from concurrent.futures import ThreadPoolExecutor
import orjson
def mod(name, **kw):
    m = _t.ModuleType(name); m.__dict__.update(kw); sys.modules[name] = m; return m
class Exc(Exception):
    def __init__(self, *a, **k): pass
notes = []
class LS:
    def __init__(self, *a, **k):
        self.handlers = {}
        self.thread_pool = ThreadPoolExecutor()
        self.protocol = _t.SimpleNamespace(notify=lambda m, p: notes.append(
            orjson.dumps({"jsonrpc": "2.0", "method": m, "params": p})))
    def feature(self, method):
        def reg(fn): self.handlers[method] = fn; return fn
        return reg
    def shutdown(self): pass
names = _t.SimpleNamespace(INITIALIZE="initialize", INITIALIZED="initialized", SHUTDOWN="shutdown")
mod("lsprotocol", types=names); sys.modules["lsprotocol.types"] = names
mod("pygls"); mod("pygls.lsp"); mod("pygls.lsp.server", LanguageServer=LS)
mod("pygls.exceptions", JsonRpcException=Exc, JsonRpcInvalidParams=Exc,
    JsonRpcInternalError=Exc, JsonRpcInvalidRequest=Exc)
from teaminbox import codecache; codecache.install()
marks.append(("codecache.install (attr, cattrs, the cache file)", P()))
import cattrs
mod("pygls.protocol", default_converter=cattrs.Converter, LanguageServerProtocol=object)
mod("pygls.protocol.json_rpc", JsonRPCNotification=object, JsonRPCRequestMessage=object,
    JsonRPCResponseMessage=object)
import asyncio, sqlite3, platformdirs, filelock
marks.append(("stdlib + orjson + sqlite3 + platformdirs/filelock", P()))
import teaminbox.tracker, teaminbox.protocol, teaminbox.discovery, teaminbox.history
marks.append(("teaminbox core modules (no watch)", P()))
import teaminbox.watch
marks.append(("watch (watchdog)", P()))
import teaminbox.server.core
marks.append(("server.core (pygls stubbed)", P()))
import teaminbox.server.features
marks.append(("server.features", P()))
from teaminbox.server import build
s = build()
marks.append(("build() (features setup)", P()))
root, hist = sys.argv[1], sys.argv[2]
s.configure({"defaultRoots": False, "roots": [f"claude={root}"], "historyPath": hist})
marks.append(("configure (initialize's own work)", P()))
async def main():
    await s.ensure_ready()
    marks.append(("initialized (history created, scan, watcher, publishers)", P()))
    res = await s.handlers["teamInbox/teams"](s, {})
    orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": res})
    marks.append(("teams (answer, encoded)", P()))
    return res
res = asyncio.run(main())
assert "pygls.lsp.server" in sys.modules and not hasattr(sys.modules["lsprotocol.types"], "InitializeParams")
print(json.dumps(res))
print(json.dumps([(n, round(1000*(t - marks[i-1][1]) if i else 1000*t, 1)) for i, (n, t) in enumerate(marks)]))
"""


def run(code: str, env: dict[str, str], *args: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True
    )
    return out.stdout.strip().splitlines()


def states(result: Any) -> str:
    return json.dumps(
        [
            [t["id"], [(m["name"], (m.get("state") or {}).get("kind")) for m in t["members"]]]
            for t in result["teams"]
        ]
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--sidecar", default=str(REPO / "sidecar"))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="teaminbox-probe-"))
    try:
        root = tmp / "teams"
        make_teams(root)
        (tmp / "home").mkdir()
        env = env_for(args.sidecar, tmp / "pyc", False)
        _, _, real_answer = start_once(env, options(root, tmp / "warm"))  # fills the bytecode
        real: list[list[Any]] = []
        stub: list[list[Any]] = []
        same = True
        for r in range(args.runs):
            for kind in ("real", "stub") if r % 2 == 0 else ("stub", "real"):
                hist = str(tmp / f"{kind}-{r}.db")
                if kind == "real":
                    lines = run(BREAKDOWN, env, str(root), hist, "new")
                    real.append(json.loads(lines[-1]))
                else:
                    lines = run(STUBBED, env, str(root), hist)
                    stub.append(json.loads(lines[-1]))
                    same = same and states(json.loads(lines[-2])) == states(real_answer)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, runs in (("with pygls (bench_start's breakdown)", real), ("pygls stubbed", stub)):
        print(f"{name}, median CPU ms of {args.runs}:")
        for i, (phase, _) in enumerate(runs[0]):
            print(f"  {phase}: {statistics.median(x[i][1] for x in runs):.0f}")
        print(f"  total: {statistics.median(sum(p[1] for p in x) for x in runs):.0f}")
    print("teams and member states as the real server's:", "identical" if same else "DIFFERENT")


if __name__ == "__main__":
    main()
