"""Smaller edges of the CLI: a frame that is only a payload, the temp copy a killed send
leaves while it is young, and a file-bus member named by its inbox's name."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support import cli
from support.world import CODER_ID, REPO, Teams
from teaminbox import fileio
from teaminbox.discovery import Settings, parse_root, resolve_team, roster
from teaminbox.errors import UnknownRecipient
from teaminbox.locks import ExclFileLock

sys.path.insert(0, str(REPO / "tests" / "interop"))
from seed_filebus import FileMessageBus  # noqa: E402

PY_WRITER = REPO / "tests" / "interop" / "py_writer.py"


def messages(path: Path) -> list[dict[str, object]]:
    doc = json.loads(path.read_bytes())
    return list(doc["messages"])


# --- send --type T --payload JSON, no text ----------------------------------------------


def test_a_payload_only_frame_is_sent_to_pseudoclaude(teams: Teams) -> None:
    inbox = teams.pinbox(CODER_ID)
    proc = teams.cli(
        "send", "beta", "coder", "--type", "shutdown_request", "--payload", '{"reason": "done"}'
    )
    assert proc.returncode == 0, proc.stderr
    last = messages(inbox)[-1]
    assert last["type"] == "shutdown_request" and last["payload"] == {"reason": "done"}
    assert last["from"] == "lead" and last["read"] is False
    # a broadcast too, and nothing at all is still refused
    proc = teams.cli("broadcast", "beta", "--type", "task_update", "--payload", '{"task": 3}')
    assert proc.returncode == 0, proc.stderr
    assert messages(inbox)[-1]["payload"] == {"task": 3}
    proc = teams.cli("send", "beta", "coder")
    assert proc.returncode == 1 and "no message text" in proc.stderr


def test_a_payload_only_send_waits_for_the_peers_lock(teams: Teams) -> None:
    """Held by the peer, the inbox is not written: the send writes its temp copy, waits,
    and commits once the lock is released."""
    inbox = teams.pinbox(CODER_ID)
    before = inbox.read_bytes()
    held = ExclFileLock(str(inbox), 5).acquire()
    released = False
    proc = subprocess.Popen(
        cli.command("send", "beta", "coder", "--type", "shutdown_request")
        + ["--payload", '{"reason": "under the lock"}'],
        env=teams.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not any(n.endswith(fileio.TEMP_SUFFIX) for n in os.listdir(inbox.parent)):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the send never wrote its temp copy"
            time.sleep(0.02)
        time.sleep(0.5)  # longer than a send takes that does not wait
        assert proc.poll() is None and inbox.read_bytes() == before
        held.release()
        released = True
        out, err = proc.communicate(timeout=60)
    finally:
        if not released:
            held.release()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert messages(inbox)[-1]["payload"] == {"reason": "under the lock"}
    assert not os.path.exists(str(inbox) + ".lock")


# --- doctor and a killed send's young temp copy -----------------------------------------


def test_doctor_lists_the_young_temp_copy_of_a_killed_send(teams: Teams) -> None:
    inbox = teams.cinbox("researcher")
    writer = subprocess.Popen(
        [sys.executable, str(PY_WRITER), str(teams.home), "alpha", "researcher", "1", "k"]
        + ["--slow-commit", "30"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not (temps := [x for x in inbox.parent.iterdir() if f".{writer.pid}." in x.name]):
            assert writer.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        os.kill(writer.pid, signal.SIGKILL)
        writer.wait()
    [temp] = temps
    assert temp.stat().st_size >= inbox.stat().st_size  # a full-size copy
    now = time.time()
    os.utime(temp, (now, now))  # young, however slow this machine is
    proc = teams.cli("doctor")
    assert proc.returncode == 0, proc.stderr
    assert f"young_temp     {temp}\n" in proc.stdout, proc.stdout
    assert "send in progress" in proc.stdout
    assert temp.exists()  # reported, not deleted
    found = json.loads(teams.cli("doctor", "--json").stdout)["findings"]
    assert {"kind": "young_temp", "path": str(temp)} in [
        {"kind": f["kind"], "path": f["path"]} for f in found
    ]
    assert temp.exists()


# --- a file-bus member by its inbox's name ----------------------------------------------


@pytest.fixture
def bus(teams: Teams) -> Path:
    """A workspace folder whose `.team/` the seed's FileMessageBus wrote."""
    folder = teams.home / "work" / "proj"
    folder.mkdir(parents=True)
    seed = FileMessageBus(str(folder / ".team"))
    seed.send_message("team-lead@proj", "coder@proj", "Please write src/auth/jwt.ts")
    seed.send_message("coder@proj", "user", "jwt.ts is written")
    seed._get_agent_inbox("team-lead@proj")
    return folder


def test_send_takes_the_inbox_name_that_teams_prints(teams: Teams, bus: Path) -> None:
    env = {"TEAMINBOX_ROOTS": str(bus)}
    listed = teams.cli("teams", **env).stdout
    assert "coder_proj" in listed
    # the server's requests resolve members with the same roster
    r = roster(resolve_team([parse_root(str(bus))], "proj"), Settings(roots=[]))
    assert [m.name for m in r.resolve_recipients("coder_proj")] == ["coder"]
    assert [m.name for m in r.resolve_recipients("coder@proj")] == ["coder"]
    with pytest.raises(UnknownRecipient, match="your own inbox"):
        r.resolve_recipients("user")
    proc = teams.cli("send", "filebus:proj", "coder_proj", "by the inbox name", **env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("sent to coder (")
    got = FileMessageBus(str(bus / ".team")).read_inbox("coder@proj")
    assert [m["content"] for m in got] == ["Please write src/auth/jwt.ts", "by the inbox name"]
    proc = teams.cli("read", "filebus:proj", "coder_proj", **env)
    assert proc.returncode == 0, proc.stderr


def test_a_broadcast_from_a_member_by_its_inbox_name_skips_that_member(
    teams: Teams, bus: Path
) -> None:
    env = {"TEAMINBOX_ROOTS": str(bus)}
    proc = teams.cli("broadcast", "filebus:proj", "hi all", "--from", "coder_proj", **env)
    assert proc.returncode == 0, proc.stderr
    assert "sent to coder" not in proc.stdout and "sent to team-lead" in proc.stdout
