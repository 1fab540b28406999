"""What the record hook adds to each of an agent's sends.

Claude Code runs a `PostToolUse` hook's command through the shell, hands it the payload
on stdin and waits for it to end before the agent's turn goes on. This bench does the
same, one send at a time, with a payload as Claude Code 2.1.332 writes it for a
`SendMessage` (about 1 KB), interleaving in each round:

- `true`: a bare hook (the floor of any hook: a shell and a process);
- `PYTHON -c pass`: the interpreter's own start (the floor of any Python hook);
- `PYTHON -m teaminbox.hook record`: the hook as `teaminbox hook install --record` writes it
  (the spool appended, fsync'd), into a spool in a temp folder;
- the spool's append alone, in this process (`spool.record`: the part no start hides).

Usage: .venv/bin/python bench/bench_spool_hook.py [--sends 300] [--no-write]
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "sidecar"))
sys.path.insert(0, str(REPO / "bench"))

from bench_server import machine, ms, write_section  # noqa: E402
from teaminbox import hook_settings, spool  # noqa: E402

SECTION = "## The record hook's cost per send (issue 31 item 3)"


def payload(i: int) -> bytes:
    text = f"result {i}: " + "the tests pass and the branch is pushed. " * 12
    return json.dumps(
        {
            "session_id": "5e1d0000-0000-4000-8000-000000000001",
            "transcript_path": "/home/dev/.claude/projects/-home-dev-x/5e1d.jsonl",
            "cwd": "/home/dev/x",
            "prompt_id": "p",
            "permission_mode": "default",
            "agent_id": "ahelper-00000000000000aa",
            "agent_type": "helper",
            "hook_event_name": "PostToolUse",
            "tool_name": "SendMessage",
            "tool_input": {"to": "team-lead", "message": text, "summary": f"part {i}"},
            "tool_response": {
                "success": True,
                "message": "Message sent to team-lead's inbox",
                "msg_id": f"00000000-0000-4000-8000-{i:012d}",
                "routing": {"sender": "helper", "target": "@team-lead", "content": text[:50]},
            },
            "tool_use_id": f"toolu_{i}",
            "duration_ms": 3,
        }
    ).encode()


def run_hook(command: str, data: bytes, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(["/bin/sh", "-c", command], input=data, env=env, check=True)
    return (time.perf_counter() - t) * 1000


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sends", type=int, default=300)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="teaminbox-bench-spool-"))
    env = {**os.environ, "TEAMINBOX_SPOOL_DIR": str(tmp / "spool")}
    env["PYTHONPATH"] = str(REPO / "sidecar")
    python = sys.executable
    hooks = {
        "`true` (a bare hook)": "true",
        "`python -c pass` (the interpreter's start)": f"{python} -c pass",
        "`python -m teaminbox.hook record`": hook_settings.record_command(python),
    }
    load0 = os.getloadavg()[0]
    times: dict[str, list[float]] = {k: [] for k in hooks}
    inproc: list[float] = []
    try:
        for command in hooks.values():  # warm: bytecode, page cache
            for _ in range(3):
                run_hook(command, payload(0), env)
        for i in range(args.sends):
            order = list(hooks.items())
            if i % 2:
                order.reverse()
            for name, command in order:
                times[name].append(run_hook(command, payload(i), env))
            t = time.perf_counter()
            spool.record(io.BytesIO(payload(i)), str(tmp / "inproc"))
            inproc.append((time.perf_counter() - t) * 1000)
        got = spool.read(str(tmp / "spool"), {})
        kept = len({d["p"]["tool_response"]["msg_id"] for _, _, d in got.records})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()[0]
    base = statistics.median(times["`true` (a bare hook)"])
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        SECTION,
        "",
        f"`bench/bench_spool_hook.py --sends {args.sends}`, {when}; {machine()}."
        f" Load average {load0:.2f} at the start, {load1:.2f} at the end. Each hook run as"
        " Claude Code runs one (`/bin/sh -c COMMAND`, the payload on stdin, waited for),"
        f" {args.sends} sends each, interleaved; a payload of {len(payload(1))} bytes."
        f" The spool held {kept} distinct sends of the hook's {args.sends + 3} runs"
        " (3 warm-up runs send one id).",
        "",
        "| hook | p50 ms | p99 ms | p50 over `true` |",
        "|---|---|---|---|",
    ]
    for name, xs in times.items():
        lines.append(
            f"| {name} | {ms(statistics.median(xs))} | {ms(pct(xs, 99))}"
            f" | {ms(statistics.median(xs) - base)} |"
        )
    lines.append(
        f"| the append alone, in process (`spool.record`: parse, write, fsync) |"
        f" {ms(statistics.median(inproc))} | {ms(pct(inproc, 99))} | - |"
    )
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(text, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
