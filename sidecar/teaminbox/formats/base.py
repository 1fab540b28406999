"""What every format provides, and the shared layout of the two one-file-per-inbox formats.

A format answers every question whose answer differs between peers: where its
teams and inboxes are, how its config becomes a roster, how an inbox parses
and serializes, its lock, how a message is delivered, which names are temp
files, whether read entries may be pruned and whether `read: true` would take
a message away from the agent that consumes the inbox.
"""

from __future__ import annotations

import os
from array import array
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Literal, Protocol

import attrs

from ..errors import CorruptInbox, check_name
from ..model import Member, Message, Problem

if TYPE_CHECKING:
    from ..tasks import TaskBoard

Hint = Literal["inbox", "team"]
MAX_CONFIG_BYTES = 16 * 1024 * 1024
Sig = tuple[int, ...]


@attrs.define
class RosterParts:
    """A format's reading of a team's config: members, the lead, who the person is."""

    members: list[Member]
    lead: str | None
    identity: str  # the name the person sends as
    own_inbox: str | None  # the person's own inbox stem (may not exist yet)
    # team fields for labels (project, created...); `session: True` for a team named after
    # its session, not by a person: it is shown by its label (`Team.title`)
    info: dict[str, Any] = attrs.Factory(dict)


class InboxFormat(Protocol):
    name: str
    compactable: bool  # may read entries be pruned from the file (ids do not shift)
    has_read_flag: bool  # entries carry `read`; else the person's "read" is the seen state
    drops_leavers: bool  # the config forgets members who leave, their inbox files stay
    default_identity: str | None

    @property
    def tasks(self) -> TaskBoard | None: ...  # its task board (tasks.py); None: it has none

    # --- layout
    def team_dirs(self, root: str, explicit: bool) -> list[tuple[str, str]]: ...
    def sniff(self, team_path: str, config: dict[str, Any] | None) -> bool: ...
    def read_config(self, team_path: str) -> tuple[dict[str, Any] | None, Problem | None]: ...
    def inbox_path(self, team_path: str, inbox: str) -> str: ...
    def inbox_stems(self, team_path: str) -> list[str]: ...
    def roster_paths(self, team_path: str) -> list[str]: ...
    def hint(self, path: str) -> tuple[Hint, str] | None: ...
    def is_temp(self, name: str) -> bool: ...
    def roster(
        self, config: dict[str, Any] | None, identity: str | None, team_path: str
    ) -> RosterParts: ...
    def consumed(self, member: Member, own_inbox: str | None) -> bool: ...
    def delivery_note(self, member: Member) -> str | None: ...

    # --- an inbox's bytes
    def sig(self, path: str) -> Sig | None: ...
    def read(self, path: str) -> bytes | None: ...
    def empty(self) -> Any: ...
    def parse(self, data: bytes, path: str) -> tuple[Any, list[Any]]: ...
    def entries(self, doc: Any) -> list[Any]: ...
    def invalid(self, entry: Any) -> str | None: ...
    def entry_id(self, entry: dict[str, Any], index: int) -> str: ...
    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message: ...
    def entry_spans(self, data: bytes, start: int = 0) -> tuple[array[int], array[int]] | None: ...
    def serialize(self, doc: Any) -> bytes: ...
    def append_bytes(self, data: bytes, new_entries: list[dict[str, Any]]) -> bytes | None: ...

    # --- writing
    def lock(self, path: str, timeout: float) -> AbstractContextManager[Any]: ...
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
    def deliver(self, path: str, entry: dict[str, Any], timeout: float) -> int: ...


def read_config_file(path: str) -> tuple[dict[str, Any] | None, Problem | None]:
    """A team's config.json as an object, or the problem with it."""
    from ..store import read_regular  # store imports formats: resolved at call time

    cfg = os.path.join(path, "config.json")
    try:
        data = read_regular(cfg, limit=MAX_CONFIG_BYTES)
    except OSError as err:
        return None, Problem("unreadable_config", f"{cfg}: {err.strerror or err}", cfg)
    except Exception as err:  # a FIFO, a directory: whatever store refuses, with its message
        return None, Problem(getattr(err, "code", "unreadable_config"), str(err), cfg)
    if data is None:
        return None, Problem("missing_config", f"{cfg}: no config.json", cfg)
    from . import loads  # as an inbox is parsed: a lone surrogate (a cut emoji) is JSON too

    try:
        value = loads(data, cfg)
    except CorruptInbox as err:
        return None, Problem("corrupt_config", err.message, cfg)
    if not isinstance(value, dict):
        return None, Problem("corrupt_config", f"{cfg}: top level is not an object", cfg)
    return value, None


def listdir(path: str) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []


class JsonFileLayout:
    """`<root>/<team>/config.json` and `<team>/inboxes/<stem>.json`, one JSON file per inbox.

    Shared by Claude Code and PseudoClaude; they differ in spellings, the
    lock kind and temp-file names, which the subclasses give.
    """

    INBOXES = "inboxes"
    has_read_flag = True

    def team_dirs(self, root: str, explicit: bool) -> list[tuple[str, str]]:
        out = []
        for name in listdir(root):
            path = os.path.join(root, name)
            if name.startswith(".") or not os.path.isdir(path):
                continue
            # Under a root of unknown kind (a workspace folder), only folders that look
            # like teams: `src/` is not one.
            if (
                explicit
                or os.path.isdir(os.path.join(path, self.INBOXES))
                or os.path.isfile(os.path.join(path, "config.json"))
            ):
                out.append((name, path))
        return out

    def read_config(self, team_path: str) -> tuple[dict[str, Any] | None, Problem | None]:
        return read_config_file(team_path)

    def inbox_path(self, team_path: str, inbox: str) -> str:
        return os.path.join(team_path, self.INBOXES, check_name(inbox, "inbox name") + ".json")

    def inbox_stems(self, team_path: str) -> list[str]:
        names = listdir(os.path.join(team_path, self.INBOXES))
        return [n[:-5] for n in names if n.endswith(".json") and not self.is_temp(n)]

    def roster_paths(self, team_path: str) -> list[str]:
        """What a team's roster and format are read from: unchanged stats, unchanged roster
        (discovery.scan_key). Without a config the format is told by an inbox's bytes."""
        cfg, inboxes = os.path.join(team_path, "config.json"), os.path.join(team_path, self.INBOXES)
        paths = [team_path, cfg, inboxes]
        if not os.path.exists(cfg):
            paths += [os.path.join(inboxes, n) for n in listdir(inboxes)]
        return paths

    def is_temp(self, name: str) -> bool:
        from ..store import TEMP_SUFFIX

        return name.startswith(".") or name.endswith(TEMP_SUFFIX)

    def hint(self, path: str) -> tuple[Hint, str] | None:
        name = os.path.basename(path)
        if name.endswith(".lock") or ".corrupt-" in name or self.is_temp(name):
            return None
        if name.endswith(".json") and os.path.basename(os.path.dirname(path)) == self.INBOXES:
            return "inbox", path
        return "team", path

    def delivery_note(self, member: Member) -> str | None:
        return None

    def sig(self, path: str) -> Sig | None:
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def read(self, path: str) -> bytes | None:
        from ..store import read_bytes

        return read_bytes(path)
