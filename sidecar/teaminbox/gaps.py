"""What could not be recovered, said in the record (pure, no I/O): a time Team Inbox was not
reading an inbox whose reader takes messages away, where nothing else (a transcript) keeps
them, becomes a gap: an archived row of the inbox whose text says so, in every view."""

from __future__ import annotations

import time
from datetime import datetime, timezone

from .model import Gap, Message

# Not reading for longer than this (a process stopped, starved or suspended, a start after
# a stop) may have let a message come and go unseen.
GAP_SECONDS = 1.0
FROM = "Team Inbox"  # who a gap is from, as the views name it


def _clock(t: float, other: float) -> str:
    """A time of day in local time; with the date when the two ends are on other days."""
    a, b = time.localtime(t), time.localtime(other)
    same_day = (a.tm_year, a.tm_yday) == (b.tm_year, b.tm_yday)
    return time.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M:%S", a)


def gap_text(start: float, end: float) -> str:
    return (
        f"Team Inbox was not reading from {_clock(start, end)} to {_clock(end, start)};"
        " messages may be missing"
    )


def _iso(t: float) -> str:
    stamp = datetime.fromtimestamp(t, tz=timezone.utc).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def gap_message(team: str, inbox: str, fmt: str, start: float, end: float) -> Message:
    """The gap as an inbox's archived row, placed at its start (one id a start and inbox)."""
    text = gap_text(start, end)
    return Message(
        id=f"gap-{int(start * 1000)}",
        team=team,
        inbox=inbox,
        format=fmt,
        from_=FROM,
        to=inbox,
        type="gap",
        text=text,
        timestamp=_iso(start),
        read=True,  # nothing to read or answer: no toast, not unread
        raw={},
        archived=True,
        from_name=FROM,
        gap=Gap(start=start, end=end),
    )


def unread_while(start: float, end: float, changed: float | None) -> bool:
    """Could messages have come and gone unseen between `start` and `end`? Only when nobody
    read for long enough and the inbox changed since `start` (its modification time, None:
    no inbox there now)."""
    return end - start > GAP_SECONDS and changed is not None and changed >= start
