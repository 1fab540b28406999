"""The real server answers every method against a scratch HOME."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lsp_session import call, client, make_home, options, start
from pytest_lsp import LanguageClient

from support import cli


async def test_teams_send_reply(client: LanguageClient, tmp_path: Path) -> None:
    make_home(tmp_path)
    await start(client, options(tmp_path))
    teams = (await call(client, "teamInbox/teams", {}))["teams"]
    assert sorted(t["id"] for t in teams) == ["claude:alpha", "pseudoclaude:beta"]
    alpha = next(t for t in teams if t["id"] == "claude:alpha")
    user = next(m for m in alpha["members"] if m["inbox"] == "user")
    assert (user["owned"], user["total"], user["unread"]) == (True, 1, 1)

    res = await call(client, "teamInbox/send", {"team": "alpha", "to": "researcher", "text": "hi"})
    assert res["results"][0]["ok"] is True

    replied = client.protocol.wait_for_notification_async("teamInbox/replied")
    changed = client.protocol.wait_for_notification_async("teamInbox/didChange")
    roots = cli.scratch_roots(tmp_path)
    cli.run(*roots, "send", "alpha", "team-lead", "ignored", home=tmp_path, check=True)
    # A teammate writes into the person's own inbox (the peer's way: as researcher).
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from teaminbox.discovery import *;"
            f"s=Settings(roots=[Root({str(tmp_path / '.claude' / 'teams')!r}, 'claude')],"
            " identity={'claude': 'researcher', 'pseudoclaude': None});"
            "r=roster(resolve_team(s.roots, 'alpha'), s);"
            "from teaminbox.store import append; from teaminbox.model import Draft;"
            "p=r.team.inbox_path('user');"
            "e=r.team.fmt.new_entry(Draft(sender='researcher', recipient='user', text='done!',"
            " summary='finished'));"
            "append(r.team.fmt, p, [e])",
        ],
        check=True,
    )
    msg = (await replied)["message"]
    assert (msg["from"], msg["text"], msg["summary"]) == ("researcher", "done!", "finished")
    change = await changed
    assert change["added"]
    page = await call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
    assert page["messages"][0]["text"] == "done!"
    assert page["unread"] == 2
