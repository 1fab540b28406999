"""The files each member wrote or edited, from hand-written transcripts in Claude Code
2.1.332's shape: a Write/Edit/MultiEdit/NotebookEdit call whose `tool_result` is no error."""

from __future__ import annotations

import json
import time
from pathlib import Path

from test_now_doing import call, result

from teaminbox import transcripts as tr
from teaminbox.timestamps import epoch
from teaminbox.transcripts import Session, Stats, TeamActivity

T1, T2, T3 = "2026-11-30T12:00:02.000Z", "2026-11-30T12:00:03.000Z", "2026-11-30T12:00:04.000Z"


def test_successful_file_calls_are_changes_and_failed_ones_are_not() -> None:
    s = Stats()
    s.feed(
        [
            call("w1", "Write", {"file_path": "/w/src/new.py", "content": "print(1)\n"}),
            result("w1", "File created successfully", ts=T1),
            call("e1", "Edit", {"file_path": "/w/a.py", "old_string": "x", "new_string": "y"}),
            result("e1", "String to replace not found", error=True, ts=T2),
            call("r1", "Read", {"file_path": "/w/b.py"}),
            result("r1", "contents", ts=T2),
            call(
                "e2", "Edit", {"file_path": "/w/a.py", "old_string": "a = 1", "new_string": "a = 2"}
            ),
            result("e2", ts=T3),
            call(
                "m1",
                "MultiEdit",
                {
                    "file_path": "/w/c.py",
                    "edits": [
                        {"old_string": "p", "new_string": "q"},
                        {"old_string": "r", "new_string": "s"},
                        7,
                    ],
                },
            ),
            result("m1", ts=T3),
            call("n1", "NotebookEdit", {"notebook_path": "/w/n.ipynb", "new_source": "1+1"}),
            result("n1", ts=T3),
            call("w2", "Write", {"file_path": "/w/pending.py", "content": "no result yet"}),
            call("w3", "Write", {"content": "no path"}),
            result("w3", ts=T3),
        ]
    )
    got = [(w.tool, w.path, w.before, w.after) for w in s.written]
    assert got == [
        ("Write", "/w/src/new.py", None, "print(1)\n"),
        ("Edit", "/w/a.py", "a = 1", "a = 2"),
        ("MultiEdit", "/w/c.py", "p\n\nr", "q\n\ns"),
        ("NotebookEdit", "/w/n.ipynb", None, "1+1"),
    ]
    assert s.written[0].time == epoch(T1) and s.written[0].tool_use_id == "w1"
    assert all(w.kept and not w.cut for w in s.written)


def test_only_the_newest_changes_keep_their_text() -> None:
    s = Stats()
    for i in range(tr.KEPT_CONTENT + 3):
        s.feed(
            [call(f"w{i}", "Write", {"file_path": f"/w/{i}", "content": "x" * 10}), result(f"w{i}")]
        )
    assert [w.kept for w in s.written] == [False] * 3 + [True] * tr.KEPT_CONTENT
    assert s.written[0].after is None and s.written[-1].after == "x" * 10
    big = "y" * (tr.MAX_CONTENT + 5)
    s.feed([call("big", "Write", {"file_path": "/w/big", "content": big}), result("big")])
    assert s.written[-1].cut and s.written[-1].after == big[: tr.MAX_CONTENT]


def test_a_teams_changes_newest_first_by_member_and_kept_without_text(tmp_path: Path) -> None:
    sid = "11111111-2222-4333-8444-555555555555"
    project = tmp_path / "projects" / "-home-dev-app"
    sub = project / sid / "subagents"
    sub.mkdir(parents=True)
    evil = "/w/\x1b]0;x\x07\u202eevil\n.py"
    (project / f"{sid}.jsonl").write_bytes(
        b"\n".join(
            [
                call(
                    "L1", "Edit", {"file_path": "/w/lead.py", "old_string": "o", "new_string": "n"}
                ),
                result("L1", ts=T1),
            ]
        )
        + b"\n"
    )
    (sub / "agent-ahelper-1.jsonl").write_bytes(
        b"\n".join(
            [
                call("H1", "Write", {"file_path": evil, "content": "c"}),
                result("H1", ts=T3),
                call("H2", "Write", {"file_path": "/w/h.py", "content": "h"}),
                result("H2", ts=T2),
            ]
        )
        + b"\n"
    )
    (sub / "agent-ahelper-1.meta.json").write_text(
        json.dumps({"name": "helper", "teamName": "session-1", "taskKind": "in_process_teammate"})
    )
    s = Session(
        [str(tmp_path / "projects")], sid, "/home/dev/app", "team-lead", "user", ["session-1"]
    )
    s.poll(1 << 20)
    act = s.activity(now=time.time())
    assert act is not None
    assert [(c.member, c.tool_use_id) for c in act.changes] == [
        ("helper", "H1"),
        ("helper", "H2"),
        ("team-lead", "L1"),
    ]
    first = act.changes[0]
    assert first.path == evil  # as the call named it: what opens the file
    assert first.path_text == "/w/\\e]0;x\\x07<U+202E>evil \u23ce .py"  # what a row shows
    assert act.members["helper"].changed == 2 and act.members["team-lead"].changed == 1
    assert act.written["L1"].before == "o" and act.written["H2"].after == "h"
    body = json.loads(json.dumps(act.persisted()))
    assert '"c"' not in json.dumps(body["changes"]) and len(body["changes"]) == 3
    back = TeamActivity.restored(body)
    assert back is not None and back.changes == act.changes and back.written == {}
    assert back.members["helper"].changed == 2
    damaged = dict(body, changes=[{"member": 5}])
    again = TeamActivity.restored(damaged)
    assert again is not None and again.changes == [] and again.members["helper"].changed == 0
