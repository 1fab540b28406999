"""The watcher's tail parse must recognise what peers really write.

Claude Code rewrites the inbox with JSON.stringify(arr, null, 2): after an
append the old file is NOT a byte prefix of the new one (`}\n]` becomes
`},\n  {...}\n]`), only the old file less its closing `\n]` is. If the tail
parse misses that, every append to a 27 MB inbox costs a full parse (~100 ms).
"""

from __future__ import annotations

import json
import subprocess

from lsp_session import NODE_DIR, ensure_node_modules

from teaminbox.formats import get
from teaminbox.store import tail_entries

STRINGIFY = "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1]), null, 2))"


def stringify(value: object) -> bytes:
    ensure_node_modules()
    out = subprocess.run(
        ["node", "-e", STRINGIFY, json.dumps(value)],
        cwd=NODE_DIR,
        check=True,
        capture_output=True,
        timeout=30,
    )
    return out.stdout


def test_tail_parse_recognises_a_json_stringify_append() -> None:
    claude = get("claude")
    a = {"from": "researcher", "text": "first", "timestamp": "2026-11-29T10:00:00.000Z"}
    b = {"from": "tester", "text": "second", "timestamp": "2026-11-29T10:00:01.000Z"}
    c = {"from": "tester", "text": "third", "timestamp": "2026-11-29T10:00:02.000Z"}
    old, new = stringify([a]), stringify([a, b, c])
    assert tail_entries(claude, old, new, "user.json") == [b, c]
    # And what this project's own writer splices in (store.append) is the same bytes.
    spliced = claude.append_bytes(old, [b, c])
    assert spliced == new
    # Not an append: a prune, or a changed earlier entry.
    assert tail_entries(claude, new, stringify([a, c]), "user.json") is None
    assert tail_entries(claude, old, stringify([{**a, "read": True}, b]), "user.json") is None
