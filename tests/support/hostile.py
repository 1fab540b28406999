"""What the hostile-input tests share: a valid entry, a value's bytes as an inbox file holds
them, and a call that must return in time."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest

GOOD = {"from": "a", "text": "hello", "timestamp": "2026-01-01T00:00:00Z"}


def dump(value: Any) -> bytes:
    return json.dumps(value, indent=2, ensure_ascii=False).encode()


def within(seconds: float, fn: Callable[[], Any], unblock: Callable[[], None]) -> Any:
    """fn() in a thread; fail (after calling unblock) if it has not returned in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # noqa: B036 - reported below
            box["error"] = err

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        unblock()
        t.join(5)
        pytest.fail(f"blocked for over {seconds} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")
