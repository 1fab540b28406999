"""How busy the host is around a build's half: a CPU loop's time and a pipe's wake-up."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time


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
