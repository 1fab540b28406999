"""`timestamps.epoch`: the one way a time from a peer's file becomes a number. It never
raises, and whatever it returns can be formatted."""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teaminbox.timestamps import LATEST, epoch

MS = 1_770_000_000_000


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1_770_000_000.5, 1_770_000_000.5),  # the file bus: seconds
        (1_770_000_000, 1_770_000_000.0),
        (MS, MS / 1000),  # Claude's createdAt: milliseconds
        (0, 0.0),
        ("2026-02-02T02:40:00.000Z", MS / 1000),
        ("2026-02-02T03:40:00.000000000+01:00", MS / 1000),
    ],
)
def test_times(value: Any, expected: float) -> None:
    assert epoch(value) == pytest.approx(expected)


@pytest.mark.parametrize(
    "value",
    [
        1e20,
        -1e20,
        1e30,
        -1,
        1e14,  # past milliseconds too
        math.inf,
        -math.inf,
        math.nan,
        10**400,  # no float holds it
        True,
        False,
        None,
        "1770000000",
        "0001-01-01T00:00:00Z",  # Go's zero time: no time
        "9999-12-31T23:59:59-14:00",
        "0000-01-01T00:00:00Z",
        [],
        {},
    ],
)
def test_invalid_is_none(value: Any) -> None:
    assert epoch(value) is None


@given(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.text(max_size=40),
        st.booleans(),
    )
)
def test_never_raises_and_always_formats(value: Any) -> None:
    t = epoch(value)
    if t is not None:
        assert 0.0 <= t < LATEST
        datetime.fromtimestamp(t, tz=timezone.utc)
        time.strftime("%a %d %b %H:%M", time.localtime(t))
