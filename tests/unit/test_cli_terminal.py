"""What teammates write reaches a terminal as text, never as commands.

The real `teaminbox` runs on a pseudo-terminal (os.openpty, output processing off so
the bytes read are the bytes written) against a world whose messages, member and team
names, paths and task fields carry ESC sequences (title, clear screen, an OSC 8 link),
C1 controls, bidi overrides, carriage returns and line feeds: none of them may reach the
terminal raw, and each must still show, visibly. `--json` keeps every value exact. A lone
UTF-16 surrogate (Claude Code cuts emoji) kills no command on a pipe or in a file.
"""

from __future__ import annotations

import errno
import json
import os
import select
import subprocess
import termios
import time
from pathlib import Path
from typing import Any

import pytest

from support import cli
from support.entries import claude_entry
from support.world import CODER_ID, LEAD_ID, Teams, write_json
from teaminbox.termtext import json_text, visible

TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
LINK = "\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\"
C1_CSI = "\u009b31m"  # CSI as one C1 character
RLO = "\u202e"  # right-to-left override
ISOLATE = "\u2066"
LONE = "\ud83d"  # half an emoji
SMUGGLED = "\U000e0069\U000e0067\U000e006e"  # tag characters: "ign", invisible
HOSTILE = f"{TITLE}{CLEAR}{LINK} {C1_CSI} {RLO}txt.exe{ISOLATE} back\rover{SMUGGLED}"
BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")

# A member name whose line feed would print a line of `teams` of its own.
FORGED = "claude:forged  (1 inbox, 0 unread)  /tmp/forged"
NEWLINE_NAME = f"tester\n{FORGED}"
EVIL_NAME = f"rev{RLO}{TITLE}iew"
EVIL_TEAM = f"ops{TITLE}\nclaude:forged  (1 inbox, 0 unread){RLO}"  # a folder: no slash
EVIL_TEAM_ID = f"pseudoclaude:{EVIL_TEAM}"


def run_on_pty(teams: Teams, *args: str, timeout: float = 60) -> tuple[int, bytes]:
    """Run the CLI with stdout and stderr on a pty; every byte the terminal gets."""
    master, slave = os.openpty()
    mode = termios.tcgetattr(slave)
    mode[1] &= ~termios.OPOST  # no \n -> \r\n: read exactly what the program wrote
    termios.tcsetattr(slave, termios.TCSANOW, mode)
    proc = subprocess.Popen(
        cli.command(*args),
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=teams.env(),
    )
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([master], [], [], max(left, 0))
            if not ready:
                proc.kill()
                pytest.fail(f"teaminbox {args} still running after {timeout} s")
            try:
                chunk = os.read(master, 65536)
            except OSError as err:  # Linux: EIO once the last writer closed the pty
                if err.errno != errno.EIO:
                    raise
                break
            if not chunk:
                break
            out += chunk
        code = proc.wait(timeout=timeout)
    finally:
        os.close(master)
    return code, bytes(out)


def assert_inert(out: bytes) -> str:
    """No ESC, no other C0 control but line feed and tab, no DEL or C1, no bidi control,
    and valid UTF-8 (so no lone surrogate either)."""
    assert b"\x1b" not in out, out
    text = out.decode("utf-8")
    bad = [
        c
        for c in text
        if (ord(c) < 0x20 and c not in "\n\t")
        or 0x7F <= ord(c) <= 0x9F
        or 0xE0000 <= ord(c) <= 0xE007F
        or c in BIDI
    ]
    assert not bad, (bad, text)
    return text


def on_pty(teams: Teams, *args: str, code: int = 0) -> str:
    got, out = run_on_pty(teams, *args)
    text = assert_inert(out)
    assert got == code, text
    assert "Traceback" not in text
    return text


# --- the hostile world ------------------------------------------------------------------


def hostile(teams: Teams) -> None:
    """Hostile text wherever a teammate can put it."""
    config = json.loads((teams.claude_dir / "config.json").read_bytes())
    config["members"].append({"agentId": f"{EVIL_NAME}@alpha", "name": EVIL_NAME})
    config["members"].append({"agentId": "bad@alpha", "name": f"a/{CLEAR}b"})  # skipped
    write_json(teams.claude_dir / "config.json", config)
    idle = {
        "type": "idle_notification",
        "from": "researcher",
        "timestamp": "2026-02-09T17:14:00.000Z",
        "idleReason": "available",
        "result": f"done {TITLE}{RLO}",
    }
    write_json(
        teams.cinbox("user"),
        [
            claude_entry(
                f"research{CLEAR}er",
                f"first line {HOSTILE}\n\tsecond line {LINK}",
                "2026-02-09T17:12:00.000Z",
                summary=f"sum{TITLE}mary{RLO}",
                read=False,
            ),
            claude_entry("researcher", json.dumps(idle), "2026-02-09T17:14:00.000Z"),
        ],
    )
    write_json(teams.cinbox(EVIL_NAME), [claude_entry("team-lead", HOSTILE, "2026-02-09T17:15Z")])
    # PseudoClaude: a member whose name holds a line feed, a payload with ESC
    pconfig = json.loads((teams.pseudo_dir / "config.json").read_bytes())
    pconfig["members"][2]["name"] = NEWLINE_NAME
    write_json(teams.pseudo_dir / "config.json", pconfig)
    write_json(
        teams.pinbox(LEAD_ID),
        {
            "messages": [
                {
                    "from": CODER_ID,
                    "to": LEAD_ID,
                    "type": "text",
                    "summary": f"note {C1_CSI}",
                    "content": f"see {LINK}",
                    "payload": {"k": TITLE},
                    "timestamp": "2026-11-29T10:00:01Z",
                    "read": False,
                }
            ]
        },
    )
    # task boards
    tasks = teams.home / ".claude" / "tasks" / "alpha"
    write_json(
        tasks / "1.json",
        {
            "id": "1",
            "subject": f"fix {HOSTILE}",
            "status": f"pend{CLEAR}ing",
            "owner": NEWLINE_NAME,
            "blocks": [],
            "blockedBy": [f"2{TITLE}"],
        },
    )
    write_json(
        teams.pseudo_dir / "tasks.json",
        {"tasks": [{"id": f"task_{RLO}1", "title": f"t {LINK}", "status": "todo"}]},
    )
    # a team whose very folder name is hostile, with a path doctor reports
    evil = teams.home / ".PseudoClaude" / "teams" / EVIL_TEAM
    write_json(evil / "config.json", {"name": "ops", "members": []})
    write_json(evil / "tasks.json", {"tasks": [{"id": "task_1", "title": "ok", "status": "todo"}]})
    write_json(evil / "inboxes" / "nobody.json", {"messages": []})  # a phantom inbox


def test_visible_shows_every_control_and_keeps_a_body_lines() -> None:
    assert visible(TITLE) == "\\e]0;pwned\\x07"
    assert visible(f"a\nb\tc\rd{C1_CSI}{RLO}{LONE}\x7f") == (
        "a\\nb\\tc\\rd\\x9b31m<U+202E><U+D83D>\\x7f"
    )
    assert visible("a\nb\tc\r", body=True) == "a\nb\tc\\r"
    assert visible("plain, ünïcode 😀 ok") == "plain, ünïcode 😀 ok"
    assert visible(visible(HOSTILE)) == visible(HOSTILE)  # idempotent
    assert json.loads(json_text(json.dumps(HOSTILE, ensure_ascii=False))) == HOSTILE


# --- every human-readable output, on a terminal -----------------------------------------


def test_read_shows_hostile_messages_visibly(teams: Teams) -> None:
    hostile(teams)
    out = on_pty(teams, "read", "alpha", "user")
    assert "first line \\e]0;pwned\\x07\\e[2J" in out
    assert "\\e]8;;https://evil.example/\\e\\click here" in out  # the link's target shows
    assert "<U+202E>txt.exe<U+2066> back\\rover<U+E0069><U+E0067><U+E006E>" in out
    assert "\\x9b31m" in out
    assert "\n  \tsecond line" in out  # a body keeps its lines and tabs
    assert "research\\e[2J\\e[Her -> user" in out
    assert "summary: sum\\e]0;pwned\\x07mary<U+202E>" in out
    assert 'idle: "done \\e]0;pwned\\x07<U+202E>"' in out  # a frame in words
    out = on_pty(teams, "read", "alpha", EVIL_NAME)
    assert "rev<U+202E>\\e]0;pwned\\x07iew: 1 message" in out
    out = on_pty(teams, "read", "beta", "lead")
    assert 'payload: {"k":"\\u001b]0;pwned\\u0007"}' in out
    assert "summary: note \\x9b31m" in out


def test_teams_names_cannot_forge_a_line(teams: Teams) -> None:
    hostile(teams)
    out = on_pty(teams, "teams")
    heads = [line for line in out.splitlines() if not line.startswith(" ")]
    ids = ["claude:alpha", "pseudoclaude:beta", visible(EVIL_TEAM_ID)]
    assert len(heads) == len(ids), out
    assert all(h.startswith(f"{i}  (") for h, i in zip(heads, ids, strict=True)), out
    assert "tester\\nclaude:forged  (1 inbox" in out
    assert "rev<U+202E>\\e]0;pwned\\x07iew" in out
    assert "a/\\x1b[2J\\x1b[Hb" in out  # the skipped member's error names it, visibly
    # the columns still line up: every member row's counts start at the same place
    starts = {line.index(" total") for line in out.splitlines() if " total " in line}
    assert len(starts) == 1, out


def test_tasks_show_their_fields_visibly(teams: Teams) -> None:
    hostile(teams)
    out = on_pty(teams, "tasks", "alpha")
    assert "fix \\e]0;pwned\\x07" in out and "pend\\e[2J\\e[Hing" in out
    assert "(tester\\nclaude:forged" in out
    assert "#2\\e]0;pwned\\x07" in out
    out = on_pty(teams, "tasks", "beta")
    assert "#task_<U+202E>1" in out and "t \\e]8;;https://evil.example/" in out
    out = on_pty(teams, "tasks", EVIL_TEAM_ID)
    assert visible(str(teams.home / ".PseudoClaude" / "teams" / EVIL_TEAM)) in out


def test_doctor_shows_paths_visibly(teams: Teams) -> None:
    hostile(teams)
    out = on_pty(teams, "doctor")
    assert visible(str(teams.home / ".PseudoClaude" / "teams" / EVIL_TEAM)) in out
    assert "a/\\x1b[2J\\x1b[Hb" in out


def test_send_mark_read_and_errors_name_members_visibly(teams: Teams) -> None:
    hostile(teams)
    out = on_pty(teams, "send", "alpha", f"{EVIL_NAME}@alpha", "hello")
    assert out.startswith("sent to rev<U+202E>\\e]0;pwned\\x07iew (")
    history = str(teams.home / "h.db")
    out = on_pty(teams, "mark-read", "alpha", EVIL_NAME, "--all", "--history", history)
    assert "rev<U+202E>\\e]0;pwned\\x07iew's runner" in out
    out = on_pty(teams, "read", "alpha", f"no{TITLE}body", code=1)  # an error quoting a name
    assert out.startswith("teaminbox: ") and out.count("\n") == 1
    out = on_pty(teams, "send", EVIL_TEAM_ID, "x", "hi", code=1)
    assert out.startswith("teaminbox: ") and out.count("\n") == 1


def test_json_stays_exact(teams: Teams) -> None:
    """--json is not made visible: it holds every value as written, as JSON escapes."""
    hostile(teams)
    got, raw = run_on_pty(teams, "read", "alpha", "user", "--json")
    assert got == 0
    assert_inert(raw)  # C1 and bidi controls too are escapes in the JSON text
    msgs = json.loads(raw)["messages"]
    assert msgs[0]["text"] == f"first line {HOSTILE}\n\tsecond line {LINK}"
    assert msgs[0]["from"] == f"research{CLEAR}er"
    teams_out = json.loads(run_on_pty(teams, "teams", "--json")[1])
    names = [m["name"] for t in teams_out["teams"] for m in t["members"]]
    assert NEWLINE_NAME in names and EVIL_NAME in names
    tasks = json.loads(run_on_pty(teams, "tasks", "beta", "--json")[1])["tasks"]
    assert tasks[0]["id"] == f"task_{RLO}1"


# --- lone surrogates: on a pipe, in a file ----------------------------------------------


def lone_world(teams: Teams) -> None:
    """What Claude Code writes for "😀".slice(0, 1), in every field a command prints."""
    raw = (
        b'[{"from": "research\\ud83der", "text": "half \\ud83d of a smile",'
        b' "summary": "s\\udc00", "timestamp": "2026-02-09T17:12:00.000Z", "read": false}]'
    )
    teams.cinbox("user").write_bytes(raw)
    cfg = teams.pseudo_dir / "config.json"
    cfg.write_bytes(cfg.read_bytes().replace(b'"tester"', b'"test\\ud83der"', 1))
    board = teams.pseudo_dir / "tasks.json"
    board.write_bytes(b'{"tasks": [{"id": "task_1", "title": "half \\ud83d", "status": "todo"}]}')
    inboxes = bytes(teams.claude_dir / "inboxes")
    with open(inboxes + b"/ph\xff.json", "wb") as f:  # a phantom whose name is not UTF-8
        f.write(b"[]")
    os.mkdir(inboxes + b"/odd\xff.json.lock")  # and a stale lock beside it
    old = time.time() - 3600
    os.utime(inboxes + b"/odd\xff.json.lock", (old, old))


COMMANDS: list[tuple[str, ...]] = [
    ("read", "alpha", "user"),
    ("read", "alpha", "user", "--archived"),
    ("teams",),
    ("tasks", "beta"),
    ("doctor",),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a))
@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_lone_surrogates_kill_nothing_on_a_pipe_or_in_a_file(
    teams: Teams, tmp_path: Path, args: tuple[str, ...], json_out: bool
) -> None:
    lone_world(teams)
    extra = ["--history", str(tmp_path / "h.db")] if "--archived" in args else []
    argv = cli.command(*args, *extra, *(["--json"] if json_out else []))
    piped = subprocess.run(argv, capture_output=True, env=teams.env(), timeout=60)
    assert piped.returncode == 0, piped.stderr.decode(errors="replace")
    out_file = tmp_path / "out.txt"
    with open(out_file, "wb") as f:
        done = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, env=teams.env(), timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    for data in (piped.stdout, out_file.read_bytes()):
        assert b"Traceback" not in data
        text = data.decode("utf-8")  # strict: nothing unencodable was written
        if json_out:
            value: Any = json.loads(text)
            assert value
        elif args[0] == "read":
            assert "half <U+D83D> of a smile" in text and "research<U+D83D>er" in text
        elif args[0] == "teams":
            assert "test<U+D83D>er" in text and "ph<U+DCFF>" in text
        elif args[0] == "tasks":
            assert "half <U+D83D>" in text
        else:
            assert "odd<U+DCFF>.json.lock" in text
    if json_out and args[0] == "read":
        msgs = json.loads(piped.stdout)["messages"]
        assert msgs[0]["text"] == "half \ud83d of a smile"  # exact, as a \ud83d escape
        assert b"\\ud83d" in piped.stdout
