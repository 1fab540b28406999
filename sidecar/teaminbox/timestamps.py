"""Timestamps as the peers write them (Claude Code's ISO 8601 with milliseconds, Go's RFC 3339
with nanoseconds and any offset), as epoch seconds."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

_TS = re.compile(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[.,](\d+))?(Z|[+-]\d\d:?\d\d)?$")


def epoch(ts: Any) -> float | None:
    """An ISO 8601 / RFC 3339 time (any fraction, Z or an offset) as epoch seconds."""
    m = _TS.match(ts.strip()) if isinstance(ts, str) else None
    if m is None:
        return None
    zone = m.group(4) or "Z"
    zone = "+00:00" if zone == "Z" else (zone if ":" in zone else zone[:3] + ":" + zone[3:])
    try:
        base = datetime.fromisoformat(f"{m.group(1)}T{m.group(2)}{zone}").timestamp()
    except ValueError:
        return None
    return base + float("0." + (m.group(3) or "0")[:9])
