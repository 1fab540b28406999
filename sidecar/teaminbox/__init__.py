"""Team Inbox: read, send and watch agent-team inboxes without losing a message."""

import os
import sys

__version__ = "0.1.0"

# orjson is a compiled wheel: where this platform has none (or TEAMINBOX_NO_ORJSON=1, to
# test that path), a standard-library stand-in takes its name. Same bytes, only slower.
try:
    if os.environ.get("TEAMINBOX_NO_ORJSON") == "1":
        raise ImportError("orjson disabled by TEAMINBOX_NO_ORJSON")
    import orjson  # noqa: F401
except ImportError:
    from . import orjson_standin

    sys.modules["orjson"] = orjson_standin
