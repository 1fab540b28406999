"""A fourth, toy format, to prove that a format is one module and one registry line.

Nothing else in the sidecar knows it: `register(TOY)` adds it, and the defaults of
`InboxFormat` do the rest (the layout, JSON arrays, an exclusive lock file, delivery by
append). A team is `<root>/<team>/config.json` with `"toy": true`, its inboxes
`<team>/mail/<name>.json`, an entry `{"who", "body", "at", "read"}`.

`python -m support.toyformat ARGS` (tests/ on PYTHONPATH) is the `teaminbox` command with
the toy format registered: its CLI, and `serve` for the server.
"""

from __future__ import annotations

import sys
from typing import Any

from teaminbox.formats import register
from teaminbox.formats.base import InboxFormat
from teaminbox.model import Draft, Message
from teaminbox.timestamps import now_iso


class ToyFormat(InboxFormat):
    name = "toy"
    label = "Toy"
    INBOXES = "mail"

    def sniff(self, team_path: str, config: dict[str, Any] | None) -> bool:
        return config is not None and config.get("toy") is True

    def invalid(self, entry: Any) -> str | None:
        if not isinstance(entry, dict):
            return "entry is not an object"
        if not all(isinstance(entry.get(k), str) for k in ("who", "body", "at")):
            return "entry lacks a string who, body or at"
        return None

    def message(self, entry: dict[str, Any], index: int, team: str, inbox: str) -> Message:
        read = entry.get("read") is True
        return Message(
            id=self.entry_id(entry, index),
            team=team,
            inbox=inbox,
            format=self.name,
            from_=entry["who"],
            to=inbox,
            type="message",
            text=entry["body"],
            timestamp=entry["at"],
            read=read,
            raw=entry,
            seen=read,
        )

    def new_entry(self, draft: Draft) -> dict[str, Any]:
        return {"who": draft.sender, "body": draft.text, "at": now_iso(), "read": False}


TOY = ToyFormat()

if __name__ == "__main__":
    register(TOY)
    from teaminbox.cli import main

    sys.exit(main())
