"""What the record hook adds to each of an agent's sends.

Claude Code runs a `PostToolUse` hook's command through the shell, hands it the payload
on stdin and waits for it to end before the agent's turn goes on. This bench does the
same, one send at a time, with a payload as Claude Code 2.1.332 writes it for a
`SendMessage` (about 1 KB), interleaving in each round:

- `true`: a bare hook (the floor of any hook: a shell and a process);
- `PYTHON -c pass`: the interpreter's own start (the floor of any Python hook);
- `PYTHON -m teaminbox.hook record`: the hook as `teaminbox hook install --record` writes it
  (the spool appended, fsync'd), into a spool in a temp folder;
- `sh teaminbox-plugin hook record`: the Claude Code plugin's hook as its hooks.json says,
  through its launcher, Team Inbox found as the installed extension (its `bundled/libs` a
  link to the sidecar), in a project, the person's settings enabling the plugin;
- with `--before REV`, both Team Inbox hooks again from REV's sidecar and plugin (`git
  archive`), in the same rounds: the ratio now/REV taken round by round;
- the spool's append alone, in this process (`spool.record`: the part no start hides).

Then `python -X importtime` of each tree's record hook: its largest imports.

Usage: .venv/bin/python bench/bench_spool_hook.py [--sends 300] [--before REV] [--no-write]
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
from teaminbox import spool  # noqa: E402

SECTION = "## The record hook's cost per send"
TRUE = "`true` (a bare hook)"


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


def run_hook(command: str, data: bytes, env: dict[str, str], cwd: Path) -> float:
    t = time.perf_counter()
    subprocess.run(["/bin/sh", "-c", command], input=data, env=env, cwd=cwd, check=True)
    return (time.perf_counter() - t) * 1000


def tree(where: Path, rev: str | None) -> Path:
    """This checkout's sidecar and plugin, or REV's (exported into `where`)."""
    if rev is None:
        return REPO
    where.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", rev, "sidecar/teaminbox", "claude-plugin"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def plugin_home(home: Path, root: Path) -> None:
    """The person's HOME: Team Inbox installed in VS Code (its libraries `root`'s sidecar),
    their settings enabling the plugin, with a few keys of their own."""
    pkg = json.loads((REPO / "package.json").read_text())
    ext = home / ".vscode" / "extensions" / f"teaminbox.team-inbox-{pkg['version']}"
    (ext / "bundled" / "libs").mkdir(parents=True)
    (ext / "package.json").write_text(json.dumps(pkg))
    (ext / "bundled" / "libs" / "teaminbox").symlink_to(root / "sidecar" / "teaminbox")
    settings = {
        "enabledPlugins": {"team-inbox@teaminbox": True},
        "permissions": {"allow": ["Bash(npm test)"]},
        "env": {"EDITOR": "vi"},
    }
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))


def importtime(python: str, env: dict[str, str], cwd: Path, top: int = 6) -> list[str]:
    """The record hook's largest imports (cumulative microseconds), one start."""
    res = subprocess.run(
        [python, "-X", "importtime", "-m", "teaminbox.hook", "record"],
        input=payload(0),
        env=env,
        cwd=cwd,
        capture_output=True,
        check=True,
    )
    rows = []
    for line in res.stderr.decode().splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    return [f"{name} {us / 1000:.1f} ms" for us, name in sorted(rows, reverse=True)[:top]]


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--sends", type=int, default=300)
    ap.add_argument("--before", metavar="REV", help="also the hooks of this commit, paired")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="teaminbox-bench-spool-"))
    python = sys.executable
    project = tmp / "project"
    project.mkdir()
    trees = {"now": tree(tmp / "before", None)}
    if args.before:
        trees[args.before] = tree(tmp / "before", args.before)
    hooks: dict[str, tuple[str, dict[str, str]]] = {}
    base_env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_CONFIG_DIR", "PYTHONPATH")}
    base_env["TEAMINBOX_SPOOL_DIR"] = str(tmp / "spool")
    hooks[TRUE] = ("true", base_env)
    hooks["`python -c pass` (the interpreter's start)"] = (f"{python} -c pass", base_env)
    for label, root in trees.items():
        home = tmp / f"home-{len(hooks)}"
        plugin_home(home, root)
        env = {**base_env, "HOME": str(home), "TEAMINBOX_PYTHON": python}
        env["PYTHONPATH"] = str(root / "sidecar")
        cmd = f"{python} -m teaminbox.hook record"
        hooks[f"settings entry `python -m teaminbox.hook record` ({label})"] = (cmd, env)
        plugin = f'sh "{root}/claude-plugin/bin/teaminbox-plugin" hook record'
        penv = {k: v for k, v in env.items() if k != "PYTHONPATH"}
        penv["CLAUDE_PLUGIN_ROOT"] = str(root / "claude-plugin")
        hooks[f"the plugin's `teaminbox-plugin hook record` ({label})"] = (plugin, penv)
    load0 = os.getloadavg()[0]
    times: dict[str, list[float]] = {k: [] for k in hooks}
    inproc: list[float] = []
    imports: dict[str, list[str]] = {}
    try:
        for command, env in hooks.values():  # warm: bytecode, page cache
            for _ in range(3):
                run_hook(command, payload(0), env, project)
        for i in range(args.sends):
            order = list(hooks.items())
            if i % 2:
                order.reverse()
            for name, (command, env) in order:
                times[name].append(run_hook(command, payload(i), env, project))
            t = time.perf_counter()
            spool.record(io.BytesIO(payload(i)), str(tmp / "inproc"))
            inproc.append((time.perf_counter() - t) * 1000)
        got = spool.read(str(tmp / "spool"), {})
        kept = len({d["p"]["tool_response"]["msg_id"] for _, _, d in got.records})
        runs = len(got.records)
        for label, root in trees.items():
            env = {**base_env, "PYTHONPATH": str(root / "sidecar")}
            env["TEAMINBOX_SPOOL_DIR"] = str(tmp / "spool-importtime")
            imports[label] = importtime(python, env, project)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()[0]
    base = statistics.median(times[TRUE])
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    hook_runs = (len(hooks) - 2) * (args.sends + 3)
    lines = [
        SECTION,
        "",
        f"`bench/bench_spool_hook.py --sends {args.sends}"
        + (f" --before {args.before}`" if args.before else "`")
        + f", {when}; {machine()}."
        f" Load average {load0:.2f} at the start, {load1:.2f} at the end. Each hook run as"
        " Claude Code runs one (`/bin/sh -c COMMAND` in a project folder, the payload on"
        f" stdin, waited for), {args.sends} sends each, interleaved; a payload of"
        f" {len(payload(1))} bytes. The spool held {runs} records ({kept} distinct sends) of"
        f" the Team Inbox hooks' {hook_runs} runs (3 warm-up runs each send one id).",
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
    if args.before:
        lines += [
            "",
            f"| now / {args.before}, round by round | median | min | max |",
            "|---|---|---|---|",
        ]
        for kind in (
            "settings entry `python -m teaminbox.hook record`",
            "the plugin's `teaminbox-plugin hook record`",
        ):
            now, old = times[f"{kind} (now)"], times[f"{kind} ({args.before})"]
            ratios = [a / b for a, b in zip(now, old, strict=True)]
            lines.append(
                f"| {kind} | {statistics.median(ratios):.2f} | {min(ratios):.2f} | {max(ratios):.2f} |"
            )
    lines += [
        "",
        "`python -X importtime -m teaminbox.hook record`, largest cumulative imports:",
        "",
    ]
    for label, rows in imports.items():
        lines.append(f"- {label}: " + "; ".join(rows))
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_write:
        write_section(text, SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
