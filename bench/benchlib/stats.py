"""Medians, percentiles and the way the benches print a time and a ratio."""

from __future__ import annotations

import statistics


def median(xs: list[float]) -> float:
    """The median of the samples there are (a NaN is a missing one); NaN when there are none."""
    xs = [x for x in xs if x == x]
    return statistics.median(xs) if xs else float("nan")


def pct(values: list[float], p: float) -> float:
    """The p-th percentile (0-100), linear between the two nearest samples."""
    s = sorted(values)
    if not s:
        return float("nan")
    k = (len(s) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def ms(x: float) -> str:
    if x != x:  # nan: no sample
        return "-"
    return f"{x:.2f}" if x < 10 else f"{x:.1f}" if x < 100 else f"{x:.0f}"


def ratio(a: float, b: float) -> str:
    if a != a or b != b or b == 0:
        return "-"
    return f"{a / b:.2f}"
