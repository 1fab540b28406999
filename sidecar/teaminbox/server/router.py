"""Who answers a message: the core itself until pygls is loaded, pygls from then on.

pygls and lsprotocol are most of a start (their import ~120 ms of ~330 ms CPU here), and
the first answers need neither: the extension sends `initialize`, waits for its answer,
then sends `initialized` and asks `teamInbox/teams`. So the router answers `initialize`
itself (the result pygls gives: tests/unit/test_router.py compares them), starts the core
as it answers, and answers the core's requests (`core.handlers`) itself. A second after
the first answer, or as soon as a message only pygls serves arrives (`shutdown`, `exit`, a
cancel, a method nobody has), pygls is imported on a pool thread, and it serves every later
message; those that came for it meanwhile are handed to it in order.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from typing import TYPE_CHECKING, Any

from .. import __version__, codecache
from ..errors import InvalidParams, TeamInboxError
from .core import Handler, TeamInboxServer, Writer, error_of
from .encoder import internal_error, response

if TYPE_CHECKING:
    from .lsp import LspServer

log = logging.getLogger("teaminbox")

# What pygls answers `initialize` with for this server (its capabilities are LSP's defaults:
# the server has no LSP feature); test_router.py checks it against pygls's own answer.
CAPABILITIES: dict[str, Any] = {
    "positionEncoding": "utf-16",
    "textDocumentSync": {"openClose": True, "change": 2, "save": False},
    "executeCommandProvider": {"commands": []},
    "workspace": {
        "workspaceFolders": {"supported": True, "changeNotifications": True},
        "fileOperations": {},
    },
}


# Seconds from the first answer to pygls's import, unless a message needs pygls before. A
# window's first start renders the answer meanwhile, and the follow-up requests (an inbox's
# messages) are the core's own.
LOAD_AFTER = 1.0


def initialize_result() -> dict[str, Any]:
    return {
        "capabilities": CAPABILITIES,
        "serverInfo": {"name": "teaminbox", "version": __version__},
    }


class Router:
    def __init__(self, core: TeamInboxServer) -> None:
        self.core = core
        self.lsp: LspServer | None = None
        self._handle: Any = None  # lsp.handle, once loaded
        self._held: list[Any] = []  # messages for pygls, before it is loaded
        self._loading: asyncio.Future[None] | None = None
        self._broken = ""  # why pygls did not load: the core serves alone from then on
        self._shut_down = False
        self._stopping: asyncio.Future[None] | None = None
        self._later: asyncio.TimerHandle | None = None

    def set_writer(self, writer: Writer) -> None:
        self.core.writer = writer
        if self.lsp is not None:
            self.lsp.protocol.set_writer(writer)

    def route(self, raw: Any) -> None:
        """One message (parsed JSON), on the event loop."""
        if self.lsp is not None:
            self._handle(self.lsp, raw)
            return
        msg = raw if isinstance(raw, dict) else {}
        method = msg.get("method")
        asked = "id" in msg
        params = msg.get("params")
        if method == "initialize" and asked:
            self._initialize(msg["id"], params)
        elif method == "initialized" and not asked:
            self.core.spawn(self._start())
        elif asked and isinstance(method, str) and method in self.core.handlers:
            self.core.spawn(self._answer(msg["id"], self.core.handlers[method], params))
        elif self._broken:
            self._without_pygls(msg)
        else:
            self._held.append(raw)
            self.load()

    def _respond(
        self, msg_id: Any, result: Any = None, error: dict[str, Any] | None = None
    ) -> None:
        if self.core.writer is not None:
            self.core.writer.write(response(msg_id, result, error))

    def _initialize(self, msg_id: Any, params: Any) -> None:
        try:
            if not isinstance(params, dict):
                raise InvalidParams("initialize: params must be an object")
            self.core.configure(params.get("initializationOptions"))
        except TeamInboxError as err:
            self._respond(msg_id, error=error_of(err))
            return
        self._respond(msg_id, initialize_result())
        # the core starts now, not at `initialized`: the answer's trip to a busy extension
        # host and back (it is activating) would otherwise come before the watch and the scan
        self.core.spawn(self._start())

    async def _start(self) -> None:
        try:
            await self.core.ensure_ready()
        except Exception:  # the next request tries again (ensure_ready)
            log.exception("the server did not start")

    async def _answer(self, msg_id: Any, handler: Handler, params: Any) -> None:
        try:
            result = await handler(params)
        except TeamInboxError as err:
            self._respond(msg_id, error=error_of(err))
        except Exception as err:
            log.exception("request %r failed", msg_id)
            self._respond(msg_id, error=internal_error(f"{type(err).__name__}: {err}"))
        else:
            self._respond(msg_id, result)
        finally:
            if self._later is None and self.lsp is None:
                # the first answer is out: pygls a little later, when the window has drawn it
                # (on two cores its import competes with the render); at once if asked for
                self._later = asyncio.get_running_loop().call_later(LOAD_AFTER, self.load)

    def load(self) -> None:
        """Import pygls on a pool thread (the event loop answers meanwhile), then hand over."""
        if self._later is not None:
            self._later.cancel()
        if self._loading is None and self.lsp is None:
            codecache.mark_first()  # the codes used so far are read at every start, the rest later
            self._loading = asyncio.ensure_future(self._load())

    async def _load(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            module = await loop.run_in_executor(self.core.pool, _lsp)
        except Exception as err:  # a broken install: the core goes on serving its own requests
            log.exception("pygls did not load")
            loop.call_soon(self._fail, f"pygls did not load: {type(err).__name__}: {err}")
            return
        # a callback, not this task: pygls's `exit` raises SystemExit, which then ends the loop
        # as it does from any message, not as a task's exception nobody retrieved
        loop.call_soon(self._hand_over, module)

    def _fail(self, why: str) -> None:
        self._broken = why
        held, self._held = self._held, []
        for raw in held:
            self._without_pygls(raw if isinstance(raw, dict) else {})

    def _without_pygls(self, msg: dict[str, Any]) -> None:
        """What pygls would have served, once it cannot load: the lifecycle as LSP says, an
        error for any other request (none is left waiting), other notifications dropped."""
        method = msg.get("method")
        if method == "exit":
            raise SystemExit(0 if self._shut_down else 1)
        if "id" not in msg:
            return
        if method == "shutdown":
            self._shut_down = True
            # not core.spawn: core.stop() cancels the core's own tasks
            self._stopping = asyncio.ensure_future(self._stop(msg["id"]))
        else:
            self._respond(msg["id"], error=internal_error(self._broken))

    async def _stop(self, msg_id: Any) -> None:
        await self.core.stop()  # as pygls's `shutdown` does (lsp.py)
        self._respond(msg_id, None)

    async def drain(self) -> None:
        """The client is gone: what it sent for pygls is served still (say, `exit`'s code)."""
        if self._held and self._loading is not None:
            await self._loading
            await asyncio.sleep(0)  # the hand-over's callback runs

    def load_now(self) -> None:
        """pygls at once (TCP: no hurry to start, one path)."""
        if self.lsp is None:
            self._hand_over(_lsp())

    def _hand_over(self, module: Any) -> None:
        self.lsp = module.LspServer(self.core)
        self._handle = module.handle
        codecache.save()  # every class is defined by now: lsprotocol's code for the next start
        held, self._held = self._held, []
        for raw in held:
            self._handle(self.lsp, raw)

    def shutdown(self) -> None:
        if self.lsp is not None:
            self.lsp.shutdown()
        else:
            self.core.shutdown()


def _lsp() -> Any:
    return importlib.import_module(f"{__package__}.lsp")
