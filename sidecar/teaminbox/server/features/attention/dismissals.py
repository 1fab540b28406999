"""Dismissed attention items: their keys, in a small file beside the history, kept by
every window (merged with the file on each dismissal) and across restarts."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable

import orjson

DISMISSED_FILE = "attention-dismissed.json"  # beside the history database
MAX_DISMISSED = 5000


def dismissed_path(history_path: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(history_path)), DISMISSED_FILE)


class Dismissals:
    def __init__(self, path: Callable[[], str]) -> None:
        self._path = path  # asked when first needed: the history's is known after the start
        self._keys: dict[str, float] | None = None

    def keys(self) -> dict[str, float]:
        if self._keys is None:
            self._keys = load_dismissed(self._path())
        return self._keys

    def dismiss(self, key: str) -> bool:
        """Hide an item for good (a hook's prompt: see the handler)."""
        have = self.keys()
        if key in have:
            return False
        # another window may have dismissed others since: merge with the file
        merged = {**load_dismissed(self._path()), **have, key: time.time()}
        newest = sorted(merged.items(), key=lambda kv: kv[1])[-MAX_DISMISSED:]
        self._keys = dict(newest)
        save_dismissed(self._path(), self._keys)
        return True


def load_dismissed(path: str) -> dict[str, float]:
    """Dismissed keys and when; a file that is missing or does not parse is no keys (it is
    rewritten whole on the next dismissal: it holds nothing but these keys)."""
    try:
        with open(path, "rb") as f:
            doc = orjson.loads(f.read(4 * 1024 * 1024))
    except (OSError, orjson.JSONDecodeError):
        return {}
    got = doc.get("dismissed") if isinstance(doc, dict) else None
    if not isinstance(got, dict):
        return {}
    return {
        k: float(v)
        for k, v in got.items()
        if isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
    }


def save_dismissed(path: str, keys: dict[str, float]) -> None:
    tmp = f"{path}.{os.getpid()}.teaminbox-tmp"
    try:
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600
        )
        with os.fdopen(fd, "wb") as f:
            f.write(orjson.dumps({"dismissed": keys}))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
