"""Writes the attrs/cattrs code a start compiles into LIBS/teaminbox/codecache-seed/, for this
Python (scripts/package-vsix.sh runs it with each CPython it compiles bytecode for).

A real `python -m teaminbox serve` from LIBS answers the extension's first requests on a
scratch team, then loads pygls (a `shutdown` waits for it), and codecache.py writes what it
compiled. The .vsix carries those files; a user's first-ever start reads them until the
extension's own folder holds some (codecache.py), so it compiles none of that code.

    python scripts/seed-codecache.py STAGE/bundled/libs
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def frame(obj: dict[str, Any]) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_answer(out: Any, want: int) -> dict[str, Any]:
    while True:
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            byte = out.read(1)
            if not byte:
                raise SystemExit("seed-codecache: the sidecar closed its stdout")
            head += byte
        size = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
        msg: dict[str, Any] = json.loads(out.read(size))
        if msg.get("id") == want:
            return msg


def main() -> None:
    libs = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        team = home / ".claude" / "teams" / "seed"
        (team / "inboxes").mkdir(parents=True)
        members = [{"name": "team-lead", "agentId": "a"}, {"name": "helper", "agentId": "b"}]
        (team / "config.json").write_text(json.dumps({"name": "seed", "members": members}))
        entry = {"from": "helper", "text": "done", "timestamp": "2026-01-01T00:00:00.000Z"}
        (team / "inboxes" / "team-lead.json").write_text(json.dumps([entry | {"read": False}]))
        cache = Path(tmp) / "cache"
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("TEAMINBOX_", "PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE"))
        }
        env.update(PYTHONPATH=str(libs), HOME=str(home), TEAMINBOX_CODECACHE=str(cache))
        proc = subprocess.Popen(
            [sys.executable, "-m", "teaminbox", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=tmp,
        )
        assert proc.stdin is not None and proc.stdout is not None
        opts = {"defaultRoots": False, "roots": [f"claude={home / '.claude' / 'teams'}"]}
        init = {"processId": None, "capabilities": {}, "initializationOptions": opts}
        try:
            proc.stdin.write(
                frame({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
            )
            proc.stdin.flush()
            read_answer(proc.stdout, 0)
            proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "teamInbox/teams"}))
            proc.stdin.flush()
            teams = read_answer(proc.stdout, 1)
            if [t["name"] for t in teams.get("result", {}).get("teams", [])] != ["seed"]:
                raise SystemExit(f"seed-codecache: unexpected teams answer {teams}")
            proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            proc.stdin.flush()
            read_answer(proc.stdout, 2)  # served by pygls: loaded, and the codes written
            proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
            proc.stdin.close()
            proc.wait(30)
        finally:
            if proc.poll() is None:
                proc.kill()
        written = sorted((cache / "teaminbox").glob("attrs-code.*.marshal"))
        if not written:
            raise SystemExit("seed-codecache: the sidecar wrote no code cache")
        seed = libs / "teaminbox" / "codecache-seed"
        seed.mkdir(exist_ok=True)
        for f in written:
            shutil.copy2(f, seed / f.name)
        names = ", ".join(f.name for f in written)
        print(
            f"seed-codecache: {names} ({sum(f.stat().st_size for f in written)} bytes)",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
