"""pygls over the core: loaded after the first answers (router.py), then it serves every
message, with the core's handlers registered as pygls features.

pygls's own messages (its errors, LSP notifications) keep its encoding; our results and
notifications go out as encoder.py frames them.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidRequest,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.json_rpc import (
    JsonRPCNotification,
    JsonRPCRequestMessage,
    JsonRPCResponseMessage,
)

from .. import __version__
from ..errors import TeamInboxError
from .core import Handler, TeamInboxServer, error_of
from .encoder import frame

log = logging.getLogger("teaminbox")


def plain_converter() -> cattrs.Converter:
    """Leave custom methods' params and results as plain dicts (pygls makes namedtuples)."""
    conv: cattrs.Converter = default_converter()  # type: ignore[no-untyped-call]

    def keep(obj: dict[str, Any], cls: type) -> Any:
        return cls(**obj)

    conv.register_structure_hook(JsonRPCRequestMessage, keep)
    conv.register_structure_hook(JsonRPCNotification, keep)
    conv.register_structure_hook(JsonRPCResponseMessage, keep)
    return conv


def rpc_error(err: TeamInboxError) -> JsonRpcException:
    error = error_of(err)
    return JsonRpcException(code=error["code"], message=error["message"], data=error["data"])


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
        res = self.writer.write(frame(plain))
        if inspect.isawaitable(res):
            asyncio.ensure_future(res)


class LspServer(LanguageServer):
    """pygls's server for one core: the handshake, shutdown and exit, and every request of
    the core's (`core.handlers`, registered by the features)."""

    def __init__(self, core: TeamInboxServer) -> None:
        super().__init__(
            "teaminbox",
            __version__,
            converter_factory=plain_converter,
            protocol_cls=TeamInboxProtocol,
        )
        self.core = core
        self.feature(types.INITIALIZE)(_initialize)
        self.feature(types.INITIALIZED)(_initialized)
        self.feature(types.SHUTDOWN)(_shutdown)
        for method, handler in core.handlers.items():
            self.feature(method)(_serve(handler))
        if core.writer is not None:
            self.protocol.set_writer(core.writer)

    def shutdown(self) -> None:  # the client is gone (or exit)
        self.core.shutdown()
        super().shutdown()  # type: ignore[no-untyped-call]


def _serve(handler: Handler) -> Any:
    async def run(ls: LspServer, raw: Any) -> Any:
        try:
            return await handler(raw)
        except TeamInboxError as err:
            raise rpc_error(err) from err

    return run


def _initialize(ls: LspServer, params: types.InitializeParams) -> None:
    try:
        ls.core.configure(params.initialization_options)
    except TeamInboxError as err:
        raise rpc_error(err) from err


async def _initialized(ls: LspServer, params: types.InitializedParams) -> None:
    await ls.core.ensure_ready()


async def _shutdown(ls: LspServer, params: Any) -> None:
    await ls.core.stop()


def handle(server: LspServer, raw: Any) -> None:
    """One message (parsed JSON) to pygls; one it cannot take is answered with an error."""
    protocol = server.protocol
    try:
        if not isinstance(raw, dict):
            raise JsonRpcInvalidRequest("a JSON-RPC message is an object")
        # The hook pygls passes to json.loads; only the outer object is a message.
        message = protocol.structure_message(raw)
        protocol.handle_message(message)
    except Exception as err:
        log.error("cannot handle a message from the client: %s", err)
        if isinstance(raw, dict) and "method" in raw and "id" in raw:
            exc = err if isinstance(err, JsonRpcException) else JsonRpcInternalError(str(err))
            protocol._send_response(raw["id"], None, exc.to_response_error())
