"""The entries both writers append (~2.7 KB, a marker each) and the inboxes they start from."""

from __future__ import annotations

import os
import re
import shutil
from typing import Any

from teaminbox.formats.claude import CLAUDE

try:  # this tree
    from teaminbox.jsonio import dumps_indented
except ImportError:  # an old build on PYTHONPATH (before 7918248's restructuring)
    from teaminbox.formats import dumps_indented  # type: ignore[attr-defined,no-redef]

try:  # this tree: a message to write is one value
    from teaminbox.model import Draft

    def new_entry(**fields: Any) -> dict[str, Any]:
        return CLAUDE.new_entry(Draft(**fields))
except ImportError:  # an old build: keyword arguments
    new_entry = CLAUDE.new_entry  # type: ignore[assignment]

TEXT_BYTES = 2500  # + the other fields and indentation: ~2.7 KB per entry, as in the issue
FILLER = 'The quick brown fox reports: "tests pass"; next step is the auth module.\n'
MARKER = re.compile(r"^bench:([A-Za-z0-9_-]+):(\d+) ")


def make_text(tag: str, seq: int, size: int = TEXT_BYTES) -> str:
    """Same text as writer.js makes: a marker, then filler with quotes and newlines."""
    head = f"bench:{tag}:{seq} "
    body = FILLER * ((size - len(head)) // len(FILLER) + 1)
    return (head + body)[:size]


def our_entry(tag: str, seq: int, size: int = TEXT_BYTES) -> dict[str, Any]:
    return new_entry(
        sender=f"py-{tag}",
        recipient="lead",
        text=make_text(tag, seq, size),
        summary=f"message {seq} from {tag}",
        color="blue",
    )


def fsync_path(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def prepare_inbox(path: str, n: int) -> int:
    """An inbox of n entries laid out as JSON.stringify(arr, null, 2); returns its size."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    entries = [our_entry("old", i) for i in range(n)]
    data = dumps_indented(entries)
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return len(data)


def copy_inbox(src: str, dst: str) -> None:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copyfile(src, dst)
    fsync_path(dst)
