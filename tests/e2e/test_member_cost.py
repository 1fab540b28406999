"""Through the server: each member's context and cost from its transcript's usage rows
(`teamInbox/teams`, `teamInbox/activity`), and two members editing one file as one
"Needs attention" item that a dismissal hides for good."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsp_session import call, options, start
from pytest_lsp import LanguageClient
from test_activity import CWD, MODEL, TEAM, Rows, listen, members, session_team, the_team, until
from test_activity import transcripts as team_transcripts

FILE = f"{CWD}/src/api.py"


def edit(rows: Rows, path: str, prompt: tuple[int, int, int]) -> list[dict[str, Any]]:
    """An Edit call (its usage: `prompt` as input, cache read, cache write) and its result."""
    call_row = rows.said(tool="Edit")
    block = call_row["message"]["content"][0]
    block["input"] = {"file_path": path, "old_string": "a", "new_string": "b"}
    inp, read, write = prompt
    call_row["message"]["usage"] = {
        "input_tokens": inp,
        "output_tokens": 50,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
    }
    done = rows._base("user")
    done["message"] = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": block["id"], "content": "ok"}],
    }
    return [call_row, done]


async def attention(c: LanguageClient) -> list[dict[str, Any]]:
    return list((await call(c, "teamInbox/attention", {}))["items"])


async def test_context_cost_and_two_editors_of_one_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    session_team(tmp_path)
    lead, helper = team_transcripts(tmp_path)
    lead.append(lead.said("LEAD-HELLO"))  # 1000 in, 500 cache read, 10 out: $0.0033
    got = listen(client)
    await start(client, options(tmp_path))

    async def context_of(name: str, used: int) -> dict[str, Any] | None:
        t = await the_team(client)
        a = members(t)[name]["activity"]
        return t if a and a["context"] and a["context"]["used"] == used else None

    t = await until(lambda: context_of("team-lead", 1500), "the lead's context")
    assert members(t)["team-lead"]["activity"]["context"] == {
        "used": 1500,
        "window": 200_000,
        "model": MODEL,
    }
    assert (
        members(t)["helper"]["activity"] is None or not members(t)["helper"]["activity"]["context"]
    )

    helper.append(*edit(helper, FILE, (20, 40_000, 9_000)))
    t = await until(lambda: context_of("helper", 49_020), "the helper's context")
    a = members(t)["helper"]["activity"]
    # 20 x $3 + 50 x $15 + 40,000 x $0.30 + 9,000 x $3.75, per million
    assert a["tokens"]["cost"] == round((20 * 3 + 50 * 15 + 40_000 * 0.3 + 9_000 * 3.75) / 1e6, 6)
    assert abs(t["tokens"]["cost"] - (a["tokens"]["cost"] + 0.0033)) < 1e-6
    assert not [i for i in await attention(client) if i["kind"] == "sameFile"]

    async def pushed() -> bool:
        return any(
            (p["members"].get("helper") or {}).get("context", {})
            == {
                "used": 49_020,
                "window": 200_000,
                "model": MODEL,
            }
            for p in got
        )

    await until(pushed, "the helper's context in teamInbox/activity")

    # the lead edits the same file a moment later: one item naming both and the file
    lead.append(*edit(lead, FILE, (5, 1500, 0)))

    async def same() -> list[dict[str, Any]]:
        return [i for i in await attention(client) if i["kind"] == "sameFile"]

    items = await until(same, "the two-editors item")
    assert len(items) == 1
    item = items[0]
    assert (item["member"], item["other"], item["path"]) == ("helper", "team-lead", FILE)
    assert item["summary"] == f"helper and team-lead both edited {FILE}"
    assert item["team"] == f"claude:{TEAM}"
    # another edit says nothing new
    helper.append(*edit(helper, FILE, (1, 49_020, 100)))
    await until(lambda: context_of("helper", 49_121), "the helper's next turn")
    assert [i["key"] for i in await same()] == [item["key"]]
    # dismissed: gone for good, through later edits too
    assert (await call(client, "teamInbox/dismissAttention", {"key": item["key"]}))["dismissed"]

    async def dismissed() -> bool:
        return not await same()

    await until(dismissed, "the item dismissed")
    lead.append(*edit(lead, FILE, (5, 1500, 0)))
    await until(lambda: context_of("team-lead", 1505), "the lead's next turn")
    assert await same() == []
