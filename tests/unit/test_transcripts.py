"""Session transcripts (teaminbox.transcripts): following from an offset, usage sums, the
lead's answers, and the two recorded real sessions (Claude Code 2.1.197 and 2.1.332)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from teaminbox.model import Activity, TokenUse
from teaminbox.timestamps import epoch
from teaminbox.transcripts import (
    PRICES,
    NotFollowed,
    Price,
    Session,
    Stats,
    Tail,
    TeamActivity,
    Transcript,
    find_lead_transcript,
    price_for,
    project_dir_name,
    teammate_messages,
    valid_session_id,
)
from teaminbox.transcripts import files as tr_files

RECORDED = Path(__file__).resolve().parents[1] / "interop" / "claude_code" / "recorded"
SONNET = "claude-sonnet-4-5-20250929"


def line(row: dict[str, Any]) -> bytes:
    return json.dumps(row, separators=(",", ":")).encode()


def user(content: Any, uuid: str = "u1", **extra: Any) -> dict[str, Any]:
    return {
        "type": "user",
        "isSidechain": False,
        "uuid": uuid,
        "timestamp": "2026-11-30T12:00:00.000Z",
        "message": {"role": "user", "content": content},
        **extra,
    }


def said(
    content: Any,
    uuid: str = "a1",
    msg: str = "msg_1",
    model: str = SONNET,
    usage: dict[str, Any] | None = None,
    ts: str = "2026-11-30T12:00:01.000Z",
    **extra: Any,
) -> dict[str, Any]:
    return {
        "type": "assistant",
        "isSidechain": False,
        "uuid": uuid,
        "timestamp": ts,
        "gitBranch": "main",
        "cwd": "/home/dev/app",
        "requestId": "req_" + msg,
        "message": {
            "id": msg,
            "model": model,
            "role": "assistant",
            "content": content,
            "usage": usage or {"input_tokens": 100, "output_tokens": 10},
        },
        **extra,
    }


def person(text: str, who: str = "user", verified: bool = True) -> str:
    attr = ' verified="false"' if verified else ""
    return (
        "Another Claude session sent a message:\n"
        f'<teammate-message teammate_id="{who}" summary="s"{attr}>\n{text}\n</teammate-message>'
        "\n\nThis came from another Claude session."
    )


def text(s: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": s}]


def tool() -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": "toolu_1", "name": "SendMessage", "input": {"to": "x"}}]


def feed(stats: Stats, *rows: dict[str, Any]) -> None:
    stats.feed([line(r) for r in rows])


# --- following a file ---------------------------------------------------------------------


def test_tail_follows_from_the_offset_and_waits_for_a_partial_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    first, second = line({"n": 1}), line({"n": 2, "pad": "x" * 100})
    path.write_bytes(first + b"\n" + second[:30])
    tail = Tail(str(path))
    assert [ln for batch in tail.read(1 << 20) for ln in batch] == [first]
    assert tail.offset == len(first) + 1 and tail.partial == second[:30]
    assert [ln for batch in tail.read(1 << 20) for ln in batch] == []  # still half a line
    with open(path, "ab") as f:
        f.write(second[30:] + b"\n\n")
    assert [ln for batch in tail.read(1 << 20) for ln in batch] == [second]
    assert tail.position == path.stat().st_size and tail.partial == b""
    assert tail.unchanged()


def test_tail_reads_in_chunks_within_a_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tr_files, "READ_CHUNK", 7)
    rows = [line({"n": i}) for i in range(50)]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(r + b"\n" for r in rows))
    tail = Tail(str(path))
    got: list[bytes] = []
    reads = 0
    while True:
        got += [ln for batch in tail.read(64) for ln in batch]
        reads += 1
        if tail.seen is not None:
            break
    assert got == rows and reads > 5


def test_tail_starts_over_when_the_file_is_replaced_or_truncated(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(line({"n": 1}) + b"\n" + line({"n": 2}) + b"\n")
    tail = Tail(str(path))
    list(tail.read(1 << 20))
    path.write_bytes(line({"n": 3}) + b"\n")  # shorter: truncated
    assert [ln for batch in tail.read(1 << 20) for ln in batch] == [line({"n": 3})]
    assert tail.restarted
    tail.restarted = False
    other = tmp_path / "new.jsonl"
    other.write_bytes(line({"n": 4}) + b"\n" + line({"n": 5}) + b"\n")
    os.replace(other, path)  # another file at the path (longer: no truncation to see)
    assert [ln for batch in tail.read(1 << 20) for ln in batch] == [
        line({"n": 4}),
        line({"n": 5}),
    ]
    assert tail.restarted


def test_a_huge_line_is_skipped_without_being_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tr_files, "MAX_LINE", 1000)
    monkeypatch.setattr(tr_files, "READ_CHUNK", 256)
    path = tmp_path / "t.jsonl"
    good = line({"n": 1})
    path.write_bytes(b'{"pad":"' + b"x" * 5000)  # a huge line still being written
    tail = Tail(str(path))
    assert [ln for batch in tail.read(1 << 20) for ln in batch] == []
    assert tail.skipping and len(tail.partial) == 0  # never more than MAX_LINE held
    with open(path, "ab") as f:
        f.write(b'"}\n' + good + b"\n" + b"y" * 1500 + b"\n" + good + b"\n")
    assert [ln for batch in tail.read(1 << 20) for ln in batch] == [good, good]


def test_malformed_and_truncated_rows_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    good = said(text("WORDS"))
    path.write_bytes(b'{"type":"assistant",\n[1,2]\n' + line(good) + b"\n" + line(good)[:20])
    t = Transcript(str(path))
    assert t.poll(1 << 20) is False
    assert t.stats.last_words == "WORDS" and t.stats.rows == 1
    assert t.error is None


def test_a_last_line_without_its_newline_counts_when_the_session_ends(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(line(said(text("FIRST"))) + b"\n" + line(said(text("LAST"), msg="m2")))
    t = Transcript(str(path))
    t.poll(1 << 20)
    assert t.stats.last_words == "FIRST"
    t.finish()
    assert t.stats.last_words == "LAST"
    assert t.stats.tokens().output == 20


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    t = Transcript(str(fifo))
    done = threading.Event()

    def run() -> None:
        t.poll(1 << 20)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(5), "reading a FIFO blocked"
    assert t.error and "not a regular file" in t.error
    with pytest.raises(NotFollowed):
        list(Tail(str(fifo)).read(10))


def test_a_symlink_loop_is_an_error_not_a_hang(tmp_path: Path) -> None:
    loop = tmp_path / "t.jsonl"
    os.symlink(loop, loop)
    t = Transcript(str(loop))
    assert t.poll(1 << 20) is False
    assert t.error is not None
    assert t.poll(1 << 20) is False  # unchanged: not retried beyond a stat


def test_a_file_over_the_size_limit_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tr_files, "MAX_FILE", 100)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x" * 200)
    t = Transcript(str(path))
    assert t.poll(1 << 20) is False and t.error and "over" in t.error


# --- usage ------------------------------------------------------------------------------------


def test_usage_sums_count_each_message_once() -> None:
    s = Stats()
    u1 = {"input_tokens": 100, "output_tokens": 1, "cache_read_input_tokens": 1000}
    u2 = {"input_tokens": 100, "output_tokens": 30, "cache_read_input_tokens": 1000}
    # one message written as two rows (a text block, then a tool call), each with usage
    feed(s, said(text("thinking aloud"), uuid="a1", msg="m1", usage=u1))
    feed(s, said(tool(), uuid="a2", msg="m1", usage=u2))
    feed(s, said(text("next"), uuid="a3", msg="m2", usage={"input_tokens": 50}))
    tokens = s.tokens()
    assert (tokens.input, tokens.output, tokens.cache_read) == (150, 30, 1000)
    assert tokens.cost == pytest.approx((150 * 3 + 30 * 15 + 1000 * 0.3) / 1e6)


def test_usage_by_model_and_cache_writes() -> None:
    s = Stats()
    opus = {
        "input_tokens": 10,
        "output_tokens": 10,
        "cache_creation_input_tokens": 300,
        "cache_creation": {"ephemeral_1h_input_tokens": 100, "ephemeral_5m_input_tokens": 200},
    }
    feed(s, said(text("a"), msg="m1", model="claude-opus-4-5-20251101", usage=opus))
    feed(s, said(text("b"), msg="m2", model="claude-3-5-haiku-20241022"))
    feed(s, said(text("c"), msg="m3", model="claude-opus-4-1-20250805", usage={"output_tokens": 2}))
    t = s.tokens()
    assert (t.input, t.output, t.cache_write) == (110, 22, 300)
    opus_cost = (10 * 5 + 10 * 25 + 200 * 6.25 + 100 * 10) / 1e6
    haiku_cost = (100 * 0.8 + 10 * 4) / 1e6
    legacy_cost = 2 * 75 / 1e6
    assert t.cost == pytest.approx(opus_cost + haiku_cost + legacy_cost)
    cheap = {**PRICES, "opus": Price(1, 1, 0, 0)}
    assert s.tokens(cheap).cost < t.cost


def test_price_table_longest_part_wins_and_unknown_is_sonnet() -> None:
    assert price_for("claude-opus-4-1-20250805", PRICES) == PRICES["claude-opus-4-1"]
    assert price_for("claude-opus-4-6", PRICES) == PRICES["opus"]
    assert price_for("claude-3-haiku-20240307", PRICES) == PRICES["claude-3-haiku"]
    assert price_for("some-new-model", PRICES) == PRICES["sonnet"]


def test_bad_usage_values_count_nothing() -> None:
    s = Stats()
    bad = {"input_tokens": "9", "output_tokens": True, "cache_read_input_tokens": -5}
    feed(s, said(text("x"), usage=bad))
    assert s.tokens() == TokenUse()


# --- the lead's answers -----------------------------------------------------------------------


def test_answer_is_the_next_assistant_text_after_the_person() -> None:
    s = Stats(person="user")
    feed(s, said(text("before"), uuid="a0", msg="m0"))
    assert s.take_answers() == []
    feed(s, user(person("PERSON-1: status?")))
    feed(s, said(tool(), uuid="a1", msg="m1"))  # a tool call is not an answer
    feed(s, user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}], uuid="u2"))
    feed(s, said(text("ANSWER-1"), uuid="a2", msg="m2"))
    feed(s, said(text("later words"), uuid="a3", msg="m3"))
    [a] = s.take_answers()
    assert (a.uuid, a.text, a.timestamp) == ("a2", "ANSWER-1", "2026-11-30T12:00:01.000Z")
    assert s.last_words == "later words" and s.take_answers() == []


def test_answer_from_both_content_shapes() -> None:
    s = Stats(person="user")
    blocks = [{"type": "text", "text": person("PERSON-BLOCKS")}]
    feed(s, user(blocks), said(text("FROM-BLOCKS"), uuid="a1", msg="m1"))
    feed(s, user(person("PERSON-STRING")), said("FROM-A-STRING", uuid="a2", msg="m2"))
    mixed = [
        {"type": "thinking", "thinking": "hmm"},
        {"type": "text", "text": "PART-1"},
        {"type": "tool_use", "id": "t", "name": "x", "input": {}},
        {"type": "text", "text": "PART-2"},
    ]
    feed(s, user(person("PERSON-3", verified=False)), said(mixed, uuid="a3", msg="m3"))
    assert [a.text for a in s.take_answers()] == [
        "FROM-BLOCKS",
        "FROM-A-STRING",
        "PART-1\n\nPART-2",
    ]


def test_several_teammate_messages_in_one_row() -> None:
    both = (
        "Another Claude session sent a message:\n"
        '<teammate-message teammate_id="helper" color="blue">\n'
        '{"type":"idle_notification","from":"helper"}\n</teammate-message>\n\n'
        '<teammate-message teammate_id="user" summary="person asks the lead">\n'
        "PERSON-TO-LEAD-1: how is it going?\n</teammate-message>\n\nThis came from..."
    )
    found = teammate_messages(both)
    assert [(a["teammate_id"], body) for a, body in found] == [
        ("helper", '{"type":"idle_notification","from":"helper"}'),
        ("user", "PERSON-TO-LEAD-1: how is it going?"),
    ]
    assert found[1][0]["summary"] == "person asks the lead"
    s = Stats(person="user")
    feed(s, user(both), said(text("ANSWER"), uuid="a1"))
    assert [a.text for a in s.take_answers()] == ["ANSWER"]


def test_teammates_messages_and_other_rows_are_not_the_person() -> None:
    s = Stats(person="user")
    feed(s, user(person("HELLO-FROM-HELPER", who="helper")), said(text("ACK"), uuid="a1"))
    # the words in a tool result, or typed by the person in the terminal, are no message
    quoted = [{"type": "tool_result", "tool_use_id": "t", "content": person("QUOTED")}]
    feed(s, user(quoted, uuid="u2"), said(text("ACK-2"), uuid="a2", msg="m2"))
    feed(s, user("plain prompt", uuid="u3"), said(text("ACK-3"), uuid="a3", msg="m3"))
    # a sidechain's person row (an older layout) neither
    feed(s, user(person("SIDE"), uuid="u4", isSidechain=True))
    feed(s, said(text("ACK-4"), uuid="a4", msg="m4"))
    assert s.take_answers() == []
    # an API error Claude Code shows in the transcript is not the answer
    feed(s, user(person("PERSON"), uuid="u5"))
    feed(s, said(text("API Error: 529"), uuid="a5", msg="m5", isApiErrorMessage=True))
    feed(s, said(text("API Error"), uuid="a6", msg="m6", model="<synthetic>"))
    feed(s, said(text("THE-ANSWER"), uuid="a7", msg="m7"))
    assert [a.text for a in s.take_answers()] == ["THE-ANSWER"]


def test_no_person_no_answers_and_no_user_rows_parsed() -> None:
    s = Stats()  # a teammate's transcript
    feed(s, user(person("PERSON")), said(text("WORDS"), uuid="a1"))
    assert s.take_answers() == [] and s.last_words == "WORDS" and s.rows == 1


def test_last_active_is_the_last_rows_time_whatever_its_kind() -> None:
    s = Stats()
    feed(s, said(text("x"), ts="2026-11-30T12:00:01.000Z"))
    s.feed([b'{"type":"attachment","timestamp":"2026-11-30T12:00:09.500Z"}', b'{"type":"mode"}'])
    assert s.last_active == epoch("2026-11-30T12:00:09.500Z")
    assert (s.branch, s.cwd) == ("main", "/home/dev/app")


# --- where a session's files are ----------------------------------------------------------------


def test_project_folder_names_and_session_ids() -> None:
    assert project_dir_name("/tmp/x-1/work") == "-tmp-x-1-work"
    assert project_dir_name("/home/dev/my_app.v2") == "-home-dev-my-app-v2"
    assert valid_session_id("532eb00d-bd4c-4d0d-b2bc-4204a150c899")
    for bad in ("../etc/passwd", "a/b", "", ".hidden", "x" * 200, None, 5):
        assert not valid_session_id(bad)


def test_find_the_lead_transcript_by_cwd_or_by_search(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    sid = "11111111-2222-4333-8444-555555555555"
    named = projects / project_dir_name("/home/dev/app") / f"{sid}.jsonl"
    named.parent.mkdir(parents=True)
    named.touch()
    assert find_lead_transcript([str(projects)], "/home/dev/app", sid) == str(named)
    # a long cwd's folder is shortened by Claude Code: found by its session id
    assert find_lead_transcript([str(projects)], "/somewhere/else", sid) == str(named)
    assert find_lead_transcript([str(projects)], "/home/dev/app", "../" + sid) is None
    assert find_lead_transcript([str(tmp_path / "none")], None, sid) is None


def test_session_attributes_teammates_and_the_leads_own_subagents(tmp_path: Path) -> None:
    sid = "11111111-2222-4333-8444-555555555555"
    project = tmp_path / "projects" / "-home-dev-app"
    sub = project / sid / "subagents"
    sub.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_bytes(line(said(text("LEAD"), msg="l1")) + b"\n")
    (sub / "agent-ahelper-1.jsonl").write_bytes(line(said(text("HELPER"), msg="h1")) + b"\n")
    (sub / "agent-ahelper-1.meta.json").write_text(
        json.dumps({"name": "helper", "teamName": "session-1", "taskKind": "in_process_teammate"})
    )
    (sub / "agent-aexplore-2.jsonl").write_bytes(line(said(text("SUB"), msg="s1")) + b"\n")
    (sub / "agent-aexplore-2.meta.json").write_text(json.dumps({"agentType": "Explore"}))
    (sub / "agent-aother-3.jsonl").write_bytes(line(said(text("OTHER"), msg="o1")) + b"\n")
    (sub / "agent-aother-3.meta.json").write_text(
        json.dumps({"name": "old", "teamName": "an-earlier-team"})
    )
    (sub / "agent-apending-4.jsonl").write_bytes(line(said(text("PENDING"), msg="p1")) + b"\n")
    s = Session(
        [str(tmp_path / "projects")], sid, "/home/dev/app", "team-lead", "user", ["session-1"]
    )
    assert s.poll(1 << 20) is False and s.caught_up
    act = s.activity(now=time.time())
    assert act is not None
    assert set(act.members) == {"team-lead", "helper"}
    lead, helper = act.members["team-lead"], act.members["helper"]
    assert lead.last_words == "LEAD"  # its own subagents' words are not the lead's
    assert lead.tokens.input == 300  # but their tokens are: the lead, Explore, an old team's
    assert helper.last_words == "HELPER" and helper.tokens.input == 100
    assert act.tokens.input == 400  # the pending one counts once its meta.json is there
    assert act.branch == "main" and act.branches["helper"] == "main"
    assert s.folders() == [str(project), str(project / sid), str(sub)]


def test_activity_kept_in_the_history_has_no_words() -> None:
    act = TeamActivity(
        TokenUse(1, 2, 3, 4, 0.5),
        "main",
        {"helper": Activity(last_active=12.5, last_words="secret", tokens=TokenUse(1))},
    )
    body = act.persisted()
    assert "secret" not in json.dumps(body)
    back = TeamActivity.restored(json.loads(json.dumps(body)))
    assert back is not None
    assert back.members["helper"].last_active == 12.5
    assert back.members["helper"].last_words is None and back.tokens == act.tokens
    assert TeamActivity.restored({"members": {"x": {"lastActive": "soon"}}}) is not None
    assert TeamActivity.restored("nonsense") is None


# --- the recorded real sessions ---------------------------------------------------------------


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_recorded_sessions(version: str) -> None:
    home = RECORDED / version / "home" / ".claude"
    facts = json.loads((RECORDED / version / "session.json").read_text())
    sid = facts["leadSessionId"]
    s = Session([str(home / "projects")], sid, facts["cwd"], "team-lead", "user", [facts["team"]])
    while s.poll(1 << 20):
        pass
    answers = [a.text for a in s.take_answers()]
    # the person wrote to the lead three times; each next assistant text answers it
    assert answers == ["LEAD-ANSWER-PERSON-1", "LEAD-TASK-ASSIGNED", "LEAD-SHUTDOWN-SENT"]
    act = s.activity()
    assert act is not None and set(act.members) == {"team-lead", "helper"}
    helper = act.members["helper"]
    assert helper.last_words == "HELPER-TASK-DONE"
    assert helper.tokens.input > 10_000 and helper.tokens.output > 100
    assert act.tokens.input == sum(a.tokens.input for a in act.members.values())
    assert act.branch is None  # `HEAD`: the recorded folder is no repository
    assert all(a.doing is None for a in act.members.values())  # every call has its result
