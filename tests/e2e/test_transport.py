"""The real server's byte streams: stdio framing that recovers from a bad frame, and TCP
that wants a token, serves one client at a time and keeps the history where it belongs.

Issue "No hostile file, signal or byte stream can hang, crash or blind the sidecar",
items 6 and 10. The clients here write exact bytes (no LSP library between).
"""

from __future__ import annotations

import os
import queue
import re
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lsp_session import make_home, options

from support.lsp_wire import (
    EXIT,
    INITIALIZED,
    SERVE,
    WAIT,
    Messages,
    frame,
    initialize,
    request,
    serve,
)

# --- the framer itself ------------------------------------------------------------------


def test_framer_resynchronises() -> None:
    from teaminbox.server.transport import Framer

    said: list[str] = []
    framer = Framer(limit=1000, report=said.append)

    class f:  # noqa: N801 - the framer's frames as lists
        feed = staticmethod(lambda data: list(framer.feed(data)))
        buf = framer.buf

    good = frame(request(1, "x"))
    body = good.split(b"\r\n\r\n", 1)[1]
    assert f.feed(good) == [body]
    assert f.feed(b"garbage" + good) == [body]
    assert f.feed(b"Content-Length: abc\r\n\r\n{}" + good) == [body]
    assert f.feed(b"Content-Length: 5000\r\n\r\n" + good) == [body]  # over the limit
    assert f.feed(b"Content-Length: 10" + b"0" * 30 + b"\r\n\r\n" + good) == [body]
    assert f.feed(b"Content-Length: 900\r\n\r\n{}" + good) == [body]  # lies: too long
    assert f.feed(b"\r\n\r\n\r\n") == []
    assert f.feed(good) == [body]
    assert len(said) == 6, said
    # Split anywhere, even inside the header name: the same frames, nothing said.
    said.clear()
    stream = good * 3
    out = [b for i in range(len(stream)) for b in f.feed(stream[i : i + 1])]
    assert out == [body] * 3 and said == []
    # Garbage that never ends is dropped, not kept.
    f.feed(b"x" * 100_000)
    assert len(f.buf) < 8192


# --- item 6: stdio ----------------------------------------------------------------------


@pytest.fixture
def stdio(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Messages]]:
    make_home(tmp_path)
    proc = serve()
    assert proc.stdout is not None
    try:
        yield proc, Messages(proc.stdout)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        for f in (proc.stdin, proc.stdout, proc.stderr):
            if f is not None:
                f.close()


def write(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(data)
    proc.stdin.flush()


BAD_FRAMES: list[tuple[str, bytes]] = [
    ("garbage", b"\x00\xffnot a frame at all"),
    ("garbage lines", b"hello\r\nworld\r\n\r\n"),
    ("length not a number", b'Content-Length: abc\r\n\r\n{"jsonrpc": "2.0"}'),
    ("length too big", b"Content-Length: 1000000000000\r\n\r\n"),
    ("length too big, a body follows", b"Content-Length: 1000000000000\r\n\r\n{}" + b" " * 5000),
    ("length lies: too long", b"Content-Length: 4000\r\n\r\n" + frame(request(900, "x"))[:40]),
    ("length lies: too short", b"Content-Length: 9\r\n\r\n" + frame(request(901, "x"))[25:]),
    ("not JSON", b"Content-Length: 7\r\n\r\nnotjson"),
    ("no Content-Length", b'Content-Type: application/json\r\n\r\n{"a": 1}'),
]


def test_stdio_answers_after_every_kind_of_bad_frame(
    tmp_path: Path, stdio: tuple[subprocess.Popen[bytes], Messages]
) -> None:
    proc, msgs = stdio
    write(proc, frame(initialize(1, options(tmp_path))))
    assert "result" in msgs.response(1)
    write(proc, frame(INITIALIZED))
    msg_id = 10
    for name, bad in BAD_FRAMES:
        msg_id += 1
        write(proc, bad + frame(request(msg_id, "teamInbox/teams")))
        reply = msgs.response(msg_id)
        assert len(reply["result"]["teams"]) == 2, (name, reply)
        # The same bad frame in its own write, then the request in another.
        msg_id += 1
        write(proc, bad)
        time.sleep(0.05)
        write(proc, frame(request(msg_id, "teamInbox/teams")))
        assert "result" in msgs.response(msg_id), name
    # A valid frame that arrives a byte at a time.
    msg_id += 1
    for b in frame(request(msg_id, "teamInbox/teams")):
        write(proc, bytes([b]))
    assert "result" in msgs.response(msg_id)
    write(proc, frame(request(100, "shutdown")))
    assert msgs.response(100)["result"] is None
    write(proc, frame(EXIT))
    assert proc.wait(WAIT) == 0
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    bad_lines = [line for line in err.splitlines() if "bad frame" in line]
    assert len(bad_lines) == 2 * len(BAD_FRAMES), err
    assert "Traceback" not in err and "MemoryError" not in err, err


# --- item 10: TCP -----------------------------------------------------------------------


class TcpServer:
    def __init__(self, tmp: Path, *args: str, **env: str) -> None:
        self.env = dict(os.environ)
        for key in ("TEAMINBOX_TOKEN", "XDG_RUNTIME_DIR"):
            self.env.pop(key, None)
        self.env.update(
            HOME=str(tmp), XDG_DATA_HOME=str(tmp / "data"), XDG_RUNTIME_DIR=str(tmp / "run"), **env
        )
        (tmp / "run").mkdir(mode=0o700, exist_ok=True)
        self.proc = serve(
            self.env, [*SERVE, "--tcp", "127.0.0.1:0", *args], stdin=subprocess.DEVNULL
        )
        assert self.proc.stderr is not None
        self.lines: queue.Queue[str] = queue.Queue()
        self.stderr: list[str] = []
        self.reader = threading.Thread(target=self._stderr, daemon=True)
        self.reader.start()
        try:
            self.announce = self.lines.get(timeout=WAIT)
        except queue.Empty:
            self.close()
            raise AssertionError("the server did not say where it listens") from None
        m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.announce)
        assert m, self.announce
        self.port = int(m.group(1))
        t = re.search(r"the token is in (\S+)", self.announce)
        self.token_path = Path(t.group(1)) if t else None

    def _stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode(errors="replace")
            self.stderr.append(line)
            self.lines.put(line)

    def all_stderr(self) -> str:
        """Everything the ended server wrote to stderr (its reader ends at the end)."""
        self.reader.join(WAIT)
        assert not self.reader.is_alive(), "stderr did not end"
        return "".join(self.stderr)

    def connect(self) -> tuple[socket.socket, Messages]:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=WAIT)
        sock.settimeout(None)
        return sock, Messages(sock)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()  # stderr: its reader thread ends at its end


def tcp_options(home: Path, **extra: Any) -> dict[str, Any]:
    opts = options(home)
    opts.pop("historyPath")  # the default: inside the data folder
    return {**opts, **extra}


def assert_refused(msgs: Messages, code: str) -> dict[str, Any]:
    """One error, then the server closes the connection."""
    got = msgs.ended()
    assert len(got) == 1 and "error" in got[0], got
    assert got[0]["error"]["data"]["code"] == code, got
    return got[0]


def test_tcp_wants_the_token_and_one_client(tmp_path: Path) -> None:
    make_home(tmp_path)
    server = TcpServer(tmp_path)
    try:
        assert server.token_path is not None, server.announce
        assert server.token_path.is_relative_to(tmp_path / "run")
        assert stat.S_IMODE(server.token_path.stat().st_mode) == 0o600
        token = server.token_path.read_text().strip()
        assert len(token) >= 32

        # A request before initialize: an error, and the connection is closed.
        sock, msgs = server.connect()
        sock.sendall(frame(request(1, "teamInbox/teams")))
        assert_refused(msgs, "unauthorized")
        sock.close()
        # No token, then a wrong one.
        for init in (tcp_options(tmp_path), tcp_options(tmp_path, token=token[:-1] + "x")):
            sock, msgs = server.connect()
            sock.sendall(frame(initialize(1, init)))
            refused = assert_refused(msgs, "unauthorized")
            assert refused["id"] == 1 and "token" in refused["error"]["message"]
            sock.close()
        # The right token, but the history somewhere a TCP client may not put it.
        for where in (tmp_path / "history.db", tmp_path / "data" / "teaminbox" / ".." / "x.db"):
            sock, msgs = server.connect()
            init = tcp_options(tmp_path, token=token, historyPath=str(where))
            sock.sendall(frame(initialize(1, init)))
            assert_refused(msgs, "invalid_params")
            sock.close()
        assert not (tmp_path / "history.db").exists()

        # The right token: served.
        first, first_msgs = server.connect()
        inside = tmp_path / "data" / "teaminbox" / "mine.db"
        init = tcp_options(tmp_path, token=token, historyPath=str(inside))
        first.sendall(frame(initialize(1, init)))
        assert "result" in first_msgs.response(1)
        first.sendall(frame(INITIALIZED, request(2, "teamInbox/teams")))
        assert len(first_msgs.response(2)["result"]["teams"]) == 2
        assert inside.exists()

        # A second client, even with the token, is refused and sees none of the first's.
        second, second_msgs = server.connect()
        second.sendall(frame(initialize(1, tcp_options(tmp_path, token=token))))
        first.sendall(frame(request(3, "teamInbox/teams")))
        assert len(first_msgs.response(3)["result"]["teams"]) == 2
        refused = assert_refused(second_msgs, "unauthorized")
        assert "one at a time" in refused["error"]["message"]
        second.close()
        # Garbage from the first client does not end its session either.
        first.sendall(b"Content-Length: abc\r\n\r\n" + frame(request(4, "teamInbox/teams")))
        assert "result" in first_msgs.response(4)

        first.sendall(frame(request(5, "shutdown")))
        assert first_msgs.response(5)["result"] is None
        first.sendall(frame(EXIT))
        assert server.proc.wait(WAIT) == 0
        assert not server.token_path.exists()  # the token is removed with the server
        err = server.all_stderr()
        assert err.count("refused a TCP client") == 6, err
        assert token not in err
    finally:
        server.close()


@pytest.mark.parametrize("how", ["env", "file"])
def test_tcp_token_from_env_or_file(tmp_path: Path, how: str) -> None:
    make_home(tmp_path)
    token = "s3cret-token-" + how
    if how == "env":
        server = TcpServer(tmp_path, TEAMINBOX_TOKEN=token)
    else:
        path = tmp_path / "token"
        path.write_text(token + "\n")
        path.chmod(0o600)  # a token others may read is refused (test_tcp_guard.py)
        server = TcpServer(tmp_path, "--token-file", str(path))
    try:
        assert server.token_path is None, server.announce  # none written
        sock, msgs = server.connect()
        sock.sendall(frame(initialize(1, tcp_options(tmp_path, token="s3cret-token-x"))))
        assert_refused(msgs, "unauthorized")
        sock, msgs = server.connect()
        sock.sendall(frame(initialize(1, tcp_options(tmp_path, token=token))))
        assert "result" in msgs.response(1)
        sock.sendall(frame(INITIALIZED, request(2, "teamInbox/teams")))
        assert len(msgs.response(2)["result"]["teams"]) == 2
        sock.shutdown(socket.SHUT_RDWR)  # the session's client left: the server ends
        sock.close()
        assert server.proc.wait(WAIT) == 0
    finally:
        server.close()


def test_stdio_unstructurable_request_gets_an_error(
    tmp_path: Path, stdio: tuple[subprocess.Popen[bytes], Messages]
) -> None:
    """A request pygls cannot structure is answered with an error, not dropped."""
    proc, msgs = stdio
    write(proc, frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": 5}))
    assert msgs.response(1)["error"]["code"] == -32602
    write(proc, frame(initialize(2, options(tmp_path))))
    assert "result" in msgs.response(2)
    write(proc, frame([1, 2], request(3, "teamInbox/teams")))
    assert "result" in msgs.response(3)


def test_stdio_client_may_put_the_history_anywhere(tmp_path: Path) -> None:
    """Only TCP clients are limited: stdio's client is the user's own editor."""
    make_home(tmp_path)
    proc = serve(stderr=None)
    assert proc.stdout is not None and proc.stdin is not None
    try:
        msgs = Messages(proc.stdout)
        write(proc, frame(initialize(1, options(tmp_path))))
        assert "result" in msgs.response(1)
        write(proc, frame(INITIALIZED, request(2, "teamInbox/teams")))
        assert "result" in msgs.response(2)
        assert (tmp_path / "history.db").exists()
    finally:
        proc.stdin.close()
        proc.wait(WAIT)
        proc.stdout.close()
