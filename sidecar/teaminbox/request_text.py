"""A tool call as the person reads it before allowing it. Pure: no I/O.

"Allow" runs the whole call, so the person is shown the whole of it: every field of the
input, never one field picked as its summary. Control and bidi characters are written
out as the CLI writes them (`termtext.visible`), so nothing is drawn in another order
than it runs and nothing in it is a link or markup where VS Code shows it.

- `full`: the request per tool (a command as a command, a file write as its path and
  content, an MCP call as its arguments), line breaks kept, for a read-only view.
- `line`: the same on one line for a toast, cut to `LINE_CHARS`; `whole` says it holds
  every character of `full`'s input (else the person must open `full` before allowing).
- `grants`: what "Allow for this session" adds, in words, one per update that
  `session_updates` hands Claude Code: the two are made from the same list.
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import orjson

from .termtext import visible

LINE_CHARS = 400  # a toast shows ~1,000 characters; the buttons and the team name need room
BREAK = " \u23ce "  # a line break inside a one-line value
FIRST = ("command", "file_path", "notebook_path", "path", "url", "pattern", "query")
DETAIL_CHARS = 200  # a call's one-line detail
VERBS = {
    "Bash": "run",
    "Write": "write",
    "Edit": "edit",
    "MultiEdit": "edit",
    "NotebookEdit": "edit",
    "Read": "read",
    "WebFetch": "fetch",
    "WebSearch": "search the web for",
    "Grep": "search",
    "Glob": "list",
}


@attrs.frozen
class RequestText:
    line: str
    whole: bool  # `line` holds every character of the input and the grants
    full: str
    shown: bool  # every value could be written out (False: nested too deep to show)
    grants: list[str]


@attrs.frozen
class _Value:
    text: str | None  # None: it could not be written out


def detail(tool: str, inp: dict[str, object]) -> str:
    """What a call would do, in one line (cut): a built-in tool's command or path, else
    its whole input; control and bidi characters written out."""
    for key in ("command", "file_path", "path", "url", "pattern"):
        v = inp.get(key)
        if tool in VERBS and isinstance(v, str) and v.strip():
            return one_line(v)
    if not inp:
        return tool
    try:
        return one_line(orjson.dumps(inp).decode())
    except TypeError:
        return tool


def one_line(text: str, limit: int = DETAIL_CHARS) -> str:
    """Whitespace runs as one space; a line break shown as such (a second line of a
    command must not read as more arguments of the first)."""
    lines = (" ".join(visible(ln).split()) for ln in text.strip().splitlines() if ln.strip())
    flat = " \u23ce ".join(lines)
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def verb(tool: str) -> str:
    return VERBS.get(tool, f"use {tool}")


def _value(v: Any, indent: int | None) -> _Value:
    if isinstance(v, str):
        return _Value(v)
    try:  # json, not orjson: a lone surrogate is kept (and then written out by `visible`)
        return _Value(json.dumps(v, ensure_ascii=False, indent=indent))
    except (RecursionError, ValueError, TypeError):
        return _Value(None)


def _fields(tool: str, inp: dict[str, Any]) -> list[tuple[str, Any]]:
    """A built-in tool's command or path first; any other tool's input as it came."""
    if tool not in VERBS:
        return list(inp.items())
    first = [(k, inp[k]) for k in FIRST if k in inp]
    return first + [(k, v) for k, v in inp.items() if k not in FIRST]


def _verbatim_line(text: str) -> str:
    """Every character kept (written out where unprintable), a line break as BREAK: unlike
    `one_line`, nothing folded or cut, so a prompt's line can hold a value whole."""
    return BREAK.join(visible(ln) for ln in text.split("\n"))


def session_updates(suggestions: list[Any]) -> list[tuple[dict[str, Any], str]]:
    """Claude Code's suggestions that "Allow for this session" applies, each rebuilt from
    the fields named here (nothing else is handed on) with what it grants in words. A
    mode switch (`setMode acceptEdits`) is left out: it grants far more than this call."""
    out: list[tuple[dict[str, Any], str]] = []
    for s in suggestions:
        if not isinstance(s, dict):
            continue
        if s.get("type") == "addRules" and s.get("behavior", "allow") in ("allow", "deny", "ask"):
            behavior = s.get("behavior", "allow")
            rules = [
                {k: r[k] for k in ("toolName", "ruleContent") if isinstance(r.get(k), str)}
                for r in s.get("rules") or []
                if isinstance(r, dict) and isinstance(r.get("toolName"), str)
            ]
            if not rules:
                continue
            words = ", ".join(
                visible(r["toolName"] + (f"({r['ruleContent']})" if "ruleContent" in r else ""))
                for r in rules
            )
            update = {"type": "addRules", "rules": rules, "behavior": behavior}
            out.append(({**update, "destination": "session"}, f"{behavior} {words}"))
        elif s.get("type") == "addDirectories":
            dirs = [d for d in s.get("directories") or [] if isinstance(d, str) and d]
            if dirs:
                update = {"type": "addDirectories", "directories": dirs, "destination": "session"}
                out.append((update, "access to " + ", ".join(visible(d) for d in dirs)))
    return out


def describe(who: str, tool: str, inp: dict[str, Any], suggestions: list[Any]) -> RequestText:
    """The request `who` (a teammate's name) makes: `tool` with `inp`."""
    name, act = visible(who), verb(tool)
    grants = [words for _, words in session_updates(suggestions)]
    fields = _fields(tool, inp)
    shown = True
    parts: list[str] = []
    lines = [f"{name} asks to {visible(act)}" + ("" if tool in VERBS else " with")]
    for i, (key, v) in enumerate(fields):
        one, block = _value(v, None), _value(v, 2)
        if one.text is None or block.text is None:
            shown = False
            parts.append(f"{visible(key)}: (nested too deeply to show)")
            lines.append(f"{visible(key)}: (nested too deeply to show)")
            continue
        bare = i == 0 and key in FIRST and tool in VERBS  # "run: ls", not "run: command: ls"
        parts.append(
            _verbatim_line(one.text) if bare else f"{visible(key)}: {_verbatim_line(one.text)}"
        )
        if "\n" in block.text:
            lines.append(f"{visible(key)}:")
            lines.extend("    " + visible(ln, body=True) for ln in block.text.split("\n"))
        else:
            lines.append(f"{visible(key)}: {visible(block.text, body=True)}")
    if not fields:
        parts.append("(no input)")
        lines.append("(no input)")
    line = f"{name} asks to {visible(act)}: " + " · ".join(parts)
    if grants:
        line += " · Allow for this session also allows: " + "; ".join(grants)
        lines += ["", "Allow for this session also allows, until the session ends:"]
        lines += [f"  - {g}" for g in grants]
    whole = shown and len(line) <= LINE_CHARS
    if not whole:
        size = sum(len(p) for p in parts)
        line = line[: LINE_CHARS - 1] + f"… (cut: {size:,} characters in all)"
    return RequestText(line, whole, "\n".join(lines) + "\n", shown, grants)
