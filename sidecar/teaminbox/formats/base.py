"""What every format provides, with defaults for the common case: a format overrides only
what differs (as a watchdog observer overrides only how it queues events).

A format answers every question whose answer differs between peers: where its
teams and inboxes are, how its config becomes a roster, how an inbox parses
and serializes, its lock, how a message is delivered, which names are temp
files, whether read entries may be pruned and whether `read: true` would take
a message away from the agent that consumes the inbox. The defaults are the
layout Claude Code and PseudoClaude share: `<root>/<team>/config.json` and
`<team>/inboxes/<stem>.json`, one JSON array per inbox, an exclusive lock file.
Nothing outside formats/ branches on a format's name: it asks the format.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, ClassVar, Literal

import attrs

from ..errors import CorruptInbox, check_name
from ..fileio import TEMP_SUFFIX, listdir, make_inbox_folder, read_bytes, read_regular
from ..jsonio import dumps_indented, loads
from ..locks import ExclFileLock, PeerLock
from ..model import Draft, Member, Message, Problem
from .tasks_base import TaskBoard

Hint = Literal["inbox", "team"]
MAX_CONFIG_BYTES = 16 * 1024 * 1024
Sig = tuple[int, ...]
# store.append: how the default `deliver` writes (store imports formats, never the reverse)
Append = Callable[..., int]


@attrs.define
class EntryProblem:
    """One invalid entry in an otherwise good inbox: reported and skipped."""

    index: int
    reason: str


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


class InboxFormat:
    """A peer's inbox format. Subclass it, set `name` and `label`, and override what differs."""

    name: ClassVar[str]  # the wire's `format`, a key of registry()
    label: ClassVar[str]  # how a person calls it (the tree's team rows)
    compactable = False  # may read entries be pruned from the file (ids do not shift)
    has_read_flag = True  # entries carry `read`; else the person's "read" is the seen state
    drops_leavers = False  # the config forgets members who leave, their inbox files stay
    # The reader of a consumed inbox removes what it takes (prunes, deletes): a message may
    # come and go while nobody else reads the file (else it marks them read and keeps them).
    takes_away = False
    default_identity: str | None = None  # the person's name when settings give none
    tasks: TaskBoard | None = None  # its task board (formats/tasks_base.py); None: it has none
    new_file_mode: int | None = None  # a new inbox's mode; None: 0666 & ~umask (Node's writeFile)
    lock_class: type[PeerLock] = ExclFileLock  # the peer's own lock on `<inbox>.lock`
    colors: tuple[str, ...] = ()  # the colours a sender may take (send --color)
    INBOXES = "inboxes"  # the folder of inbox files in a team

    # --- what differs between formats beyond the files (render, member state, attention)

    # Its frames carry their words in the message text and their fields in a payload
    # (PseudoClaude), not all in the frame's own fields (Claude Code's JSON in `text`).
    words_in_text = False
    # Its teams are Claude Code sessions: transcripts, session files, the permission hook and
    # prompts in a terminal apply, and a lead approves its teammates' plans.
    claude_sessions = False
    # How the person answers a plan: "ask_lead" (a message asking the lead), "frame" (a
    # plan_approval_response to the member); None: its teams send no plans to answer.
    plan_answer: Literal["ask_lead", "frame"] | None = None

    claims_unknown = False  # a team folder no format's sniff claims is of this format

    def default_roots(self, home: str, env: Mapping[str, str]) -> list[str]:
        """Where its teams live, searched unless settings turn the default roots off."""
        return []

    # --- layout

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

    def sniff(self, team_path: str, config: dict[str, Any] | None) -> bool:
        """Is a team folder of this format (its config, or its files when there is none)?"""
        return False

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
        return name.startswith(".") or name.endswith(TEMP_SUFFIX)

    def hint(self, path: str) -> tuple[Hint, str] | None:
        name = os.path.basename(path)
        if name.endswith(".lock") or ".corrupt-" in name or self.is_temp(name):
            return None
        if name.endswith(".json") and os.path.basename(os.path.dirname(path)) == self.INBOXES:
            return "inbox", path
        return "team", path

    def roster(
        self, config: dict[str, Any] | None, identity: str | None, team_path: str
    ) -> RosterParts:
        """Its config as members; the default: one member per inbox, the person as `user`."""
        me = identity or self.default_identity or "user"
        stems = [s for s in self.inbox_stems(team_path) if s != me]
        return RosterParts([Member(name=s, inbox=s) for s in stems], None, me, me)

    def consumed(self, member: Member, own_inbox: str | None) -> bool:
        """Would `read: true` take a message away from the agent that reads this inbox?"""
        return False

    def delivery_note(self, member: Member) -> str | None:
        return None

    # --- an inbox's bytes

    def sig(self, path: str) -> Sig | None:
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def read(self, path: str) -> bytes | None:
        return read_bytes(path)

    def empty(self) -> Any:
        return []

    def parse(self, data: bytes, path: str) -> tuple[Any, list[Any]]:
        """The document and its entries; the default: a JSON array of entries."""
        doc = loads(data, path)
        if not isinstance(doc, list):
            raise CorruptInbox(
                f"{path}: top level is {type(doc).__name__}, expected a JSON array", path=path
            )
        return doc, doc

    def entries(self, doc: Any) -> list[Any]:
        assert isinstance(doc, list)
        return doc

    def invalid(self, entry: Any) -> str | None:
        """Why an entry cannot be shown (None: it can)."""
        if not isinstance(entry, dict):
            return f"entry is {type(entry).__name__}, expected an object"
        return None

    def entry_id(self, entry: dict[str, Any], index: int) -> str:
        return str(index)

    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message:
        raise NotImplementedError

    def entry_spans(self, data: bytes, start: int = 0) -> tuple[array[int], array[int]] | None:
        """Byte spans of the entries, to parse a big inbox a chunk at a time; None: no layout."""
        return None

    def serialize(self, doc: Any) -> bytes:
        return dumps_indented(doc)

    def append_bytes(self, data: bytes, new_entries: list[dict[str, Any]]) -> bytes | None:
        """New entries spliced onto the file's bytes; None: serialize the whole document."""
        return None

    # --- writing

    def lock(self, path: str, timeout: float) -> AbstractContextManager[Any]:
        return self.lock_class(path, timeout)

    def new_entry(self, draft: Draft) -> dict[str, Any]:
        raise NotImplementedError

    def text_frame(self, text: str) -> str | None:
        """The protocol frame its agents would take a plain message's `text` for; None: words.
        By default a frame is an entry's own type, which a plain message never has."""
        return None

    def make_inbox(self, path: str) -> None:
        """Before a delivery: the inbox's folder, as its peer makes it (`mkdir -p`)."""
        make_inbox_folder(path)

    def deliver(self, path: str, entry: dict[str, Any], timeout: float, append: Append) -> int:
        """Write one message (store.deliver); the default appends it to the inbox file."""
        self.make_inbox(path)
        return append(self, path, [entry], timeout=timeout)


def read_config_file(path: str) -> tuple[dict[str, Any] | None, Problem | None]:
    """A team's config.json as an object, or the problem with it."""
    cfg = os.path.join(path, "config.json")
    try:
        data = read_regular(cfg, limit=MAX_CONFIG_BYTES)
    except OSError as err:
        return None, Problem("unreadable_config", f"{cfg}: {err.strerror or err}", cfg)
    except Exception as err:  # a FIFO, a directory: whatever store refuses, with its message
        return None, Problem(getattr(err, "code", "unreadable_config"), str(err), cfg)
    if data is None:
        return None, Problem("missing_config", f"{cfg}: no config.json", cfg)
    # parsed as an inbox is: a lone surrogate (a cut emoji) is JSON too
    try:
        value = loads(data, cfg)
    except CorruptInbox as err:
        return None, Problem("corrupt_config", err.message, cfg)
    if not isinstance(value, dict):
        return None, Problem("corrupt_config", f"{cfg}: top level is not an object", cfg)
    return value, None
