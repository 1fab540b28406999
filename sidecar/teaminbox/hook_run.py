"""Claude Code's `PermissionRequest` hook: a prompt answered in VS Code, opt-in; and the
sidecars' sockets it talks to (the server's permissions feature listens there).

`python -m teaminbox.hook run` is the hook's command. It reads the request from stdin,
offers it to every running sidecar's socket (`<runtime dir>/sidecar-<pid>.sock`, 0600;
a sidecar claims only a session whose team it watches: each window that shows the team
asks), and waits up to `--wait` seconds for the first answer. No sidecar, no answer, or
any error: it prints nothing and exits 0, and Claude Code shows its own prompt as before.

The command line (hook.py) runs it; installing it is hook_settings.py's.

The wire between hook and sidecar: one JSON line each way, then the answer line:
hook -> `{"v": 1, "request": <stdin object>, "wait": seconds}`;
sidecar -> `{"claimed": bool}`, then `{"decision": {...} | null}`; with `"released": true`
the person sent the request back to the terminal, and the hook stops waiting for any
other window.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Mapping
from typing import Any

from . import hook_settings

DEFAULT_WAIT = hook_settings.DEFAULT_WAIT  # seconds the hook waits for the person
CONNECT_TIMEOUT = 0.5
CLAIM_TIMEOUT = 10.0  # a sidecar says if it takes the request (a new team is rescanned first)
MAX_LINE = 16 * 1024 * 1024  # a request holds the tool input: a Write of a big file
SOCKET_PREFIX = "sidecar-"


# --- where the sockets are ------------------------------------------------------------


def runtime_dirs(env: Mapping[str, str] = os.environ) -> list[str]:
    """Where sidecars listen, first choice first: a hook run by Claude Code may not see
    the editor's environment, so it looks in each."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    dirs = []
    if env.get("TEAMINBOX_RUNTIME_DIR"):
        dirs.append(env["TEAMINBOX_RUNTIME_DIR"])
    if env.get("XDG_RUNTIME_DIR"):
        dirs.append(os.path.join(env["XDG_RUNTIME_DIR"], "teaminbox"))
    dirs.append(os.path.join(f"/run/user/{uid}", "teaminbox"))
    dirs.append(os.path.join(tempfile.gettempdir(), f"teaminbox-{uid}"))
    return list(dict.fromkeys(dirs))


def private_dir(path: str) -> bool:
    """A folder of ours only: not a link, owned by this user, nobody else may enter."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    uid = os.getuid() if hasattr(os, "getuid") else st.st_uid
    return stat.S_ISDIR(st.st_mode) and st.st_uid == uid and not st.st_mode & 0o077


def listen_dir(env: Mapping[str, str] = os.environ) -> str | None:
    """The first runtime folder that is (or can be made) private; None when none can."""
    for d in runtime_dirs(env):
        parent = os.path.dirname(d)
        if not os.path.isdir(parent):
            continue
        with contextlib.suppress(FileExistsError, OSError):
            os.mkdir(d, 0o700)
        if private_dir(d):
            return d
    return None


def sockets(env: Mapping[str, str] = os.environ) -> list[str]:
    """Every sidecar socket in the private runtime folders, newest first."""
    found: list[tuple[float, str]] = []
    for d in runtime_dirs(env):
        if not private_dir(d):
            continue
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            if n.startswith(SOCKET_PREFIX) and n.endswith(".sock"):
                path = os.path.join(d, n)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISSOCK(st.st_mode):
                    found.append((st.st_mtime, path))
    return [p for _, p in sorted(found, reverse=True)]


# --- the hook itself ------------------------------------------------------------------


def _offer(path: str, line: bytes, left: float) -> socket.socket | None:
    """The request sent to one sidecar (not waiting for its answer); None when it cannot be."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.settimeout(CONNECT_TIMEOUT)
        s.connect(path)
        s.settimeout(min(CLAIM_TIMEOUT, left))  # a sidecar that reads nothing: only a big request
        s.sendall(line)
        s.setblocking(False)
        return s
    except OSError:
        s.close()  # a stale socket, a full one: not this one
        return None


def ask(request: dict[str, Any], wait: float, env: Mapping[str, str] = os.environ) -> Any:
    """The first decision of any sidecar that claims the request (every window that watches
    the team shows it; the first answer wins, the others' prompts go when the hook closes
    their connections); None when none claims it or none answers in time. Every sidecar is
    offered it at once: one that is slow to say whether it takes it (stopped, busy) holds up
    no other; one that has not claimed it CLAIM_TIMEOUT seconds on is out."""
    deadline = time.monotonic() + wait
    claim_by = time.monotonic() + min(CLAIM_TIMEOUT, wait)
    line = json.dumps({"v": 1, "request": request, "wait": wait}).encode() + b"\n"
    bufs: dict[socket.socket, bytes] = {}
    for path in sockets(env):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        got = _offer(path, line, left)
        if got is not None:
            bufs[got] = b""
    claimed: set[socket.socket] = set()
    sel = selectors.DefaultSelector()

    def out(s: socket.socket) -> None:
        sel.unregister(s)
        del bufs[s]
        claimed.discard(s)
        s.close()

    try:
        for s in bufs:
            sel.register(s, selectors.EVENT_READ)
        while bufs:
            now = time.monotonic()
            if now >= claim_by:
                for s in [c for c in bufs if c not in claimed]:
                    out(s)  # said nothing in time: not this one
                if not bufs:
                    return None
            if now >= deadline:
                return None
            until = deadline if now >= claim_by else min(deadline, claim_by)
            for key, _ in sel.select(until - now):
                found = next((c for c in bufs if c.fileno() == key.fd), None)
                if found is None:
                    continue
                s = found
                try:
                    chunk = s.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                bufs[s] += chunk
                while s in bufs and b"\n" in bufs[s]:
                    first, bufs[s] = bufs[s].split(b"\n", 1)
                    try:
                        answer = json.loads(first)
                    except ValueError:
                        answer = None
                    if s not in claimed:  # its first line: whether it takes the request
                        if isinstance(answer, dict) and answer.get("claimed") is True:
                            claimed.add(s)
                        else:
                            out(s)
                        continue
                    said = answer.get("decision") if isinstance(answer, dict) else None
                    if said is not None:
                        return said
                    if isinstance(answer, dict) and answer.get("released") is True:
                        return None  # the person sent it to the terminal: no window waits
                    out(s)  # "no answer" from this one: it is out
                if s in bufs and (not chunk or len(bufs[s]) > MAX_LINE):
                    out(s)
        return None
    finally:
        sel.close()
        for s in bufs:
            s.close()


def output(decision: Any) -> str | None:
    """What the hook prints for a sidecar's decision; None (nothing printed) unless it
    is a well-formed allow or deny."""
    if not isinstance(decision, dict) or decision.get("behavior") not in ("allow", "deny"):
        return None
    out: dict[str, Any] = {"behavior": decision["behavior"]}
    if decision["behavior"] == "deny":
        msg = decision.get("message")
        out["message"] = msg if isinstance(msg, str) and msg else "Denied in Team Inbox"
    perms = decision.get("updatedPermissions")
    if decision["behavior"] == "allow" and isinstance(perms, list) and perms:
        out["updatedPermissions"] = perms
    body = {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": out}}
    return json.dumps(body)


def run(wait: float, stdin: Any = None, stdout: Any = None) -> int:
    """The hook: always exit 0; print a decision only when the person gave one."""
    try:
        raw = (stdin or sys.stdin).read(MAX_LINE)
        request = json.loads(raw)
        if not isinstance(request, dict) or request.get("hook_event_name") not in (
            None,
            "PermissionRequest",
        ):
            return 0
        text = output(ask(request, wait))
        if text is not None:
            (stdout or sys.stdout).write(text + "\n")
    except Exception:  # whatever happened: Claude Code's own prompt
        return 0
    return 0
