"""Token counts and prices: what a transcript's usage rows cost."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..model import TokenUse

# --- prices ------------------------------------------------------------------------------


@attrs.frozen
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float  # 5-minute cache writes; 1-hour ones cost twice the input price


def price(input: float, output: float) -> Price:
    return Price(input, output, input / 10, input * 1.25)


# An estimate from the public list prices, by a part of the model id: the longest part
# found in the id wins; an unknown model is priced as Sonnet. Overridable per part
# (initializationOptions.tokenPrices). Long-context and batch prices are not modelled.
PRICES: dict[str, Price] = {
    "opus": price(5, 25),  # Opus 4.5 and later
    "claude-opus-4-0": price(15, 75),
    "claude-opus-4-1": price(15, 75),
    "claude-opus-4-2025": price(15, 75),  # claude-opus-4-20250514
    "claude-3-opus": price(15, 75),
    "sonnet": price(3, 15),
    "haiku": price(1, 5),  # Haiku 4.5
    "claude-3-5-haiku": price(0.8, 4),
    "claude-3-haiku": price(0.25, 1.25),
}
DEFAULT_PRICE = PRICES["sonnet"]


def price_for(model: str, table: Mapping[str, Price]) -> Price:
    name = model.lower()
    best = max((k for k in table if k.lower() in name), key=len, default=None)
    return table[best] if best is not None else DEFAULT_PRICE


# --- context windows ----------------------------------------------------------------------

# Tokens a model's context holds, by a part of its id (the largest found wins). Every
# Claude model so far has 200k; the long-context beta (`[1m]` in the id) has a million. A
# turn larger than the window found proves the larger one.
CONTEXT_WINDOWS: dict[str, int] = {"claude": 200_000, "[1m]": 1_000_000}
DEFAULT_WINDOW = 200_000
LONG_WINDOW = 1_000_000


def context_window(model: str, used: int = 0, configured: str = "") -> int:
    """`configured`: the model the team's config names for the member (Claude Code's `model`):
    its `[1m]` is not in the transcript's model id, so it says so before a turn proves it."""
    window = max(
        (n for k, n in CONTEXT_WINDOWS.items() if k in model.lower() or k in configured.lower()),
        default=DEFAULT_WINDOW,
    )
    if used > window:
        window = LONG_WINDOW if used <= LONG_WINDOW else used
    return window


@attrs.define
class Counts:
    """One model's tokens: input, output, cache reads, cache writes (5 min, 1 h)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int = 0  # part of cache_write

    def add(self, other: Counts, sign: int = 1) -> None:
        self.input += sign * other.input
        self.output += sign * other.output
        self.cache_read += sign * other.cache_read
        self.cache_write += sign * other.cache_write
        self.cache_write_1h += sign * other.cache_write_1h

    def prompt(self) -> int:
        """The turn's prompt as the model saw it: what its context held."""
        return self.input + self.cache_read + self.cache_write

    def cost(self, p: Price) -> float:
        five = self.cache_write - self.cache_write_1h
        return (
            self.input * p.input
            + self.output * p.output
            + self.cache_read * p.cache_read
            + five * p.cache_write
            + self.cache_write_1h * p.input * 2
        ) / 1e6


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_counts(usage: Any) -> Counts:
    if not isinstance(usage, dict):
        return Counts()
    creation = usage.get("cache_creation")
    one_hour = _int(creation.get("ephemeral_1h_input_tokens")) if isinstance(creation, dict) else 0
    write = _int(usage.get("cache_creation_input_tokens"))
    return Counts(
        _int(usage.get("input_tokens")),
        _int(usage.get("output_tokens")),
        _int(usage.get("cache_read_input_tokens")),
        write,
        min(one_hour, write),
    )


def token_use(by_model: Mapping[str, Counts], prices: Mapping[str, Price] = PRICES) -> TokenUse:
    total = TokenUse()
    for model, c in by_model.items():
        total.input += c.input
        total.output += c.output
        total.cache_read += c.cache_read
        total.cache_write += c.cache_write
        total.cost += c.cost(price_for(model, prices))
    total.cost = round(total.cost, 6)
    return total


def add_tokens(a: TokenUse, b: TokenUse) -> TokenUse:
    return TokenUse(
        a.input + b.input,
        a.output + b.output,
        a.cache_read + b.cache_read,
        a.cache_write + b.cache_write,
        round(a.cost + b.cost, 6),
    )
