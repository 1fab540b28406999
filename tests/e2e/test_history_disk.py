"""The history's file and disk, from the real server: a `historyPath` naming a workspace
file leaves it alone, and a full disk under the history never stops the live view (the
archive catches up when there is room, and says once that it was behind)."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from lsp_session import (
    SERVER,
    WAIT,
    call,
    claude_inbox,
    entry,
    make_home,
    make_recording_client,
    options,
    py_append,
    rec,
    start,
    start_server,
    stop_server,
    write_json,
)
from pytest_lsp import LanguageClient

NOTES = "# proj\n\nThe person's own notes; not a database.\n"


def files(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (p.stat().st_ino, p.read_bytes()) for p in folder.iterdir()}


async def test_history_path_at_a_workspace_file_leaves_it_alone(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    make_home(home)
    work = tmp_path / "workspace"
    work.mkdir()
    notes = work / "README.md"
    notes.write_text(NOTES)
    before = files(work)
    client = await start_server(home, historyPath=str(notes))
    try:
        r = rec(client)
        mark = r.mark()
        py_append(
            claude_inbox(home, "alpha", "user"),
            [entry("researcher", "the fix is in", "2026-11-29T11:00:00.000Z")],
        )
        got = await r.wait(
            "teamInbox/replied", lambda p: p["message"]["text"] == "the fix is in", since=mark
        )
        assert got["message"]["inbox"] == "user"
        page = await call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
        assert "the fix is in" in [m["text"] for m in page["messages"]]
        # searched in this run's history, kept in memory
        found = await call(client, "teamInbox/search", {"query": "fix"})
        assert [m["text"] for m in found["messages"]] == ["the fix is in"]
    finally:
        await stop_server(client)
    assert files(work) == before  # the same bytes, the same inode, nothing beside it
    err = capfd.readouterr().err
    said = [line for line in err.splitlines() if str(notes) in line]
    assert len(said) == 1 and "not a SQLite database" in said[0] and "memory" in said[0]


# --- a full disk ----------------------------------------------------------------------------


def tmpfs_command(mount: Path) -> list[str] | None:
    """The server in a mount namespace of its own, its history folder a small tmpfs: a real
    filesystem that fills up. As root (CI) `unshare --mount`; as a developer also
    `--user --map-root-user` (unprivileged user namespaces). None where neither works."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    base = [unshare, "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        base += ["--user", "--map-root-user"]
    script = 'mount -t tmpfs -o size=4m,mode=0700 tmpfs "$0" && exec "$@"'
    probe = subprocess.run(
        [*base, "sh", "-c", script, str(mount), "true"], capture_output=True, timeout=30
    )
    if probe.returncode != 0:
        return None
    return [*base, "sh", "-c", script, str(mount), *SERVER]


def fill(folder: Path) -> Path:
    """Write a file until the filesystem refuses (ENOSPC)."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as f:
        for size in (1 << 20, 1 << 16, 1 << 12, 1):
            while True:
                try:
                    f.write(b"\0" * size)
                except OSError as err:
                    assert err.errno == errno.ENOSPC, err
                    break
    return filler


async def eventually(what: str, probe, seconds: float = WAIT) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not await probe():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {seconds} s")
        await asyncio.sleep(0.2)


async def test_a_full_disk_under_the_history_never_stops_the_live_view(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    make_home(home)
    mount = tmp_path / "disk"
    mount.mkdir()
    command = tmpfs_command(mount)
    if command is None:
        pytest.skip(
            "cannot mount a tmpfs here (unshare --mount, or --user for a non-root user);"
            " the same SQLITE_FULL path: tests/unit/test_history_record.py"
        )
    client: LanguageClient = make_recording_client()
    await client.start_io(*command)
    try:
        await start(client, options(home, historyPath=str(mount / "history.db")))
        server = client._server
        assert server is not None
        disk = Path(f"/proc/{server.pid}/root") / mount.relative_to("/")
        assert (disk / "history.db").exists() and not (mount / "history.db").exists()
        filler = fill(disk)
        r = rec(client)
        inbox = claude_inbox(home, "alpha", "user")
        mark = r.mark()
        py_append(inbox, [entry("researcher", "deploy finished", "2026-11-29T11:00:00.000Z")])
        got = await r.wait(
            "teamInbox/replied", lambda p: p["message"]["text"] == "deploy finished", since=mark
        )
        page = await call(client, "teamInbox/messages", {"team": "alpha", "inbox": "user"})
        assert "deploy finished" in [m["text"] for m in page["messages"]]
        assert got["message"]["id"]
        # the reader takes it out of the file: only the waiting write holds it now
        mark = r.mark()
        write_json(inbox, [])
        await r.wait(
            "teamInbox/didChange", lambda p: p["inbox"] == "user" and p["removed"], since=mark
        )
        found = await call(client, "teamInbox/search", {"query": "deploy"})
        assert found["messages"] == []  # the disk really refused it
        filler.unlink()  # room again: the next rescan catches up

        async def archived() -> bool:
            res = await call(client, "teamInbox/search", {"query": "deploy"})
            return [(m["text"], m["archived"]) for m in res["messages"]] == [
                ("deploy finished", True)
            ]

        await eventually("the archive catches up", archived)
        page = await call(
            client,
            "teamInbox/messages",
            {"team": "alpha", "inbox": "user", "includeArchived": True},
        )
        assert "deploy finished" in [m["text"] for m in page["messages"] if m["archived"]]
    finally:
        await stop_server(client)
    err = capfd.readouterr().err
    assert len([line for line in err.splitlines() if "archiving is behind" in line]) == 1
    assert "archiving caught up" in err
    assert "read_failed" not in err and "reading " not in err
