"""Text made safe for a terminal: what teammates write is shown, never obeyed. Pure: no I/O.

A message, a member's name, a path or a task's subject may hold ESC (a CSI or
OSC sequence sets the terminal's title, clears the screen, hides a link behind
OSC 8), a C1 control (U+009B is CSI on its own), a line feed that forges a line
of output, a bidi override that reorders what follows, or a lone UTF-16
surrogate (Claude Code cuts emoji in half) that no encoder accepts. `visible`
writes each of them as plain ASCII: `\\e`, `\\n`, `\\x07`, `<U+202E>`,
`<U+D83D>`. A message body keeps its line feeds and tabs.

`json_text` does the same for JSON without changing a value: those characters
can only stand inside its strings, where `\\u009b` means what U+009B does.
"""

from __future__ import annotations

import re

__all__ = ["json_text", "visible"]

# C0, DEL and C1; the bidi marks, embeddings, overrides and isolates; the line and
# paragraph separators; every surrogate (a paired one never reaches a str); the tag
# characters, invisible ASCII look-alikes that hide words from the reader.
_TAGS = "\U000e0000-\U000e007f"
_OTHERS = f"\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff{_TAGS}"
_ANY = re.compile(f"[\x00-\x1f{_OTHERS}]")
_BODY = re.compile(f"[\x00-\x08\x0b-\x1f{_OTHERS}]")  # not tab, not line feed
_JSON = re.compile(f"[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069{_TAGS}]")
_NAMED = {"\x1b": "\\e", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _show(m: re.Match[str]) -> str:
    c = m.group()
    code = ord(c)
    return _NAMED.get(c) or (f"\\x{code:02x}" if code < 0xA0 else f"<U+{code:04X}>")


def visible(text: str, *, body: bool = False) -> str:
    """`text` with every control, bidi control and lone surrogate written out in ASCII;
    `body` keeps line feeds and tabs (a message's own lines). Idempotent."""
    return (_BODY if body else _ANY).sub(_show, text)


def json_text(data: str) -> str:
    """JSON text with DEL, C1 and bidi controls as `\\uXXXX` escapes: the same values."""
    return _JSON.sub(_escape, data)


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells an astral character as its UTF-16 pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
