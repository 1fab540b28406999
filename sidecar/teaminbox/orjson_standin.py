"""The part of orjson's API the sidecar uses, on the standard library.

orjson is a compiled wheel per platform; where none loads (a platform the
.vsix carries no wheel for) this stands in, so the sidecar runs everywhere and
only parses more slowly. Files are written byte for byte the same: the inbox
serializer takes its JavaScript-exact path when `STANDIN` is set.
"""

from __future__ import annotations

import json
from typing import Any

STANDIN = True
OPT_INDENT_2 = 1
OPT_SORT_KEYS = 1 << 5
JSONDecodeError = json.JSONDecodeError


def _reject(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    if not isinstance(data, str):
        raw = bytes(data)
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError as err:  # orjson says so as a JSONDecodeError
            doc = raw.decode("utf-8", "replace")
            raise JSONDecodeError(f"not UTF-8: {err.reason}", doc, err.start) from err
    try:
        return json.loads(data, parse_constant=_reject)
    except RecursionError as err:  # orjson: "recursion limit reached"
        raise JSONDecodeError("nested too deep", data, 0) from err
    except ValueError as err:
        if isinstance(err, JSONDecodeError):
            raise
        raise JSONDecodeError(str(err), data, 0) from err


def dumps(value: Any, option: int = 0) -> bytes:
    """Compact (or 2-space indented) UTF-8 JSON; TypeError for what orjson refuses."""
    try:
        text = json.dumps(
            value,
            ensure_ascii=False,
            allow_nan=False,
            sort_keys=bool(option & OPT_SORT_KEYS),
            indent=2 if option & OPT_INDENT_2 else None,
            separators=(",", ": ") if option & OPT_INDENT_2 else (",", ":"),
        )
        return text.encode("utf-8")
    except (ValueError, UnicodeEncodeError, RecursionError) as err:
        raise TypeError(str(err)) from err
