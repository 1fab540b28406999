#!/usr/bin/env python3
"""Write the wire contract where the extension and the docs read it.

One source: `teaminbox.protocol` (METHODS, NOTIFICATIONS, InitializationOptions)
and the attrs classes they reach (most live in `teaminbox.model`). From them:

- extension/src/protocol.ts: an interface per class, the `Methods` and
  `Notifications` name maps, `RequestMap` (method -> [params, result]) and
  `NotificationMap` (method -> params);
- docs/protocol.md: the tables between `<!-- generated:NAME -->` and
  `<!-- /generated:NAME -->` (the prose around them is not touched).

    .venv/bin/python scripts/gen_protocol.py           # write both
    .venv/bin/python scripts/gen_protocol.py --check   # exit 1 when either is stale

Field names go through `model.camel`, the converter's own rule. Optionality
follows the wire: a field is `x?:` only where the client may leave it out
(a params or initializationOptions field with a default); results and
notifications always carry every field (the converter never omits one).
`X | None` is `| null` either way.
"""

from __future__ import annotations

import argparse
import collections.abc
import difflib
import enum
import inspect
import json
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any

import attrs

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "sidecar"))

from teaminbox import protocol  # noqa: E402
from teaminbox.model import camel  # noqa: E402

TS_PATH = REPO / "extension" / "src" / "protocol.ts"
DOC_PATH = REPO / "docs" / "protocol.md"
INIT_CLASS = "InitializationOptions"


class ContractError(Exception):
    """Something in the Python contract the generator cannot express: fix it there."""


# --- reading the Python classes ------------------------------------------------------------------


@attrs.define
class Field:
    name: str  # on the wire
    hint: Any
    has_default: bool
    default: Any  # attrs.NOTHING when there is none
    note: str


@attrs.define
class Shape:
    cls: type
    fields: list[Field]
    doc: str
    is_input: bool = False  # the client sends it (params, initializationOptions)
    is_output: bool = False  # the sidecar sends it (results, notifications)

    @property
    def name(self) -> str:
        return self.cls.__name__


def _field_notes(cls: type) -> dict[str, str]:
    """`name: T = x  # note` comments in the class body."""
    try:
        src = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    notes = {}
    for line in src.splitlines():
        m = re.match(r"\s+(\w+)\s*:([^#]*)#\s*(.+)$", line)
        if m and m.group(2).count('"') % 2 == 0 and m.group(2).count("'") % 2 == 0:
            notes[m.group(1)] = m.group(3).strip()
    return notes


def _doc(obj: Any) -> str:
    doc = inspect.getdoc(obj) or ""
    # attrs gives a class without a docstring a generated signature: not worth printing
    if doc.startswith(f"{getattr(obj, '__name__', '')}("):
        return ""
    return " ".join(doc.split("\n\n")[0].split())


def _strip_annotated(hint: Any) -> Any:
    while typing.get_origin(hint) is typing.Annotated:
        hint = typing.get_args(hint)[0]
    return hint


def _is_union(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType)


def read_shape(cls: type) -> Shape:
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as err:  # NameError for a type only imported under TYPE_CHECKING
        raise ContractError(
            f"{cls.__module__}.{cls.__name__}: cannot resolve a type: {err}"
        ) from err
    notes = _field_notes(cls)
    fields = []
    for a in attrs.fields(cls):
        has_default = a.default is not attrs.NOTHING
        fields.append(
            Field(
                camel(a.name),
                _strip_annotated(hints[a.name]),
                has_default,
                a.default,
                notes.get(a.name, ""),
            )
        )
    return Shape(cls, fields, _doc(cls))


def nested_classes(hint: Any) -> list[type]:
    hint = _strip_annotated(hint)
    if attrs.has(hint):
        return [hint]
    out: list[type] = []
    for arg in typing.get_args(hint):
        if not isinstance(arg, (str, int, bool)):
            out.extend(nested_classes(arg))
    return out


class Contract:
    """Every class reachable from METHODS, NOTIFICATIONS and the initializationOptions."""

    def __init__(self) -> None:
        self.shapes: dict[str, Shape] = {}
        self.top: set[str] = set()  # params/results/notification params themselves
        init = getattr(protocol, INIT_CLASS)
        self._walk(init, is_input=True)
        for m in protocol.METHODS.values():
            self._walk(m.params, is_input=True)
            self._walk(m.result, is_input=False)
            self.top.update((m.params.__name__, m.result.__name__))
        for n in protocol.NOTIFICATIONS.values():
            self._walk(n.params, is_input=False)
            self.top.add(n.params.__name__)
        self.nested: set[str] = set()
        for s in self.shapes.values():
            for f in s.fields:
                self.nested.update(c.__name__ for c in nested_classes(f.hint))

    def _walk(self, cls: type, is_input: bool) -> None:
        if not attrs.has(cls):
            raise ContractError(f"{cls!r} is not an attrs class")
        shape = self.shapes.get(cls.__name__)
        if shape is not None and shape.cls is not cls:
            raise ContractError(
                f"two classes named {cls.__name__}: {shape.cls.__module__} and {cls.__module__}"
            )
        if shape is None:
            shape = self.shapes[cls.__name__] = read_shape(cls)
        seen = shape.is_input if is_input else shape.is_output
        if seen:
            return
        if is_input:
            shape.is_input = True
        else:
            shape.is_output = True
        for f in shape.fields:
            for c in nested_classes(f.hint):
                self._walk(c, is_input)

    def ordered(self) -> list[Shape]:
        """model.py's classes first, then the protocol package's, part by part (its
        `PARTS`), each in source order."""
        parts = [p.__name__ for p in protocol.PARTS]

        def key(s: Shape) -> tuple[int, int, str, int]:
            mod = s.cls.__module__
            rank = 0 if mod.endswith(".model") else 2 if mod in parts else 1
            part = parts.index(mod) if mod in parts else 0
            try:
                line = inspect.getsourcelines(s.cls)[1]
            except (OSError, TypeError):
                line = 0
            return rank, part, mod, line

        return sorted(self.shapes.values(), key=key)


# --- types ----------------------------------------------------------------------------------------


def ts_type(hint: Any) -> str:
    hint = _strip_annotated(hint)
    if hint is type(None) or hint is None:
        return "null"
    if hint is Any or hint is object:
        return "unknown"
    if hint is str:
        return "string"
    if hint is bool:
        return "boolean"
    if hint in (int, float):
        return "number"
    if attrs.has(hint):
        return hint.__name__
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return " | ".join(json.dumps(m.value) for m in hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if _is_union(hint):
        parts = [ts_type(a) for a in args if a is not type(None)]
        if type(None) in args:
            parts.append("null")
        return " | ".join(dict.fromkeys(parts))
    if origin is typing.Literal:
        return " | ".join(json.dumps(a) for a in args)
    if origin in (list, set, frozenset, collections.abc.Sequence, collections.abc.Set):
        return _array(ts_type(args[0]) if args else "unknown")
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _array(ts_type(args[0]))
        return "[" + ", ".join(ts_type(a) for a in args) + "]"
    if origin in (dict, collections.abc.Mapping):
        if args and args[0] is not str:
            raise ContractError(f"{hint!r}: JSON object keys are strings")
        return f"Record<string, {ts_type(args[1]) if args else 'unknown'}>"
    if hint in (list, tuple, set):
        return "unknown[]"
    if hint is dict:
        return "Record<string, unknown>"
    raise ContractError(f"no TypeScript type for {hint!r}")


def _array(item: str) -> str:
    return f"({item})[]" if " " in item else f"{item}[]"


def optional(shape: Shape, f: Field) -> bool:
    """`x?:`: the client may leave it out (an input with a default)."""
    return shape.is_input and f.has_default


def default_text(f: Field) -> str:
    d = f.default
    if d is attrs.NOTHING:
        return ""
    if isinstance(d, attrs.Factory):  # type: ignore[arg-type]
        made = {list: "[]", dict: "{}", set: "[]", tuple: "[]"}.get(d.factory)
        return made if made is not None else "(computed)"
    if isinstance(d, enum.Enum):
        d = d.value
    try:
        return json.dumps(d)
    except TypeError:
        return repr(d)


# --- protocol.ts ----------------------------------------------------------------------------------

TS_HEADER = """\
// GENERATED by scripts/gen_protocol.py from sidecar/teaminbox/protocol/ and model.py.
// Do not edit: change the Python classes and run `.venv/bin/python scripts/gen_protocol.py`
// (tests/unit/test_protocol_contract.py fails while this file is stale).
//
// `x?:` only where the client may leave a field out (params and initializationOptions fields
// with a default); the sidecar always sends every field. `| null` where Python allows None.
"""


def _comment(text: str, indent: str = "") -> list[str]:
    return [f"{indent}/** {text.replace('*/', '* /')} */"] if text else []


def _ts_field(key: str, ty: str) -> list[str]:
    """A field's line; a union of plain names too long for 120 characters, one member a line
    (as Prettier writes it: the TypeScript keeps to 120 characters a line)."""
    line = f"  {key}: {ty};"
    if len(line) <= 120 or " | " not in ty or re.search(r"[()<>{}\[\]]", ty):
        return [line]
    lines = [f"  {key}:", *(f"    | {part}" for part in ty.split(" | "))]
    lines[-1] += ";"
    return lines


def render_ts(c: Contract) -> str:
    out = [TS_HEADER]
    for s in c.ordered():
        out += _comment(s.doc)
        if not s.fields:
            out.append(f"export type {s.name} = Record<string, never>;")
            out.append("")
            continue
        out.append(f"export interface {s.name} {{")
        for f in s.fields:
            out += _comment(f.note, "  ")
            key = f.name if re.fullmatch(r"[A-Za-z_$][\w$]*", f.name) else json.dumps(f.name)
            out += _ts_field(f"{key}{'?' if optional(s, f) else ''}", ts_type(f.hint))
        out.append("}")
        out.append("")

    def short(name: str) -> str:
        return name.rsplit("/", 1)[-1]

    out.append("/** Request method names. */")
    out.append("export const Methods = {")
    out += [f"  {short(n)}: {json.dumps(n)}," for n in protocol.METHODS]
    out.append("} as const;")
    out.append("")
    out.append("/** Notification method names (sidecar -> client). */")
    out.append("export const Notifications = {")
    out += [f"  {short(n)}: {json.dumps(n)}," for n in protocol.NOTIFICATIONS]
    out.append("} as const;")
    out.append("")
    out.append("/** Every request: method -> [params, result]. */")
    out.append("export interface RequestMap {")
    for n, m in protocol.METHODS.items():
        out += _comment(m.doc, "  ")
        out.append(f"  {json.dumps(n)}: [{m.params.__name__}, {m.result.__name__}];")
    out.append("}")
    out.append("")
    out.append("/** Every notification: method -> params. */")
    out.append("export interface NotificationMap {")
    for n, nt in protocol.NOTIFICATIONS.items():
        out += _comment(nt.doc, "  ")
        out.append(f"  {json.dumps(n)}: {nt.params.__name__};")
    out.append("}")
    out.append("")
    out.append("export type RequestMethod = keyof RequestMap;")
    out.append("export type ParamsOf<M extends RequestMethod> = RequestMap[M][0];")
    out.append("export type ResultOf<M extends RequestMethod> = RequestMap[M][1];")
    out.append("export type NotificationMethod = keyof NotificationMap;")
    return "\n".join(out) + "\n"


# --- docs/protocol.md ---------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def inline(c: Contract, cls: type) -> str:
    """`{team: string, limit?: number = 200}`: a params or result class in one table cell."""
    s = c.shapes[cls.__name__]
    parts = []
    for f in s.fields:
        opt = optional(s, f)
        d = f" = {default_text(f)}" if opt and default_text(f) not in ("", "null") else ""
        parts.append(f"{f.name}{'?' if opt else ''}: {ts_type(f.hint)}{d}")
    return "`{" + ", ".join(parts) + "}`"


def doc_sections(c: Contract) -> dict[str, str]:
    init = c.shapes[INIT_CLASS]
    rows = ["| key | type | default | |", "|---|---|---|---|"]
    for f in init.fields:
        kind, default = _cell(ts_type(f.hint)), _cell(default_text(f))
        rows.append(f"| `{f.name}` | `{kind}` | `{default}` | {_cell(f.note)} |")
    sections = {"initialize": "\n".join(rows)}

    shapes = []
    for s in c.ordered():
        if s.name == INIT_CLASS or (s.name in c.top and s.name not in c.nested):
            continue
        head = f"**{s.name}**" + (f": {s.doc}" if s.doc else "")
        shapes += [head, "", "| field | type | |", "|---|---|---|"]
        for f in s.fields:
            opt = "?" if optional(s, f) else ""
            shapes.append(f"| `{f.name}{opt}` | `{_cell(ts_type(f.hint))}` | {_cell(f.note)} |")
        shapes.append("")
    sections["shapes"] = "\n".join(shapes).rstrip()

    rows = ["| method | params | result | |", "|---|---|---|---|"]
    for n, m in protocol.METHODS.items():
        params, result = _cell(inline(c, m.params)), _cell(inline(c, m.result))
        rows.append(f"| `{n}` | {params} | {result} | {_cell(m.doc)} |")
    sections["requests"] = "\n".join(rows)

    rows = ["| method | params | |", "|---|---|---|"]
    for n, nt in protocol.NOTIFICATIONS.items():
        rows.append(f"| `{n}` | {_cell(inline(c, nt.params))} | {_cell(nt.doc)} |")
    sections["notifications"] = "\n".join(rows)
    return sections


MARK = re.compile(r"(<!-- generated:(\w+) -->\n)(.*?)(<!-- /generated:\2 -->)", re.S)


def render_doc(current: str, sections: dict[str, str]) -> str:
    found: set[str] = set()

    def fill(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in sections:
            raise ContractError(f"{DOC_PATH.name}: unknown generated section {name!r}")
        found.add(name)
        return f"{m.group(1)}{sections[name]}\n{m.group(4)}"

    text = MARK.sub(fill, current)
    missing = sorted(set(sections) - found)
    if missing:
        raise ContractError(
            f"{DOC_PATH.name} lacks the markers for "
            + ", ".join(f"<!-- generated:{n} --> ... <!-- /generated:{n} -->" for n in missing)
        )
    return text


# --- main ------------------------------------------------------------------------------------


def outputs() -> dict[Path, str]:
    c = Contract()
    return {
        TS_PATH: render_ts(c),
        DOC_PATH: render_doc(DOC_PATH.read_text(encoding="utf-8"), doc_sections(c)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--check", action="store_true", help="exit 1 when a generated file is stale")
    args = ap.parse_args(argv)
    try:
        wanted = outputs()
    except ContractError as err:
        print(f"gen_protocol: {err}", file=sys.stderr)
        return 2
    stale = []
    for path, text in wanted.items():
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old == text:
            continue
        rel = path.relative_to(REPO)
        if args.check:
            stale.append(str(rel))
            diff = difflib.unified_diff(
                old.splitlines(),
                text.splitlines(),
                f"{rel} (in git)",
                f"{rel} (from Python)",
                lineterm="",
                n=1,
            )
            print("\n".join(list(diff)[:60]), file=sys.stderr)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {rel}")
    if stale:
        print(
            f"gen_protocol: stale: {', '.join(stale)};"
            " run .venv/bin/python scripts/gen_protocol.py",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
