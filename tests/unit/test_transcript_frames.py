"""The entries the lead's transcript shows it was handed (teaminbox.transcript_frames, fed by
transcripts.Stats): the real 2.1.332 recording, every entry of its lead inbox found with its
exact text; hostile text (unclosed, nested, huge, many) read in linear time and bounded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from teaminbox import transcript_frames as tf
from teaminbox.transcript_frames import DeliveredLog, blocks
from teaminbox.transcripts import Stats

RECORDED = Path(__file__).resolve().parents[1] / "interop" / "claude_code" / "recorded"
V332 = RECORDED / "2.1.332"
LEAD = V332 / "home/.claude/projects/-home-dev-project/532eb00d-bd4c-4d0d-b2bc-4204a150c899.jsonl"


def row(content: Any, uuid: str = "u-1", ts: str = "2026-12-01T10:00:00.000Z") -> dict[str, Any]:
    return {
        "type": "user",
        "isSidechain": False,
        "uuid": uuid,
        "timestamp": ts,
        "message": {"role": "user", "content": content},
    }


def test_every_entry_of_the_recorded_leads_inbox_is_found_with_its_own_text() -> None:
    stats = Stats(person="user")  # the lead's file
    stats.feed(LEAD.read_bytes().splitlines())
    found = stats.delivered.take()
    got = [(d.sender, d.text, d.summary) for d in found]
    # every entry Claude Code wrote to team-lead.json, as the recorded timeline shows it
    timeline = json.loads((V332 / "timeline.json").read_text())
    entries: dict[str, dict[str, Any]] = {}
    for step in timeline:
        if step["path"].endswith("inboxes/team-lead.json") and (step["data"] or "").strip():
            for e in json.loads(step["data"]):
                entries[e["msg_id"]] = e
    want = [(e["from"], e["text"], e.get("summary")) for e in entries.values()]
    assert len(got) == len(want) == 9
    # each block is one entry's, in order; the shutdown answer's paneId shown as invalid
    for (sender, text, summary), (e_from, e_text, e_summary) in zip(
        sorted(got, key=lambda g: json.loads(g[1])["timestamp"] if g[1][0] == "{" else g[1]),
        sorted(want, key=lambda w: json.loads(w[1])["timestamp"] if w[1][0] == "{" else w[1]),
        strict=True,
    ):
        assert (sender, summary) == (e_from, e_summary)
        assert tf.same_text(text, e_text), (text, e_text)
        assert (text == e_text) == ('"shutdown_approved"' not in text)
    idle = [d for d in found if d.text.startswith('{"type":"idle_notification"')]
    assert [json.loads(d.text)["result"] for d in idle] == [
        "HELPER-IDLE-1",
        "HELPER-RESULT-PERSON-2",
        "HELPER-TASK-DONE",
    ]
    assert {(d.color, d.summary) for d in idle} == {("blue", None)}
    [bye] = [d for d in found if '"shutdown_approved"' in d.text]
    assert (bye.sender, bye.timestamp) == ("helper", "2026-11-30T12:10:02.709Z")
    # two blocks of one turn: one uuid, their places; `after` is the previous turn's time
    two = [d for d in found if d.uuid == "dcfe5fa5-12db-4cfa-b88f-2a6a9347f492"]
    assert [(d.sender, d.index) for d in two] == [("helper", 0), ("user", 1)]
    assert two[0].after == "2026-11-30T12:09:54.355Z"
    assert found[0].after is None


def test_a_teammates_file_hands_over_none() -> None:
    stats = Stats()  # not the lead's: its rows are not read for blocks
    stats.feed(
        [json.dumps(row('<teammate-message teammate_id="a">\nx\n</teammate-message>')).encode()]
    )
    assert stats.delivered.take() == []


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_the_recorded_teammates_file_shows_its_own_inboxs_frames_with_their_text(
    version: str,
) -> None:
    """helper's inbox in each recording: the lead's task assignment and shutdown request,
    both pruned within a second; the lead's transcript holds only the calls that made them
    (TaskUpdate's taskId and owner, SendMessage's reason), helper's holds each frame whole
    (the shutdown request with Claude Code's how-to-answer after it)."""
    home = RECORDED / version / "home/.claude/projects/-home-dev-project"
    [helper] = home.glob("*/subagents/agent-ahelper-*.jsonl")
    lead_rows = (home / f"{helper.parents[1].name}.jsonl").read_text()
    assert '"TaskUpdate"' in lead_rows and "task_assignment" not in lead_rows
    stats = Stats()
    stats.delivered = DeliveredLog(own=True)  # as transcripts.Session makes a teammate's
    stats.feed(helper.read_bytes().splitlines())
    found = stats.delivered.take()
    facts = json.loads((RECORDED / version / "session.json").read_text())
    frames = [
        e["entry"]
        for e in facts["entries"]
        if e["inbox"] == "helper" and e["entry"]["text"].startswith("{")
    ]
    assert [(d.sender, d.text) for d in found] == [(e["from"], e["text"]) for e in frames]
    assert [json.loads(d.text)["type"] for d in found] == ["task_assignment", "shutdown_request"]
    # plain messages (the spawn prompt, the person's) are their senders' to recover
    assert all(d.summary is None for d in found)


def test_a_teammates_frame_is_its_leading_json_and_nothing_else_is_taken() -> None:
    log = DeliveredLog(own=True)
    frame = '{"type":"shutdown_request","requestId":"shutdown-1@h","from":"team-lead"}'
    texts = [
        frame + "\n\nThis is a shutdown request. To approve it, call SendMessage.",
        frame,
        "plain words",
        '{"type": 5}',
        "[1, 2]",
        frame + " trailing",  # not Claude Code's words after a blank line: not a frame
        "{" * 100_000,  # deep: refused, no crash
    ]
    body = "\n\n".join(
        f'<teammate-message teammate_id="team-lead">\n{t}\n</teammate-message>' for t in texts
    )
    log.user(row(body) | {"isSidechain": True})  # a teammate's rows are a sidechain's
    assert [(d.text, d.index) for d in log.take()] == [(frame, 0), (frame, 1)]
    assert tf.frame_text("{}") is None and tf.frame_text(frame) == frame


def test_blocks_shapes() -> None:
    text = (
        'x <teammate-message teammate_id="a" color="blue" summary="s 1">\nhello\nworld\n'
        '</teammate-message>\n\n<teammate-message teammate_id="user" summary="q" verified="false">'
        "\n<b>no html</b> & it\n</teammate-message> tail"
    )
    assert blocks(text) == [
        ({"teammate_id": "a", "color": "blue", "summary": "s 1"}, "hello\nworld"),
        ({"teammate_id": "user", "summary": "q", "verified": "false"}, "<b>no html</b> & it"),
    ]
    assert blocks("<teammate-message>\nbare\n</teammate-message>") == [({}, "bare")]
    assert blocks('<teammate-message teammate_id="a">one line</teammate-message>') == [
        ({"teammate_id": "a"}, "one line")
    ]


def test_hostile_blocks() -> None:
    # unclosed: nothing from there on
    assert blocks('<teammate-message teammate_id="a">\nnever closed') == []
    ok = '<teammate-message teammate_id="a">\nA\n</teammate-message>'
    assert blocks(ok + '<teammate-message teammate_id="b">\nB') == [({"teammate_id": "a"}, "A")]
    # nested: the first closing tag ends the outer block; the rest is not a block
    nested = (
        '<teammate-message teammate_id="a">\nout <teammate-message teammate_id="b">in'
        "</teammate-message> rest\n</teammate-message>"
    )
    assert blocks(nested) == [({"teammate_id": "a"}, 'out <teammate-message teammate_id="b">in')]
    # another tag of that prefix, and an opening tag longer than the bound
    assert blocks("<teammate-messages>x</teammate-message>") == []
    long_tag = '<teammate-message teammate_id="' + "a" * tf.MAX_ATTRS + '">\nx\n</teammate-message>'
    assert blocks(long_tag + ok) == [({"teammate_id": "a"}, "A")]
    # many blocks: at most MAX_BLOCKS from a row
    assert len(blocks(ok * (tf.MAX_BLOCKS + 10))) == tf.MAX_BLOCKS
    # huge: many unclosed openings and one huge unterminated tag end (linear, no backtracking)
    assert blocks("<teammate-message " * 200_000) == []
    assert blocks('<teammate-message a="' + "x" * 5_000_000) == []
    assert blocks(ok.replace("A", "y" * 3_000_000)) == [({"teammate_id": "a"}, "y" * 3_000_000)]


def test_the_log_skips_what_it_cannot_place() -> None:
    log = DeliveredLog()
    one = '<teammate-message teammate_id="a">\nA\n</teammate-message>'
    log.user(row(one) | {"isSidechain": True})  # the lead's own subagent's
    log.user(row(one) | {"uuid": None})
    log.user(row(one, ts=""))
    log.user(row("<teammate-message>\nno sender\n</teammate-message>", uuid="u-2"))
    big = one.replace("A", "z" * (tf.MAX_TEXT + 1))
    log.user(row([{"type": "text", "text": big}, {"type": "image"}, "junk"], uuid="u-3"))
    assert log.take() == []
    log.user(row([{"type": "tool_result"}, {"type": "text", "text": one}], uuid="u-4"))
    [d] = log.take()
    assert (d.sender, d.text, d.uuid, d.index, d.summary, d.color) == (
        "a",
        "A",
        "u-4",
        0,
        None,
        None,
    )
    # a turn whose blocks were all skipped still moves `after` on (an entry was handed then)
    assert d.after == "2026-12-01T10:00:00.000Z"
    assert log.take() == []


def test_same_text() -> None:
    assert tf.same_text("hi", "hi")
    assert tf.same_text(
        "out <teammate-message x>in", "out <teammate-message x>in</teammate-message> more"
    )
    assert tf.same_text("a\nb", "a\nb\n</teammate-message>\nc")
    assert not tf.same_text("", "anything")
    assert not tf.same_text("hi", "hit")  # a prefix, not cut by a closing tag
    frame = {"type": "shutdown_approved", "requestId": "shutdown-1@helper", "paneId": "%3"}
    shown = json.dumps(frame | {"paneId": tf.INVALID})
    assert tf.same_text(shown, json.dumps(frame))
    assert not tf.same_text(shown, json.dumps(frame | {"requestId": "shutdown-2@helper"}))
    assert not tf.same_text(shown, json.dumps(frame | {"extra": 1}))
    assert not tf.same_text(shown, "[invalid id]")
    assert not tf.same_text('{"a": "[invalid id]"', '{"a": "x"}')  # no JSON
