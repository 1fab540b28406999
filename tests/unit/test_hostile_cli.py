"""The CLI's message input: an endless file, bytes that are not UTF-8, a missing file or a
folder, each one line on stderr; newlines and the size limit as documented."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from support import cli
from support.world import Teams


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_cli_file_dev_zero_is_bounded(teams: Teams) -> None:
    before = teams.cinbox("researcher").read_bytes()
    t0 = time.monotonic()
    proc = cli.run(
        *("send", "alpha", "researcher", "--file", "/dev/zero"),
        env=teams.env(),
        preexec_fn=lambda: __import__("resource").setrlimit(
            __import__("resource").RLIMIT_AS, (1 << 30, 1 << 30)
        ),
    )
    line = one_line(proc)
    assert "limit" in line and "/dev/zero" in line
    assert time.monotonic() - t0 < 60  # bounded (a loaded machine starts Python slowly)
    assert teams.cinbox("researcher").read_bytes() == before


def test_cli_file_not_utf8(teams: Teams, tmp_path: Path) -> None:
    f = tmp_path / "latin1.txt"
    f.write_bytes("caf\u00e9 au lait".encode("latin-1"))
    line = one_line(teams.cli("send", "alpha", "researcher", "--file", str(f)))
    assert line == f"teaminbox: {f} is not UTF-8 (byte 3)"


def test_cli_stdin_not_utf8(teams: Teams) -> None:
    proc = subprocess.run(
        cli.command("send", "alpha", "researcher", "-"),
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
