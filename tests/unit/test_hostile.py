"""Hostile files, bytes and paths: nothing may hang, crash or blind the sidecar.

Each test names the item of the issue it covers. Tests that would hang on a
regression run the risky call in a thread or a subprocess with a deadline.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.world import Teams
from teaminbox import fileio, store
from teaminbox.errors import CorruptInbox, LockTimeout, NotRegularFile
from teaminbox.formats.claude import CLAUDE, ensure_claude_inbox
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.history import History
from teaminbox.jsonio import dumps_indented, dumps_line, js_order, loads
from teaminbox.locks import DirLock, ExclFileLock, track_temp, untrack_temp

GOOD = {"from": "a", "text": "hello", "timestamp": "2026-01-01T00:00:00Z"}


def dump(value: Any) -> bytes:
    return json.dumps(value, indent=2, ensure_ascii=False).encode()


def within(seconds: float, fn: Callable[[], Any], unblock: Callable[[], None]) -> Any:
    """fn() in a thread; fail (after calling unblock) if it has not returned in time."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn()
        except BaseException as err:  # noqa: B036 - reported below
            box["error"] = err

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        unblock()
        t.join(5)
        pytest.fail(f"blocked for over {seconds} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def fifo_unblocker(path: Path) -> Callable[[], None]:
    def unblock() -> None:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass

    return unblock


# ------------------------------------------------------------ item 2, 13: non-regular files


@pytest.mark.parametrize("fmt", [CLAUDE, PSEUDOCLAUDE])
def test_fifo_inbox_is_refused_without_blocking(tmp_path: Path, fmt: Any) -> None:
    p = tmp_path / "x.json"
    os.mkfifo(p)
    for call in (
        lambda: store.read(fmt, str(p)),
        lambda: store.append(fmt, str(p), [GOOD], timeout=1),
        lambda: fileio.read_bytes(str(p)),
    ):
        with pytest.raises(NotRegularFile) as info:
            within(2, call, fifo_unblocker(p))
        assert info.value.code == "not_regular_file"
        assert str(p) in info.value.message and "FIFO" in info.value.message
    assert stat.S_ISFIFO(os.lstat(p).st_mode)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["x.json"]


def test_fifo_config_is_refused_by_read_regular(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    os.mkfifo(p)
    with pytest.raises(NotRegularFile) as info:
        within(2, lambda: fileio.read_regular(str(p)), fifo_unblocker(p))
    assert str(p) in info.value.message and "FIFO" in info.value.message


def test_directory_inbox_names_the_path(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.mkdir()
    with pytest.raises(NotRegularFile) as info:
        store.read(CLAUDE, str(p))
    assert info.value.message == f"{p} is a directory, not a regular file"
    assert info.value.path == str(p)
    with pytest.raises(NotRegularFile):
        store.append(CLAUDE, str(p), [GOOD], timeout=1)


def test_device_and_socket_are_refused(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile) as info:
        fileio.read_regular("/dev/zero")
    assert "character device" in info.value.message
    sock_path = tmp_path / "s.json"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(sock_path))
        with pytest.raises(NotRegularFile) as info:
            fileio.read_regular(str(sock_path))
        assert "socket" in info.value.message and str(sock_path) in info.value.message
    finally:
        s.close()


def test_read_regular_limit_and_missing(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    assert fileio.read_regular(str(p)) is None
    p.write_bytes(b"x" * 100)
    assert fileio.read_regular(str(p), limit=100) == b"x" * 100
    with pytest.raises(store.TooLarge):
        fileio.read_regular(str(p), limit=99)


STRINGIFY = (
    "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>"
    "process.stdout.write(JSON.stringify(JSON.parse(s),null,2)))"
)

COMPACT = (
    "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>"
    "process.stdout.write(JSON.stringify(JSON.parse(s))))"
)


def node(script: str, stdin: bytes = b"") -> bytes:
    exe = shutil.which("node")
    if exe is None:
        pytest.fail("node is not on PATH: these checks compare with Node's JSON.stringify")
    return subprocess.run(
        [exe, "-e", script], input=stdin, capture_output=True, check=True, timeout=60
    ).stdout


# ------------------------------------------------------------ item 14: deep nesting


def nested(depth: int, leaf: str = "") -> bytes:
    return b"[" * depth + json.dumps(leaf).encode() + b"]" * depth


@pytest.mark.parametrize("depth", [1025, 5000, 200_000])
def test_too_deep_is_corrupt_not_recursion_error(depth: int) -> None:
    with pytest.raises(CorruptInbox) as info:
        loads(nested(depth), "/x.json")
    assert "nested deeper than 1024" in info.value.message
    assert "/x.json" in info.value.message and "\n" not in info.value.message


def test_too_deep_entry_in_inbox_is_corrupt(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    data = b"[" + json.dumps(GOOD).encode()[:-1] + b', "deep": ' + nested(1100) + b"}]"
    p.write_bytes(data)
    with pytest.raises(CorruptInbox):
        store.read(CLAUDE, str(p))
    with pytest.raises(CorruptInbox):
        store.append(CLAUDE, str(p), [GOOD])
    assert p.read_bytes() == data
    kept, dropped, backup = store.salvage(CLAUDE, str(p))  # no RecursionError either
    assert backup is not None and Path(backup).read_bytes() == data


def test_deep_but_allowed_with_lone_surrogate_parses() -> None:
    """The stdlib fallback (lone surrogates) recursed: 1,000 deep raised RecursionError."""
    value = loads(nested(1024, "\ud83d"), "/x.json")
    for _ in range(1024):
        value = value[0]
    assert value == "\ud83d"


@pytest.mark.parametrize("depth", [300, 1024, 20_000])
def test_serialize_any_depth(depth: int) -> None:
    value: Any = "\ud83d"
    opens, closes = [], []
    for i in range(depth):  # built inside out; the text is laid out outside in
        value = [value] if i % 2 else {"k": value}
    for i in range(depth):
        ind = "  " * i
        if (depth - 1 - i) % 2:
            opens.append("[\n" + ind + "  ")
            closes.append("\n" + ind + "]")
        else:
            opens.append("{\n" + ind + '  "k": ')
            closes.append("\n" + ind + "}")
    expected = "".join(opens) + '"\\ud83d"' + "".join(reversed(closes))
    assert dumps_indented(value) == expected.encode()
    assert js_order(value) is value  # nothing to change, at any depth


def test_one_line_is_json_stringify_at_any_depth() -> None:
    """A line-delimited message (MCP's stdio) with lone surrogates, nested past orjson's 255:
    one line, byte for byte what JSON.stringify writes."""
    value: Any = ["half \ud83d", "\udc00\ud83d", {"a": 1.5, "b": None, "c": [True, {}, []]}]
    for i in range(1000):
        value = [value, "x"] if i % 2 else {"k": value, "e": "\ud83d\ude00"}
    ours = dumps_line(value)
    assert b"\n" not in ours
    assert ours == node(COMPACT, ours)
    assert json.loads(dumps_line({"big": 2**70, "s": "\ud83d"})) == {"big": 2**70, "s": "\ud83d"}


def test_deep_layout_is_json_stringify() -> None:
    """Index-like keys first and integral floats, 1,000 deep (past the recursion limit)."""
    value: Any = "x"
    for i in range(1000):
        value = [value, float(i)] if i % 2 else {"b": value, "1": i, "0": 2.5}
    ours = dumps_indented(value)
    assert ours == node(STRINGIFY, ours)
    leaf = loads(ours, "/x.json")
    for i in reversed(range(1000)):
        if i % 2:
            assert len(leaf) == 2 and leaf[1] == i and type(leaf[1]) is int
            leaf = leaf[0]
        else:
            assert list(leaf) == ["0", "1", "b"]
            leaf = leaf["b"]
    assert leaf == "x"


# ------------------------------------------------------------ item 3: lone surrogates


SURROGATE_CASES = [
    "\ud83d",
    "\ude00",
    "a\ud83db",
    "\ude00\ud83d",
    "é\u2028\x7f\x01 \ud83d\ude00",  # a pair spelled as two code points is one character in JS
    "😀 emoji \ud800",
]


def test_lone_surrogates_written_as_json_stringify_does() -> None:
    doc = [{"from": "a", "text": s, "timestamp": "t", "é": s} for s in SURROGATE_CASES]
    doc.append({"from": "b", "text": "😀", "timestamp": "t", "n": [1.5, 0.000001, 1e-7, 2**64]})
    # Node reads the doc from ASCII JSON (escapes survive) and prints it with stringify.
    expected = node(STRINGIFY, json.dumps(doc).encode())
    assert b"\\ud83d" in expected and "é".encode() in expected
    assert dumps_indented(doc) == expected.replace(b"18446744073709552000", b"18446744073709551616")


def test_node_writes_lone_surrogate_as_lowercase_escape() -> None:
    out = node("process.stdout.write(JSON.stringify(['😀'.slice(0,1)]))")
    assert out == b'["\\ud83d"]'
    assert dumps_indented(["\ud83d"]) == b'[\n  "\\ud83d"\n]'


@pytest.mark.parametrize("fmt", [CLAUDE, PSEUDOCLAUDE])
def test_file_with_lone_surrogate_round_trips_on_append(tmp_path: Path, fmt: Any) -> None:
    p = tmp_path / "x.json"
    entry = {"from": "a", "text": "half \ud83d of an emoji, é and 中文", "timestamp": "t"}
    doc: Any = [entry] if fmt is CLAUDE else {"messages": [entry], "extra": "ü"}
    before = node(STRINGIFY, json.dumps(doc).encode())
    p.write_bytes(before)
    new = {"from": "b", "text": "second", "timestamp": "t2"}
    store.append(fmt, str(p), [new])
    after = p.read_bytes()
    if fmt is CLAUDE:
        assert after.startswith(before[:-2])
    else:
        head = before[: before.index(b"\n  ],")]
        assert after.startswith(head)
    full = json.loads(after)
    assert (full if fmt is CLAUDE else full["messages"])[-1] == new
    assert store.read(fmt, str(p)).entries[0]["text"] == entry["text"]
    store.check_size(entry["text"], "\udfff")


def test_history_keeps_lone_surrogates_and_deep_entries(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    deep: Any = "leaf"
    for _ in range(600):
        deep = [deep]
    entry = {"from": "a", "text": "x \ud83d y", "timestamp": "t", "msg_id": "m1", "deep": deep}
    msg = CLAUDE.message(entry, 0, "claude:t", "user")
    h.record("claude:t", "user", [msg], [])
    h.record("claude:t", "user", [], ["m1"])
    [old] = h.archived("claude:t", "user")
    assert old.text == "x \ud83d y" and old.raw["deep"] == deep
    assert [m.id for m in h.search("y")] == ["m1"]


# ------------------------------------------------------------ item 5: lock spin

SPIN = """
import os, sys, time
from teaminbox.locks import DirLock, ExclFileLock
from teaminbox.errors import LockTimeout
cls = DirLock if sys.argv[2] == "dir" else ExclFileLock
t0, c0 = time.monotonic(), time.process_time()
try:
    cls(sys.argv[1], timeout=0.5).acquire()
    print("ACQUIRED")
except LockTimeout as err:
    took, cpu = time.monotonic() - t0, time.process_time() - c0
    print("TIMEOUT", round(took, 3), round(cpu, 3), err.message)
"""


@pytest.mark.parametrize("kind", ["dir", "file"])
@pytest.mark.parametrize("target", ["dangling", "old_dir", "old_file"])
def test_symlink_at_lock_path_times_out_quietly(tmp_path: Path, kind: str, target: str) -> None:
    inbox = tmp_path / "x.json"
    lock = Path(str(inbox) + ".lock")
    dest = tmp_path / "elsewhere"
    if target == "old_dir":
        dest.mkdir()
    elif target == "old_file":
        dest.write_text("keep me")
    if target != "dangling":
        os.utime(dest, (time.time() - 60, time.time() - 60))
    os.symlink(dest, lock)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", SPIN, str(inbox), kind],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("acquire spun past its 0.5 s timeout")
    assert proc.returncode == 0, proc.stderr
    word, elapsed, cpu, *message = proc.stdout.split(" ")
    assert word == "TIMEOUT"
    assert 0.5 <= float(elapsed) < 1.0
    assert float(cpu) < 0.15, f"busy loop: {cpu} s of CPU in {elapsed} s"
    assert "symbolic link" in " ".join(message)
    assert os.path.islink(lock)  # never removed: nobody knows whose it is
    assert dest.exists() == (target != "dangling")


@pytest.mark.parametrize("cls", [DirLock, ExclFileLock])
def test_vanishing_lock_never_spins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cls: type[DirLock]
) -> None:
    """mkdir says EEXIST, lstat says ENOENT, forever (a racing peer, or a broken FS)."""
    inbox = str(tmp_path / "x.json")

    def exists(self: object) -> None:
        raise FileExistsError(17, "File exists")

    monkeypatch.setattr(cls, "_create", exists)
    t0, c0 = time.monotonic(), time.process_time()
    with pytest.raises(LockTimeout):
        within(3, lambda: cls(inbox, timeout=0.5).acquire(), lambda: None)
    assert time.monotonic() - t0 < 1.0
    assert time.process_time() - c0 < 0.3


# ------------------------------------------------------------ item 11: salvage and symlinks


def test_salvage_refuses_symlinked_inbox(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_bytes(b'[{"from": "a", "te')
    secret.chmod(0o600)
    p = tmp_path / "inboxes" / "x.json"
    p.parent.mkdir()
    p.symlink_to(secret)
    with pytest.raises(NotRegularFile) as info:
        store.salvage(CLAUDE, str(p))
    assert "symbolic link" in info.value.message and str(p) in info.value.message
    assert sorted(x.name for x in p.parent.iterdir()) == ["x.json"]
    assert secret.read_bytes() == b'[{"from": "a", "te' and os.path.islink(p)


@pytest.mark.parametrize("mode", [0o600, 0o640])
def test_salvage_keeps_the_mode(tmp_path: Path, mode: int) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(b'[\n  {"from": "a", "text": "t", "timestamp": "t"},\n  {"from": "b", "te')
    p.chmod(mode)
    kept, dropped, backup = store.salvage(CLAUDE, str(p))
    assert kept == 1 and backup is not None
    assert stat.S_IMODE(os.stat(backup).st_mode) == mode
    assert stat.S_IMODE(os.stat(p).st_mode) == mode


# ------------------------------------------------------------ file modes


@pytest.fixture
def umask022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize("fmt", [CLAUDE, PSEUDOCLAUDE])
@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664])
def test_rewrites_keep_the_inbox_mode(tmp_path: Path, fmt: Any, mode: int, umask022: None) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(dump([GOOD]) if fmt is CLAUDE else dump({"messages": [GOOD]}))
    p.chmod(mode)
    store.append(fmt, str(p), [GOOD])
    assert stat.S_IMODE(os.stat(p).st_mode) == mode
    store.rewrite(fmt, str(p), lambda s: s.entries.append(GOOD) or 1)
    assert stat.S_IMODE(os.stat(p).st_mode) == mode


def test_new_inbox_modes_follow_each_peer(tmp_path: Path) -> None:
    old = os.umask(0o002)
    try:
        c = tmp_path / "c.json"
        ensure_claude_inbox(str(c))  # Node's writeFile: 0666 & ~umask
        assert stat.S_IMODE(os.stat(c).st_mode) == 0o664
        c2 = tmp_path / "c2.json"
        store.append(CLAUDE, str(c2), [GOOD])
        assert stat.S_IMODE(os.stat(c2).st_mode) == 0o664
        pc = tmp_path / "p.json"
        store.append(PSEUDOCLAUDE, str(pc), [GOOD])  # Go's os.CreateTemp: 0600
        assert stat.S_IMODE(os.stat(pc).st_mode) == 0o600
        explicit = tmp_path / "e.json"
        store.append(PSEUDOCLAUDE, str(explicit), [GOOD], mode=0o640)
        assert stat.S_IMODE(os.stat(explicit).st_mode) == 0o640
    finally:
        os.umask(old)


# ------------------------------------------------------------ item 12, 1: the history file


def test_history_is_private(tmp_path: Path, umask022: None) -> None:
    path = tmp_path / "data" / "teaminbox" / "history.db"
    h = History(str(path))
    h.record("claude:t", "user", [CLAUDE.message({**GOOD, "msg_id": "m"}, 0, "claude:t", "u")], [])
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    for suffix in ("", "-wal", "-shm"):
        f = Path(str(path) + suffix)
        assert f.exists() and stat.S_IMODE(f.stat().st_mode) == 0o600, suffix
    h.close()
    for f in path.parent.iterdir():
        f.chmod(0o644)
    History(str(path)).close()
    for f in path.parent.iterdir():
        if f.name.startswith("history.db"):
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f.name


def test_corrupt_history_is_moved_aside(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In its own data folder; elsewhere (historyPath) such a file is left alone:
    test_history_path.py."""
    from teaminbox.history import store

    path = tmp_path / "history.db"
    monkeypatch.setattr(store, "default_path", lambda: str(path))
    garbage = os.urandom(8192)
    path.write_bytes(garbage)
    with caplog.at_level(logging.WARNING):
        h = History()
    h.record("claude:t", "user", [CLAUDE.message({**GOOD, "msg_id": "m"}, 0, "claude:t", "u")], [])
    assert h.known_ids("claude:t", "user") == {"m"}
    [aside] = [x for x in tmp_path.iterdir() if x.name.startswith("history.db.corrupt-")]
    assert aside.read_bytes() == garbage
    assert any("corrupt" in r.getMessage() and str(path) in r.getMessage() for r in caplog.records)


def test_malformed_history_page_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "history.db"
    h = History(str(path))
    many = [
        CLAUDE.message({**GOOD, "text": "x" * 500, "msg_id": f"m{i}"}, i, "t", "u")
        for i in range(300)
    ]
    h.record("claude:t", "user", many, [])
    h.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    h.close()
    data = bytearray(path.read_bytes())
    data[4096 * 3 : 4096 * 6] = b"\xff" * (4096 * 3)  # trash some b-tree pages
    path.write_bytes(bytes(data))
    h2 = History(str(path))
    assert h2.known_ids("claude:t", "user") == set()
    assert [x for x in tmp_path.iterdir() if ".corrupt-" in x.name]


# ------------------------------------------------------------ item 16: CLI message input


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_cli_file_dev_zero_is_bounded(teams: Teams) -> None:
    before = teams.cinbox("researcher").read_bytes()
    t0 = time.monotonic()
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "teaminbox"),
            "send",
            "alpha",
            "researcher",
            "--file",
            "/dev/zero",
        ],
        capture_output=True,
        text=True,
        env=teams.env(),
        timeout=60,
        preexec_fn=lambda: __import__("resource").setrlimit(
            __import__("resource").RLIMIT_AS, (1 << 30, 1 << 30)
        ),
    )
    line = one_line(proc)
    assert "limit" in line and "/dev/zero" in line
    assert time.monotonic() - t0 < 10
    assert teams.cinbox("researcher").read_bytes() == before


def test_cli_file_not_utf8(teams: Teams, tmp_path: Path) -> None:
    f = tmp_path / "latin1.txt"
    f.write_bytes("caf\u00e9 au lait".encode("latin-1"))
    line = one_line(teams.cli("send", "alpha", "researcher", "--file", str(f)))
    assert line == f"teaminbox: {f} is not UTF-8 (byte 3)"


def test_cli_stdin_not_utf8(teams: Teams) -> None:
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "teaminbox"), "send", "alpha", "researcher", "-"],
        input=b"ok \xff\xfe",
        capture_output=True,
        env=teams.env(),
        timeout=60,
    )
    assert proc.returncode == 1
    assert proc.stderr.decode().strip() == "teaminbox: stdin is not UTF-8 (byte 3)"


def test_cli_file_missing_or_directory(teams: Teams, tmp_path: Path) -> None:
    line = one_line(teams.cli("send", "alpha", "researcher", "--file", "/nonexistent"))
    assert line == "teaminbox: cannot read /nonexistent: No such file or directory"
    line = one_line(teams.cli("send", "alpha", "researcher", "--file", str(tmp_path)))
    assert line == f"teaminbox: cannot read {tmp_path}: Is a directory"


def test_cli_file_newlines_and_limit(teams: Teams, tmp_path: Path) -> None:
    f = tmp_path / "m.txt"
    f.write_bytes(b"a\r\nb\rc\n")
    proc = teams.cli("send", "alpha", "researcher", "--file", str(f))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(teams.cinbox("researcher").read_bytes())[-1]["text"] == "a\nb\nc\n"
    f.write_bytes(b"x" * (1024 * 1024 + 1))
    assert "limit" in one_line(teams.cli("send", "alpha", "researcher", "--file", str(f)))


# ------------------------------------------------------------ item 17: dead temp files


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def backdate(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_dead_temp_files_are_removed_on_next_write(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(dump([GOOD]))
    gone = dead_pid()
    dead = [tmp_path / f".x.json.{gone}.{i:08x}{fileio.TEMP_SUFFIX}" for i in range(10)]
    for d in dead:
        d.write_bytes(b"x" * 100_000)
        backdate(d, 120)
    young = tmp_path / f".x.json.{gone}.deadbeef{fileio.TEMP_SUFFIX}"
    young.write_bytes(b"y")  # a dead writer, but just now: left for a later write
    mine = tmp_path / f".x.json.{os.getpid()}.0badf00d{fileio.TEMP_SUFFIX}"
    mine.write_bytes(b"z")  # this process is writing it
    backdate(mine, 120)
    other = tmp_path / f".y.json.{gone}.00000001{fileio.TEMP_SUFFIX}"
    other.write_bytes(b"o")  # another inbox's: reported, left to that inbox's next write
    backdate(other, 120)
    track_temp(str(mine))
    try:
        listed = store.dead_temp_files(str(tmp_path))
        assert listed == sorted(str(d) for d in [*dead, other])
        store.append(CLAUDE, str(p), [GOOD])
        left = sorted(x.name for x in tmp_path.iterdir())
        assert left == sorted(["x.json", young.name, mine.name, other.name])
    finally:
        untrack_temp(str(mine))
    assert store.dead_temp_files(str(tmp_path)) == sorted([str(mine), str(other)])


def test_temp_of_a_live_writer_is_kept(tmp_path: Path) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.2)
        t = tmp_path / f".x.json.{sleeper.pid}.00000003{fileio.TEMP_SUFFIX}"
        t.write_bytes(b"z")
        assert store.dead_temp_files(str(tmp_path), min_age=0) == []
    finally:
        sleeper.kill()
        sleeper.wait()
    assert store.dead_temp_files(str(tmp_path), min_age=0) == [str(t)]


def test_dead_temp_of_a_reused_pid(tmp_path: Path) -> None:
    """A pid alive again since the file was written belongs to another process now."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        time.sleep(0.2)
        t = tmp_path / f".x.json.{sleeper.pid}.00000002{fileio.TEMP_SUFFIX}"
        t.write_bytes(b"z")
        backdate(t, 3600)  # written an hour before that process started
        assert store.dead_temp_files(str(tmp_path)) == [str(t)]
    finally:
        sleeper.kill()
        sleeper.wait()


def test_killed_sends_leave_no_temp_copies_behind(teams: Teams) -> None:
    """Writers killed while holding their temp file; the next send cleans up."""
    inbox = teams.cinbox("researcher")
    writer = Path(__file__).resolve().parent.parent / "interop" / "py_writer.py"
    for k in range(3):
        proc = subprocess.Popen(
            [
                sys.executable,
                str(writer),
                str(teams.home),
                "alpha",
                "researcher",
                "-1",
                f"k{k}",
                "--slow-commit",
                "5",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(
            x.name.endswith(fileio.TEMP_SUFFIX) and f".{proc.pid}." in x.name
            for x in inbox.parent.iterdir()
        ):
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    temps = [x for x in inbox.parent.iterdir() if x.name.endswith(fileio.TEMP_SUFFIX)]
    assert len(temps) == 3
    for t in temps:
        backdate(t, 120)
    lock = Path(str(inbox) + ".lock")
    if lock.exists():
        backdate(lock, 60)
    store.append(CLAUDE, str(inbox), [GOOD], timeout=5)
    assert not [x for x in inbox.parent.iterdir() if x.name.endswith(fileio.TEMP_SUFFIX)]


def test_history_ids_and_names_with_lone_surrogates(tmp_path: Path) -> None:
    """Undecodable file names and hostile msg_ids reach the archive as lone surrogates."""
    h = History(str(tmp_path / "h.db"))
    team, inbox = "claude:t\udcff", "us\udce9r"
    entry = {"from": "a\ud800", "text": "t", "timestamp": "t", "msg_id": "id\udcfe"}
    msg = CLAUDE.message(entry, 0, team, inbox)
    h.record(team, inbox, [msg], [])
    assert h.known_inbox(team, inbox) and h.known_ids(team, inbox) == {"id\udcfe"}
    assert h.mark_seen(team, inbox, ["id\udcfe"]) == 1
    assert h.seen_ids(team, inbox) == {"id\udcfe"}
    h.record(team, inbox, [], ["id\udcfe"])
    [old] = h.archived(team, inbox)
    assert old.from_ == "a\ud800" and old.id == "id\udcfe"


def test_history_keeps_an_entry_as_deep_as_an_inbox_may_be(tmp_path: Path) -> None:
    """An entry 1,022 deep is a 1,024-deep inbox; wrapped in the archive's record it is
    deeper than orjson reads: it must still come back."""
    h = History(str(tmp_path / "h.db"))
    deep: Any = "leaf"
    for _ in range(1021):
        deep = [deep]
    data = b"[" + json.dumps({**GOOD, "msg_id": "m1"}).encode()[:-1] + b', "deep": '
    data += b"[" * 1021 + b'"leaf"' + b"]" * 1021 + b"}]"
    [entry] = loads(data, "/x.json")  # as deep as an inbox may be
    h.record("claude:t", "user", [CLAUDE.message(entry, 0, "claude:t", "user")], ["m1"])
    [old] = h.archived("claude:t", "user")
    value = old.raw["deep"]
    for _ in range(1021):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == "leaf"


def test_symlinked_inbox_is_read_but_never_written(tmp_path: Path) -> None:
    """Reading follows the link, as the peers do; a write refuses it (no link inside a
    team is written through or replaced: tests/unit/test_symlinks.py) and changes
    nothing, the link and its target included."""
    target = tmp_path / "elsewhere.json"
    target.write_bytes(dump([GOOD]))
    target.chmod(0o600)
    p = tmp_path / "x.json"
    p.symlink_to(target)
    assert store.read(CLAUDE, str(p)).entries == [GOOD]
    with pytest.raises(NotRegularFile) as refused:
        store.append(CLAUDE, str(p), [GOOD])
    assert refused.value.code == "symlink_in_team" and str(p) in refused.value.message
    assert p.is_symlink() and json.loads(target.read_bytes()) == [GOOD]
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(x.name for x in tmp_path.iterdir()) == ["elsewhere.json", "x.json"]
    dangling = tmp_path / "d.json"
    dangling.symlink_to(tmp_path / "missing")
    with pytest.raises(NotRegularFile) as info:
        store.read(CLAUDE, str(dangling))
    assert "symbolic link to nothing" in info.value.message


def test_fifo_config_and_inbox_do_not_hang_the_cli(teams: Teams) -> None:
    cfg = teams.claude_dir / "config.json"
    cfg.unlink()
    os.mkfifo(cfg)
    teams.cinbox("researcher").unlink()
    os.mkfifo(teams.cinbox("researcher"))
    try:
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "teaminbox"), "teams", "--json"],
            capture_output=True,
            text=True,
            env=teams.env(),
            timeout=20,
        )
    except subprocess.TimeoutExpired:
        for fifo in (cfg, teams.cinbox("researcher")):
            fifo_unblocker(fifo)()
        pytest.fail("a FIFO blocked the CLI")
    assert proc.returncode == 0, proc.stderr
    assert f"{cfg} is a FIFO" in proc.stdout
    assert proc.stdout.count("FIFO") >= 1
