"""How a message leaves the server: pygls's protocol, our own messages encoded without recursion.

An inbox entry may nest 1,024 deep (jsonio.MAX_DEPTH) and is served as it is. pygls encodes
with cattrs and `json.dumps`, which both recurse and fail near Python's recursion limit: the
request then gets no answer at all. Our methods' results and notifications' params are plain
data already (core.py unstructures them), so those go to `jsonio.dumps_any` as they are:
orjson, and past what orjson takes `dumps_indented`, which has no depth limit. pygls's own
LSP messages keep pygls's path.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

import attrs
from pygls.exceptions import JsonRpcInternalError
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCResponseMessage

from ..jsonio import dumps_any

log = logging.getLogger("teaminbox")


class TeamInboxProtocol(LanguageServerProtocol):
    def _send_data(self, data: Any) -> None:
        if type(data) is JsonRPCResponseMessage and not attrs.has(type(data.result)):
            plain = {"jsonrpc": data.jsonrpc, "id": data.id, "result": data.result}
        elif type(data) is JsonRPCNotification and not attrs.has(type(data.params)):
            plain = {"jsonrpc": data.jsonrpc, "method": data.method, "params": data.params}
        else:  # pygls's own (initialize's result, errors, LSP notifications)
            super()._send_data(data)
            return
        if self.writer is None:
            return
        try:
            body = dumps_any(plain)
        except Exception as err:  # noqa: BLE001 - a response must still be answered
            log.exception("cannot encode a message to the client")
            if "id" in plain:
                error = JsonRpcInternalError(f"cannot encode the result: {err}")
                self._send_response(plain["id"], None, error.to_response_error())
            return
        res = self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        if inspect.isawaitable(res):
            asyncio.ensure_future(res)
