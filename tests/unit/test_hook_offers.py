"""The permission hook offers a request to every sidecar at once: one that is slow to say
whether it takes it (stopped, busy rescanning, another person's test) holds up no other.

Two stand-in sidecars on Unix sockets in a private runtime folder: `slow` reads the request
and never answers; `fast`, the newer socket (offered first), answers only once `slow` has
the request too. Offered one after the other, the hook would wait on `fast`'s claim while
`slow` had nothing yet, give `fast` up and print nothing."""

from __future__ import annotations

import json
import os
import socket
import tempfile
import threading
from pathlib import Path

import pytest

from teaminbox import hook_run


def serve(path: Path, answer: threading.Event | None, got: threading.Event) -> socket.socket:
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(str(path))
    srv.listen(4)

    def one() -> None:
        conn, _ = srv.accept()
        with conn:
            buf = b""
            while b"\n" not in buf:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                buf += chunk
            assert json.loads(buf.split(b"\n", 1)[0])["request"]["tool_name"] == "Bash"
            got.set()
            if answer is None:  # the slow one: holds the connection, says nothing
                conn.recv(1)
                return
            if not answer.wait(60):
                return
            conn.sendall(b'{"claimed": true}\n{"decision": {"behavior": "allow"}}\n')
            conn.recv(1)

    threading.Thread(target=one, daemon=True).start()
    return srv


def test_a_slow_sidecar_holds_up_no_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rt = tmp_path / "rt"
    rt.mkdir(mode=0o700)
    monkeypatch.setattr(hook_run, "CLAIM_TIMEOUT", 5.0)
    slow_got, fast_got = threading.Event(), threading.Event()
    slow = serve(rt / "sidecar-1.sock", None, slow_got)
    fast = serve(rt / "sidecar-2.sock", slow_got, fast_got)
    os.utime(rt / "sidecar-1.sock", (1, 1))  # `fast` is the newer: offered first
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # no other sidecar's folder
    env = {"TEAMINBOX_RUNTIME_DIR": str(rt)}
    try:
        names = [os.path.basename(p) for p in hook_run.sockets(env)]
        assert names.index("sidecar-2.sock") < names.index("sidecar-1.sock")
        got = hook_run.ask({"tool_name": "Bash", "session_id": "s"}, 30.0, env)
    finally:
        slow.close()
        fast.close()
    assert got == {"behavior": "allow"}
    assert fast_got.is_set() and slow_got.is_set()
