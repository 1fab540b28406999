"""How bytes reach the server: LSP framing that survives a bad frame, over stdio or TCP.

pygls's own reader (`pygls.io_.run_async`) never recovers from one bad frame
(garbage, `Content-Length: abc`, a length that lies) and allocates whatever a
Content-Length says. `Framer` cuts frames from the byte stream instead: a bad
frame is logged in one line and skipped up to the next `Content-Length:` header,
frames are capped at MAX_FRAME, and every later request is answered.

`--tcp` is for debugging, and any local process can connect to a port: the first
message must be `initialize` with `initializationOptions.token` (compared in
constant time), a TCP client may put the history only inside the user's data
folder, and one client is served at a time. The session ends when it disconnects.
A stranger costs little: its first frame may be at most AUTH_FRAME bytes (a bigger
Content-Length, or bytes that are no frame, close the connection), and at most
MAX_PENDING connections wait to authenticate (the next one closes the oldest). A token
file that others may read is refused, as ssh refuses such a key; an address other than
loopback needs `--allow-remote` (`cli/services.py`, with `loopback_problem`).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import os
import re
import secrets
import socket
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, BinaryIO

import platformdirs

from .. import codecache
from ..errors import TeamInboxError
from .core import TeamInboxServer
from .encoder import response
from .router import Router

log = logging.getLogger("teaminbox")

MAX_FRAME = 64 * 1024 * 1024  # a bigger Content-Length is refused, never allocated
MAX_HEADER = 8 * 1024  # a header block longer than this is garbage
READ_SIZE = 64 * 1024
SAVE_AFTER_START = 20.0  # seconds: then cattrs' code the first answers generated is kept
AUTH_SECONDS = 10.0  # a TCP connection must initialize with its token within this
AUTH_FRAME = 64 * 1024  # and in a frame no bigger than this (an initialize is ~1 KB)
MAX_PENDING = 8  # connections waiting to authenticate; one more closes the oldest
MAX_TOKEN_FILE = 4096
TOKEN_ENV = "TEAMINBOX_TOKEN"

_MARK = b"Content-Length:"
# A header line inside a body means the body's length lied: JSON has no raw CR/LF in
# strings and no bare word outside them, so a valid body never holds this.
_EMBEDDED = re.compile(rb"Content-Length:[ \t]*[0-9]+\r\n")
_HEADER_LINE = re.compile(rb"([!-9;-~]+):[ \t]*(.*?)[ \t]*")


class Framer:
    """LSP base-protocol frames (`Content-Length: N`, a blank line, N bytes) from a byte
    stream; after a bad frame, skips to the next `Content-Length:` header."""

    def __init__(self, limit: int = MAX_FRAME, report: Callable[[str], None] | None = None) -> None:
        self.buf = bytearray()
        self.limit = limit
        self._report = report or (lambda msg: log.error("%s", msg))
        self._lost = False  # inside a bad stretch: said once, until a good frame
        self._checked = 0  # the body in `buf` holds no header up to here

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Add bytes; yield the bodies of the frames they complete, one at a time (a
        body found bad before the next is taken is reported with the garbage after it)."""
        self.buf += data
        while (body := self._next()) is not None:
            yield body

    def bad(self, why: str) -> None:
        """A frame was cut but is no message (say, not JSON): report it once."""
        if not self._lost:
            self._lost = True
            self._report(f"bad frame from the client ({why}): skipped to the next header")

    def _drop(self, n: int) -> None:
        del self.buf[:n]
        self._checked = 0

    def _skip(self, why: str, start: int = 1) -> None:
        """Drop bytes up to the next `Content-Length:` at or after `start` (never none)."""
        self.bad(why)
        at = self.buf.find(_MARK, start)
        if at < 0:  # keep only what could begin a header split across reads
            keep = next(
                (n for n in range(len(_MARK) - 1, 0, -1) if self.buf.endswith(_MARK[:n])), 0
            )
            at = len(self.buf) - keep
        self._drop(at)

    def _next(self) -> bytes | None:
        while self.buf:
            end = self.buf.find(b"\r\n\r\n", 0, MAX_HEADER)
            if end < 0:
                if len(self.buf) >= MAX_HEADER:
                    self._skip(f"no header in {MAX_HEADER} bytes")
                    continue
                return None  # a header still arriving
            length, why = self._length(bytes(self.buf[:end]))
            if length is None:
                self._skip(why)
                continue
            start = end + 4
            stop = min(len(self.buf), start + length)
            lied = _EMBEDDED.search(self.buf, max(start, self._checked - 64), stop)
            if lied is not None:
                self._skip(
                    f"Content-Length {length}, but a new header after {lied.start() - start} bytes",
                    lied.start(),
                )
                continue
            self._checked = stop
            if len(self.buf) < start + length:
                return None  # the body still arriving
            body = bytes(self.buf[start : start + length])
            self._drop(start + length)
            self._lost = False
            return body
        return None

    def _length(self, block: bytes) -> tuple[int | None, str]:
        length: int | None = None
        for line in block.split(b"\r\n"):
            m = _HEADER_LINE.fullmatch(line)
            if m is None:
                return None, f"not a header: {line[:40]!r}"
            if m.group(1).lower() == b"content-length":
                value = m.group(2)
                if not value.isdigit():
                    return None, f"Content-Length {value[:40]!r} is not a number"
                if len(value) > 12 or int(value) > self.limit:
                    return None, f"Content-Length {value[:40].decode()} is over {self.limit}"
                length = int(value)
        if length is None:
            return None, "no Content-Length"
        return length, ""


def dispatch(router: Router, framer: Framer, body: bytes) -> None:
    """Route one frame's body; a body that is no JSON is reported."""
    try:
        raw = json.loads(body)
    except ValueError as err:  # not UTF-8, or not JSON: the length lied, or garbage
        framer.bad(f"{len(body)} bytes that are not JSON: {err}")
        return
    router.route(raw)


def error_frame(msg_id: Any, message: str, code: int = -32001, data: Any = None) -> bytes:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return response(msg_id, error=error)


# --- stdio ----------------------------------------------------------------------------


def start_io(server: TeamInboxServer, stdin: BinaryIO | None = None) -> int:
    """Serve over stdin/stdout until the client exits or closes stdin; the exit code."""
    router = Router(server)
    router.set_writer(_Stdout(sys.stdout.buffer))
    source = stdin or sys.stdin.buffer
    code = 0
    try:
        asyncio.run(_read_stdio(router, source))
    except BrokenPipeError:
        log.error("the client's end of stdout closed: stopping")
    except SystemExit as done:  # `exit` (after `shutdown`: 0)
        code = done.code if isinstance(done.code, int) else 0
    except KeyboardInterrupt:
        code = 130
    finally:
        router.shutdown()
    return code


async def _read_stdio(router: Router, source: BinaryIO) -> None:
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue(maxsize=4)

    read: Callable[[int], bytes]
    try:  # the fd itself: a daemon thread blocked in a BufferedReader holds its lock,
        fd = source.fileno()  # which the interpreter's exit then waits for in vain
        read = partial(os.read, fd)
    except (AttributeError, OSError, ValueError):
        read = getattr(source, "read1", source.read)

    def pump() -> None:  # a daemon thread: a read blocked in stdin never holds up exit
        while True:
            try:
                data = read(READ_SIZE)
            except (OSError, ValueError):
                data = b""
            try:
                asyncio.run_coroutine_threadsafe(chunks.put(data), loop).result()
            except RuntimeError:  # the loop is gone
                return
            if not data:
                return

    threading.Thread(target=pump, name="teaminbox-stdin", daemon=True).start()
    loop.call_later(SAVE_AFTER_START, codecache.save)
    framer = Framer()
    try:
        while data := await chunks.get():
            for body in framer.feed(data):
                dispatch(router, framer, body)
        await router.drain()
    finally:  # `exit`, or the client gone: before the loop closes, `shutdown` or not
        router.core.halt()


# --- TCP ------------------------------------------------------------------------------


def data_dir() -> str:
    """Where the history lives by default; a TCP client may put it nowhere else."""
    return platformdirs.user_data_dir("teaminbox", appauthor=False)


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([path, folder]) == folder


def given_token(token_file: str | None) -> str | None:
    """The token from --token-file, else TEAMINBOX_TOKEN; None: make one."""
    if token_file:
        return read_token_file(token_file)
    return os.environ.get(TOKEN_ENV, "").strip() or None


def read_token_file(path: str) -> str:
    """The token in `path`, which must be a regular file only its owner (you) may read or
    write: like ssh's "UNPROTECTED PRIVATE KEY FILE", anything else is refused."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not hang the start
    try:
        st = os.fstat(fd)  # the file opened, not whatever the path names a moment later
        if not stat.S_ISREG(st.st_mode):
            raise TeamInboxError(f"--token-file {path} is not a regular file", path=path)
        if os.name == "posix":
            mode = stat.S_IMODE(st.st_mode)
            if mode & 0o077:
                raise TeamInboxError(
                    f"UNPROTECTED TOKEN FILE: permissions {mode:04o} for {path} are too open"
                    f" (others may read or change it): the token is refused; chmod 600 {path}",
                    path=path,
                )
            if st.st_uid != os.getuid():
                raise TeamInboxError(
                    f"UNPROTECTED TOKEN FILE: {path} belongs to uid {st.st_uid}, not to you"
                    f" (uid {os.getuid()}): the token is refused",
                    path=path,
                )
        data = os.read(fd, MAX_TOKEN_FILE + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_TOKEN_FILE:
        raise TeamInboxError(f"--token-file {path} is over {MAX_TOKEN_FILE} bytes", path=path)
    token = data.decode("utf-8", "replace").strip()
    if not token:
        raise TeamInboxError(f"{path} holds no token", path=path)
    return token


def loopback_problem(host: str, port: int) -> str | None:
    """Why `host` is not only this machine's loopback (None: it is). A name counts as
    loopback when every address it resolves to is; ValueError if it resolves to none."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        reason = getattr(err, "strerror", None) or err
        raise ValueError(f"--tcp {host}:{port}: {host} does not resolve: {reason}") from None
    addresses = sorted({str(info[4][0]) for info in infos})
    for address in addresses:
        named = host if address == host else f"{host} ({address})"
        try:
            ip = ipaddress.ip_address(address.partition("%")[0])
        except ValueError:
            return f"{named} is not a loopback address"
        if ip.is_unspecified:
            return f"{named} is every address of this machine"
        if not ip.is_loopback:
            return f"{named} is not a loopback address"
    if not addresses:
        raise ValueError(f"--tcp {host}:{port}: {host} resolves to no address")
    return None


def write_token(token: str, port: int) -> str:
    """A new token, 0600 in a 0700 folder: the runtime dir if there is one, else data."""
    runtime = platformdirs.user_runtime_dir("teaminbox", appauthor=False)
    folder = runtime if os.path.isdir(os.path.dirname(runtime)) else data_dir()
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, f"tcp-{port}.token")
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, token.encode() + b"\n")
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return path


class _Stdout:
    """pygls's writer for stdout; `exit` closes it for pygls, not for the interpreter."""

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.closed = False

    def write(self, data: bytes) -> None:
        if not self.closed:
            self.out.write(data)
            self.out.flush()

    def close(self) -> None:
        self.closed = True


class _ConnWriter:
    """pygls's writer for the one authenticated connection."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    def write(self, data: bytes) -> None:
        if not self.writer.is_closing():
            self.writer.write(data)

    def close(self) -> None:
        self.writer.close()


class TcpServer:
    def __init__(self, router: Router, token: str) -> None:
        self.router = router
        self.token = token
        self.session: asyncio.StreamWriter | None = None
        self.listener: asyncio.Server | None = None
        self.done = asyncio.Event()
        self.pending: dict[asyncio.StreamWriter, None] = {}  # not authenticated yet, oldest first
        self.exit_code = 0

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        try:
            if self.session is not None:
                await self.refuse(writer, None, "another client is connected: one at a time")
                return
            self._make_room()
            self.pending[writer] = None
            bad: list[str] = []
            authed = False

            def report(msg: str) -> None:
                if authed:
                    log.error("%s", msg)
                else:
                    bad.append(msg)

            framer = Framer(limit=AUTH_FRAME, report=report)  # a stranger gets no 64 MiB
            loop = asyncio.get_running_loop()
            deadline = loop.time() + AUTH_SECONDS
            while True:
                try:
                    left = None if authed else max(0.0, deadline - loop.time())
                    data = await asyncio.wait_for(reader.read(READ_SIZE), left)
                except asyncio.TimeoutError:
                    await self.refuse(writer, None, "no initialize with a token in time")
                    return
                if not data or not (authed or writer in self.pending):  # or closed as oldest
                    return
                for body in framer.feed(data):
                    if authed:
                        dispatch(self.router, framer, body)
                    elif bad:
                        break
                    elif not await self.authenticate(writer, body):
                        return
                    else:
                        authed, framer.limit = True, MAX_FRAME
                        self.pending.pop(writer, None)
                if bad and not authed:  # before the token, a bad frame ends the connection
                    why = bad[0].partition(": skipped")[0]
                    await self.refuse(writer, None, f"{why}, before initialize with the token")
                    return
        except ConnectionError:
            return
        except SystemExit as done:  # `exit`: from here asyncio would log it as a crash
            self.exit_code = done.code if isinstance(done.code, int) else 0
            self.done.set()
        finally:
            self.pending.pop(writer, None)
            if self.session is writer:  # the session is over: so is the server
                log.info("the TCP client %s left: stopping", peer)
                self.done.set()
            elif not writer.is_closing():
                writer.close()

    def _make_room(self) -> None:
        """At MAX_PENDING connections waiting for their token, close the oldest: a flood
        of half-sent frames holds little memory, and a real client still gets in."""
        while len(self.pending) >= MAX_PENDING:
            writer = next(iter(self.pending))
            del self.pending[writer]
            why = f"{MAX_PENDING} connections wait to authenticate: the oldest is closed"
            log.error("refused a TCP client %s: %s", writer.get_extra_info("peername"), why)
            if not writer.is_closing():
                writer.write(error_frame(None, f"teaminbox: {why}", data={"code": "unauthorized"}))
            # Its reader then sees the end of the stream. Not task.cancel(): 3.11's wait_for
            # swallows a cancel that meets a completed read.
            writer.close()

    async def authenticate(self, writer: asyncio.StreamWriter, body: bytes) -> bool:
        """The first message: `initialize` with the token. Handled (True) or refused."""
        try:
            raw = json.loads(body)
        except ValueError:
            raw = None
        msg = raw if isinstance(raw, dict) else {}
        msg_id = msg.get("id")
        params = msg.get("params")
        opts = params.get("initializationOptions") if isinstance(params, dict) else None
        token = opts.pop("token", None) if isinstance(opts, dict) else None
        if msg.get("method") != "initialize" or msg_id is None:
            await self.refuse(writer, msg_id, "send initialize with initializationOptions.token")
            return False
        if not isinstance(token, str) or not hmac.compare_digest(
            token.encode("utf-8", "surrogatepass"), self.token.encode()
        ):
            await self.refuse(writer, msg_id, "wrong or missing initializationOptions.token")
            return False
        history = opts.get("historyPath") if isinstance(opts, dict) else None
        if isinstance(history, str) and not _inside(history, data_dir()):
            await self.refuse(
                writer,
                msg_id,
                f"historyPath {history} is not inside {data_dir()} (the limit for TCP clients)",
                code=-32602,
                data={"code": "invalid_params"},
            )
            return False
        if self.session is not None:
            await self.refuse(writer, msg_id, "another client is connected: one at a time")
            return False
        self.session = writer
        self.router.set_writer(_ConnWriter(writer))
        self.router.route(raw)
        return True

    async def refuse(
        self,
        writer: asyncio.StreamWriter,
        msg_id: Any,
        why: str,
        code: int = -32001,
        data: Any = None,
    ) -> None:
        self.pending.pop(writer, None)  # being closed: no longer waits for its token
        log.error("refused a TCP client %s: %s", writer.get_extra_info("peername"), why)
        writer.write(
            error_frame(msg_id, f"teaminbox: {why}", code, data or {"code": "unauthorized"})
        )
        try:
            await asyncio.wait_for(writer.drain(), 2)
        except (ConnectionError, asyncio.TimeoutError):
            pass
        writer.close()

    async def run(self, host: str, port: int, announce: Callable[[int], None]) -> None:
        self.listener = await asyncio.start_server(self.connection, host, port)
        bound = self.listener.sockets[0].getsockname()[1]
        announce(bound)
        asyncio.get_running_loop().call_later(SAVE_AFTER_START, codecache.save)
        try:
            async with self.listener:
                await self.done.wait()
        finally:  # the client left, or `exit`: before the loop closes, `shutdown` or not
            self.router.core.halt()


def start_tcp(server: TeamInboxServer, host: str, port: int, token_file: str | None = None) -> int:
    """Serve one authenticated TCP client at a time; ends when that client leaves."""
    given = given_token(token_file)
    token = given or secrets.token_urlsafe(32)
    written: list[str] = []
    router = Router(server)
    router.load_now()

    def announce(bound: int) -> None:
        where = ""
        if given is None:
            written.append(write_token(token, bound))
            where = f"; the token is in {written[0]}"
        print(
            f"teaminbox: listening on {host}:{bound}{where}"
            " (send it as initializationOptions.token)",
            file=sys.stderr,
            flush=True,
        )

    tcp = TcpServer(router, token)
    code = 0
    try:
        asyncio.run(tcp.run(host, port, announce))
        code = tcp.exit_code
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 0
    except KeyboardInterrupt:
        code = 130
    finally:
        router.shutdown()
        for path in written:
            try:
                os.unlink(path)
            except OSError:
                pass
    return code
