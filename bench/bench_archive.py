"""Where a first archive of a 10,000-entry, ~27 MB inbox goes (History.record, as the
server's deferred first load feeds it: 200 messages a step), and what batching or tuning
would save ("one transaction": all 10,000 in one record call).
Not a test: nothing here asserts a time; the variants are measurements, not options
of the sidecar. Runs alternate within each round; medians.

    .venv/bin/python bench/bench_archive.py --rounds 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable

from benchlib.inboxes import make_entry
from teaminbox.formats.claude import CLAUDE
from teaminbox.history import History
from teaminbox.history.messages import _row
from teaminbox.model import Message

TEAM, INBOX, N = "claude:big", "user", 10_000
CHUNK = 200  # the server archives a deferred first load 200 messages a step (BIG_STEP)


def variants() -> dict[str, Callable[[str], History]]:
    def base(p: str) -> History:
        return History(p)

    def cache(p: str) -> History:  # 32 MB page cache instead of 512 KB
        h = History(p)
        h.db.execute("PRAGMA cache_size=-32768")
        return h

    def no_checkpoint(p: str) -> History:  # WAL never copied back during the run
        h = History(p)
        h.db.execute("PRAGMA wal_autocheckpoint=0")
        return h

    def page16k(p: str) -> History:  # a new file with 16 KB pages (fewer overflow pages)
        db = sqlite3.connect(p)
        db.execute("PRAGMA page_size=16384")
        db.execute("VACUUM")
        db.close()
        return History(p)

    def no_fts(p: str) -> History:  # what the full-text index costs (not a candidate)
        h = History(p)
        h.db.execute("DROP TRIGGER messages_ai")
        return h

    return {
        "base": base,
        "one transaction": base,
        "cache 32 MB": cache,
        "no autocheckpoint": no_checkpoint,
        "page 16 KB": page16k,
        "no FTS trigger": no_fts,
    }


def run(name: str, make: Callable[[str], History], msgs: list[Message], tmp: str) -> float:
    folder = tempfile.mkdtemp(dir=tmp)
    h = make(os.path.join(folder, "history.db"))
    t0 = time.perf_counter()
    if name == "one transaction":
        h.record(TEAM, INBOX, msgs, [])
    else:
        for c in range(0, len(msgs), CHUNK):
            h.record(TEAM, INBOX, msgs[c : c + CHUNK], [])
    ms = (time.perf_counter() - t0) * 1000
    h.close()
    shutil.rmtree(folder)
    return ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    msgs = [CLAUDE.message(make_entry(i, 2700 - 230), i, TEAM, INBOX) for i in range(N)]
    tmp = tempfile.mkdtemp(prefix="teaminbox-bench-archive-")
    got: dict[str, list[float]] = {k: [] for k in variants()}
    rows: list[float] = []
    try:
        for _ in range(a.rounds):
            t0 = time.perf_counter()
            for m in msgs:
                _row(TEAM, INBOX, m, 0.0)
            rows.append((time.perf_counter() - t0) * 1000)
            for name, make in variants().items():
                got[name].append(run(name, make, msgs, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    base = statistics.median(got["base"])
    print(f"{time.strftime('%H:%M:%S')} {N:,} messages, {a.rounds} rounds, medians:")
    print(f"  columns and body (_row, Python): {statistics.median(rows):.0f} ms")
    for name, runs in got.items():
        med = statistics.median(runs)
        print(f"  {name}: {med:.0f} ms  {med / base:.2f}x  {[round(r) for r in runs]}")


if __name__ == "__main__":
    main()
