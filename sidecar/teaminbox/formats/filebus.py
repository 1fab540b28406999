"""The seed's FileMessageBus: one file per message, `<DIR>/.team/inbox/<agent>/<msg_id>.json`.

A message is `{msg_id, sender, recipient, type, content, timestamp}` (epoch
seconds; milliseconds are read as such, and a number that is no time, say 1e20, makes
its file one invalid entry: `timestamps.epoch`), written as `<msg_id>.tmp`, fsynced and
renamed to `.json`: no lock is needed, every message has its own name. The agent's
reader deletes each file after reading it, so a vanished file is a delivered message
(archived, as a Claude prune is), and nothing here ever deletes or rewrites one: the
person's "read" is the seen state. The team is named after DIR, the folder holding
`.team/` (a workspace folder).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime, timezone
from typing import Any

import orjson

from ..errors import CorruptInbox, check_name
from ..fileio import listdir, read_bytes
from ..jsonio import dumps_any, loads, opt_str
from ..model import Draft, Member, Message, Problem
from ..safeio import makedirs, open_new, refuse_links
from ..timestamps import epoch
from .base import Append, Hint, InboxFormat, RosterParts, Sig

TEAM_DIR = ".team"
INBOX_DIR = "inbox"
MAX_MESSAGE_FILE = 2 * 1024 * 1024
FILE_KEY = "_file"  # our note of the file an entry came from; never written


def _is_team(path: str) -> bool:
    return os.path.isdir(os.path.join(path, INBOX_DIR))


def _iso(seconds: float) -> str:
    stamp = datetime.fromtimestamp(seconds, tz=timezone.utc)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class FileBusFormat(InboxFormat):
    name = "filebus"
    label = "File bus"
    has_read_flag = False  # a file per message, never rewritten: nothing to prune or mark
    takes_away = True  # the reader deletes each file it reads
    default_identity: str | None = "user"

    # --- layout

    def team_dirs(self, root: str, explicit: bool) -> list[tuple[str, str]]:
        team = os.path.join(root, TEAM_DIR)
        if _is_team(team):
            return [(os.path.basename(root.rstrip(os.sep)) or TEAM_DIR, team)]
        if os.path.basename(root.rstrip(os.sep)) == TEAM_DIR and _is_team(root):
            return [(os.path.basename(os.path.dirname(root.rstrip(os.sep))), root)]
        return []

    def sniff(self, team_path: str, config: dict[str, Any] | None) -> bool:
        return os.path.basename(team_path) == TEAM_DIR and _is_team(team_path)

    def read_config(self, team_path: str) -> tuple[dict[str, Any] | None, Problem | None]:
        return None, None  # the bus has no registry: its members are its inbox folders

    def inbox_path(self, team_path: str, inbox: str) -> str:
        return os.path.join(team_path, INBOX_DIR, check_name(inbox, "inbox name"))

    def inbox_stems(self, team_path: str) -> list[str]:
        folder = os.path.join(team_path, INBOX_DIR)
        return [
            n
            for n in listdir(folder)
            if not n.startswith(".") and os.path.isdir(os.path.join(folder, n))
        ]

    def is_temp(self, name: str) -> bool:
        return name.endswith(".tmp") or name.startswith(".")

    def roster_paths(self, team_path: str) -> list[str]:
        """Each agent folder too: its id is read from its newest message (_agent_id)."""
        folder = os.path.join(team_path, INBOX_DIR)
        return [team_path, folder, *(os.path.join(folder, n) for n in listdir(folder))]

    def hint(self, path: str) -> tuple[Hint, str] | None:
        name = os.path.basename(path)
        if self.is_temp(name):
            return None  # a write in flight: its rename is the event that counts
        parent = os.path.dirname(path)
        if name.endswith(".json") and os.path.basename(os.path.dirname(parent)) == INBOX_DIR:
            return "inbox", parent
        return "team", path

    def roster(
        self, config: dict[str, Any] | None, identity: str | None, team_path: str
    ) -> RosterParts:
        me = identity or "user"
        members, lead = [], None
        stems = [s for s in self.inbox_stems(team_path) if s != me]
        ids = {s: _agent_id(os.path.join(team_path, INBOX_DIR, s)) for s in stems}
        teams = {i.partition("@")[2] for i in ids.values() if i}
        for stem in stems:
            # An empty folder names no id: `lead_auth` is `lead@auth` when others are `*@auth`.
            guess = next(
                (stem[: -len(t) - 1] + "@" + t for t in teams if stem.endswith("_" + t)), None
            )
            agent_id = ids[stem] or guess or stem
            name = agent_id.partition("@")[0] or stem
            is_lead = name in ("team-lead", "lead")
            lead = name if is_lead else lead
            members.append(Member(name=name, inbox=stem, agent_id=agent_id, lead=is_lead))
        return RosterParts(members, lead, me, me)

    def consumed(self, member: Member, own_inbox: str | None) -> bool:
        # Every agent's folder has a reader that deletes on read; the person's own has none.
        return not member.phantom and member.inbox != own_inbox

    # --- an inbox: a folder of message files

    def sig(self, path: str) -> Sig | None:
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return st.st_ino, st.st_mtime_ns, st.st_nlink

    def read(self, path: str) -> bytes | None:
        """The folder's messages as one JSON array, oldest first; a bad file is one bad entry."""
        if not os.path.isdir(path):
            return None
        entries: list[Any] = []
        for name in listdir(path):
            if not name.endswith(".json") or self.is_temp(name):
                continue
            file = os.path.join(path, name)
            try:
                data = read_bytes(file)
                if data is None:
                    continue  # read by its agent meanwhile
                if len(data) > MAX_MESSAGE_FILE:
                    raise CorruptInbox(f"{file}: {len(data)} bytes, over the limit", path=file)
                value = loads(data, file)
            except Exception as err:  # a hostile file is one bad entry, not a dead inbox
                entries.append({FILE_KEY: name, "_error": str(err)})
                continue
            if isinstance(value, dict):
                value = {**value, FILE_KEY: name}
            entries.append(value)
        entries.sort(key=_order)
        return dumps_any(entries)  # an int past 64 bits too, as the file has it

    def empty(self) -> Any:
        return []

    def parse(self, data: bytes, path: str) -> tuple[Any, list[Any]]:
        doc = loads(data, path)
        if not isinstance(doc, list):
            raise CorruptInbox(f"{path}: not a message folder", path=path)
        return doc, doc

    def entries(self, doc: Any) -> list[Any]:
        assert isinstance(doc, list)
        return doc

    def invalid(self, entry: Any) -> str | None:
        if not isinstance(entry, dict):
            return f"message file is {type(entry).__name__}, expected an object"
        if "_error" in entry:
            return f"{entry.get(FILE_KEY)}: {entry['_error']}"
        if not isinstance(entry.get("sender"), str):
            return f"{entry.get(FILE_KEY)}: no string 'sender'"
        if not isinstance(entry.get("content"), str):
            return f"{entry.get(FILE_KEY)}: no string 'content'"
        ts = entry.get("timestamp")
        if isinstance(ts, bool) or not isinstance(ts, (int, float)):
            return f"{entry.get(FILE_KEY)}: 'timestamp' is not epoch seconds"
        if epoch(ts) is None:
            return (
                f"{entry.get(FILE_KEY)}: 'timestamp' {_short(ts)} is out of range"
                " (epoch seconds or milliseconds)"
            )
        return None

    def entry_id(self, entry: dict[str, Any], index: int) -> str:
        msg_id = opt_str(entry.get("msg_id"))
        if msg_id and "\x00" not in msg_id:
            return msg_id
        return "f-" + str(entry.get(FILE_KEY, index)).removesuffix(".json")

    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message:
        raw = {k: v for k, v in entry.items() if k != FILE_KEY}
        payload = raw.get("payload") if isinstance(raw.get("payload"), dict) else None
        return Message(
            id=self.entry_id(entry, index),
            team=team,
            inbox=inbox,
            format=self.name,
            from_=entry["sender"],
            to=opt_str(entry.get("recipient")) or inbox,
            type=opt_str(entry.get("type")) or "text",
            text=entry["content"],
            timestamp=_iso(epoch(entry["timestamp"]) or 0.0),  # valid: invalid() said so
            read=False,  # the bus has no flag: a delivered message is a deleted file
            summary=opt_str(entry.get("summary")),
            payload=payload,
            raw=raw,
        )

    def serialize(self, doc: Any) -> bytes:
        raise CorruptInbox("the file bus is never rewritten")

    # --- writing, exactly as the seed's send_message does

    def lock(self, path: str, timeout: float) -> AbstractContextManager[Any]:
        return nullcontext()  # unique names and an atomic rename: no lock in this protocol

    def new_entry(self, draft: Draft) -> dict[str, Any]:
        now = time.time()
        entry: dict[str, Any] = {
            "msg_id": f"m_{int(now * 1000)}_{uuid.uuid4().hex[:6]}",
            "sender": draft.sender,
            "recipient": draft.recipient,
            "type": draft.type if draft.type and draft.type != "message" else "text",
            "content": draft.text,
            "timestamp": now,
        }
        if draft.summary:
            entry["summary"] = draft.summary
        if draft.payload:
            entry["payload"] = draft.payload
        return entry

    def deliver(self, path: str, entry: dict[str, Any], timeout: float, append: Append) -> int:
        name = check_name(entry["msg_id"], "message id")
        team = os.path.dirname(os.path.dirname(path))  # <team>/inbox/<agent>
        tmp, final = os.path.join(path, name + ".tmp"), os.path.join(path, name + ".json")
        refuse_links(team, tmp, final)  # .team/, inbox/, the agent's folder, the two names
        makedirs(team, path)
        fd = open_new(tmp)  # never through a link planted at the temp name
        try:
            with open(fd, "w", encoding="utf-8") as f:
                json.dump(entry, f, ensure_ascii=False, indent=2)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            try:
                os.unlink(tmp)  # ours: made by open_new above
            except FileNotFoundError:
                pass
            raise
        return 0


def _agent_id(folder: str) -> str | None:
    """The recipient id written in the folder's newest message (`coder@auth` for `coder_auth`)."""
    names = [n for n in listdir(folder) if n.endswith(".json")]
    for name in reversed(names[-20:]):
        try:
            value = orjson.loads(read_bytes(os.path.join(folder, name)) or b"null")
        except Exception:  # a bad or vanished file says nothing about its folder
            continue
        recipient = value.get("recipient") if isinstance(value, dict) else None
        if (
            isinstance(recipient, str)
            and "@" in recipient
            and recipient.replace("@", "_") == os.path.basename(folder)
        ):
            return recipient
    return None


def _order(entry: Any) -> tuple[float, str]:
    if not isinstance(entry, dict):
        return (0.0, "")
    return epoch(entry.get("timestamp")) or 0.0, str(entry.get(FILE_KEY, ""))


def _short(value: float) -> str:
    if isinstance(value, int) and value.bit_length() > 64:  # repr() of 5,000 digits raises
        return f"(an integer of {value.bit_length()} bits)"
    return repr(value)


FILEBUS = FileBusFormat()
