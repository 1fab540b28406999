"""`serve --tcp` against strangers, on the real server process: a token
file others may read is refused (as ssh refuses an unprotected key), an address other
than loopback needs `--allow-remote`, and a flood of unauthenticated connections that
half-send a first frame holds little memory while the authenticated client is served.
Only loopback addresses are listened on here.
"""

from __future__ import annotations

import errno
import os
import selectors
import socket
import subprocess
import time
from pathlib import Path

import pytest
from lsp_session import SERVER, make_home
from test_transport import TcpServer, assert_refused, tcp_options

from support.lsp_wire import EXIT, INITIALIZED, WAIT, frame, initialize, request
from teaminbox.server.transport import AUTH_FRAME, MAX_PENDING

TOKEN = "a-token-only-its-owner-reads"


def serve(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`teaminbox serve` that is expected to refuse to start."""
    env = {k: v for k, v in os.environ.items() if k != "TEAMINBOX_TOKEN"}
    env.update(HOME=str(tmp), XDG_DATA_HOME=str(tmp / "data"), XDG_RUNTIME_DIR=str(tmp / "run"))
    return subprocess.run(
        [*SERVER, *args], capture_output=True, text=True, timeout=60, env=env, check=False
    )


# --- the token file -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660, 0o666])
def test_token_file_others_may_read_is_refused(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    path.chmod(mode)
    done = serve(tmp_path, "--tcp", "127.0.0.1:0", "--token-file", str(path))
    assert done.returncode == 1, done
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr  # one line saying why, no traceback
    assert "UNPROTECTED TOKEN FILE" in lines[0] and f"{mode:04o}" in lines[0], lines
    assert "chmod 600" in lines[0] and "listening" not in done.stderr


def test_token_file_0600_is_used(tmp_path: Path) -> None:
    make_home(tmp_path)
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)
    server = TcpServer(tmp_path, "--token-file", str(path))
    try:
        sock, msgs = server.connect()
        sock.sendall(frame(initialize(1, tcp_options(tmp_path, token=TOKEN))))
        assert "result" in msgs.response(1)
        sock.sendall(frame(INITIALIZED, request(2, "teamInbox/teams")))
        assert len(msgs.response(2)["result"]["teams"]) == 2
        sock.shutdown(socket.SHUT_RDWR)  # the session's client left: the server ends
        sock.close()
        assert server.proc.wait(WAIT) == 0
        assert "UNPROTECTED" not in server.all_stderr()
    finally:
        server.close()


# --- the address --------------------------------------------------------------------------


def held_port() -> tuple[int, list[socket.socket]]:
    """A port this test listens on at 127.0.0.1 and, where there is IPv6, at ::1: a server
    that wrongly binds the same port on every address then fails instead of listening
    beyond loopback (these tests listen on loopback only, even when they fail)."""
    for _ in range(20):
        v4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        v4.bind(("127.0.0.1", 0))
        v4.listen()
        port = v4.getsockname()[1]
        if not socket.has_ipv6:
            return port, [v4]
        v6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        try:
            v6.bind(("::1", port))
            v6.listen()
            return port, [v4, v6]
        except OSError as err:
            v6.close()
            v4.close()
            if err.errno == errno.EADDRNOTAVAIL:  # no ::1 here
                pytest.skip("no IPv6 loopback to hold the port on")
    raise AssertionError("no port free on both 127.0.0.1 and ::1")


@pytest.mark.parametrize("host", ["0.0.0.0", "[::]"])
def test_every_address_needs_allow_remote(tmp_path: Path, host: str) -> None:
    port, held = held_port()
    try:
        done = serve(tmp_path, "--tcp", f"{host}:{port}")
    finally:
        for sock in held:
            sock.close()
    assert done.returncode == 2, done
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "--allow-remote" in lines[0], done.stderr
    assert "every address" in lines[0] and "listening" not in done.stderr


def test_allow_remote_is_documented_and_loopback_needs_none(tmp_path: Path) -> None:
    helped = serve(tmp_path, "--help")
    assert helped.returncode == 0 and "--allow-remote" in helped.stdout, helped
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    assert "--allow-remote" in readme
    assert serve(tmp_path, "--allow-remote").returncode == 2  # is for --tcp
    # Loopback by name or number listens without the flag (and without a warning).
    make_home(tmp_path)
    server = TcpServer(tmp_path, "--allow-remote", TEAMINBOX_TOKEN=TOKEN)
    try:
        assert "warning" not in server.announce, server.announce
    finally:
        server.close()


# --- strangers ------------------------------------------------------------------------------


def test_oversized_or_garbage_first_frame_closes_the_connection(tmp_path: Path) -> None:
    make_home(tmp_path)
    server = TcpServer(tmp_path, TEAMINBOX_TOKEN=TOKEN)
    try:
        sock, msgs = server.connect()
        sock.sendall(b"Content-Length: %d\r\n\r\n" % (AUTH_FRAME + 1))  # no body needed
        refused = assert_refused(msgs, "unauthorized")
        assert f"over {AUTH_FRAME}" in refused["error"]["message"], refused
        sock.close()
        sock, msgs = server.connect()
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        refused = assert_refused(msgs, "unauthorized")
        assert "not a header" in refused["error"]["message"], refused
        sock.close()
        # The real client after them is served.
        sock, msgs = server.connect()
        sock.sendall(frame(initialize(1, tcp_options(tmp_path, token=TOKEN))))
        assert "result" in msgs.response(1)
        sock.close()
    finally:
        server.close()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def half_send(port: int, n: int, head: bytes, body: bytes) -> list[socket.socket]:
    """`n` connections that each send `head` and `body`, the start of a first frame."""
    out = []
    for _ in range(n):
        sock = socket.create_connection(("127.0.0.1", port), timeout=WAIT)
        try:
            sock.sendall(head + body)
        except OSError:  # the server closed it already
            pass
        out.append(sock)
    return out


def closed_by_server(socks: list[socket.socket], want: int, timeout: float) -> int:
    """How many of `socks` the server has closed, waiting up to `timeout` for `want`."""
    sel = selectors.DefaultSelector()
    for sock in socks:
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ)
    closed = 0
    deadline = time.monotonic() + timeout
    while closed < want and time.monotonic() < deadline:
        for key, _ in sel.select(0.2):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:  # reset: closed with our bytes unread
                data = b""
            if not data:
                closed += 1
                sel.unregister(sock)
    sel.close()
    return closed


FLOOD = 300


def test_a_flood_of_half_sent_frames_holds_little(tmp_path: Path) -> None:
    make_home(tmp_path)
    server = TcpServer(tmp_path, TEAMINBOX_TOKEN=TOKEN)
    floods: list[socket.socket] = []
    try:
        pid = server.proc.pid
        before = rss_kb(pid)
        # Frames of 1,000,000 bytes (the old limit for a stranger was 1 MiB), half sent.
        big = half_send(server.port, FLOOD, b"Content-Length: 1000000\r\n\r\n", b"{" * 500_000)
        floods += big
        assert closed_by_server(big, FLOOD, WAIT) == FLOOD  # each header is over the limit
        after_big = rss_kb(pid)
        # Frames within the limit, half sent: only MAX_PENDING of them are kept.
        head = b"Content-Length: %d\r\n\r\n" % AUTH_FRAME
        small = half_send(server.port, FLOOD, head, b"{" * (AUTH_FRAME // 2))
        floods += small
        closed = closed_by_server(small, FLOOD - MAX_PENDING, WAIT)
        assert closed >= FLOOD - MAX_PENDING, closed
        after_small = rss_kb(pid)
        print(
            f"server RSS: {before} kB before, {after_big} kB after {FLOOD} half-sent"
            f" 1 MB frames, {after_small} kB after {FLOOD} half-sent {AUTH_FRAME} B frames;"
            f" {closed} of those closed, the cap is {MAX_PENDING}"
        )
        assert after_big - before < 50 * 1024, (before, after_big)
        assert after_small - before < 50 * 1024, (before, after_small)

        # The real client, while the flood's sockets are still open: served.
        sock, msgs = server.connect()
        sock.sendall(frame(initialize(1, tcp_options(tmp_path, token=TOKEN))))
        assert "result" in msgs.response(1)
        sock.sendall(frame(INITIALIZED, request(2, "teamInbox/teams")))
        assert len(msgs.response(2)["result"]["teams"]) == 2
        # More strangers while it is served are refused at once; it still is.
        late = half_send(server.port, 50, head, b"{" * 100)
        floods += late
        assert closed_by_server(late, 50, WAIT) == 50
        sock.sendall(frame(request(3, "teamInbox/teams")))
        assert len(msgs.response(3)["result"]["teams"]) == 2
        # And after the flood is gone.
        for s in floods:
            s.close()
        floods.clear()
        sock.sendall(frame(request(4, "teamInbox/teams")))
        assert len(msgs.response(4)["result"]["teams"]) == 2
        sock.sendall(frame(request(5, "shutdown")))
        assert msgs.response(5)["result"] is None
        sock.sendall(frame(EXIT))
        assert server.proc.wait(WAIT) == 0
        err = server.all_stderr()
        assert "Traceback" not in err, err[-2000:]
    finally:
        for s in floods:
            s.close()
        server.close()
