"""The inboxes the benches write: Claude inbox entries, a team's folder, a peer's write."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "tests"))
from support.entries import claude_entry  # noqa: E402 (nothing of teaminbox: fine for an old build)
from teaminbox.formats import get  # noqa: E402

CLAUDE = get("claude")


def iso(i: int) -> str:
    return (
        (dt.datetime(2026, 11, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=i))
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


FILLER = "The quick brown fox reports: tests pass; next step is the auth module. "


def make_entry(i: int, text_bytes: int, sender: str = "researcher") -> dict[str, Any]:
    head = f"msg {i}: "
    body = (FILLER * (text_bytes // len(FILLER) + 1))[: max(0, text_bytes - len(head))]
    return claude_entry(
        sender,
        head + body,
        iso(i),
        read=i % 2 == 0,
        summary=f"update {i}",
        color="blue",
        type="message",
        msg_id=f"00000000-0000-4000-8000-{i:012d}",
    )


def now_entry(sender: str, summary: str, text: str) -> dict[str, Any]:
    """A message as a peer writes it now: unread, stamped with the current time."""
    return {
        "from": sender,
        "text": text,
        "summary": summary,
        "timestamp": dt.datetime.now(dt.timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "color": "blue",
        "read": False,
    }


def dumps(entries: list[dict[str, Any]]) -> bytes:
    return CLAUDE.serialize(entries)


def atomic_write(path: Path, data: bytes) -> float:
    """Temp file + rename, as peers write; returns perf_counter just before the rename."""
    tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
    t0 = time.perf_counter()
    os.rename(tmp, path)
    return t0


def append_bytes(old: bytes, e: dict[str, Any]) -> bytes:
    out = CLAUDE.append_bytes(old, [e])
    assert out is not None
    return out


def make_team(root: Path, name: str, members: list[str]) -> Path:
    team = root / name
    (team / "inboxes").mkdir(parents=True, exist_ok=True)
    config = {
        "name": name,
        "leadAgentId": f"{members[0]}@{name}",
        "leadSessionId": "bench",
        "createdAt": 1770000000000,
        "members": [{"agentId": f"{m}@{name}", "name": m, "agentType": "bench"} for m in members],
    }
    (team / "config.json").write_text(json.dumps(config, indent=2))
    return team
