"""Sending: a message to one member, or a broadcast to every member but the sender."""

from __future__ import annotations

from typing import Any

import orjson

from .discovery import BROADCAST, Roster
from .errors import InvalidParams, TeamInboxError, TooLarge, check_name
from .formats import registry
from .locks import DEFAULT_TIMEOUT
from .model import Draft, SendResult
from .store import deliver

PERSON = "user"
MAX_MESSAGE_BYTES = 1024 * 1024


def colors() -> list[str]:
    """Every colour a format lets a sender take, in the formats' order."""
    return list(dict.fromkeys(c for f in registry().values() for c in f.colors))


def check_size(text: str, *others: str | None) -> None:
    size = len(text.encode("utf-8", "surrogatepass")) + sum(
        len(o.encode("utf-8", "surrogatepass")) for o in others if o
    )
    if size > MAX_MESSAGE_BYTES:
        raise TooLarge(f"message is {size} bytes; the limit is {MAX_MESSAGE_BYTES}")


def check_message(
    text: Any, summary: str | None, type: str | None, color: str | None, payload: Any
) -> None:
    if not isinstance(text, str):
        raise InvalidParams("text must be a string")
    if payload is not None and not isinstance(payload, dict):
        raise InvalidParams("payload must be a JSON object")
    check_size(text, summary, orjson.dumps(payload).decode() if payload else None)
    if color is not None and color not in colors():
        raise InvalidParams(f"unknown color {color!r} (one of: {', '.join(colors())})")
    if not text and not payload and not type:
        raise InvalidParams("empty message: give a text, or --type with --payload")


def refuse_frame(r: Roster, text: str) -> None:
    """A plain message whose text the team's agents would take for a protocol frame (an idle
    notification "from" another member, a task assignment "by" the lead) is refused."""
    kind = r.team.fmt.text_frame(text)
    if kind is not None:
        raise InvalidParams(
            f"the text is a protocol frame ({kind}) that the team's agents would act on, not"
            " a message: only plain messages are sent here; send plain text"
        )


def send(
    r: Roster,
    to: str,
    text: str,
    *,
    summary: str | None = None,
    type: str | None = None,
    color: str | None = None,
    payload: dict[str, Any] | None = None,
    sender: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    plain: bool = False,
) -> list[SendResult]:
    """Send to one member (errors raise) or broadcast (one result per recipient); `plain`:
    words only, no frame however it is spelled."""
    check_message(text, summary, type, color, payload)
    if plain:
        if payload or type not in (None, "message", "text"):
            raise InvalidParams("a plain message has no type or payload")
        refuse_frame(r, text)
    recipients = r.resolve_recipients(to)
    sender = check_name(sender or r.identity, "sender")
    fmt = r.team.fmt
    broadcast = to in BROADCAST
    if broadcast:
        recipients = [m for m in recipients if sender not in (m.name, m.inbox, m.agent_id)]
    results: list[SendResult] = []
    for m in recipients:
        # Into the person's own inbox that the lead agent reads: a note to that agent, not
        # a message from itself.
        entry = fmt.new_entry(
            Draft(
                sender=PERSON if m.owned and sender == r.identity else sender,
                recipient=m.agent_id or m.inbox,
                text=text,
                summary=summary,
                type=type,
                color=color,
                payload=payload,
            )
        )
        try:
            index = deliver(fmt, r.team.inbox_path(m.inbox), entry, timeout=timeout)
        except (TeamInboxError, OSError) as err:
            if not broadcast:
                raise
            code = err.code if isinstance(err, TeamInboxError) else "os_error"
            results.append(SendResult(m.name, False, inbox=m.inbox, error=str(err), code=code))
            continue
        note = fmt.delivery_note(m)
        results.append(SendResult(m.name, True, fmt.entry_id(entry, index), m.inbox, note=note))
    if broadcast:  # members whose names cannot be paths: say so, don't drop them silently
        results += [
            SendResult(m.name, False, error=m.error.message, code=m.error.code)
            for m in r.skipped
            if m.error
        ]
    return results


def parse_payload(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise InvalidParams(f"payload is not JSON: {err}") from err
    if not isinstance(value, dict):
        raise InvalidParams("payload must be a JSON object")
    return value
