"""The real `teaminbox serve`: no write follows a symbolic link inside a team.

A cloned repository's `.team/inbox/bob -> ~/.config/autostart`, a Claude team whose
`inboxes/` is a link, task boards behind links: every write request answers an error
the extension can show (`data.code` symlink_in_team, the message naming the link),
writes nothing where the links point, and reading through them keeps working.
tests/unit/test_symlinks.py covers every write and place through the CLI.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from lsp_session import call, call_error, error_code, make_home, options, start, write_json
from pytest_lsp import LanguageClient

REFUSAL = "never writes through a link inside a team"


def state(root: Path) -> dict[str, Any]:
    """Everything under root, links as links (never followed), files with their bytes."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                out[p] = ("dir",)
            else:
                out[p] = ("file", Path(p).read_bytes())
    return out


def move_and_link(real: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(real), str(target))
    real.symlink_to(target)


def refused(err: Any, link: Path) -> None:
    assert error_code(err) == "symlink_in_team", err
    assert str(link) in err.message and REFUSAL in err.message, err.message
    assert "\n" not in err.message


async def test_server_writes_through_no_link_and_reads_through_them(
    client: LanguageClient, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    make_home(home)
    outside = tmp_path / "outside"
    autostart = outside / "autostart"
    autostart.mkdir(parents=True)
    (autostart / "keep.desktop").write_text("[Desktop Entry]\n")

    # The file bus of a cloned repository: bob's folder is a link out of the team.
    project = tmp_path / "proj"
    for agent in ("carol", "user"):
        (project / ".team" / "inbox" / agent).mkdir(parents=True)
    bob = project / ".team" / "inbox" / "bob"
    bob.symlink_to(autostart)
    # Claude: the team's inboxes/ folder lives elsewhere; its task list too.
    alpha = home / ".claude" / "teams" / "alpha"
    move_and_link(alpha / "inboxes", outside / "alpha-inboxes")
    board = home / ".claude" / "tasks" / "alpha"
    write_json(board / "1.json", {"id": "1", "subject": "s", "status": "pending"})
    move_and_link(board, outside / "alpha-tasks")
    # PseudoClaude: tasks.json is a link.
    beta = home / ".PseudoClaude" / "teams" / "beta"
    write_json(
        outside / "tasks.json",
        {"tasks": [{"id": "task_0123456789ab", "title": "t", "status": "todo"}]},
    )
    (beta / "tasks.json").symlink_to(outside / "tasks.json")
    before = state(outside)

    roots = options(home)["roots"] + [str(project)]
    await start(client, options(home, roots=roots))

    err = await call_error(client, "teamInbox/send", {"team": "proj", "to": "bob", "text": "x"})
    refused(err, bob)
    res = await call(client, "teamInbox/send", {"team": "proj", "to": "*", "text": "all"})
    by = {r["recipient"]: r for r in res["results"]}
    assert by["carol"]["ok"] is True
    assert by["bob"]["ok"] is False and by["bob"]["code"] == "symlink_in_team"
    assert str(bob) in by["bob"]["error"]

    inboxes = alpha / "inboxes"
    for method, params in (
        ("teamInbox/send", {"team": "alpha", "to": "researcher", "text": "x"}),
        ("teamInbox/markRead", {"team": "alpha", "inbox": "user", "all": True}),
        ("teamInbox/discard", {"team": "alpha", "inbox": "researcher", "all": True}),
        ("teamInbox/compact", {"team": "alpha"}),
    ):
        refused(await call_error(client, method, params), inboxes)
    res = await call(client, "teamInbox/send", {"team": "alpha", "to": "*", "text": "all"})
    assert res["results"] and all(r["code"] == "symlink_in_team" for r in res["results"])
    refused(
        await call_error(
            client, "teamInbox/setTaskStatus", {"team": "alpha", "id": "1", "status": "completed"}
        ),
        board,
    )
    refused(
        await call_error(
            client,
            "teamInbox/setTaskStatus",
            {"team": "beta", "id": "task_0123456789ab", "status": "completed"},
        ),
        beta / "tasks.json",
    )

    assert state(outside) == before  # not a byte where the links point
    assert len(list((project / ".team" / "inbox" / "carol").iterdir())) == 1

    # Reading follows the links, as the peers' readers do.
    page = await call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
    assert [m["text"] for m in page["messages"]] == ["old news"]
    tasks = await call(client, "teamInbox/tasks", {"team": "beta"})
    assert [t["id"] for t in tasks["tasks"]] == ["task_0123456789ab"]
