"""The history's part in rebuilding teams that lived while no sidecar ran: a rebuilt team
kept as ended without overwriting one it holds, and the sessions looked at remembered
across a reopen (a surrogate in a path kept exactly)."""

from __future__ import annotations

from pathlib import Path

from teaminbox.history import History


def test_a_rebuilt_team_is_ended_and_never_overwrites_a_held_one(tmp_path: Path) -> None:
    h = History(str(tmp_path / "h.db"))
    assert h.save_ended_team("claude:gone", b'{"id":"claude:gone","dir":"/nowhere"}', 10.0, 20.0)
    assert h.team_body("claude:gone") == (b'{"id":"claude:gone","dir":"/nowhere"}', 20.0)
    assert [e for _, e in h.ended_teams()] == [20.0]
    # a second rebuild (another window, a later start) changes nothing
    assert not h.save_ended_team("claude:gone", b'{"id":"claude:gone","other":1}', 1.0, 2.0)
    assert h.team_body("claude:gone") == (b'{"id":"claude:gone","dir":"/nowhere"}', 20.0)
    h.save_team("claude:live", b'{"id":"claude:live"}')
    assert not h.save_ended_team("claude:live", b"{}", 1.0, 2.0)
    assert h.team_body("claude:live") == (b'{"id":"claude:live"}', None)
    h.close()


def test_sessions_looked_at_survive_a_reopen(tmp_path: Path) -> None:
    odd = "/p/-home-\udcff/s.jsonl"  # an undecodable file name
    h = History(str(tmp_path / "h.db"))
    h.save_scan("/p/a/s1.jsonl", "[1]", "claude:session-1")
    h.save_scan(odd, "[2]", None)
    h.save_scan("/p/a/s1.jsonl", "[3]", "claude:session-1")
    h.close()
    h = History(str(tmp_path / "h.db"))
    assert h.session_scans() == {"/p/a/s1.jsonl": "[3]", odd: "[2]"}
    h.close()
