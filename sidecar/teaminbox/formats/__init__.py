"""Shared JSON plumbing for the per-format modules (claude.py, pseudoclaude.py).

orjson parses a 27 MB inbox several times faster than the standard library;
the standard library is the fallback for what orjson refuses (huge ints,
lone surrogates), so a file that JSON.parse accepts is never called corrupt.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from typing import TYPE_CHECKING, Any, Protocol

import attrs
import orjson

from ..errors import CorruptInbox

if TYPE_CHECKING:
    from ..frames import Frame
    from ..model import Format, Message


@attrs.define
class EntryProblem:
    """One invalid entry in an otherwise good inbox: reported and skipped."""

    index: int
    reason: str


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads(data: bytes, path: str) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as fast_err:
        try:
            return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
        except UnicodeDecodeError as err:
            raise CorruptInbox(f"{path}: not UTF-8 at byte {err.start}", path=path) from err
        except json.JSONDecodeError as err:
            raise CorruptInbox(
                f"{path}: invalid JSON at line {err.lineno} column {err.colno}"
                f" (byte {err.pos}): {err.msg}",
                path=path,
            ) from err
        except ValueError as err:
            raise CorruptInbox(f"{path}: {err} ({fast_err})", path=path) from err


def dumps_indented(value: Any) -> bytes:
    """JSON with 2-space indentation, laid out as JavaScript's JSON.stringify(v, null, 2)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except TypeError:
        # Ints beyond 64 bits or lone surrogates: the standard library copes.
        return json.dumps(value, indent=2, ensure_ascii=True).encode("ascii")


def short_hash(*parts: str) -> str:
    h = hashlib.sha256("|".join(parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()[:16]


def canonical(entry: dict[str, Any], drop: tuple[str, ...] = ()) -> str:
    kept = {k: v for k, v in entry.items() if k not in drop}
    try:
        return orjson.dumps(kept, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:
        return json.dumps(kept, sort_keys=True)


def skip_space_back(data: bytes, pos: int) -> int:
    """The index just past the last non-whitespace byte before `pos` (no copy of `data`)."""
    while pos > 0 and data[pos - 1] in b" \t\r\n":
        pos -= 1
    return pos


def opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class InboxFormat(Protocol):
    """What store, discovery and server need of a format."""

    name: Format

    def empty(self) -> Any: ...
    def parse(self, data: bytes, path: str) -> tuple[Any, list[Any]]: ...
    def entries(self, doc: Any) -> list[Any]: ...
    def invalid(self, entry: Any) -> str | None: ...
    def entry_id(self, entry: dict[str, Any], index: int) -> str: ...
    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message: ...
    def entry_spans(self, data: bytes, start: int = 0) -> tuple[array[int], array[int]] | None: ...
    def serialize(self, doc: Any) -> bytes: ...
    def append_bytes(self, data: bytes, new_entries: list[dict[str, Any]]) -> bytes | None: ...
    def new_entry(
        self,
        *,
        sender: str,
        recipient: str,
        text: str,
        summary: str | None = None,
        type: str | None = None,
        color: str | None = None,
        payload: dict[str, Any] | None = None,
    ) -> dict[str, Any]: ...
    def frame(self, frame: Frame) -> tuple[str, dict[str, Any]]: ...


def get(name: str) -> InboxFormat:
    """The format object for a format name."""
    from .claude import CLAUDE
    from .pseudoclaude import PSEUDOCLAUDE

    formats: dict[str, InboxFormat] = {"claude": CLAUDE, "pseudoclaude": PSEUDOCLAUDE}
    return formats[name]
