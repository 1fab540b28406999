"""Real processes racing on one inbox: ours, the peers' own writers, and a marker.

Every message whose send was acknowledged must be in the file exactly once at
the end; our writers never give up; the peers' give-ups are counted and shown.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support.node import NODE_DIR, PY_MARKER, PY_WRITER, node_exe, parse_log
from support.world import CODER_ID, Teams

N_PY, N_NODE, PER_WRITER = 3, 3, 150


def run_race(
    teams: Teams,
    node: str,
    inbox: Path,
    team: str,
    to: str,
    marker_inbox: str,
    node_script: str,
    node_extra: list[str],
) -> tuple[dict[str, Any], list[Any]]:
    stop = teams.home / "stop"
    marker = subprocess.Popen(
        [sys.executable, str(PY_MARKER), str(teams.home), team, marker_inbox, str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    procs: list[tuple[str, subprocess.Popen[str]]] = []
    for w in range(N_PY):
        cmd = [sys.executable, str(PY_WRITER), str(teams.home), team, to, str(PER_WRITER), f"py{w}"]
        procs.append(("py", subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)))
    for w in range(N_NODE):
        cmd = [
            node,
            str(NODE_DIR / node_script),
            str(inbox),
            str(PER_WRITER),
            f"node{w}",
            *node_extra,
        ]
        procs.append(
            (
                "node",
                subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
            )
        )
    logs: dict[str, dict[str, list[str]]] = {}
    try:
        for i, (kind, p) in enumerate(procs):
            out, err = p.communicate(timeout=240)
            assert p.returncode == 0, f"{kind} writer {i} exited {p.returncode}: {err}"
            logs[f"{kind}{i}"] = parse_log(out)
    finally:
        stop.write_text("stop")
        mout, _ = marker.communicate(timeout=60)
        for _, p in procs:
            p.kill()
    assert marker.returncode == 0
    assert "FAIL" not in mout, mout
    marked = sum(int(line.split()[1]) for line in mout.splitlines() if line.startswith("MARKED"))
    doc = json.loads(inbox.read_bytes())
    entries = doc if isinstance(doc, list) else doc["messages"]
    stats = {
        "logs": logs,
        "marked": marked,
        "node_gaveup": sum(len(v["GAVEUP"]) for k, v in logs.items() if k.startswith("node")),
        "py_fail": sum(
            len(v["FAIL"]) + len(v["GAVEUP"]) for k, v in logs.items() if k.startswith("py")
        ),
        "acked": [t for v in logs.values() for t in v["ACK"]],
    }
    return stats, entries


def check(stats: dict[str, Any], tokens: list[str], record: Any, label: str) -> None:
    acked = stats["acked"]
    gaveup = {t for v in stats["logs"].values() for t in v["GAVEUP"]}
    report = (
        f"{label}: {len(acked)} acknowledged, node give-ups {stats['node_gaveup']}"
        f" of {N_NODE * PER_WRITER}, marked read {stats['marked']}"
    )
    print(report)
    record(f"{label}_node_gaveups", stats["node_gaveup"])
    record(f"{label}_acked", len(acked))
    assert stats["py_fail"] == 0, report
    assert sum(1 for t in acked if t.startswith("py")) == N_PY * PER_WRITER, report
    # every acknowledged message from anyone is present exactly once ...
    missing = [t for t in acked if tokens.count(t) != 1]
    assert not missing, f"{report}; lost or duplicated: {missing[:10]}"
    # ... and nothing else is: no duplicates, no message of a writer that gave up
    assert sorted(tokens) == sorted(acked), report
    assert not gaveup & set(tokens)
    # the peers mostly get through: our lock hold is short
    assert stats["node_gaveup"] <= N_NODE * PER_WRITER // 10, report
    assert stats["marked"] > 0


@pytest.mark.slow
def test_claude_inbox_race(teams: Teams, record_property: Any) -> None:
    node = node_exe()
    inbox = teams.cinbox("researcher")
    stats, entries = run_race(
        teams, node, inbox, "alpha", "researcher", "researcher", "claude_writer.js", []
    )
    tokens = [e["text"] for e in entries[1:]]
    assert entries[0]["text"] == "please look at auth"
    check(stats, tokens, record_property, "claude")
    # the file is still laid out as JSON.stringify(arr, null, 2)
    assert inbox.read_bytes() == json.dumps(entries, indent=2, ensure_ascii=False).encode()
    leftovers = [
        p.name for p in inbox.parent.iterdir() if p.name.startswith(".") or ".tmp." in p.name
    ]
    assert leftovers == []
    assert not Path(str(inbox) + ".lock").exists()


@pytest.mark.slow
def test_pseudoclaude_inbox_race(teams: Teams, record_property: Any) -> None:
    node = node_exe()
    inbox = teams.pinbox(CODER_ID)
    t0 = time.monotonic()
    stats, entries = run_race(
        teams, node, inbox, "beta", "coder", CODER_ID, "pseudo_writer.js", [CODER_ID]
    )
    tokens = [e.get("content") for e in entries[1:]]
    assert entries[0]["content"] == "Please write src/auth/jwt.ts"
    check(stats, tokens, record_property, "pseudoclaude")
    print(f"pseudoclaude race took {time.monotonic() - t0:.1f} s")
    leftovers = [p.name for p in inbox.parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []
    assert not Path(str(inbox) + ".lock").exists()
