"""Team Inbox: read, send and watch agent-team inboxes without losing a message."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not loaded for this package's start
    from typing import Any

__version__ = "0.1.0"


class _Orjson:
    """`import orjson`, wherever it is first done: the compiled wheel, else (this platform
    has none, or TEAMINBOX_NO_ORJSON=1, to test that path) the standard-library stand-in.
    Same bytes, only slower. Decided at that first import, not at this package's: the
    record hook, which an agent waits for on every send, never loads either."""

    _found: dict[str, Any] = {}

    @classmethod
    def find_spec(cls, name: str, path: object = None, target: object = None) -> Any:
        if name != "orjson" or cls not in sys.meta_path:
            return None
        sys.meta_path.remove(cls)  # once: the module is then in sys.modules
        from importlib.machinery import ModuleSpec  # noqa: PLC0415

        return ModuleSpec(name, cls)  # type: ignore[arg-type]

    @classmethod
    def create_module(cls, spec: Any) -> Any:
        if os.environ.get("TEAMINBOX_NO_ORJSON") != "1":
            import importlib  # noqa: PLC0415

            try:
                module = importlib.import_module("orjson")  # this finder is out of the way
            except ImportError:
                pass
            else:
                cls._found["spec"] = module.__spec__
                return module
        from . import orjson_standin  # noqa: PLC0415

        cls._found["spec"] = orjson_standin.__spec__
        return orjson_standin

    @classmethod
    def exec_module(cls, module: Any) -> None:
        module.__spec__ = cls._found.pop("spec", module.__spec__)  # its own, not this finder's


if "orjson" not in sys.modules:
    sys.meta_path.insert(0, _Orjson)
