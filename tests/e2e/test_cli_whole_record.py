"""`teaminbox teams` and `teaminbox read` tell the whole record, as the server's views do: an
ended team (its folder gone, the history keeping it; one rebuilt from transcripts too)
listed and read, marked ended; a gap said in its place among a live inbox's messages.
Read only: the history file is the same bytes after, and none is made where there was none."""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from pathlib import Path

import orjson

from support.world import Teams
from teaminbox.discovery import describe, resolve_team, roster
from teaminbox.gaps import gap_message, gap_text
from teaminbox.history import History
from teaminbox.model import converter
from teaminbox.tracker import Tracker

START = time.time() - 3600


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def end_alpha(teams: Teams, db: Path) -> None:
    """The server's own steps: alpha seen live (its messages archived), then its folder
    deleted (Claude Code's exit) and seen gone."""
    history = History(str(db))
    tracker = Tracker(teams.settings, history)
    tracker.scan()
    shutil.rmtree(teams.claude_dir)
    tracker.scan()
    history.close()


def test_an_ended_team_is_listed_and_read_from_the_history_untouched(teams: Teams) -> None:
    db = teams.home / "h.db"
    end_alpha(teams, db)
    before = digest(db)

    out = teams.cli("teams", "--history", str(db))
    assert out.returncode == 0, out.stderr
    assert "claude:alpha  (4 inboxes, ended)" in out.stdout
    assert "pseudoclaude:beta  (3 inboxes" in out.stdout  # the live one as before
    listed = json.loads(teams.cli("teams", "--json", "--history", str(db)).stdout)["teams"]
    by = {t["id"]: t for t in listed}
    assert by["claude:alpha"]["ended"] is True and by["pseudoclaude:beta"]["ended"] is False

    read = teams.cli("read", "alpha", "team-lead", "--history", str(db))
    assert read.returncode == 0, read.stderr
    assert "Found the bug in auth.ts" in read.stdout and "legacy entry, no type" in read.stdout
    assert read.stdout.index("Found the bug") < read.stdout.index("legacy entry")  # oldest first
    assert "researcher -> team-lead" in read.stdout and "archived" in read.stdout
    assert "team-lead: the team ended; 2 messages in the history" in read.stdout
    got = json.loads(teams.cli("read", "alpha", "team-lead", "--json", "--history", str(db)).stdout)
    assert got["ended"] is True and [m["text"] for m in got["messages"]] == [
        "Found the bug in auth.ts",
        "legacy entry, no type",
    ]
    assert digest(db) == before  # nothing written by a read


def test_a_team_rebuilt_from_transcripts_is_listed(teams: Teams, tmp_path: Path) -> None:
    """A team the history never saw live, kept as ended the way the rebuild keeps it
    (`History.save_ended_team`, activity/unseen.py), with a recovered message."""
    db = tmp_path / "h.db"
    r = roster(resolve_team(teams.settings.roots, "alpha"), teams.settings)
    body = describe(r)
    body.id, body.name, body.dir = "claude:gone", "gone", str(tmp_path / "no-such-folder")
    history = History(str(db))
    assert history.save_ended_team(
        "claude:gone", orjson.dumps(converter.unstructure(body)), START, START + 60
    )
    gap = gap_message("claude:gone", "team-lead", "claude", START, START + 2)
    assert history.archive_missing("claude:gone", "team-lead", [gap])
    history.close()

    out = teams.cli("teams", "--history", str(db))
    assert out.returncode == 0, out.stderr
    assert "claude:gone  (4 inboxes, ended)" in out.stdout
    read = teams.cli("read", "claude:gone", "team-lead", "--history", str(db))
    assert read.returncode == 0, read.stderr
    assert gap_text(START, START + 2) in read.stdout and "(gap)" in read.stdout


def test_a_gap_is_said_in_its_place_without_archived(teams: Teams) -> None:
    db = teams.home / "h.db"
    history = History(str(db))
    # between the file's two entries (17:12:32 and 17:13:00 on 2026-02-09, UTC)
    at = 1770657160.0
    gap = gap_message("claude:alpha", "team-lead", "claude", at, at + 5)
    assert history.archive_missing("claude:alpha", "team-lead", [gap])
    history.close()
    before = digest(db)

    out = teams.cli("read", "alpha", "team-lead", "--history", str(db))
    assert out.returncode == 0, out.stderr
    text = gap_text(at, at + 5)
    first, said, second = (
        out.stdout.index("Found the bug"),
        out.stdout.index(text),
        out.stdout.index("legacy entry"),
    )
    assert first < said < second
    assert "team-lead: 2 messages, 1 unread, 1 gap (see above)" in out.stdout
    got = json.loads(teams.cli("read", "alpha", "team-lead", "--json", "--history", str(db)).stdout)
    assert [m.get("gap") is not None for m in got["messages"]] == [False, True, False]
    assert got["total"] == 2
    # --unread: a gap is nothing to read; another inbox: none of its gaps
    unread = teams.cli("read", "alpha", "team-lead", "--unread", "--history", str(db))
    assert text not in unread.stdout
    other = teams.cli("read", "alpha", "researcher", "--history", str(db))
    assert text not in other.stdout and "gap" not in other.stdout
    assert digest(db) == before


def test_no_history_none_made_and_a_bad_one_said_once(teams: Teams) -> None:
    db = teams.home / "none" / "h.db"
    out = teams.cli("read", "alpha", "team-lead", "--history", str(db))
    assert out.returncode == 0 and "Found the bug" in out.stdout and not out.stderr
    listed = teams.cli("teams", "--history", str(db))
    assert listed.returncode == 0 and "claude:alpha" in listed.stdout
    assert not db.exists() and not db.parent.exists()

    bad = teams.home / "bad.db"
    bad.write_bytes(b"not a database at all " * 100)
    before = digest(bad)
    out = teams.cli("read", "alpha", "team-lead", "--history", str(bad))
    assert out.returncode == 0 and "Found the bug" in out.stdout
    (line,) = out.stderr.splitlines()
    assert line.startswith("teaminbox: the history database") and "cannot be read" in line
    listed = teams.cli("teams", "--history", str(bad))
    assert listed.returncode == 0 and "claude:alpha" in listed.stdout
    assert len(listed.stderr.splitlines()) == 1
    gone = teams.cli("read", "nosuchteam", "x", "--history", str(bad))
    assert gone.returncode != 0 and "unknown team 'nosuchteam'" in gone.stderr
    assert digest(bad) == before
