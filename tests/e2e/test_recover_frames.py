"""Entries of the lead's inbox Claude Code pruned before the sidecar read them, which only
the lead's transcript shows (its `<teammate-message>` turns, as Claude Code 2.1.332 writes
them): a teammate's idle notifications and shutdown answer are recovered at the turn's
time, once (a shutdown answer the file showed, which the turn shows with `[invalid id]`,
is not repeated); a plain message, which the teammate's SendMessage also shows, is that one
message, not two; one the file capture saw is not repeated; a restart adds nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lsp_session
from lsp_session import call, claude_inbox, options, rec, start, write_json
from pytest_lsp import LanguageClient
from test_recover import (
    TEAM,
    TID,
    Transcript,
    by_text,
    conversation,
    has,
    make_team,
    stamp,
    toasts_settled,
    until,
)
from test_recover import transcripts as make_transcripts

WRAP = "Another Claude session sent a message:\n{}\n\nThis came from another Claude session."


def idle(second: int, result: str) -> str:
    return json.dumps(
        {
            "type": "idle_notification",
            "from": "helper",
            "timestamp": stamp(second),
            "idleReason": "available",
            "result": result,
        },
        separators=(",", ":"),
    )


def shutdown(second: int, pane: str = "in-process") -> str:
    return json.dumps(
        {
            "type": "shutdown_approved",
            "requestId": "shutdown-1796040601879@helper",
            "from": "helper",
            "timestamp": stamp(second),
            "paneId": pane,
            "backendType": "in-process",
        },
        separators=(",", ":"),
    )


def block(text: str, sender: str = "helper", summary: str | None = None) -> str:
    attrs = f'teammate_id="{sender}"' + (' color="blue"' if sender == "helper" else "")
    attrs += f' summary="{summary}"' if summary is not None else ""
    attrs += ' verified="false"' if sender == "user" else ""
    return f"<teammate-message {attrs}>\n{text}\n</teammate-message>"


def delivered(lead: Transcript, second: int, *blocks: str) -> list[dict[str, Any]]:
    """The lead's user turn handing it these entries (the content a string, as recorded)."""
    row = lead._row("user", stamp(second))
    row["message"] = {"role": "user", "content": WRAP.format("\n\n".join(blocks))}
    return [row]


async def test_frames_only_the_leads_transcript_shows_are_recovered_once(tmp_path: Path) -> None:
    make_team(tmp_path)
    lead, helper = make_transcripts(tmp_path)
    first = await lsp_session.start_server(tmp_path)
    await lsp_session.stop_server(first)
    # while no sidecar ran: helper sent a message and went idle; the lead took both and
    # pruned them. A message the capture saw stays in the file (its own time).
    helper.append(helper.send("team-lead", "PLAIN-GONE", "m-plain", stamp(1)))
    lead.append(
        delivered(lead, 2, block("PLAIN-GONE", summary="sum PLAIN-GONE"), block(idle(1, "R-1")))
    )
    seen = lsp_session.entry(
        "helper",
        "STILL-THERE",
        "2026-12-01T10:00:03.111Z",
        summary="sum STILL-THERE",
        color="blue",
        msgV=1,
        msg_id="m-seen",
        type="message",
    )
    bye = lsp_session.entry(
        "helper", shutdown(3), stamp(3), color="blue", msgV=1, msg_id="m-bye", type="message"
    )
    write_json(claude_inbox(tmp_path, TEAM, "team-lead"), [seen, bye])
    helper.append(helper.send("team-lead", "STILL-THERE", "m-seen", stamp(3)))
    person = block("PERSON-ASKS", sender="user", summary="the person asks")
    lead.append(
        delivered(lead, 4, block("STILL-THERE", summary="sum STILL-THERE"), person)
        + delivered(lead, 5, block(shutdown(3, "[invalid id]")), block(shutdown(5)))
    )

    c = await lsp_session.start_server(tmp_path, notify="messages")
    try:
        want = [
            "PLAIN-GONE",
            idle(1, "R-1"),
            "STILL-THERE",
            "PERSON-ASKS",
            shutdown(3),
            shutdown(5),
        ]
        got = by_text(await until(has(c, *want), "the recovery"))
        assert sorted(got) == sorted(want)
        assert all(len(v) == 1 for v in got.values()), got  # nothing twice
        [plain] = got["PLAIN-GONE"]  # the send's, not a second copy from the lead's turn
        assert (plain["id"], plain["recovered"]) == ("m-plain", True)
        [kept] = got["STILL-THERE"]
        assert (kept["id"], kept["recovered"]) == ("m-seen", False)
        [kept] = got[shutdown(3)]
        assert (kept["id"], kept["recovered"]) == ("m-bye", False)
        for text, second, kind in (
            (idle(1, "R-1"), 2, "idle_notification"),
            (shutdown(5), 5, "shutdown_approved"),
        ):
            [m] = got[text]
            assert m["id"].startswith("tm-"), m
            assert (m["recovered"], m["archived"], m["type"]) == (True, True, kind)
            assert (m["from"], m["inbox"], m["timestamp"]) == ("helper", "team-lead", stamp(second))
            assert m["color"] == "blue"
        [asked] = got["PERSON-ASKS"]  # only the lead's turn shows it
        assert (asked["from"], asked["summary"], asked["recovered"]) == (
            "user",
            "the person asks",
            True,
        )
        ids = {m["id"] for v in got.values() for m in v}

        # while it runs: a send and an idle notification pruned unseen
        r = rec(c)
        mark = r.mark()
        helper.append(helper.send("team-lead", "LIVE-PLAIN", "m-live", stamp(6)))
        lead.append(
            delivered(lead, 7, block("LIVE-PLAIN", summary="sum LIVE-PLAIN"), block(idle(7, "R-2")))
        )
        changed = await r.wait(
            "teamInbox/didChange",
            lambda p: any(m["text"] == idle(7, "R-2") for m in p["added"]),
            since=mark,
            timeout=30,
        )
        [live] = [m for m in changed["added"] if m["text"] == idle(7, "R-2")]
        assert live["recovered"] and live["id"].startswith("tm-")
        got = by_text(await until(has(c, "LIVE-PLAIN"), "the live send"))
        assert [m["id"] for m in got["LIVE-PLAIN"]] == ["m-live"]
        assert len(got[idle(7, "R-2")]) == 1
        # an idle notification never toasts under the default policy, recovered or not
        # (the file's message toasts; none recovered before the start does)
        toasted = await toasts_settled(c, tmp_path, "CONTROL-1", "m-control-1")
        assert toasted == ["STILL-THERE", "CONTROL-1"], toasted
        ids |= {"m-live", live["id"], "m-control-1"}
    finally:
        await lsp_session.stop_server(c)

    c = await lsp_session.start_server(tmp_path, notify="messages")
    try:  # the transcripts read again from their start add nothing
        await until(has(c, idle(7, "R-2")), "the history after a restart")
        page = await call(c, "teamInbox/conversation", {"team": TID, "limit": 500})
        assert sorted(m["id"] for m in page["messages"]) == sorted(ids)
        toasted = await toasts_settled(c, tmp_path, "CONTROL-2", "m-control-2")
        assert toasted == ["CONTROL-2"], toasted
    finally:
        await lsp_session.stop_server(c)


async def test_a_rebuilt_entry_gives_way_to_its_own_when_the_file_or_a_send_shows_it(
    client: LanguageClient, tmp_path: Path
) -> None:
    """The lead's turn came first (a slow look at the inbox, a teammate's transcript read
    later): when the file shows the entry, or the teammate's send, it replaces the one
    rebuilt from the turn; one message each, under its own id."""
    make_team(tmp_path)
    lead, helper = make_transcripts(tmp_path)
    await start(client, options(tmp_path))
    frame = idle(1, "R-LATE")
    lead.append(delivered(lead, 1, block(frame), block("PLAIN-LATE", summary="sum PLAIN-LATE")))
    got = by_text(await until(has(client, frame, "PLAIN-LATE"), "the turn's entries"))
    assert all(m["id"].startswith("tm-") and m["recovered"] for v in got.values() for m in v)
    entry = lsp_session.entry(
        "helper", frame, stamp(1), color="blue", msgV=1, msg_id="m-idle", type="message"
    )
    write_json(claude_inbox(tmp_path, TEAM, "team-lead"), [entry])
    helper.append(helper.send("team-lead", "PLAIN-LATE", "m-plain-late", stamp(1)))

    async def replaced() -> dict[str, list[dict[str, Any]]] | None:
        now = by_text(await conversation(client))
        ids = [m["id"] for m in now[frame] + now["PLAIN-LATE"]]
        return now if ids == ["m-idle", "m-plain-late"] else None

    now = await until(replaced, "the entries under their own ids")
    assert [m["recovered"] for m in now[frame] + now["PLAIN-LATE"]] == [False, True]
    page = await call(
        client, "teamInbox/messages", {"team": TID, "inbox": "team-lead", "includeArchived": True}
    )
    assert sorted(m["id"] for m in page["messages"]) == ["m-idle", "m-plain-late"]


def to_helper(kind: str, second: int, **fields: str) -> str:
    """A frame the lead's Claude Code writes to helper's inbox itself (no SendMessage)."""
    body = {"type": kind, **fields, "timestamp": stamp(second)}
    return json.dumps(body, separators=(",", ":"))


def handed_helper(helper: Transcript, second: int, *texts: str) -> list[dict[str, Any]]:
    """helper's user turn handing it entries of its inbox (a sidechain's row, as recorded)."""
    row = helper._row("user", stamp(second))
    body = "\n\n".join(block(t, sender="team-lead") for t in texts)
    row["message"] = {"role": "user", "content": body}
    return [row]


async def test_frames_of_a_teammates_inbox_only_its_transcript_shows_are_recovered_once(
    tmp_path: Path,
) -> None:
    """A task assignment and a shutdown request the lead's Claude Code wrote to helper's
    inbox, pruned before any sidecar read them: helper's transcript shows them (the request
    with Claude Code's words after its JSON), the lead's only the calls that made them."""
    make_team(tmp_path)
    lead, helper = make_transcripts(tmp_path)
    assign = to_helper("task_assignment", 1, taskId="1", subject="S", assignedBy="team-lead")
    bye = to_helper("shutdown_request", 3, requestId="shutdown-1@helper", reason="done")
    kept = to_helper("task_assignment", 4, taskId="2", subject="T", assignedBy="team-lead")
    entry = lsp_session.entry("team-lead", kept, stamp(4), read=False)
    write_json(claude_inbox(tmp_path, TEAM, "helper"), [entry])  # the file still shows it
    note = "\n\nThis is a shutdown request. To approve it, call SendMessage with this input."
    helper.append(
        handed_helper(helper, 2, assign, "PLAIN-TO-HELPER")
        + handed_helper(helper, 5, bye + note, kept)
    )

    c = await lsp_session.start_server(tmp_path)
    try:
        got = by_text(await until(has(c, assign, bye, kept), "helper's frames", timeout=60))
        assert all(len(got[t]) == 1 for t in (assign, bye, kept)), got
        for text, second in ((assign, 2), (bye, 5)):
            [m] = got[text]
            assert m["id"].startswith("tm-") and (m["recovered"], m["archived"]) == (True, True)
            assert (m["from"], m["inbox"], m["timestamp"]) == ("team-lead", "helper", stamp(second))
        [held] = got[kept]
        assert (held["inbox"], held["recovered"]) == ("helper", False)
        assert "PLAIN-TO-HELPER" not in got  # a plain message is its sender's send to recover
        ids = sorted(m["id"] for m in await conversation(c))
    finally:
        await lsp_session.stop_server(c)

    c = await lsp_session.start_server(tmp_path)
    try:  # read again from their start: nothing added
        await until(has(c, assign, bye, kept), "the history after a restart", timeout=60)
        assert sorted(m["id"] for m in await conversation(c)) == ids
    finally:
        await lsp_session.stop_server(c)
