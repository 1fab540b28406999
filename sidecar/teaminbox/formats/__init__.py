"""Shared JSON plumbing for the per-format modules (claude.py, pseudoclaude.py).

orjson parses a 27 MB inbox several times faster than the standard library;
the standard library is the fallback for what orjson refuses (huge ints,
lone surrogates), so a file that JSON.parse accepts is never called corrupt.
"""

from __future__ import annotations

import hashlib
import json
import re
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


_INDEX_KEY = re.compile(r"(?:^|\x00)(?:0|[1-9][0-9]{0,9})(?:\x00|$)")
_PLAIN = (str, bool, int, type(None))


def _is_index(key: str) -> bool:
    """A key JavaScript treats as an array index: it lists those first, ascending."""
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or key[0] != "0")
        and int(key) < 4_294_967_295
    )


def js_order(value: Any) -> Any:
    """`value` as JavaScript holds it after JSON.parse: index-like keys first, ascending, and
    integral floats as integers. Returns `value` itself when nothing changes (the usual case,
    checked at C speed: a 10,000-entry inbox costs a few ms)."""
    kind = type(value)
    if kind is dict:
        new = None
        for k, v in value.items():
            if type(v) in _PLAIN:
                continue
            w = js_order(v)
            if w is not v:
                new = dict(value) if new is None else new
                new[k] = w
        out = value if new is None else new
        if _INDEX_KEY.search("\x00".join(out)):
            keys = sorted((k for k in out if _is_index(k)), key=int)
            out = {
                **{k: out[k] for k in keys},
                **{k: v for k, v in out.items() if not _is_index(k)},
            }
        return out
    if kind is list:
        new_list = None
        for i, v in enumerate(value):
            if type(v) in _PLAIN:
                continue
            w = js_order(v)
            if w is not v:
                new_list = list(value) if new_list is None else new_list
                new_list[i] = w
        return value if new_list is None else new_list
    if kind is float and value.is_integer() and abs(value) < 1e21:  # JS prints these as integers
        return int(value)
    return value


def dumps_indented(value: Any) -> bytes:
    """JSON with 2-space indentation, byte for byte as JavaScript's JSON.stringify(v, null, 2)."""
    value = js_order(value)
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
