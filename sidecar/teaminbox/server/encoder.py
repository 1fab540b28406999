"""How a message leaves the server: a whole frame, encoded without recursion.

An inbox entry may nest 1,024 deep (jsonio.MAX_DEPTH) and is served as it is. pygls encodes
with cattrs and `json.dumps`, which both recurse and fail near Python's recursion limit: the
request then gets no answer at all. Our methods' results and notifications' params are plain
data already (core.py unstructures them), so they go to `jsonio.dumps_any` as they are:
orjson, and past what orjson takes `dumps_indented`, which has no depth limit. A result that
still cannot be encoded is answered with an internal error, never dropped.
"""

from __future__ import annotations

import logging
from typing import Any

from ..jsonio import dumps_any

log = logging.getLogger("teaminbox")
INTERNAL_ERROR = -32603  # JSON-RPC's


def internal_error(message: str) -> dict[str, Any]:
    return {"code": INTERNAL_ERROR, "message": message}


def frame(message: dict[str, Any]) -> bytes:
    """One JSON-RPC message (plain data) as LSP base-protocol bytes."""
    try:
        body = dumps_any(message)
    except Exception as err:  # noqa: BLE001 - a response must still be answered
        log.exception("cannot encode a message to the client")
        if "id" not in message:
            return b""
        error = internal_error(f"cannot encode the result: {err}")
        body = dumps_any({"jsonrpc": "2.0", "id": message["id"], "error": error})
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def response(msg_id: Any, result: Any = None, error: dict[str, Any] | None = None) -> bytes:
    """A response's frame: its result, or its error."""
    if error is not None:
        return frame({"jsonrpc": "2.0", "id": msg_id, "error": error})
    return frame({"jsonrpc": "2.0", "id": msg_id, "result": result})
