"""A query past the search's bounds is refused where every face asks (`teamInbox/search`):
the JSON-RPC server answers invalid params with the limit named, and `teaminbox mcp`'s
`search_messages` says the same words; both go on serving."""

from __future__ import annotations

from pathlib import Path

from lsp_session import call, call_error, error_code, make_home, options, start
from pytest_lsp import LanguageClient
from test_mcp import call as mcp_call
from test_mcp import fails, served

from support.world import Teams
from teaminbox.history import MAX_QUERY_CHARS, MAX_QUERY_TERMS

PASTED = '"' + "the tests pass on every target " * 1057 + '"'  # a 32 KB phrase
TOO_LONG = f"query must be at most {MAX_QUERY_CHARS:,} characters (it has {len(PASTED):,})"
WORDY = " ".join(["auth"] * (MAX_QUERY_TERMS + 1))
TOO_MANY = f"query must be at most {MAX_QUERY_TERMS} words (it has {MAX_QUERY_TERMS + 1})"


async def test_json_rpc_refuses_a_query_past_its_bounds(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    for query, said in ((PASTED, TOO_LONG), (WORDY, TOO_MANY)):
        err = await call_error(client, "teamInbox/search", {"query": query})
        assert (err.code, error_code(err), err.message) == (-32602, "invalid_params", said)
    at_bound = " ".join(["news"] * MAX_QUERY_TERMS)  # make_home's "old news": found
    found = (await call(client, "teamInbox/search", {"query": at_bound}))["messages"]
    assert [m["text"] for m in found] == ["old news"]


async def test_mcp_search_messages_says_the_same(teams: Teams) -> None:
    async with served(teams, history=teams.home / "h.db") as s:
        assert await fails(s, "search_messages", query=PASTED) == TOO_LONG
        assert await fails(s, "search_messages", query=WORDY, team="alpha") == TOO_MANY
        assert (await mcp_call(s, "search_messages", query="auth"))["count"] >= 1
