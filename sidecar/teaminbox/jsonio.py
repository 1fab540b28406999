"""JSON as the peers read and write it: parsing as JSON.parse does, serializing as
JSON.stringify does (Node's key order, number spelling, indentation).

orjson parses a 27 MB inbox several times faster than the standard library;
the standard library is the fallback for what orjson refuses (huge ints,
lone surrogates), so a file that JSON.parse accepts is never called corrupt.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import orjson

from .errors import CorruptInbox
from .termtext import json_text


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# Deeper than this, an inbox is corrupt. orjson stops at the same depth; Node's JSON.parse
# reads deeper but its JSON.stringify overflows at about 4,175 levels, and the values would
# break every recursive consumer downstream (orjson.dumps stops at 255).
MAX_DEPTH = 1024


def loads(data: bytes, path: str, max_depth: int = MAX_DEPTH) -> Any:
    """Parse an inbox as JSON.parse would; anything else is CorruptInbox, never another error.

    orjson first (fast), the standard library for what orjson refuses (lone
    surrogates, huge ints), and an iterative parser when that one recurses too deep.
    `max_depth` may be raised (not lowered) for documents that wrap an inbox's entries.
    """
    try:
        return orjson.loads(data)
    except (orjson.JSONDecodeError, RecursionError) as fast_err:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise CorruptInbox(f"{path}: not UTF-8 at byte {err.start}", path=path) from err
        try:
            try:
                return json.loads(text, parse_constant=_reject_constant)
            except RecursionError:
                return _loads_iterative(text, max_depth)
        except _TooDeep as err:
            raise CorruptInbox(
                f"{path}: nested deeper than {max_depth} levels at line {err.lineno}"
                f" column {err.colno} (byte {err.pos})",
                path=path,
            ) from None
        except json.JSONDecodeError as err:
            raise CorruptInbox(
                f"{path}: invalid JSON at line {err.lineno} column {err.colno}"
                f" (byte {err.pos}): {err.msg}",
                path=path,
            ) from err
        except ValueError as err:
            raise CorruptInbox(f"{path}: {err} ({fast_err})", path=path) from err


class _TooDeep(json.JSONDecodeError):
    pass


def parse_text(text: str) -> Any:
    """A string as JSON.parse reads it: whitespace around it, lone surrogates, any depth up
    to MAX_DEPTH. ValueError where JSON.parse would throw."""
    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        pass
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        return _loads_iterative(text, MAX_DEPTH)


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_scanstring: Any = vars(json.decoder)["scanstring"]  # the C scanner when available


def _ws(s: str, pos: int) -> int:
    """Past the whitespace at `pos`."""
    m = _WS.match(s, pos)
    return m.end() if m else pos


def _loads_iterative(s: str, max_depth: int) -> Any:
    """json.loads with an explicit stack: any depth up to `max_depth`, no recursion."""
    stack: list[Any] = []  # open containers
    keys: list[str | None] = []  # the pending key of each open object (None: an array)
    pos = _ws(s, 0)
    while True:
        # one value at `pos`
        c = s[pos : pos + 1]
        if c in ("{", "["):
            if len(stack) >= max_depth:
                raise _TooDeep("too deep", s, pos)
            pos = _ws(s, pos + 1)
            close = "}" if c == "{" else "]"
            if s[pos : pos + 1] == close:
                value: Any = {} if c == "{" else []
                pos += 1
            elif c == "[":
                stack.append([])
                keys.append(None)
                continue
            else:
                stack.append({})
                key, pos = _key(s, pos)
                keys.append(key)
                continue
        elif c == '"':
            value, pos = _scanstring(s, pos + 1, True)
        elif (m := _NUMBER.match(s, pos)) is not None:
            text = m.group()
            value = float(text) if m.group(1) or m.group(2) else int(text)
            pos = m.end()
        elif s.startswith("null", pos):
            value, pos = None, pos + 4
        elif s.startswith("true", pos):
            value, pos = True, pos + 4
        elif s.startswith("false", pos):
            value, pos = False, pos + 5
        else:
            raise json.JSONDecodeError("Expecting value", s, pos)
        # hand the value to its container; close the containers that end here
        while True:
            if not stack:
                pos = _ws(s, pos)
                if pos != len(s):
                    raise json.JSONDecodeError("Extra data", s, pos)
                return value
            top, slot = stack[-1], keys[-1]
            if slot is None:
                top.append(value)
            else:
                top[slot] = value
            pos = _ws(s, pos)
            c = s[pos : pos + 1]
            if c == ",":
                pos = _ws(s, pos + 1)
                if slot is not None:
                    keys[-1], pos = _key(s, pos)
                break
            if c == ("]" if slot is None else "}"):
                value = stack.pop()
                keys.pop()
                pos += 1
                continue
            raise json.JSONDecodeError("Expecting ',' delimiter", s, pos)


def _key(s: str, pos: int) -> tuple[str, int]:
    """An object key and its colon at `pos`; returns the key and where its value starts."""
    if s[pos : pos + 1] != '"':
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", s, pos)
    key, pos = _scanstring(s, pos + 1, True)
    pos = _ws(s, pos)
    if s[pos : pos + 1] != ":":
        raise json.JSONDecodeError("Expecting ':' delimiter", s, pos)
    return key, _ws(s, pos + 1)


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
    integral floats as integers (floats orjson would spell unlike JavaScript become
    orjson.Fragment). Returns `value` itself when nothing changes (the usual case,
    checked at C speed: a 10,000-entry inbox costs a few ms). Any depth: past Python's
    recursion limit the same walk runs with an explicit stack."""
    try:
        return _js_order(value)
    except RecursionError:
        return _js_order_iterative(value)


def _js_order(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        new = None
        for k, v in value.items():
            if type(v) in _PLAIN:
                continue
            w = _js_order(v)
            if w is not v:
                new = dict(value) if new is None else new
                new[k] = w
        return _index_keys_first(value if new is None else new)
    if kind is list:
        new_list = None
        for i, v in enumerate(value):
            if type(v) in _PLAIN:
                continue
            w = _js_order(v)
            if w is not v:
                new_list = list(value) if new_list is None else new_list
                new_list[i] = w
        return value if new_list is None else new_list
    return _js_float(value)


_Fragment: Any = getattr(orjson, "Fragment", None)  # orjson >= 3.9.11 (?): pre-serialized JSON


def _js_float(value: Any) -> Any:
    """A float as orjson must see it to print what JavaScript prints."""
    if type(value) is not float:
        return value
    size = abs(value)
    if value.is_integer() and size < 1e21:  # JS prints these as integers ...
        return int(value) if size < 2**53 else int(_js_number(value))  # ... shortest digits
    if 1e-6 <= size < 1e-5 and _Fragment is not None:
        return _Fragment(_js_number(value))  # orjson would write 1e-6, JS 0.000001
    return value


def _index_keys_first(out: dict[str, Any]) -> dict[str, Any]:
    if _INDEX_KEY.search("\x00".join(out)):
        keys = sorted((k for k in out if _is_index(k)), key=int)
        out = {
            **{k: out[k] for k in keys},
            **{k: v for k, v in out.items() if not _is_index(k)},
        }
    return out


def _js_order_iterative(root: Any) -> Any:
    """_js_order without recursion: children first, each container's result kept by id."""
    done: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        kind = type(node)
        if kind is not dict and kind is not list:
            continue
        items = node.values() if kind is dict else node
        if not expanded:
            stack.append((node, True))
            stack.extend((v, False) for v in items if type(v) in (dict, list))
            continue
        if id(node) in done:
            continue
        changed = False
        new: list[Any] = []
        for v in items:
            w = done.get(id(v), v) if type(v) in (dict, list) else _js_float(v)
            changed = changed or w is not v
            new.append(w)
        if kind is dict:
            out = dict(zip(node, new, strict=True)) if changed else node
            done[id(node)] = _index_keys_first(out)
        else:
            done[id(node)] = new if changed else node
    return done.get(id(root), _js_float(root))


def dumps_any(value: Any) -> bytes:
    """Compact JSON of any value we hold: orjson, and what it refuses (nesting past 255, lone
    surrogates, ints past 64 bits) as `dumps_indented` writes it."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return dumps_indented(value)


_MARKUP = re.compile("[<>&]")


def quoted(value: Any) -> str:
    """What an agent wrote, as one line of JSON for words of our own: its controls, bidi
    controls and line separators escaped, and `<`, `>` and `&` too, so it cannot close a
    tag its reader wraps around the message (Claude Code's `<teammate-message>`)."""
    line = json_text(dumps_any(value).decode())
    return _MARKUP.sub(lambda m: f"\\u{ord(m.group()):04x}", line)


def dumps_indented(value: Any) -> bytes:
    """JSON with 2-space indentation, byte for byte as JavaScript's JSON.stringify(v, null, 2).

    orjson when it can; what it refuses (lone surrogates, ints beyond 64 bits,
    nesting past 255) goes through `_stringify`, which has no depth limit.
    """
    value = js_order(value)
    if getattr(orjson, "STANDIN", False):  # no orjson on this platform: the exact path
        return _stringify(value).encode("utf-8")
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except TypeError:
        return _stringify(value).encode("utf-8")


def dumps_line(value: Any) -> bytes:
    """Compact JSON with no line break (a message of a line-delimited protocol): orjson, and
    what it refuses as JSON.stringify(value) writes it (lone surrogates as `\\udxxx`, ints
    past 64 bits, nesting past 255)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return _stringify(value, gap="").encode("utf-8")


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")
_encode_string: Any = json.encoder.encode_basestring  # the C encoder when available


def _js_string(s: str) -> str:
    """A string as JSON.stringify quotes it: UTF-8 as is, lone surrogates as \\udxxx."""
    out: str = _encode_string(s)
    if _SURROGATE.search(out) is None:
        return out
    return _SURROGATES.sub(_surrogate, out)


def _surrogate(m: re.Match[str]) -> str:
    pair = m.group()
    if len(pair) == 2:  # two code units JavaScript reads as one character
        return pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    return f"\\u{ord(pair):04x}"


def _js_number(x: float) -> str:
    """ECMAScript Number::toString, from Python's shortest round-trip digits."""
    if x != x or x in (float("inf"), float("-inf")):
        return "null"  # JSON.stringify writes NaN and Infinity as null
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mant, _, exp_text = r.partition("e")
    whole, _, frac = mant.partition(".")
    raw = whole + frac
    digits = raw.lstrip("0")
    n = len(whole) + int(exp_text or 0) - (len(raw) - len(digits))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"


def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _js_number(v)
    raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")


def _stringify(value: Any, gap: str = "  ") -> str:
    """JSON.stringify(value, null, gap) with an explicit stack (no depth limit); an empty
    gap writes it on one line, with no space after a key's colon."""
    out: list[str] = []
    # open containers: [iterator over (key or None, child), indent, closing bracket, first?]
    stack: list[list[Any]] = []
    pending: tuple[Any, str] | None = (value, "")  # the next value to write, and its indent
    while pending is not None or stack:
        if pending is not None:
            v, indent = pending
            pending = None
            if isinstance(v, str):
                out.append(_js_string(v))
            elif _Fragment is not None and isinstance(v, _Fragment):
                out.append(orjson.dumps(v).decode())
            elif isinstance(v, dict) and v:
                out.append("{")
                stack.append([iter(v.items()), indent, "}", True])
            elif isinstance(v, (list, tuple)) and v:
                out.append("[")
                stack.append([((None, x) for x in v), indent, "]", True])
            elif isinstance(v, dict):
                out.append("{}")
            elif isinstance(v, (list, tuple)):
                out.append("[]")
            else:
                out.append(_scalar(v))
            continue
        frame = stack[-1]
        items, indent, close, first = frame
        item = next(items, None)
        if item is None:
            stack.pop()
            out.append("\n" + indent + close if gap else close)
            continue
        frame[3] = False
        inner = indent + gap
        if gap:
            out.append(("\n" if first else ",\n") + inner)
        elif not first:
            out.append(",")
        k, child = item
        if close == "}":
            key = k if isinstance(k, str) else _scalar(k)  # as JSON spells 1, true, null
            out.append(_js_string(key) + (": " if gap else ":"))
        pending = (child, inner)
    return "".join(out)


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
