"""A lone UTF-16 surrogate (what JSON.stringify writes for "😀".slice(0, 1)) through the
server: a send with one is written once and answered as written (a client that saw an
error would retry and duplicate it), and later messages in that inbox keep flowing."""

from __future__ import annotations

import json
from pathlib import Path

import lsp_session
from lsp_session import call, claude_inbox, entry, make_home, node_append, options, rec, start
from pytest_lsp import LanguageClient

LONE = "half \ud83d of a smile"


async def test_send_with_a_lone_surrogate_is_written_once_and_answered_ok(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    r = rec(client)
    mark = r.mark()
    res = await call(client, "teamInbox/send", {"team": "alpha", "to": "researcher", "text": LONE})
    assert res["results"][0]["ok"] is True
    raw = claude_inbox(tmp_path, "alpha", "researcher").read_bytes()
    assert b"\\ud83d" in raw  # as JSON.stringify writes it
    assert [e["text"] for e in json.loads(raw)].count(LONE) == 1
    change = await r.wait("teamInbox/didChange", lambda p: p["inbox"] == "researcher", since=mark)
    assert [m["text"] for m in change["added"]] == [LONE]

    # a teammate's reply with one, then a normal one: the view never freezes
    user = claude_inbox(tmp_path, "alpha", "user")
    mark = r.mark()
    node_append(user, [entry("researcher", LONE, "2026-11-29T11:00:00.000Z")])
    await r.wait("teamInbox/replied", lambda p: p["message"]["text"] == LONE, since=mark)
    node_append(user, [entry("researcher", "after", "2026-11-29T11:00:01.000Z")])
    await r.wait("teamInbox/replied", lambda p: p["message"]["text"] == "after", since=mark)
    page = await call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
    assert [m["text"] for m in page["messages"][:2]] == ["after", LONE]
    found = await call(client, "teamInbox/search", {"query": "smile"})
    assert any(m["text"] == LONE for m in found["messages"])
