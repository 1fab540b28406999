"""The JSON-RPC sidecar (`teaminbox serve`): a small core and feature modules (docs/protocol.md)."""

from __future__ import annotations

import logging
import os

from .core import TeamInboxServer, plain_converter


def build() -> TeamInboxServer:
    from .features import FEATURES

    server = TeamInboxServer()
    for feature in FEATURES:
        feature.setup(server)
    return server


def serve(tcp: str | None = None) -> None:
    logging.basicConfig(
        level=os.environ.get("TEAMINBOX_LOG", "WARNING").upper(),
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )  # stderr: stdout carries the protocol
    server = build()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()


__all__ = ["TeamInboxServer", "build", "plain_converter", "serve"]
