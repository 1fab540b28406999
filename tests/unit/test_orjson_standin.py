"""Without orjson (a platform the .vsix has no wheel for) the sidecar runs on the standard
library and writes the same bytes. TEAMINBOX_NO_ORJSON=1 takes that path here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.world import Teams

CORPUS = [
    {"from": "a", "text": "plain", "timestamp": "2026-11-30T10:00:00.000Z", "read": False},
    {"n": [0.1, 1.5e-7, 1e21, 2.0, -0.0, 12345678901234567890], "u": "é😀\u2028<>&"},
    {"10": "index keys first", "b": {"2": 1, "1": 2}, "nested": [[[{"x": None}]]]},
]


def run(code: str, standin: bool) -> bytes:
    env = {**os.environ, "TEAMINBOX_NO_ORJSON": "1" if standin else "0"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, check=True, timeout=60
    )
    return out.stdout


def test_the_standin_takes_orjsons_place() -> None:
    code = "import teaminbox, orjson; print(getattr(orjson, 'STANDIN', False))"
    assert run(code, standin=True).strip() == b"True"
    assert run(code, standin=False).strip() == b"False"


def test_same_bytes_written_with_and_without_orjson() -> None:
    code = (
        "import json, sys; from teaminbox.jsonio import dumps_indented;"
        f" sys.stdout.buffer.write(dumps_indented(json.loads({json.dumps(json.dumps(CORPUS))})))"
    )
    fast, slow = run(code, standin=False), run(code, standin=True)
    assert fast == slow
    assert json.loads(slow) == json.loads(json.dumps(CORPUS))


def test_cli_round_trip_without_orjson(teams: Teams) -> None:
    env = {"TEAMINBOX_NO_ORJSON": "1"}
    sent = teams.cli("send", "alpha", "researcher", "stand-in 😀", "--summary", "s", **env)
    assert sent.returncode == 0, sent.stderr
    page = teams.cli("read", "alpha", "researcher", "--json", **env)
    assert page.returncode == 0, page.stderr
    texts = [m["text"] for m in json.loads(page.stdout)["messages"]]
    assert "stand-in 😀" in texts
    raw = Path(teams.cinbox("researcher")).read_bytes()
    assert json.loads(raw)[-1]["text"] == "stand-in 😀" and raw.endswith(b"\n  }\n]")
