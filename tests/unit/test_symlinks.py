"""No write follows a symbolic link inside a team.

A cloned repository can ship `.team/inbox/bob -> ~/.config/autostart`; a send to bob
must not put a file there. Every write (send, broadcast, mark read, discard, repair,
compact, a task's status) in every format where it applies is run through the real CLI
with a link planted at each place inside the team (the team's folder, the inboxes
folder, the inbox, its lock), and must refuse with one line naming the link, exit 1,
write nothing where the link points and leave the team as it was. Reading through the
same links keeps working, and so does a team whose config folder is itself reached
through a link (`~/.claude` on another disk). docs/security-links.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support import cli
from support.entries import claude_entry
from support.world import CODER_ID, LEAD_ID, Teams, write_json
from teaminbox import store
from teaminbox.errors import NotRegularFile
from teaminbox.formats.claude import CLAUDE
from teaminbox.formats.filebus import FILEBUS
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.model import Draft
from teaminbox.store import write as store_write

REFUSAL = "never writes through a link inside a team"
TASK = {
    "id": "1",
    "subject": "write the parser",
    "description": "",
    "status": "pending",
    "blocks": [],
    "blockedBy": [],
}


def state(root: Path) -> dict[str, Any]:
    """Everything under root as it is on disk: links as links (never followed), files
    with their bytes and mode."""
    out: dict[str, Any] = {}
    if root.is_symlink():
        out[str(root)] = ("link", os.readlink(root))
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                out[p] = ("dir", st.st_mode)
            else:
                out[p] = ("file", Path(p).read_bytes(), st.st_mode)
    return out


def move_and_link(real: Path, target: Path) -> Path:
    """Move `real` to `target` and leave a symlink to it in its place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(real), str(target))
    real.symlink_to(target)
    return real


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """Where a hostile link points: a folder outside every team (~/.config/autostart)."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "keep.desktop").write_text("[Desktop Entry]\n")
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A workspace folder with a file-bus team: agents bob and carol, and the person."""
    folder = tmp_path / "proj"
    for agent in ("bob", "carol", "user"):
        (folder / ".team" / "inbox" / agent).mkdir(parents=True)
    return folder


def run(teams: Teams, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli.run(
        *cli.scratch_roots(teams.home, str(project)),
        *args,
        module=True,
        env=teams.env(),
        timeout=120,
    )


def refused_once(proc: subprocess.CompletedProcess[str], link: Path) -> None:
    """Exit 1, one line on stderr naming the link, nothing on stdout."""
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("teaminbox: ") and str(link) in lines[0], lines[0]
    assert "symbolic link" in lines[0] and REFUSAL in lines[0], lines[0]
    assert proc.stdout == ""


# --- the world each write needs ------------------------------------------------------------


def claude_ready(teams: Teams) -> None:
    """user.json: one read and one unread entry (mark-read and compact have work);
    the task board with one task and the list's .lock file."""
    write_json(
        teams.cinbox("user"),
        [
            claude_entry("researcher", "read already", "2026-02-09T17:20:00.000Z", read=True),
            claude_entry("researcher", "still unread", "2026-02-09T17:21:00.000Z", read=False),
        ],
    )
    board = teams.home / ".claude" / "tasks" / "alpha"
    write_json(board / "1.json", TASK)
    (board / ".lock").write_bytes(b"")
    write_json(
        teams.pseudo_dir / "tasks.json",
        {"tasks": [{"id": "task_0123456789ab", "title": "write the parser", "status": "todo"}]},
    )


# Each write: (format, what it writes, the CLI arguments).
WRITES: dict[str, tuple[str, str, list[str]]] = {
    "claude-send": ("claude", "coder", ["send", "alpha", "coder", "hello"]),
    "claude-broadcast": ("claude", "coder", ["broadcast", "alpha", "hello all"]),
    "claude-mark-read": ("claude", "user", ["mark-read", "alpha", "user", "--all"]),
    "claude-discard": (
        "claude",
        "team-lead",
        ["mark-read", "alpha", "team-lead", "--all", "--discard"],
    ),
    "claude-repair": ("claude", "researcher", ["repair", "alpha", "researcher"]),
    "claude-compact": ("claude", "user", ["compact", "alpha", "user"]),
    "claude-task": ("claude-tasks", "1", ["tasks", "alpha", "--set", "1", "completed"]),
    "pseudo-send": ("pseudoclaude", CODER_ID, ["send", "beta", "coder", "hello"]),
    "pseudo-broadcast": ("pseudoclaude", CODER_ID, ["broadcast", "beta", "hello all"]),
    "pseudo-discard": (
        "pseudoclaude",
        CODER_ID,
        ["mark-read", "beta", "coder", "--all", "--discard"],
    ),
    "pseudo-repair": ("pseudoclaude", LEAD_ID, ["repair", "beta", "lead"]),
    "pseudo-task": (
        "pseudo-tasks",
        "",
        ["tasks", "beta", "--set", "task_0123456789ab", "completed"],
    ),
    "filebus-send": ("filebus", "bob", ["send", "proj", "bob", "hello"]),
    "filebus-broadcast": ("filebus", "bob", ["broadcast", "proj", "hello all"]),
}


def plant(
    teams: Teams, project: Path, outside: Path, fmt: str, inbox: str, where: str
) -> tuple[Path, Path]:
    """Put a link at `where` inside the team that the write touches; returns (the link,
    the team folder whose state must not change)."""
    if fmt in ("claude", "pseudoclaude"):
        team = teams.claude_dir if fmt == "claude" else teams.pseudo_dir
        inboxes = team / "inboxes"
        box = inboxes / f"{inbox}.json"
        if where == "team":
            return move_and_link(team, outside / team.name), team.parent
        if where == "folder":
            return move_and_link(inboxes, outside / "inboxes"), team
        if where == "inbox":
            if box.exists():
                return move_and_link(box, outside / box.name), team
            box.symlink_to(outside / box.name)  # dangling: no inbox written yet (coder)
            return box, team
        if where == "lock":
            lock = Path(f"{box}.lock")
            lock.symlink_to(outside / "lockdir")  # dangling: mkdir/O_EXCL would be ours there
            return lock, team
    if fmt == "filebus":
        team = project / ".team"
        if where == "team":
            return move_and_link(team, outside / "team"), project
        if where == "folder":
            return move_and_link(team / "inbox", outside / "inbox"), team
        if where == "inbox":  # the issue's own example: inbox/bob -> ~/.config/autostart
            shutil.rmtree(team / "inbox" / inbox)
            (team / "inbox" / inbox).symlink_to(outside)
            return team / "inbox" / inbox, team
    if fmt == "claude-tasks":
        board = teams.home / ".claude" / "tasks" / "alpha"
        if where == "team":
            return move_and_link(board, outside / "alpha"), board.parent
        if where == "inbox":
            return move_and_link(board / "1.json", outside / "1.json"), board
        if where == "lock":
            (board / "1.json.lock").symlink_to(outside / "lockdir")
            return board / "1.json.lock", board
        if where == "folder":  # the list's lock file, which its lock directory sits beside
            (board / ".lock").unlink()
            (board / ".lock").symlink_to(outside / "list.lock")
            return board / ".lock", board
    if fmt == "pseudo-tasks":
        team = teams.pseudo_dir
        if where == "team":
            return move_and_link(team, outside / team.name), team.parent
        if where == "inbox":
            return move_and_link(team / "tasks.json", outside / "tasks.json"), team
        if where == "lock":
            (team / "tasks.json.lock").symlink_to(outside / "lockfile")
            return team / "tasks.json.lock", team
    raise AssertionError(f"no {where} link for {fmt}")


CASES = [
    (write, where)
    for write, (fmt, _, _) in WRITES.items()
    for where in ("team", "folder", "inbox", "lock")
    if not (fmt == "filebus" and where == "lock")  # the bus takes no lock
    and not (fmt == "pseudo-tasks" and where == "folder")  # tasks.json sits in the team
]


@pytest.mark.parametrize(("write", "where"), CASES, ids=[f"{w}-{p}" for w, p in CASES])
def test_no_write_follows_a_link_inside_the_team(
    teams: Teams, project: Path, outside: Path, write: str, where: str
) -> None:
    fmt, inbox, args = WRITES[write]
    claude_ready(teams)
    if write.endswith("repair"):  # something to salvage
        box = (teams.claude_dir if fmt == "claude" else teams.pseudo_dir) / "inboxes"
        (box / f"{inbox}.json").write_bytes(b'[{"from": "team-lead", "text": "cut off')
    link, team = plant(teams, project, outside, fmt, inbox, where)
    before_outside, before_team = state(outside), state(team)
    target = os.readlink(link)

    proc = run(teams, project, *args)

    assert state(outside) == before_outside  # nothing written where the link points
    assert link.is_symlink() and os.readlink(link) == target
    if "broadcast" in write:
        # one line per member refused, each naming the link; with only one inbox behind
        # it the others get the message (exit 3: partly sent)
        lines = proc.stderr.splitlines()
        assert lines and all(str(link) in x and REFUSAL in x for x in lines), proc.stderr
        assert proc.returncode == (3 if where in ("inbox", "lock") else 1), proc.stderr
        if where in ("inbox", "lock"):
            assert len(lines) == 1
            return
    else:
        refused_once(proc, link)
    assert state(team) == before_team  # the inbox (or board) untouched, no lock or temp left


# --- links the write itself would create through ------------------------------------------


def test_a_dangling_link_at_the_message_temp_name_is_refused(project: Path, outside: Path) -> None:
    """The bus writes `<msg_id>.tmp` then renames it: a link planted at that name must not
    be opened (today's open(tmp, "w") created the target, then renamed the link in)."""
    box = project / ".team" / "inbox" / "bob"
    entry = FILEBUS.new_entry(Draft(sender="user", recipient="bob", text="hi"))
    tmp = box / f"{entry['msg_id']}.tmp"
    tmp.symlink_to(outside / "planted.desktop")
    before = state(outside)
    with pytest.raises(NotRegularFile) as info:
        store.deliver(FILEBUS, str(box), entry, timeout=1.0)
    assert str(tmp) in info.value.message and info.value.code == "symlink_in_team"
    assert state(outside) == before
    assert sorted(p.name for p in box.iterdir()) == [tmp.name] and tmp.is_symlink()


def test_a_dangling_link_at_the_inbox_temp_name_is_refused(
    tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Our temp names are random; this plants a link at the one a write will use."""
    box = tmp_path / "team" / "inboxes" / "user.json"
    write_json(box, [])
    planted = box.parent / ".user.json.1.0000abcd.teaminbox-tmp"
    planted.symlink_to(outside / "planted")
    monkeypatch.setattr(store_write, "temp_path", lambda path: str(planted))
    before = state(outside)
    entry = claude_entry("user", "hi", "2026-02-09T17:00:00.000Z")
    with pytest.raises(NotRegularFile) as info:
        store.append(CLAUDE, str(box), [entry])
    assert str(planted) in info.value.message and info.value.code == "symlink_in_team"
    assert state(outside) == before and json.loads(box.read_bytes()) == []


@pytest.mark.parametrize("fmt", ["claude", "pseudoclaude"])
@pytest.mark.parametrize("layout", ["folder", "team"])
def test_mkdir_p_of_an_inbox_folder_goes_through_no_link(
    teams: Teams, outside: Path, fmt: str, layout: str
) -> None:
    """A team with no inbox written yet: the `mkdir -p` of `inboxes/` a send does (as
    the peers do) must not create folders, or the inbox, where a link points."""
    team = teams.claude_dir if fmt == "claude" else teams.pseudo_dir
    inboxes = team / "inboxes"
    shutil.rmtree(inboxes)
    if layout == "team":
        link = move_and_link(team, outside / team.name)
    else:
        link = inboxes
        inboxes.symlink_to(outside / "inboxes")  # dangling: mkdir -p would make it
    before = state(outside)
    form = CLAUDE if fmt == "claude" else PSEUDOCLAUDE
    box = form.inbox_path(str(team), "coder" if fmt == "claude" else CODER_ID)
    entry = form.new_entry(Draft(sender="user", recipient="coder", text="hi"))
    with pytest.raises(NotRegularFile) as info:
        store.deliver(form, box, entry, timeout=1.0)
    assert str(link) in info.value.message and info.value.code == "symlink_in_team"
    assert state(outside) == before


# --- what keeps working --------------------------------------------------------------------


def test_reading_through_links_inside_a_team_keeps_working(
    teams: Teams, project: Path, outside: Path
) -> None:
    """Reads follow links, as the peers' readers do: a symlinked inbox file, inboxes
    folder, and a file-bus agent folder are listed and read."""
    claude_ready(teams)
    move_and_link(teams.cinbox("user"), outside / "user.json")
    move_and_link(teams.pseudo_dir / "inboxes", outside / "inboxes")
    shutil.rmtree(project / ".team" / "inbox" / "bob")
    agent = outside / "bob-elsewhere"
    agent.mkdir()
    write_json(
        agent / "m_1_aaaaaa.json",
        {
            "msg_id": "m_1_aaaaaa",
            "sender": "user",
            "recipient": "bob",
            "type": "text",
            "content": "through the link",
            "timestamp": 1770000000.0,
        },
    )
    (project / ".team" / "inbox" / "bob").symlink_to(agent)

    got = run(teams, project, "read", "alpha", "user", "--json")
    assert got.returncode == 0, got.stderr
    assert [m["text"] for m in json.loads(got.stdout)["messages"]] == [
        "read already",
        "still unread",
    ]
    got = run(teams, project, "read", "beta", "coder", "--json")
    assert got.returncode == 0, got.stderr
    assert [m["text"] for m in json.loads(got.stdout)["messages"]] == [
        "Please write src/auth/jwt.ts"
    ]
    got = run(teams, project, "read", "proj", "bob", "--json")
    assert got.returncode == 0, got.stderr
    assert [m["text"] for m in json.loads(got.stdout)["messages"]] == ["through the link"]


def test_a_config_folder_reached_through_a_link_keeps_every_write(
    teams: Teams, project: Path, tmp_path: Path
) -> None:
    """Links on the path TO a team are not inside it: ~/.claude and ~/.PseudoClaude on
    another disk, and a workspace folder opened through a link, take every write."""
    claude_ready(teams)
    disk = tmp_path / "disk"
    disk.mkdir()
    move_and_link(teams.home / ".claude", disk / "claude")
    move_and_link(teams.home / ".PseudoClaude", disk / "pseudo")
    real_project = disk / "proj"
    shutil.move(str(project), str(real_project))
    project.symlink_to(real_project)

    for args in (
        ["send", "alpha", "researcher", "hello"],
        ["broadcast", "alpha", "hello all"],
        ["mark-read", "alpha", "user", "--all"],
        ["mark-read", "alpha", "team-lead", "--all", "--discard"],
        ["compact", "alpha", "user"],
        ["tasks", "alpha", "--set", "1", "completed"],
        ["send", "beta", "coder", "hello"],
        ["mark-read", "beta", "coder", "--all", "--discard"],
        ["tasks", "beta", "--set", "task_0123456789ab", "done"],
        ["send", "proj", "bob", "hello"],
    ):
        proc = run(teams, project, *args)
        assert proc.returncode == 0, (args, proc.stderr)
    assert (
        "hello" in (disk / "claude" / "teams" / "alpha" / "inboxes" / "researcher.json").read_text()
    )
    assert json.loads((disk / "claude" / "tasks" / "alpha" / "1.json").read_bytes())["status"] == (
        "completed"
    )
    [msg] = (real_project / ".team" / "inbox" / "bob").iterdir()
    assert json.loads(msg.read_bytes())["content"] == "hello"


def test_a_link_that_stays_inside_the_team_is_refused_too(tmp_path: Path) -> None:
    """One rule, nothing resolved: `alias.json -> user.json` in the same folder is a link
    inside the team like any other."""
    box = tmp_path / "team" / "inboxes" / "user.json"
    data = write_json(box, [claude_entry("researcher", "hi", "2026-02-09T17:00:00.000Z")])
    alias = box.parent / "alias.json"
    alias.symlink_to("user.json")
    with pytest.raises(NotRegularFile) as info:
        store.rewrite(CLAUDE, str(alias), lambda snap: None)
    assert info.value.code == "symlink_in_team" and str(alias) in info.value.message
    assert box.read_bytes() == data and alias.is_symlink()


def test_the_refusal_is_one_line_whatever_the_names(tmp_path: Path, outside: Path) -> None:
    """A repository can name an agent's folder with a newline in it: the error stays one
    line (the CLI prints one, the extension shows one)."""
    team = tmp_path / "proj" / ".team"
    link = team / "inbox" / "bob\nteaminbox: sent"
    link.parent.mkdir(parents=True)
    link.symlink_to(outside)
    entry = FILEBUS.new_entry(Draft(sender="user", recipient="bob", text="hi"))
    with pytest.raises(NotRegularFile) as info:
        store.deliver(FILEBUS, str(link), entry, timeout=1.0)
    assert "\n" not in info.value.message and "bob\\nteaminbox: sent" in info.value.message
    assert sorted(p.name for p in outside.iterdir()) == ["keep.desktop"]
