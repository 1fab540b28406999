"""The record hook's spool taken in: the real `python -m teaminbox.hook record` fed
Claude Code 2.1.332's `PostToolUse` payloads (as section 1c of on-disk-formats.md lists
them) while no sidecar runs and while the sidecar is stopped (SIGSTOP); the sends are in
the history after the start (or the continue), once each, `recovered`, and a restart
adds nothing; a send whose team is not known yet waits for it; a team that ended while no
sidecar ran gets its sends; sends past several rotations while no sidecar ran are all
taken in, and the rotated files then deleted. No transcript holds these sends: the spool
is their only record."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import lsp_session
import pytest
from lsp_session import call
from test_recover import (
    SID,
    TID,
    by_text,
    conversation,
    has,
    make_team,
    stamp,
    transcripts,
    until,
)

from teaminbox import spool

REPO = Path(__file__).resolve().parents[2]


def payload(text: str, msg_id: str, sender: str = "helper", to: str = "team-lead") -> bytes:
    return json.dumps(
        {
            "session_id": SID,
            "transcript_path": f"/home/dev/.claude/projects/-home-dev-recover/{SID}.jsonl",
            "cwd": "/home/dev/recover",
            "prompt_id": "p-1",
            "permission_mode": "default",
            "agent_id": "ahelper-00000000000000aa",
            "agent_type": sender,
            "hook_event_name": "PostToolUse",
            "tool_name": "SendMessage",
            "tool_input": {"to": to, "message": text, "summary": f"sum {text}"},
            "tool_response": {
                "success": True,
                "message": f"Message sent to {to}'s inbox",
                "msg_id": msg_id,
                "routing": {
                    "sender": sender,
                    "senderColor": "blue",
                    "target": f"@{to}",
                    "summary": f"sum {text}",
                    "content": text[:50],
                },
            },
            "tool_use_id": f"toolu_{msg_id}",
            "duration_ms": 3,
        }
    ).encode()


def record(data: bytes) -> None:
    """The hook as Claude Code runs it: stdin, no output, exit 0."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "sidecar")}
    res = subprocess.run(
        [sys.executable, "-m", "teaminbox.hook", "record"],
        input=data,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert (res.returncode, res.stdout, res.stderr) == (0, b"", b"")


@pytest.fixture
def spool_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "data" / "spool"
    monkeypatch.setenv("TEAMINBOX_SPOOL_DIR", str(d))  # the hook's and the server's
    return d


def texts_of(msgs: list[dict[str, Any]]) -> list[str]:
    return sorted(m["text"] for m in msgs)


async def test_sends_spooled_while_no_sidecar_runs_or_it_is_stopped_are_in_the_history(
    tmp_path: Path, spool_dir: Path
) -> None:
    make_team(tmp_path)
    # no sidecar runs: the team talks, Claude Code prunes every entry
    record(payload("SPOOL-1", "m-spool-1"))
    record(payload("SPOOL-2", "m-spool-2", sender="team-lead", to="helper"))
    record(b"not json at all")  # nothing kept
    with open(spool_dir / "sends.jsonl", "ab") as f:  # a torn and a garbage line
        f.write(b'{"t":1796000000.0,"p":{"tool_name":"SendMe\n[1,2]\n')
    record(payload("SPOOL-3", "m-spool-3"))

    c = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has(c, "SPOOL-1", "SPOOL-2", "SPOOL-3"), "the spool taken in")
        got = by_text(msgs)
        assert texts_of(msgs) == ["SPOOL-1", "SPOOL-2", "SPOOL-3"], got
        for text, msg_id, sender, inbox in (
            ("SPOOL-1", "m-spool-1", "helper", "team-lead"),
            ("SPOOL-2", "m-spool-2", "team-lead", "helper"),
            ("SPOOL-3", "m-spool-3", "helper", "team-lead"),
        ):
            [m] = got[text]
            assert (m["id"], m["from"], m["inbox"], m["summary"]) == (
                msg_id,
                sender,
                inbox,
                f"sum {text}",
            )
            assert (m["recovered"], m["archived"]) == (True, True)

        # the sidecar stopped (a busy machine, a debugger): the hook neither waits nor fails
        server = c._server
        assert server is not None
        os.kill(server.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            record(payload("WHILE-STOPPED", "m-stopped"))
            took = time.monotonic() - started
        finally:
            os.kill(server.pid, signal.SIGCONT)
        assert took < 30, took  # never the sidecar's wait (it is stopped for good otherwise)
        msgs = await until(has(c, "WHILE-STOPPED"), "the send spooled while stopped")
        [m] = by_text(msgs)["WHILE-STOPPED"]
        assert (m["id"], m["recovered"]) == ("m-stopped", True)
        found = await call(c, "teamInbox/search", {"query": "STOPPED"})
        assert [x["id"] for x in found["messages"]] == ["m-stopped"]
    finally:
        await lsp_session.stop_server(c)

    # the same id spooled again with other words (a hostile or reused id): never changed
    record(payload("OTHER-WORDS", "m-spool-1"))
    record(payload("AFTER-RESTART", "m-after"))
    c = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has(c, "AFTER-RESTART"), "the new send after a restart")
        assert texts_of(msgs) == [
            "AFTER-RESTART",
            "SPOOL-1",
            "SPOOL-2",
            "SPOOL-3",
            "WHILE-STOPPED",
        ]
        assert all(m["recovered"] for m in msgs)
        assert texts_of(await conversation(c)) == texts_of(msgs)  # and nothing twice
    finally:
        await lsp_session.stop_server(c)


async def test_a_send_whose_team_comes_later_waits_for_it(tmp_path: Path, spool_dir: Path) -> None:
    """The spool is read before the team's folder is there: the send waits (the offset the
    history keeps stays before it, so a restart would read it again), and is archived once
    the team appears."""
    record(payload("EARLY", "m-early"))
    header = (spool_dir / "sends.jsonl").read_bytes().split(b"\n", 1)[0]
    client = await lsp_session.start_server(tmp_path)
    try:
        # the spool was read, the send held: the saved offset is the send's line
        async def held() -> bool:
            return saved_offsets(tmp_path) == [len(header) + 1]

        await until(held, "the spool read, its offset held before the waiting send")
        await arrives_later(client, tmp_path)
        end = (spool_dir / "sends.jsonl").stat().st_size

        async def moved() -> bool:
            return saved_offsets(tmp_path) == [end]

        await until(moved, "the offset past the send once it is archived")
    finally:
        await lsp_session.stop_server(client)


def saved_offsets(home: Path) -> list[int]:
    db = sqlite3.connect(f"file:{home / 'history.db'}?mode=ro", uri=True)
    try:
        return [int(r[0]) for r in db.execute("SELECT offset FROM spool_read")]
    except sqlite3.OperationalError:  # not made yet
        return []
    finally:
        db.close()


async def arrives_later(client: Any, tmp_path: Path) -> None:
    make_team(tmp_path)

    async def listed() -> bool:
        teams = (await call(client, "teamInbox/teams", {}))["teams"]
        return any(t["id"] == TID for t in teams)

    await until(listed, "the team listed")
    msgs = await until(has(client, "EARLY"), "the waiting send archived")
    [m] = by_text(msgs)["EARLY"]
    assert (m["id"], m["recovered"], m["inbox"]) == ("m-early", True, "team-lead")


async def test_sends_of_a_team_that_ended_while_no_sidecar_ran_go_to_that_team(
    tmp_path: Path, spool_dir: Path
) -> None:
    """The team's session is known from the history (its activity was saved while it was
    live); its folder is gone when the spool is read: the sends go to the ended team. The
    transcript holds none of them (written by another version, say, or cleaned up)."""
    make_team(tmp_path)
    _, helper = transcripts(tmp_path)
    helper.append(helper.send("team-lead", "SEEN-LIVE", "m-live", stamp(1)))
    first = await lsp_session.start_server(tmp_path)
    try:
        await until(has(first, "SEEN-LIVE"), "the team followed while live")
    finally:
        await lsp_session.stop_server(first)
    record(payload("AFTER-THE-END", "m-end"))
    shutil.rmtree(tmp_path / ".claude" / "teams" / "session-5e1d0000")
    second = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has(second, "AFTER-THE-END"), "the spooled send in the ended team")
        [m] = by_text(msgs)["AFTER-THE-END"]
        assert (m["id"], m["recovered"], m["inbox"]) == ("m-end", True, "team-lead")
        teams = (await call(second, "teamInbox/teams", {}))["teams"]
        assert [t["ended"] for t in teams if t["id"] == TID] == [True]
    finally:
        await lsp_session.stop_server(second)


async def test_sends_past_several_rotations_while_no_sidecar_runs_are_all_taken_in(
    tmp_path: Path, spool_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hook's writer (in this process, its file bound made small so that it rotates
    often) past several rotations; the real sidecar takes every send in, once, and deletes
    the rotated files it holds to their end."""
    make_team(tmp_path)
    monkeypatch.setattr(spool, "MAX_FILE", 16 * 1024)
    texts = [f"ROT-{i}" for i in range(120)]
    for i, text in enumerate(texts):
        line = spool.record_line(payload(text, f"m-rot-{i}"))
        assert line is not None
        spool.append(line, str(spool_dir))
    assert len([n for n in os.listdir(spool_dir) if spool.is_rotated(n)]) >= 4
    c = await lsp_session.start_server(tmp_path)
    try:
        msgs = await until(has(c, *texts), "every rotated send taken in", timeout=60)
        assert texts_of(msgs) == sorted(texts)  # each once

        async def released() -> bool:
            return not [n for n in os.listdir(spool_dir) if spool.is_rotated(n)]

        await until(released, "the rotated files deleted once held", timeout=60)
    finally:
        await lsp_session.stop_server(c)
