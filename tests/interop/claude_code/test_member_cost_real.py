"""Two teammates editing one file, and each member's context and cost, against the REAL
Claude Code CLI (2.1.332).

The real `teaminbox serve` runs before claude. The lead spawns helper, which reads and
edits `shared.txt` and is done; helper's idle notification wakes the lead, which reads
and edits the same file. "Needs attention" must then hold one `sameFile` item naming
both and the file. Meanwhile each member's context (its last turn's input + cache
tokens) and cost in `teamInbox/teams` must equal what this test computes from the
transcripts Claude Code wrote (its usage rows, a message counted once with its largest
figures, at the price table's rates). Each look waits for its condition.

One session (about 30 s), nothing leaves the machine.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from teaminbox.transcripts import PRICES, context_window, price_for

from .api_script import Request, Rule, Script, call, say
from .harness import Session
from .own_session import VERSION, OwnRun, play, scratch_home, spawn_helper
from .scenario import has_results
from .sidecar_client import Sidecar

PROMPT = "COST-START: spawn a teammate named helper."
HELPER_PROMPT = "COST-HELPER-TASK: fix the first line of shared.txt."
HELPER_DONE = "COST-HELPER-DONE"
SHARED = "LINE-ONE\nLINE-TWO\n"


def helper_wrote(req: Request) -> bool:
    """The lead's turn that a message from helper started (its idle notification)."""
    text = req.last_user
    return "teammate-message" in text and "helper" in text


def make_script(cwd: Path) -> Script:
    path = str(cwd / "shared.txt")
    return Script(
        [
            spawn_helper("COST-START", HELPER_PROMPT),
            Rule("h-read", "helper", "COST-HELPER-TASK", call("Read", {"file_path": path})),
            Rule(
                "h-edit",
                "helper",
                has_results,
                call("Edit", {"file_path": path, "old_string": "LINE-ONE", "new_string": "ONE"}),
                after=("h-read",),
            ),
            Rule("h-done", "helper", has_results, say(HELPER_DONE), after=("h-edit",)),
            Rule(
                "l-read",
                "lead",
                helper_wrote,
                call("Read", {"file_path": path}),
                after=("h-done",),
            ),
            Rule(
                "l-edit",
                "lead",
                has_results,
                call("Edit", {"file_path": path, "old_string": "LINE-TWO", "new_string": "TWO"}),
                after=("l-read",),
            ),
        ]
    )


def figures(path: Path) -> tuple[int, str, float]:
    """A transcript's context (its last turn's prompt), that turn's model and its cost,
    from its usage rows: Claude Code writes a row per content block, each with the
    message's usage so far, so each message counts once, with its largest figures."""
    keys = ("input_tokens", "output_tokens", "cache_read_input_tokens")
    messages: dict[str, tuple[str, list[int]]] = {}
    last: tuple[str, list[int]] | None = None
    for line in path.read_bytes().splitlines():
        row = json.loads(line)
        msg = row.get("message")
        if row.get("type") != "assistant" or not isinstance(msg, dict):
            continue
        u = msg.get("usage") or {}
        got = [int(u.get(k) or 0) for k in (*keys, "cache_creation_input_tokens")]
        model = str(msg.get("model"))
        old = messages.get(msg["id"])
        merged = [max(a, b) for a, b in zip(old[1], got, strict=True)] if old else got
        messages[msg["id"]] = (model, merged)
        if merged[0] + merged[2] + merged[3]:
            last = (model, merged)
    assert last is not None, f"no usage in {path}"
    cost = 0.0
    for model, (i, o, r, w) in messages.values():
        p = price_for(model, PRICES)
        cost += (i * p.input + o * p.output + r * p.cache_read + w * p.cache_write) / 1e6
    model, (i, _, r, w) = last
    return i + r + w, model, round(cost, 6)


@dataclass
class Run(OwnRun):
    items: list[dict[str, Any]] = field(default_factory=list)  # the sameFile items
    shown: dict[str, Any] = field(default_factory=dict)  # the sidecar's figures by member
    computed: dict[str, tuple[int, str, float]] = field(default_factory=dict)  # the test's
    team_cost: float = 0.0
    edits: list[dict[str, Any]] = field(default_factory=list)  # both Edit results


def transcripts(s: Session) -> dict[str, Path]:
    """Each member's transcript: the lead's `<session>.jsonl`, helper's by its meta.json."""
    found: dict[str, Path] = {}
    for meta in (s.claude_dir / "projects").glob("*/*/subagents/agent-*.meta.json"):
        name = json.loads(meta.read_text()).get("name")
        if isinstance(name, str):
            found[name] = meta.with_name(meta.name.replace(".meta.json", ".jsonl"))
    leads = list((s.claude_dir / "projects").glob("*/*.jsonl"))
    if len(leads) == 1:
        found["team-lead"] = leads[0]
    return found


def _play(s: Session, sidecar: Sidecar, run: Run) -> None:
    tid = f"claude:{run.team}"
    s.wait_rule("l-edit", 90)

    def same() -> list[dict[str, Any]] | None:
        items = sidecar.call("teamInbox/attention", {})["items"]
        found = [i for i in items if i["kind"] == "sameFile" and i["team"] == tid]
        return found or None

    run.items = s.wait(same, 60, "the two-editors item")

    def matching() -> bool:
        files = transcripts(s)
        if set(files) < {"helper", "team-lead"}:
            return False
        computed = {name: figures(files[name]) for name in ("helper", "team-lead")}
        teams = sidecar.call("teamInbox/teams", {})["teams"]
        team = next(t for t in teams if t["id"] == tid)
        shown = {m["name"]: m.get("activity") for m in team["members"]}
        run.computed, run.shown = computed, shown
        run.team_cost = (team.get("tokens") or {}).get("cost", 0.0)
        for name, (used, model, cost) in computed.items():
            a = shown.get(name) or {}
            ctx = a.get("context") or {}
            if (ctx.get("used"), ctx.get("model")) != (used, model):
                return False
            if abs(a["tokens"]["cost"] - cost) > 1e-6:
                return False
        return True

    s.wait(matching, 30, "the sidecar's context and cost to match the transcripts' usage")
    for rule in ("h-done", "l-edit"):
        [req] = [r for r in s.api.snapshot() if r.rule == rule]
        run.edits.append(req.tool_results()[0] if req.tool_results() else {})


def _run(base: Path) -> Run:
    home = scratch_home(base)
    (base / "work").mkdir(parents=True)
    (base / "work" / "shared.txt").write_text(SHARED)
    sidecar = Sidecar(home).start()
    s = Session(
        VERSION,
        base,
        make_script(base / "work"),
        PROMPT,
        ["--allowedTools=Read,Edit"],  # one value: the option is variadic, the prompt follows
        hard_limit=240.0,
    )
    run = Run(s)
    try:
        play(s, run, lambda: _play(s, sidecar, run))
    finally:
        sidecar.stop()
    return run


@pytest.fixture(scope="module")
def cost(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return _run(tmp_path_factory.mktemp(f"claude-code-cost-{VERSION}"))


def test_two_teammates_editing_one_file_is_one_item(cost: Run) -> None:
    cost.require()
    assert all(not e.get("is_error") for e in cost.edits), cost.edits
    assert (cost.session.cwd / "shared.txt").read_text() == "ONE\nTWO\n"
    path = str(cost.session.cwd / "shared.txt")
    [item] = cost.items
    assert (item["member"], item["other"], item["path"]) == ("helper", "team-lead", path)
    assert item["summary"] == f"helper and team-lead both edited {path}"
    assert item["key"] == f"sameFile:claude:{cost.team}:helper:team-lead:{path}"
    assert item["info"] is False


def test_context_and_cost_match_the_transcripts_usage(cost: Run) -> None:
    cost.require()
    for name, (used, model, dollars) in cost.computed.items():
        a = cost.shown[name]
        assert a["context"] == {
            "used": used,
            "window": context_window(model, used),
            "model": model,
        }, name
        assert used > 0 and abs(a["tokens"]["cost"] - dollars) <= 1e-6, name
    total = sum(c for _, _, c in cost.computed.values())
    assert abs(cost.team_cost - total) <= 1e-5
