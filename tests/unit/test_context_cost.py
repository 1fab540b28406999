"""Each member's context (its last turn's prompt over its model's window) and cost from
usage rows in Claude Code 2.1.332's shape (one row per content block, each with the
message's usage so far), and the rule for two members editing one file."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import attrs
from test_now_doing import SONNET, T0, call, line, result

from teaminbox.cli.output import usage_line
from teaminbox.model import (
    Activity,
    ContextUse,
    FileChange,
    Member,
    Team,
    TokenUse,
    converter,
)
from teaminbox.server.features.activity.spec import Spec, session_of
from teaminbox.server.features.attention.rules import SAME_FILE_SECONDS, same_file
from teaminbox.transcripts import (
    PRICES,
    Price,
    Session,
    Stats,
    TeamActivity,
    context_window,
    price_for,
)

OPUS_1M = "claude-opus-4-6[1m]"


def turn(msg: str, usage: dict[str, Any], model: str = SONNET, ts: str = T0) -> bytes:
    return line(
        {
            "type": "assistant",
            "isSidechain": True,
            "uuid": f"u-{msg}-{len(usage)}",
            "timestamp": ts,
            "requestId": "req_" + msg,
            "message": {
                "id": msg,
                "model": model,
                "role": "assistant",
                "content": [{"type": "text", "text": "..."}],
                "usage": usage,
            },
        }
    )


def usage(inp: int, out: int, read: int = 0, write: int = 0) -> dict[str, Any]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
    }


def test_context_is_the_last_turns_prompt_counted_once_a_message() -> None:
    s = Stats()
    s.feed(
        [
            turn("m1", usage(3, 1, 10_000, 2_000)),
            # the same message's second block: its usage again, output grown
            turn("m1", usage(3, 40, 10_000, 2_000)),
            turn("m2", usage(5, 7, 12_000, 500), ts="2026-11-30T12:00:09.000Z"),
            # Claude Code's own "API Error" rows carry no usage: not a turn
            turn("m3", usage(0, 0), model="<synthetic>", ts="2026-11-30T12:00:10.000Z"),
        ]
    )
    assert s.turn is not None
    assert (s.turn.model, s.turn.prompt) == (SONNET, 5 + 12_000 + 500)
    by = s.by_model[SONNET]
    assert (by.input, by.output, by.cache_read, by.cache_write) == (8, 47, 22_000, 2_500)


def test_windows_by_model_id() -> None:
    assert context_window(SONNET) == 200_000
    assert context_window("claude-haiku-4-5") == 200_000
    assert context_window(OPUS_1M) == 1_000_000
    assert context_window("some-other-model") == 200_000  # the default
    # a prompt larger than the window found: the model runs with the long one
    assert context_window(SONNET, 350_000) == 1_000_000
    assert context_window(SONNET, 1_500_000) == 1_500_000


def test_a_members_context_and_cost_from_its_transcripts(tmp_path: Path) -> None:
    sid = "11111111-2222-4333-8444-555555555555"
    project = tmp_path / "projects" / "-home-dev-app"
    sub = project / sid / "subagents"
    sub.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_bytes(turn("L1", usage(10, 20, 30_000, 4_000)) + b"\n")
    rows = [
        turn("H1", usage(2, 100, 0, 50_000), model=OPUS_1M),
        turn("H2", usage(1, 300, 50_000, 8_000), model=OPUS_1M, ts="2026-11-30T12:01:00.000Z"),
    ]
    (sub / "agent-ahelper-1.jsonl").write_bytes(b"\n".join(rows) + b"\n")
    (sub / "agent-ahelper-1.meta.json").write_text(
        json.dumps({"name": "helper", "teamName": "session-1", "taskKind": "in_process_teammate"})
    )
    s = Session(
        [str(tmp_path / "projects")], sid, "/home/dev/app", "team-lead", "user", ["session-1"]
    )
    s.poll(1 << 20)
    act = s.activity(now=time.time())
    assert act is not None
    helper, lead = act.members["helper"], act.members["team-lead"]
    assert helper.context == ContextUse(1 + 50_000 + 8_000, 1_000_000, OPUS_1M)
    assert lead.context == ContextUse(10 + 30_000 + 4_000, 200_000, SONNET)
    # cost: every token at its model's price
    p, q = price_for(OPUS_1M, PRICES), price_for(SONNET, PRICES)

    def cost(p: Price, i: int, o: int, r: int, w: int) -> float:
        return (i * p.input + o * p.output + r * p.cache_read + w * p.cache_write) / 1e6

    want_helper = cost(p, 3, 400, 50_000, 58_000)
    want_lead = cost(q, 10, 20, 30_000, 4_000)
    assert abs(helper.tokens.cost - want_helper) < 1e-6
    assert abs(lead.tokens.cost - want_lead) < 1e-6
    assert abs(act.tokens.cost - (want_helper + want_lead)) < 1e-5
    wire = converter.unstructure(helper)
    assert wire["context"] == {"used": 58_001, "window": 1_000_000, "model": OPUS_1M}


def test_a_turns_tool_calls_keep_the_context() -> None:
    s = Stats()
    s.feed([call("T1", "Bash", {"command": "ls"}), result("T1")])
    assert s.turn is not None and s.turn.prompt == 10  # test_now_doing's rows: 10 in, 5 out


def test_the_clis_line() -> None:
    a = Activity(tokens=TokenUse(cost=1.234), context=ContextUse(50_000, 200_000, SONNET))
    assert usage_line(a) == "context 50,000/200,000 tokens (25 %) · cost ~$1.23"
    assert usage_line(Activity()) == ""


# --- two members, one file ------------------------------------------------------------


def team(*names: str) -> Team:
    return Team(
        id="claude:t",
        format="claude",
        name="t",
        dir="/x",
        root="/r",
        members=[Member(name=n, inbox=n) for n in names],
    )


def change(member: str, path: str, at: float, tid: str = "") -> FileChange:
    return FileChange(member, path, path, "Edit", at, tid or f"{member}-{at}")


def test_two_members_editing_one_file_close_together_is_one_item() -> None:
    t0 = 1_800_000_000.0
    changes = [
        change("alice", "/w/app/api.py", t0),
        change("alice", "/w/app/api.py", t0 + 30),
        change("bob", "/w/app/./api.py", t0 + 60),  # the same file, spelt otherwise
        change("bob", "/w/app/api.py", t0 + 90),
        change("alice", "/w/app/other.py", t0 + 10),  # one member: nothing
    ]
    found = same_file(team("alice", "bob"), changes)
    assert len(found) == 1
    item = found[0]
    assert item.kind == "sameFile" and item.member == "alice" and item.other == "bob"
    assert item.summary == "alice and bob both edited /w/app/api.py"
    assert item.path == "/w/app/api.py" and item.since == t0 + 60
    assert item.key == "sameFile:claude:t:alice:bob:/w/app/api.py"
    # the same item however the list grows: dismissed once, dismissed for good
    later = same_file(team("alice", "bob"), [*changes, change("bob", "/w/app/api.py", t0 + 400)])
    assert [i.key for i in later] == [item.key]


def test_far_apart_other_trees_and_relative_paths_are_not_items() -> None:
    t0 = 1_800_000_000.0
    apart = [
        change("alice", "/w/app/api.py", t0),
        change("bob", "/w/app/api.py", t0 + SAME_FILE_SECONDS + 1),
    ]
    assert same_file(team("alice", "bob"), apart) == []
    trees = [  # each in its own worktree: different files
        change("alice", "/w/wt-a/api.py", t0),
        change("bob", "/w/wt-b/api.py", t0 + 1),
    ]
    assert same_file(team("alice", "bob"), trees) == []
    relative = [change("alice", "api.py", t0), change("bob", "api.py", t0 + 1)]
    assert same_file(team("alice", "bob"), relative) == []


def test_three_editors_name_each_pair() -> None:
    t0 = 1_800_000_000.0
    changes = [change(n, "/w/a.py", t0 + i) for i, n in enumerate(["carol", "alice", "bob"])]
    keys = sorted(i.key for i in same_file(team("alice", "bob", "carol"), changes))
    assert keys == [
        "sameFile:claude:t:alice:bob:/w/a.py",
        "sameFile:claude:t:alice:carol:/w/a.py",
        "sameFile:claude:t:bob:carol:/w/a.py",
    ]


def _lead_only(tmp_path: Path, model: str, models: dict[str, str] | None) -> Session:
    sid = "11111111-2222-4333-8444-666666666666"
    project = tmp_path / "projects" / "-home-dev-app"
    project.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_bytes(turn("L1", usage(10, 20, 30_000, 4_000), model) + b"\n")
    s = Session(
        [str(tmp_path / "projects")], sid, "/home/dev/app", "team-lead", "user", ["t"], models
    )
    s.poll(1 << 20)
    return s


def test_a_1m_model_named_in_the_config_sets_the_window(tmp_path: Path) -> None:
    # Claude Code writes the member's `[1m]` into config.json's `model`, not into the
    # transcript's model id: a 34k turn would otherwise read as 17 % of 200k
    plain = "claude-opus-4-6"
    act = _lead_only(tmp_path / "a", plain, {"team-lead": "opus[1m]"}).activity()
    assert act is not None
    assert act.members["team-lead"].context == ContextUse(34_010, 1_000_000, plain)
    for k, models in enumerate((None, {"team-lead": "opus"}, {"helper": "opus[1m]"})):
        act = _lead_only(tmp_path / f"b{k}", plain, models).activity()
        assert act is not None
        context = act.members["team-lead"].context
        assert context is not None and context.window == 200_000, models
    assert context_window(plain, 0, "claude-opus-4-6[1m]") == 1_000_000


def test_the_spec_carries_the_configs_models() -> None:
    spec = Spec(
        "claude:t", "11111111-2222-4333-8444-666666666666", None, None, "user", None, (), ()
    )
    spec = attrs.evolve(spec, models=(("helper", "sonnet[1m]"),))
    back = Spec.from_body("claude:t", json.loads(json.dumps(spec.body())))
    assert back == spec
    assert session_of(spec).models == {"helper": "sonnet[1m]"}
    # a body an older sidecar wrote (no models), or a damaged one: no models, the rest kept
    old = {k: v for k, v in spec.body().items() if k != "models"}
    assert Spec.from_body("claude:t", old) == attrs.evolve(spec, models=())
    bad = spec.body() | {"models": {"helper": 7, "lead": "opus[1m]"}}
    assert Spec.from_body("claude:t", bad) == attrs.evolve(spec, models=(("lead", "opus[1m]"),))


def test_an_ended_teams_members_keep_their_context(tmp_path: Path) -> None:
    act = _lead_only(tmp_path, SONNET, None).activity()
    assert act is not None
    body = json.loads(json.dumps(act.persisted()))
    kept = TeamActivity.restored(body)
    assert kept is not None
    assert kept.members["team-lead"].context == ContextUse(34_010, 200_000, SONNET)
    assert kept.members["team-lead"].tokens == act.members["team-lead"].tokens
    # an older sidecar's body has no context: it reads as none, its tokens still count
    del body["members"]["team-lead"]["context"]
    old = TeamActivity.restored(body)
    assert old is not None and old.members["team-lead"].context is None
    assert old.members["team-lead"].tokens == act.members["team-lead"].tokens
    for damaged in ({"used": "many"}, {"used": -1, "window": 5, "model": "m"}, [1, 2], "x"):
        body["members"]["team-lead"]["context"] = damaged
        got = TeamActivity.restored(body)
        assert got is not None and got.members["team-lead"].context is None, damaged
        assert got.members["team-lead"].tokens == act.members["team-lead"].tokens
