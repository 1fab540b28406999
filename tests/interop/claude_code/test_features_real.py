"""The features built for today's Claude Code, against the same live sessions: ended teams,
`replied` for what teammates say, the lead's answer from its transcript.

They use conftest.py's `cc` fixture: the server ran through the whole session (started
before `claude`), was asked for its history just before /exit and again 1.5 s after the
team folder was deleted (`cc.server.teams_after_exit`, `cc.server.messages_after_exit`),
and every notification it sent is in `cc.server.notifications`.
"""

from __future__ import annotations

from typing import Any

import pytest

from . import scenario as sc
from .conftest import CcRun


def replied(cc: CcRun) -> list[dict[str, Any]]:
    return [p["message"] for p in cc.server.notifications.get("teamInbox/replied", [])]


def ids(res: Any) -> set[str]:
    return {m["id"] for m in res["messages"]}


def test_ended_team_is_kept(cc: CcRun) -> None:
    """Ended teams are kept after Claude Code deletes the folder.

    Expects: `teamInbox/teams` (includeEnded defaults to true) still lists
    `claude:<team>` with `ended: true`, `leadAlive: false`, its members (team-lead
    and helper, helper with `left: true`), and no ghost `claude:<team>.deleted-<uuid>`
    team from 2.1.332's rename-then-delete; `teamInbox/messages` with
    `includeArchived: true` on each inbox answers (no `unknown_team`) with the same
    messages as before /exit, all `archived: true`.
    """
    cc.require_server()
    teams = [t for t in cc.server.teams_after_exit["teams"] if t["id"] == cc.server.team_id]
    assert len(teams) == 1, cc.server.teams_after_exit
    team = teams[0]
    assert team["ended"] is True
    assert team["leadAlive"] is False
    members = {m["inbox"]: m for m in team["members"]}
    assert {"team-lead", "helper"} <= set(members)
    assert members["helper"]["left"] is True
    # 2.1.332 renames the folder to `<team>.deleted-<uuid>` before removing it: that
    # passing folder is no team, and must not be kept as an ended one
    ghosts = [t["id"] for t in cc.server.teams_after_exit["teams"] if ".deleted-" in t["id"]]
    assert ghosts == [], ghosts
    for inbox in ("team-lead", "helper"):
        after = cc.server.messages_after_exit[inbox]
        assert "error" not in after, after
        assert ids(after) == ids(cc.server.messages[inbox]), inbox
        assert all(m["archived"] for m in after["messages"])


def test_replied_for_a_teammates_answer_to_the_lead(cc: CcRun) -> None:
    """A teammate's text message to the lead is worth a toast when it answers the person.

    Claude Code 2.x has no `user.json`: a teammate answers the person by messaging
    `team-lead`. With the default level (`replies`), `teamInbox/replied {message}`
    fires exactly once for helper's answer after the person wrote to it
    (HELPER-ANSWER-PERSON-2): `message.from == "helper"`, `message.inbox ==
    "team-lead"`, `message.type == "message"`, `message.id` the entry's `msg_id`. Its
    hello before the person wrote (HELLO-FROM-HELPER) is the team's own talk: that
    fires only at `messages` (tests/unit/test_notify_policy.py). None fire for the
    person's own messages (`from: "user"`) or the lead's frames to helper
    (task_assignment, shutdown_request).
    """
    cc.require_server()
    got = replied(cc)
    hits = [m for m in got if m["text"] == sc.HELPER_ANSWER]
    assert len(hits) == 1, got
    m = hits[0]
    entry = cc.entry_with(sc.HELPER_ANSWER, "team-lead")
    assert m["id"] == entry.value["msg_id"]
    assert (m["from"], m["inbox"], m["type"]) == ("helper", "team-lead", "message")
    assert not [m for m in got if m["text"] == sc.HELPER_HELLO], got
    assert not [m for m in got if m["from"] == "user"], got
    assert not [m for m in got if m["type"] in ("task_assignment", "shutdown_request")], got


def test_replied_for_an_idle_notification_result(cc: CcRun) -> None:
    """2.1.332's idle_notification carries the teammate's last text as `result`.

    After the person wrote to helper (PERSON-TO-HELPER-1), helper's next idle
    notification's `result` is its answer: `teamInbox/replied {message}` fires once for
    it (`message.type == "idle_notification"`, `message.structured.result ==
    HELPER-RESULT-PERSON-2`, `message.from == "helper"`). Idle notifications before the
    person wrote (HELPER-IDLE-1) or after the answer (HELPER-TASK-DONE) are the team's
    own chatter, and 2.1.197's carry no `result`: none of them fire.
    """
    cc.require_server()
    idles = [m for m in replied(cc) if m["type"] == "idle_notification"]
    if cc.version == "2.1.197":
        assert idles == [], idles  # no `result` on this version: nothing to tell
        return
    results = [str((m.get("structured") or {}).get("result")) for m in idles]
    assert results == [sc.HELPER_RESULT], results
    assert all(m["from"] == "helper" and m["inbox"] == "team-lead" for m in idles)


def test_lead_answer_from_the_transcript(cc: CcRun) -> None:
    """The lead answers the person in its own transcript, not in any inbox.

    With `readTranscripts: true` (the default) the server reads
    `~/.claude/projects/<cwd, non-alphanumerics as '-'>/<leadSessionId>.jsonl`
    (leadSessionId and the lead's cwd from config.json) and serves the lead's
    assistant text after a person's message as a Message in the person's own inbox:
    `teamInbox/messages {inbox: "user", includeArchived: true}` holds one with
    `from: "team-lead"`, `to: "user"`, `type: "message"`, `text:
    "LEAD-ANSWER-PERSON-1"`, the transcript row's `timestamp`; `teamInbox/replied`
    fires once for it; `teamInbox/search` finds it. Where the server carries token
    counts they are the row's `message.usage` (`input_tokens`,
    `output_tokens`), expected in `payload.usage`.
    """
    cc.require_server()
    own = cc.server.messages.get("user")
    assert own is not None, f"no `user` inbox was served: {sorted(cc.server.messages)}"
    hits = [m for m in own["messages"] if m["text"] == sc.LEAD_ANSWER]
    assert len(hits) == 1, [m["text"] for m in own["messages"]]
    m = hits[0]
    assert (m["from"], m["to"], m["type"]) == ("team-lead", "user", "message")
    rows = cc.transcript_rows(f"{cc.project_dir()}/{cc.lead_session_id()}.jsonl")
    said = [
        r
        for r in rows
        if r.get("type") == "assistant"
        and any(
            isinstance(b, dict) and b.get("text") == sc.LEAD_ANSWER for b in r["message"]["content"]
        )
    ]
    assert said and m["timestamp"] == said[0]["timestamp"], (m, said[:1])
    assert len([r for r in replied(cc) if r["text"] == sc.LEAD_ANSWER]) == 1
    usage = (m.get("payload") or {}).get("usage")
    if usage is not None:
        want = said[0]["message"]["usage"]
        assert usage["input_tokens"] == want["input_tokens"], usage
        assert usage["output_tokens"] == want["output_tokens"], usage


@pytest.mark.parametrize("text", [sc.LEAD_ANSWER])
def test_search_finds_the_lead_answer(cc: CcRun, text: str) -> None:
    """`teamInbox/search` covers transcript answers too (see the test above)."""
    cc.require_server()
    found = cc.server.search[text]  # searched: sidecar_client.SEARCHED_PENDING
    assert [m["text"] for m in found["messages"]] == [text]
