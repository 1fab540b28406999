"""What the other benches need of bench_server.Session beyond what it does (bench_server.py
is kept as it is: its figures are being rerun)."""

from __future__ import annotations

import time
from typing import Any

from bench_server import Session


def widen_start(s: Session, env: dict[str, str] | None = None, **options: Any) -> dict[str, float]:
    """Before s.start: spawn the server with `env` and add `options` to its
    initializationOptions. The dict returned gets the perf_counter of the spawn and of
    `initialize` sent and answered."""
    client = s.client
    start_io, initialize = client.start_io, client.initialize_async
    marks: dict[str, float] = {}

    async def spawn(*cmd: str) -> None:
        marks["spawn"] = time.perf_counter()
        await start_io(*cmd, env=env)

    async def init(params: Any) -> Any:
        params.initialization_options.update(options)
        marks["initialize"] = time.perf_counter()
        res = await initialize(params)
        marks["initialized"] = time.perf_counter()
        return res

    client.start_io = spawn  # type: ignore[method-assign]
    client.initialize_async = init  # type: ignore[method-assign]
    return marks


def listen(s: Session, method: str, handler: Any = None) -> None:
    """Handle a notification in place of Session's own handler (or none: ignore it)."""
    s.client.protocol.fm.features.pop(method, None)
    s.client.feature(method)(handler or (lambda ls, params: None))
