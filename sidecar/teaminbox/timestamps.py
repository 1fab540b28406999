"""Times as the peers write them, as epoch seconds: Claude Code's ISO 8601 with milliseconds,
Go's RFC 3339 with nanoseconds and any offset, and epoch numbers (the file bus's seconds,
Claude's `createdAt` milliseconds).

`epoch` is the one way a time from a peer's file becomes a number: it never raises, and
what it returns is safe for `datetime.fromtimestamp`, `time.localtime` and arithmetic.
Anything else (a bool, NaN, infinity, an int past a float, a negative number, a time
before 1970 or from the year 5138 on, text that is no time) is invalid: None, for the
caller to report as one invalid entry or to leave unset.

Seconds or milliseconds: a number below 1e11 is seconds (up to the year 5138), from 1e11
up to 1e14 it is milliseconds (1973 to 5138). No writer means seconds past the year 5138,
so the two ranges never overlap: 1770000000000 is 2026 in milliseconds, not invalid.
"""

from __future__ import annotations

import math
import re
import time
from datetime import datetime, timezone
from typing import Any

LATEST = 1e11  # epoch seconds: the year 5138; this far and past, a number is not seconds
LATEST_MS = 1e14  # ... and past this, not milliseconds either

_TS = re.compile(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?$")


def epoch(ts: Any) -> float | None:
    """An ISO 8601 / RFC 3339 time (any fraction, Z or an offset), or an epoch number in
    seconds or milliseconds, as epoch seconds in [0, LATEST); None if it is none of these."""
    if isinstance(ts, str):
        seconds = _iso(ts)
    elif isinstance(ts, (int, float)) and not isinstance(ts, bool):
        seconds = _number(ts)
    else:
        return None
    return seconds if seconds is not None and 0.0 <= seconds < LATEST else None


def _number(value: float) -> float | None:
    try:
        x = float(value)  # an int of 400 digits: OverflowError
    except OverflowError:
        return None
    if not math.isfinite(x) or x < 0:
        return None
    if x < LATEST:
        return x
    return x / 1000 if x < LATEST_MS else None


def _iso(ts: str) -> float | None:
    m = _TS.match(ts.strip())
    if m is None:
        return None
    zone = m.group(4) or "Z"
    zone = "+00:00" if zone == "Z" else (zone if ":" in zone else zone[:3] + ":" + zone[3:])
    try:
        base = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}{zone}").timestamp()
    except (ValueError, OverflowError):
        return None
    return base + float("0." + (m.group(3) or "0")[:9])


def now_iso() -> str:
    """Now as Claude Code writes it: ISO 8601 UTC with milliseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_ms(seconds: float) -> str:
    """Epoch seconds as Claude Code writes a time (now_iso); they order as text."""
    whole = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(max(seconds, 0.0)))
    return f"{whole}.{int(max(seconds, 0.0) * 1000) % 1000:03d}Z"


def now_rfc3339_nano() -> str:
    """Now as Go's time.RFC3339Nano writes it in UTC (PseudoClaude), all nine digits."""
    ns = time.time_ns()
    base = datetime.fromtimestamp(ns // 1_000_000_000, tz=timezone.utc)
    return base.strftime("%Y-%m-%dT%H:%M:%S") + f".{ns % 1_000_000_000:09d}Z"
