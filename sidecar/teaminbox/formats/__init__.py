"""The list of formats: each is one module under formats/ and one line here."""

from __future__ import annotations

from .base import InboxFormat as InboxFormat
from .claude import CLAUDE
from .filebus import FILEBUS
from .pseudoclaude import PSEUDOCLAUDE

_FORMATS: dict[str, InboxFormat] = {f.name: f for f in (CLAUDE, PSEUDOCLAUDE, FILEBUS)}


def register(fmt: InboxFormat) -> None:
    """Add a format (or replace the one of its name): a plug-in, a test's toy format."""
    _FORMATS[fmt.name] = fmt


def registry() -> dict[str, InboxFormat]:
    """Every format by name."""
    return dict(_FORMATS)


def find(name: str | None) -> InboxFormat | None:
    """The format of that name, None for a name no format has (an old history's)."""
    return _FORMATS.get(name) if name else None


def get(name: str) -> InboxFormat:
    """The format object for a format name."""
    return _FORMATS[name]
