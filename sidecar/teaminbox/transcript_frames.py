"""What a transcript shows its agent was delivered: `<teammate-message>` blocks.

Claude Code hands each entry it takes from the lead's inbox to the model as a `user` row
whose text holds one block an entry, several a row:
`<teammate-message teammate_id="helper" color="blue" summary="...">\\nTEXT\\n</teammate-message>`,
TEXT the entry's `text` as written (a frame Claude Code writes itself, an idle
notification or a shutdown answer, is its JSON), `summary` the entry's own (none for a
frame), `verified="false"` for an entry from outside Claude Code. No msg_id, no entry
timestamp. A frame goes through no tool call: where the lead pruned it before the file
was read, this is its only record. Pure: rows are parsed by the caller (transcripts.Stats).

A teammate's transcript shows the frames of its own inbox the same way (Claude Code 2.1.332:
the lead's `task_assignment` from a TaskUpdate with an owner, its `shutdown_request`, with
words of Claude Code's own after the JSON telling the model how to answer): the lead's
transcript holds only the calls that made them (no frame text, no entry time). From a
teammate's file only frames are taken (`own`): a plain message has its sender's send.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from .formats.claude import json_object

OPEN = "<teammate-message"
CLOSE = "</teammate-message>"
MAX_ATTRS = 4096  # characters of a block's opening tag
MAX_BLOCKS = 64  # blocks taken from one row
MAX_TEXT = 1 << 20  # characters of a block's text (a longer one is not taken)
INVALID = "[invalid id]"  # what Claude Code shows for an id field of a shape it rejects
MAX_FOUND = 50_000  # blocks kept until taken (a first read of a long session)
_ATTR = re.compile(r'([A-Za-z_][\w-]*)="([^"]*)"')
_DECODER = json.JSONDecoder()


def blocks(text: str) -> list[tuple[dict[str, str], str]]:
    """Each block of a row's text, in order: (attributes, text). Linear in the text: a
    block ends at the first closing tag after it opens (one inside is its end), an
    unclosed one ends the search, an opening tag longer than MAX_ATTRS is skipped."""
    out: list[tuple[dict[str, str], str]] = []
    at = text.find(OPEN)
    while at >= 0 and len(out) < MAX_BLOCKS:
        head_end = text.find(">", at + len(OPEN), at + len(OPEN) + MAX_ATTRS)
        nxt = text[at + len(OPEN) : at + len(OPEN) + 1]
        if head_end < 0 or nxt not in (" ", ">"):
            at = text.find(OPEN, at + len(OPEN))
            continue
        end = text.find(CLOSE, head_end + 1)
        if end < 0:
            break
        body = text[head_end + 1 : end]
        body = body[1:] if body.startswith("\n") else body
        body = body[:-1] if body.endswith("\n") else body
        out.append((dict(_ATTR.findall(text[at + len(OPEN) : head_end])), body))
        at = text.find(OPEN, end + len(CLOSE))
    return out


def frame_text(text: str) -> str | None:
    """A frame's JSON as its entry holds it: the block's text when it is one, or its leading
    object when Claude Code wrote words after it (a blank line between); None for anything
    else."""
    if not text.startswith("{"):
        return None
    try:
        value, end = _DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return None
    if end < len(text) and not text.startswith("\n\n", end):
        return None
    return text[:end]


def same_text(handed: str, held: str) -> bool:
    """Whether a block's text is the entry's: the same, or cut short by a closing tag inside
    it, or for a frame the same fields where Claude Code showed the model an id it rejects
    as `[invalid id]` (a shutdown answer's `paneId` of an in-process teammate)."""
    if handed == held:
        return True
    if held.startswith(handed) and held[len(handed) :].lstrip("\n").startswith(CLOSE):
        return True
    if INVALID not in handed:
        return False
    a, b = json_object(handed), json_object(held)
    if a is None or b is None or a.keys() != b.keys():
        return False
    return all(a[k] == b[k] or a[k] == INVALID for k in a)


@attrs.frozen
class Delivered:
    """One entry the lead (or, `to`, a teammate) was handed, as its transcript shows it."""

    sender: str  # teammate_id: the entry's `from`
    text: str
    summary: str | None
    color: str | None
    timestamp: str  # the turn's: the entry was written before it
    after: str | None  # the lead's previous such turn: the entry was written after it
    uuid: str  # the turn's row
    index: int  # the block's place in the turn
    to: str | None = None  # the teammate whose inbox held it (None: the lead's)


def _row_text(row: dict[str, Any]) -> str:
    msg = row.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return "\n\n".join(p for p in parts if isinstance(p, str))


class DeliveredLog:
    """A transcript's delivered blocks, fed row by row in file order; `take` hands over
    those found since it was last called. `own`: a teammate's file (its rows are a
    sidechain's), its frames only."""

    def __init__(self, own: bool = False) -> None:
        self.own = own
        self.found: list[Delivered] = []
        self.last: str | None = None  # the previous turn with a block

    def user(self, row: dict[str, Any]) -> None:
        if row.get("isSidechain") is True and not self.own:
            return
        ts, uuid = row.get("timestamp"), row.get("uuid")
        if not isinstance(ts, str) or not ts or not isinstance(uuid, str) or not uuid:
            return
        found = blocks(_row_text(row))
        for i, (a, text) in enumerate(found):
            sender = a.get("teammate_id")
            if not sender or len(text) > MAX_TEXT:
                continue
            if self.own:
                frame = frame_text(text)
                if frame is None:
                    continue
                text = frame
            self.found.append(
                Delivered(sender, text, a.get("summary"), a.get("color"), ts, self.last, uuid, i)
            )
        del self.found[:-MAX_FOUND]
        if found:
            self.last = ts

    def take(self) -> list[Delivered]:
        out, self.found = self.found, []
        return out
