"""The JSON-RPC sidecar (`teaminbox serve`): a small core and feature modules (docs/protocol.md)."""

from __future__ import annotations

import logging
import os
import sys

from .core import TeamInboxServer


def build() -> TeamInboxServer:
    from .features import FEATURES

    server = TeamInboxServer()
    for feature in FEATURES:
        feature.setup(server)
    return server


def parse_tcp(spec: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:PORT`, or `:PORT` for 127.0.0.1); ValueError if it is not one."""
    host, sep, port = spec.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"--tcp {spec!r}: expected HOST:PORT")
    return host.strip("[]") or "127.0.0.1", int(port)


def serve(tcp: str | None = None, token_file: str | None = None) -> int:
    """Serve over stdio, or over TCP (one client with the token); the exit code."""
    from . import transport

    logging.basicConfig(
        level=os.environ.get("TEAMINBOX_LOG", "WARNING").upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )  # stderr: stdout carries the protocol
    import orjson

    from .. import __version__

    server = build()  # codecache is saved once pygls is loaded too (router.py)
    if tcp:
        host, port = parse_tcp(tcp)
        return transport.start_tcp(server, host, port, token_file)
    json = "stand-in (no orjson wheel: slower)" if getattr(orjson, "STANDIN", False) else "orjson"
    sys.stderr.write(f"teaminbox {__version__} sidecar, json: {json}\n")  # the editor's log
    return transport.start_io(server)


def serve_main() -> int:
    """`python -m teaminbox serve` (stdio), without the CLI's imports: its exit code, its
    errors said as the CLI says them."""
    from ..errors import TeamInboxError, os_error_text
    from ..termtext import visible

    try:
        return serve()
    except TeamInboxError as err:
        sys.stderr.write(visible(f"teaminbox: {err.message}") + "\n")
        return 1
    except OSError as err:
        sys.stderr.write(visible(f"teaminbox: {os_error_text(err)}") + "\n")
        return 1
    except KeyboardInterrupt:
        return 130


__all__ = ["TeamInboxServer", "build", "parse_tcp", "serve", "serve_main"]
