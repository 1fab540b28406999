"""A real user's first hour with `teaminbox`: the mistakes people make are refused in one
line that names flags that exist, pipes and missing files behave as in coreutils, the help
says what the forms and exit codes are, `read` says frames in words, `repair` salvages a
one-line file, and the demo and test scripts do what the README says."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from support import cli as cli_runner
from support.entries import at, claude_entry
from support.world import CODER_ID, LEAD_ID, REPO, Teams, tree, write_json

sys.path.insert(0, str(REPO / "tests" / "interop"))
from seed_filebus import FileMessageBus  # noqa: E402

BUS_TEAM = "proj"
BUS_LEAD, BUS_CODER = f"team-lead@{BUS_TEAM}", f"coder@{BUS_TEAM}"


@pytest.fixture
def bus(teams: Teams) -> Path:
    """A workspace folder whose `.team/` the seed's FileMessageBus wrote; on TEAMINBOX_ROOTS."""
    folder = teams.home / "work" / BUS_TEAM
    folder.mkdir(parents=True)
    seed = FileMessageBus(str(folder / ".team"))
    seed.send_message(BUS_LEAD, BUS_CODER, "Please write src/auth/jwt.ts")
    seed.send_message(BUS_CODER, "user", "jwt.ts is written")
    seed._get_agent_inbox(BUS_LEAD)
    return folder


def cli(teams: Teams, bus: Path | None, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    if bus is not None:
        env.setdefault("TEAMINBOX_ROOTS", str(bus))
    return teams.cli(*args, **env)


def one_line_error(proc: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("teaminbox: ")
    return lines[0]


def parser_flags() -> set[str]:
    from teaminbox.cli import build_parser

    flags: set[str] = set()
    parsers = [build_parser()]
    while parsers:
        p = parsers.pop()
        for action in p._actions:
            flags.update(s for s in action.option_strings if s.startswith("--"))
            choices = getattr(action, "choices", None)
            if isinstance(choices, dict):
                parsers.extend(choices.values())
    return flags


FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]*[a-z]")


# --- 5. errors and docs name flags that exist --------------------------------------------


def test_every_flag_the_readme_help_and_errors_name_exists(teams: Teams, bus: Path) -> None:
    known = parser_flags()
    readme = (REPO / "README.md").read_text()
    start = readme.index("## The command line")
    named = {f: "README" for f in FLAG.findall(readme[start:])}
    mistakes = [
        ("mark-read", "alpha", "user"),
        ("mark-read", "alpha", "user", "x", "--all"),
        ("mark-read", BUS_TEAM, "coder", "--all", "--discard"),
        ("send", "alpha", "coder"),
        ("send", "alpha", "coder", "x", "--file", "/nonexistent"),
        ("send", "beta", "coder", "", "--payload", "{}"),
        ("compact", "beta"),
        ("repair", BUS_TEAM, "user"),
    ]
    for args in mistakes:
        proc = cli(teams, bus, *args)
        assert proc.returncode != 0, args
        named.update({f: " ".join(args) for f in FLAG.findall(proc.stderr)})
    for sub in ("read", "send", "mark-read", "compact", "demo"):
        named.update({f: sub + " --help" for f in FLAG.findall(cli(teams, None, sub, "-h").stdout)})
    missing = {f: where for f, where in named.items() if f not in known}
    assert not missing, f"flags that do not exist: {missing}"


def test_mark_read_on_an_agents_inbox_says_seen_and_how_to_discard(teams: Teams) -> None:
    before = teams.cinbox("team-lead").read_bytes()
    proc = cli(teams, None, "mark-read", "alpha", "team-lead", "--all")
    assert proc.returncode == 0, proc.stderr
    assert "seen" in proc.stdout and "--discard" in proc.stdout, proc.stdout
    assert proc.stdout.startswith("marked 2 messages seen")
    assert teams.cinbox("team-lead").read_bytes() == before
    own = cli(teams, None, "mark-read", "beta", "coder", "--all", "--discard")
    assert own.returncode == 0 and "1 message read" in own.stdout, own.stdout


def test_discard_on_the_file_bus_names_the_flag(teams: Teams, bus: Path) -> None:
    line = one_line_error(cli(teams, bus, "mark-read", BUS_TEAM, "coder", "--all", "--discard"))
    assert "--discard" in line and "no read flag" in line and "seen" in line


# --- 6. mistakes are refused -------------------------------------------------------------


BOGUS = [
    ("alpha", "user", ()),  # the person's own Claude inbox: read: true in the file
    ("alpha", "team-lead", ()),  # an agent's: the seen state
    ("alpha", "team-lead", ("--discard",)),
    ("beta", "coder", ()),
    ("beta", "coder", ("--discard",)),
    ("beta", "lead", ()),  # the person's own PseudoClaude inbox, consumed by a runner
    (BUS_TEAM, "user", ()),
    (BUS_TEAM, "coder", ()),
]


@pytest.mark.parametrize(("team", "inbox", "extra"), BOGUS)
def test_a_bogus_id_is_refused_in_every_format(
    teams: Teams, bus: Path, tmp_path: Path, team: str, inbox: str, extra: tuple[str, ...]
) -> None:
    history = str(tmp_path / "history" / "h.db")
    snap = tree(teams.home)
    args = ("mark-read", team, inbox, "no-such-id", *extra, "--history", history)
    line = one_line_error(cli(teams, bus, *args))
    assert "no-such-id" in line and "read --json" in line
    assert tree(teams.home) == snap
    both = cli(teams, bus, "mark-read", team, inbox, "some-id", "--all", *extra)
    assert "--all" in one_line_error(both)
    assert tree(teams.home) == snap


def test_root_format_in_any_case_and_an_unknown_one_in_one_line(teams: Teams) -> None:
    root = str(teams.claude_root)
    for spec in (f"Claude={root}", f"CLAUDE={root}"):
        proc = cli(teams, None, "--no-default-roots", "--root", spec, "teams", "--json")
        assert proc.returncode == 0, proc.stderr
        assert [t["id"] for t in json.loads(proc.stdout)["teams"]] == ["claude:alpha"]
    line = one_line_error(cli(teams, None, "--root", f"Claud={root}", "teams"))
    assert "'Claud'" in line and "claude, pseudoclaude, filebus" in line
    line = one_line_error(cli(teams, None, "teams", TEAMINBOX_ROOTS=f"nope={root}"))
    assert "'nope'" in line


def test_doctor_without_teams_says_so(teams: Teams, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = cli(teams, None, "--no-default-roots", "--root", str(empty), "doctor")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"no teams found under: {empty}"
    proc = cli(teams, None, "--no-default-roots", "doctor")
    assert "no teams found" in proc.stdout and "healthy" not in proc.stdout
    assert "--root" in proc.stdout
    proc = cli(teams, None, "doctor")
    assert proc.returncode == 0 and "2 teams" in proc.stdout and "healthy" in proc.stdout


# --- 7. pipes, missing files, your own inbox ---------------------------------------------


def test_a_closed_pipe_ends_quietly_with_exit_0(teams: Teams) -> None:
    many = [
        {"from": "coder", "text": f"message {i} " + "x" * 200, "timestamp": f"t{i:05}"}
        for i in range(3000)
    ]
    write_json(teams.cinbox("user"), many)
    for args in (("read", "alpha", "user"), ("read", "alpha", "user", "--json")):
        proc = subprocess.Popen(
            cli_runner.command(*args),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=teams.env(),
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()  # `| head -1`
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 0
        assert err == b"", err


def test_an_os_error_is_one_line_with_its_path(teams: Teams) -> None:
    inboxes = teams.claude_dir / "inboxes"
    for f in inboxes.iterdir():
        f.unlink()
    inboxes.rmdir()
    inboxes.write_text("not a folder")
    line = one_line_error(cli(teams, None, "send", "alpha", "coder", "hi"))
    assert str(inboxes) in line and "[Errno" not in line, line
    line = one_line_error(
        cli(teams, None, "mark-read", "beta", "coder", "--all", "--history", "/dev/null/h.db")
    )
    assert "history database /dev/null/h.db: " in line and "[Errno" not in line
    assert "cannot be made (File exists)" in line, line  # why, in words
    line = one_line_error(cli(teams, None, "send", "beta", "coder", "--file", "/nonexistent"))
    assert "/nonexistent" in line and "No such file" in line


def test_sending_to_your_own_claude_inbox_is_explained(teams: Teams) -> None:
    # (PseudoClaude's lead inbox is yours and its lead agent's: a send there is a note to it.)
    snap = tree(teams.home)
    line = one_line_error(cli(teams, None, "send", "alpha", "user", "hello"))
    assert "'user' is your own inbox" in line and "team-lead, researcher, coder" in line
    assert tree(teams.home) == snap


# --- 8. help, --version, read --archived, frames in words, plurals, columns ---------------


def test_version(teams: Teams) -> None:
    from teaminbox import __version__

    proc = cli(teams, None, "--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"teaminbox {__version__}"


def test_help_says_the_forms_the_separator_and_the_exit_codes(teams: Teams) -> None:
    main = cli(teams, None, "--help").stdout
    for form in ("claude:<dir>", "pseudoclaude:<dir>", "filebus:<dir>", "TEAMINBOX_ROOTS"):
        assert form in main, form
    assert f"separated by '{os.pathsep}'" in main
    exits = main[main.index("exit status") :]
    for code in ("0 ", "1 ", "2 ", "3 "):
        assert f"\n  {code}" in exits, code
    assert "usage" in exits and "broadcast" in exits
    for sub in ("compact", "serve", "demo"):
        text = cli(teams, None, sub, "--help").stdout
        paragraphs = text.split("\n\n")
        assert len(paragraphs) > 2, (sub, text)
        assert not paragraphs[1].startswith((" ", "positional", "options")), (sub, text)
    send = cli(teams, None, "send", "--help").stdout
    for color in ("blue", "green", "red", "yellow", "purple", "cyan", "orange", "pink"):
        assert color in send
    flat = " ".join(send.split())
    assert "--summary SUMMARY a short" in flat and "--json " in flat
    assert "--json machine-readable" in " ".join(cli(teams, None, "compact", "-h").stdout.split())


def test_read_archived_merges_the_history_by_time(teams: Teams, tmp_path: Path) -> None:
    history = str(tmp_path / "h.db")
    user = teams.cinbox("user")
    write_json(
        user,
        [
            claude_entry("coder", "first", at(1), read=True, msg_id="m1"),
            claude_entry("researcher", "second", at(2), read=False, msg_id="m2"),
            claude_entry("coder", "third", at(3), read=False, msg_id="m3"),
        ],
    )
    proc = cli(teams, None, "read", "alpha", "user", "--archived", "--history", history, "--json")
    assert proc.returncode == 0, proc.stderr
    assert [m["id"] for m in json.loads(proc.stdout)["messages"]] == ["m1", "m2", "m3"]
    # Claude Code delivers and prunes the middle one; the history still has it
    write_json(
        user,
        [
            claude_entry("coder", "first", at(1), read=True, msg_id="m1"),
            claude_entry("coder", "third", at(3), read=False, msg_id="m3"),
        ],
    )
    proc = cli(teams, None, "read", "alpha", "user", "--archived", "--history", history, "--json")
    out = json.loads(proc.stdout)
    assert [(m["id"], m["archived"]) for m in out["messages"]] == [
        ("m1", False),
        ("m2", True),
        ("m3", False),
    ]
    assert (out["total"], out["unread"]) == (2, 1)
    text = cli(teams, None, "read", "alpha", "user", "--archived", "--history", history).stdout
    assert "archived" in text and "second" in text
    assert text.index("first") < text.index("second") < text.index("third")
    assert "2 messages, 1 unread, 1 archived" in text
    plain = cli(teams, None, "read", "alpha", "user", "--history", history).stdout
    assert "second" not in plain


def test_read_says_frames_in_words(teams: Teams) -> None:
    idle = {
        "type": "idle_notification",
        "from": "researcher",
        "timestamp": "2026-11-29T10:00:00.000Z",
        "idleReason": "available",
        "result": "The fix is in auth.ts",
    }
    stop = {"type": "shutdown_request", "requestId": "shutdown-1@user", "from": "team-lead"}
    write_json(
        teams.cinbox("user"),
        [
            claude_entry("researcher", json.dumps(idle), "2026-11-29T10:00:00.000Z", read=False),
            claude_entry("team-lead", json.dumps(stop), "2026-11-29T10:00:01.000Z", read=False),
        ],
    )
    out = cli(teams, None, "read", "alpha", "user").stdout
    assert '  idle: "The fix is in auth.ts"\n' in out and "  shutdown request\n" in out
    assert '{"type"' not in out
    write_json(
        teams.pinbox(LEAD_ID),
        {
            "messages": [
                {
                    "from": CODER_ID,
                    "to": LEAD_ID,
                    "type": "text",
                    "summary": "member idle: completed",
                    "content": "jwt.ts written",
                    "payload": {
                        "member_name": "coder",
                        "task_id": "t1",
                        "status": "completed",
                        "error": "",
                    },
                    "timestamp": "2026-11-29T10:00:00.1Z",
                    "read": False,
                },
                {
                    "from": CODER_ID,
                    "to": LEAD_ID,
                    "type": "shutdown_response",
                    "summary": "",
                    "payload": {"approve": True},
                    "timestamp": "2026-11-29T10:00:01.1Z",
                    "read": False,
                },
            ]
        },
    )
    out = cli(teams, None, "read", "beta", "lead").stdout
    assert '  idle (task #t1 completed): "jwt.ts written"\n' in out
    assert "  shutdown approved\n" in out
    assert "coder -> lead" in out and CODER_ID + " ->" not in out  # names, not agent ids


def test_plurals(teams: Teams, tmp_path: Path) -> None:
    out = cli(teams, None, "read", "alpha", "researcher").stdout
    assert out.rstrip().endswith("researcher: 1 message, 1 unread")
    write_json(teams.cinbox("user"), [claude_entry("coder", "a", "t1", read=True, msg_id="a")])
    out = cli(teams, None, "compact", "alpha", "--history", str(tmp_path / "h.db")).stdout
    assert "1 read entry" in out and "0 left" in out
    write_json(teams.cinbox("user"), [claude_entry("coder", "a", "t1", read=False)])
    out = cli(teams, None, "repair", "alpha", "user").stdout
    assert "healthy, 1 entry;" in out
    solo = teams.home / "solo"
    FileMessageBus(str(solo / ".team")).send_message("coder@solo", "user", "hi")
    out = cli(teams, None, "--no-default-roots", "--root", str(solo), "teams").stdout
    assert "filebus:solo  (1 inbox, 1 unread)" in out, out
    out = cli(teams, None, "teams").stdout
    assert "claude:alpha  (4 inboxes," in out, out


def test_teams_columns_stay_aligned_with_long_agent_ids(teams: Teams) -> None:
    out = cli(teams, None, "teams").stdout
    rows = [ln for ln in out.splitlines() if ln.startswith("  ") and "total" in ln]
    assert len(rows) == 7
    assert len({ln.index("total") for ln in rows}) == 1, out
    assert len({ln.index("unread") for ln in rows}) == 1, out
    coder = next(ln for ln in rows if CODER_ID in ln)
    assert coder.split()[0] == "coder" and coder.rstrip().endswith(CODER_ID)


# --- 9. repair salvages a one-line truncated file ----------------------------------------


def test_repair_salvages_the_complete_entries_of_a_one_line_file(teams: Teams) -> None:
    path = teams.cinbox("user")
    good = '{"from":"x","text":"ok","timestamp":"2026-11-29T10:00:00.000Z","read":false}'
    path.write_text(f'[{good},{{"from":')
    proc = cli(teams, None, "repair", "alpha", "user", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["kept"], out["dropped"]) == (1, 0)
    assert json.loads(path.read_text()) == [json.loads(good)]
    assert Path(out["backup"]).read_text() == f'[{good},{{"from":'
    # a one-line Box that lost its end keeps its whole messages too
    box = teams.pinbox(CODER_ID)
    entry = json.loads(box.read_text())["messages"][0]
    box.write_text('{"messages":[' + json.dumps(entry) + ',{"from":"lead","to"')
    proc = cli(teams, None, "repair", "beta", "coder", "--json")
    assert json.loads(proc.stdout)["kept"] == 1
    assert json.loads(box.read_text())["messages"] == [entry]


# --- 10. the demo and the test script ----------------------------------------------------


def test_demo_init_writes_a_file_bus_team_as_the_seed_does(tmp_path: Path) -> None:
    from teaminbox import demo

    home = tmp_path / "demo"
    demo.init(home)
    folder = home / demo.BUS_TEAM
    proc = cli_runner.run(
        "--no-default-roots",
        *[a for r in demo.root_specs(home) for a in ("--root", r)],
        "teams",
        "--json",
        home=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    teams = {t["id"]: t for t in json.loads(proc.stdout)["teams"]}
    assert set(teams) == {
        f"claude:{demo.CLAUDE_TEAM}",
        f"pseudoclaude:{demo.PC_TEAM}",
        f"filebus:{demo.BUS_TEAM}",
    }
    names = {m["name"] for m in teams[f"filebus:{demo.BUS_TEAM}"]["members"]}
    assert names == {"team-lead", "reviewer", "user"}
    # each file as the seed's send_message writes it, and its reader takes them
    for f in (folder / ".team" / "inbox").rglob("*.json"):
        assert set(json.loads(f.read_text())) == {
            "msg_id",
            "sender",
            "recipient",
            "type",
            "content",
            "timestamp",
        }
    seed = FileMessageBus(str(folder / ".team"))
    assert [m["sender"] for m in seed.read_inbox("user")] == [f"reviewer@{demo.BUS_TEAM}"]


def test_demo_teammates_answer_on_the_file_bus(tmp_path: Path) -> None:
    from teaminbox import demo

    home = tmp_path / "demo"
    demo.init(home)
    seed = FileMessageBus(str(home / demo.BUS_TEAM / ".team"))
    seed.read_inbox("user")
    seed.send_message("user", f"reviewer@{demo.BUS_TEAM}", "Please review PR 7")
    assert demo.answer_once(home) >= 1
    assert seed.read_inbox(f"reviewer@{demo.BUS_TEAM}") == []  # consumed, as its reader does
    [answer] = seed.read_inbox("user")
    assert (
        answer["sender"] == f"reviewer@{demo.BUS_TEAM}"
        and "Please review PR 7" in (answer["content"])
    )


def run_script(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )


def test_demo_script_help_runs_nothing() -> None:
    proc = run_script("scripts/demo.sh", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "--no-ui" in proc.stdout and "--port" in proc.stdout and "--keep" in proc.stdout
    assert proc.stderr == ""
    bad = run_script("scripts/demo.sh", "--bogus")
    assert bad.returncode == 2 and "--help" in bad.stderr


def test_demo_script_echoes_commands_that_run_as_shown(tmp_path: Path) -> None:
    proc = run_script("scripts/demo.sh", "--no-ui", "--keep", HOME=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    shown = [ln[2:] for ln in proc.stdout.splitlines() if ln.startswith("$ ")]
    assert len(shown) >= 5, proc.stdout
    home = Path(shlex.split(shown[0])[shlex.split(shown[0]).index("--root") + 1].split("=", 1)[1])
    home = home.parent.parent
    try:
        for line in shown:
            argv = shlex.split(line)
            assert "--no-default-roots" in argv and argv.count("--root") == 3, line
            assert f"filebus={home}/demo-bus" in argv, line
            again = subprocess.run(
                ["bash", "-c", line], cwd=REPO, capture_output=True, text=True, timeout=60
            )
            assert again.returncode == 0, (line, again.stderr)
        assert "filebus:demo-bus" in proc.stdout
    finally:
        subprocess.run(["rm", "-rf", str(home)], check=True)


def test_demo_script_removes_its_scratch_folder(tmp_path: Path) -> None:
    proc = run_script("scripts/demo.sh", "--no-ui", HOME=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folders = set(re.findall(r"/tmp/teaminbox-demo\.\w+", proc.stdout))
    assert folders and not any(Path(f).exists() for f in folders)


def test_test_script_subsets() -> None:
    listed = {
        flag: run_script("scripts/test.sh", "--list", *([flag] if flag else [])).stdout.split()
        for flag in ("", "--python-only", "--extension-only")
    }
    assert listed[""] == ["lint", "python", "extension"]
    assert listed["--python-only"] == ["lint", "python"]
    assert listed["--extension-only"] == ["extension"]
    bad = run_script("scripts/test.sh", "--bogus")
    assert bad.returncode == 2 and "--python-only" in bad.stderr
