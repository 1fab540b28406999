"""The server takes a member by its name, its agent id, or its inbox's name, as the CLI does:
on the file bus the inbox `coder_proj` (what `teams` lists) is the member `coder`."""

from __future__ import annotations

import sys
from pathlib import Path

from lsp_session import REPO, call, make_home, options, start
from pytest_lsp import LanguageClient

sys.path.insert(0, str(REPO / "tests" / "interop"))
from seed_filebus import FileMessageBus  # noqa: E402


async def test_send_and_messages_take_a_file_bus_inbox_name(
    client: LanguageClient, tmp_path: Path
) -> None:
    make_home(tmp_path)
    folder = tmp_path / "work" / "proj"
    folder.mkdir(parents=True)
    seed = FileMessageBus(str(folder / ".team"))
    seed.send_message("team-lead@proj", "coder@proj", "Please write src/auth/jwt.ts")
    init = options(tmp_path)
    init["roots"].append(f"filebus={folder}")
    await start(client, init)
    for to in ("coder_proj", "coder", "coder@proj"):
        res = await call(client, "teamInbox/send", {"team": "filebus:proj", "to": to, "text": to})
        assert [(r["ok"], r["recipient"], r["inbox"]) for r in res["results"]] == [
            (True, "coder", "coder_proj")
        ], res
    page = await call(client, "teamInbox/messages", {"team": "filebus:proj", "inbox": "coder"})
    assert sorted(m["text"] for m in page["messages"]) == sorted(
        ["Please write src/auth/jwt.ts", "coder_proj", "coder", "coder@proj"]
    )
    got = seed.read_inbox("coder@proj")  # the seed's own reader gets every one
    assert sorted(m["content"] for m in got) == sorted(m["text"] for m in page["messages"])
