"""The router (server/router.py): the first answers leave before pygls is imported, pygls
serves everything after it, and what came for pygls before it loaded is handed to it in
order. Each case runs in a fresh interpreter, where nothing has imported pygls yet."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from support.world import make_team
from teaminbox.server import build
from teaminbox.server.lsp import LspServer, handle
from teaminbox.server.router import LOAD_AFTER, initialize_result

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar"

# The script's part: a Router over the real core, a writer that records each message with
# whether pygls was imported when it was written.
RUN = textwrap.dedent(
    """
    import asyncio, json, sys
    from teaminbox.server import build
    from teaminbox.server.router import Router

    out = []

    class Writer:
        def write(self, data):
            body = json.loads(data.split(b"\\r\\n\\r\\n", 1)[1])
            out.append({"msg": body, "pygls": "pygls" in sys.modules})

        def close(self):
            pass

    def answered(msg_id):
        return next((o for o in out if o["msg"].get("id") == msg_id), None)

    async def wait(msg_id):
        for _ in range(3000):
            if answered(msg_id):
                return
            await asyncio.sleep(0.01)
        raise SystemExit(f"no answer to {msg_id}")

    async def main(steps):
        router = Router(build())
        router.set_writer(Writer())
        for step in steps:
            if "wait" in step:
                await wait(step["wait"])
            elif "sleep" in step:
                await asyncio.sleep(step["sleep"])
            elif "started" in step:  # whether the core has started (its tracker is made)
                out.append({"msg": {}, "started": router.core.tracker is not None})
            else:
                router.route(step)
        await router.core.stop()
        print(json.dumps({"out": out, "loaded": router.lsp is not None}))

    asyncio.run(main(json.loads(sys.argv[1])))
    """
)


def run(steps: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(steps)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(SIDECAR), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    return result["out"], result["loaded"]


def request(msg_id: int, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params or {}}


def init(root: Path) -> dict[str, Any]:
    opts = {
        "defaultRoots": False,
        "roots": [f"claude={root}"],
        "historyPath": str(root.parent / "h.db"),
    }
    return request(
        1, "initialize", {"processId": None, "capabilities": {}, "initializationOptions": opts}
    )


def by_id(out: list[dict[str, Any]], msg_id: int) -> dict[str, Any]:
    return next(o for o in out if o["msg"].get("id") == msg_id)


def test_the_first_answers_leave_before_pygls_and_pygls_serves_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "tester"])
    out, loaded = run(
        [
            init(root),
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            request(2, "teamInbox/teams"),
            {"wait": 2},
            request(3, "no/such"),
            {"wait": 3},
            request(4, "teamInbox/teams"),
            {"wait": 4},
        ]
    )
    first, again = by_id(out, 2), by_id(out, 4)
    assert not by_id(out, 1)["pygls"] and not first["pygls"]  # answered by the core itself
    assert [t["name"] for t in first["msg"]["result"]["teams"]] == ["alpha"]
    assert loaded and again["pygls"]  # and then by pygls, with the same answer
    assert again["msg"]["result"] == first["msg"]["result"]
    assert by_id(out, 3)["msg"]["error"]["code"] == -32601  # pygls's: no such method


def test_the_core_starts_as_initialize_is_answered(tmp_path: Path) -> None:
    """Not at `initialized`: a busy extension host's round trip would come first."""
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "tester"])
    out, _ = run([init(root), {"wait": 1}, {"sleep": 2}, {"started": True}])
    assert [o["started"] for o in out if "started" in o] == [True]


def test_pygls_loads_a_while_after_the_first_answer_unasked(tmp_path: Path) -> None:
    """Not at once (a window's first start draws the answer meanwhile), but without any
    message that needs it: the follow-up requests are the core's."""
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "tester"])
    soon = LOAD_AFTER / 4
    out, loaded = run(
        [
            init(root),
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            request(2, "teamInbox/teams"),
            {"wait": 2},
            {"sleep": soon},
            request(3, "teamInbox/teams"),
            {"wait": 3},
            {"sleep": LOAD_AFTER + 3},
            request(4, "teamInbox/teams"),
            {"wait": 4},
        ]
    )
    assert not by_id(out, 2)["pygls"] and not by_id(out, 3)["pygls"]
    assert loaded and by_id(out, 4)["pygls"]


def test_what_comes_for_pygls_before_it_loads_waits_in_order(tmp_path: Path) -> None:
    root = tmp_path / "teams"
    root.mkdir()
    out, loaded = run(
        [
            request(1, "no/such"),
            request(2, "nor/this"),
            init(root) | {"id": 3},
            {"wait": 2},
            {"wait": 3},
        ]
    )
    assert loaded
    errors = [o["msg"]["id"] for o in out if "error" in o["msg"]]
    assert errors == [1, 2]  # both answered by pygls, in the order sent
    assert "capabilities" in by_id(out, 3)["msg"]["result"]


def test_a_core_error_is_the_same_error_on_either_path(tmp_path: Path) -> None:
    root = tmp_path / "teams"
    root.mkdir()
    bad = {"team": "claude:nope", "inbox": "x"}
    out, _ = run(
        [
            init(root),
            request(2, "teamInbox/messages", bad),
            {"wait": 2},
            request(3, "no/such"),  # loads pygls
            {"wait": 3},
            request(4, "teamInbox/messages", bad),
            {"wait": 4},
            request(5, "teamInbox/messages", {"team": 5}),
            {"wait": 5},
        ]
    )
    early, late = by_id(out, 2), by_id(out, 4)
    assert not early["pygls"] and late["pygls"]
    assert early["msg"]["error"] == late["msg"]["error"]
    assert early["msg"]["error"]["data"]["code"] == "unknown_team"
    assert by_id(out, 5)["msg"]["error"]["code"] == -32602  # invalid params, by pygls


def test_the_initialize_answer_is_pygls_own() -> None:
    """The router answers `initialize` as pygls does for this server (the extension's params)."""
    lsp = LspServer(build())
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(data)

        def close(self) -> None:
            pass

    lsp.protocol.set_writer(Writer())
    params = {
        "processId": 1234,
        "clientInfo": {"name": "Team Inbox"},
        "rootUri": None,
        "capabilities": {},
        "initializationOptions": {"defaultRoots": False, "roots": []},
    }
    handle(lsp, {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
    answer = json.loads(written[0].split(b"\r\n\r\n", 1)[1])
    assert answer["result"] == initialize_result()
    lsp.shutdown()


def frames(*msgs: dict[str, Any]) -> bytes:
    out = b""
    for msg in msgs:
        body = json.dumps(msg).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def serve(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """The real `teaminbox serve` over pipes, as the extension spawns it."""
    return subprocess.Popen(
        [sys.executable, "-m", "teaminbox", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def test_exit_before_pygls_has_loaded_ends_the_server_as_lsp_says(tmp_path: Path) -> None:
    """`exit` waits for pygls like any message of its own: 1 without `shutdown` first (even
    when stdin closes right after it), 0 after `shutdown` was answered; no task error."""
    root = tmp_path / "teams"
    root.mkdir()
    exit_ = {"jsonrpc": "2.0", "method": "exit"}
    env = {"PYTHONPATH": str(SIDECAR), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for shutdown_first, code in ((False, 1), (True, 0)):
        proc = serve(env)
        assert proc.stdin is not None and proc.stdout is not None
        got = b""
        try:
            msgs = [init(root), request(2, "shutdown", None)] if shutdown_first else [init(root)]
            proc.stdin.write(frames(*msgs))
            proc.stdin.flush()
            want = b'"id":2' if shutdown_first else b'"serverInfo"'
            while want not in got:  # the answer (a client sends exit after shutdown's answer)
                chunk = proc.stdout.read1(65536)
                assert chunk, "the server closed its stdout"
                got += chunk
            proc.stdin.write(frames(exit_))
            proc.stdin.close()  # at once: the exit is still served
            assert proc.wait(60) == code
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert b"Task exception" not in err and b"Traceback" not in err, err


def test_when_pygls_cannot_load_nothing_waits_for_it(tmp_path: Path) -> None:
    """A broken pygls (here one that fails to import) leaves the core serving its own
    requests; every other request gets an error at once, `shutdown` and `exit` still end the
    server as LSP says, before and after the failure alike."""
    broken = tmp_path / "broken"
    (broken / "pygls").mkdir(parents=True)
    (broken / "pygls" / "__init__.py").write_text("raise ImportError('a broken pygls')\n")
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "tester"])
    env = {
        "PYTHONPATH": f"{broken}:{SIDECAR}",
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
    }
    proc = serve(env)
    assert proc.stdin is not None and proc.stdout is not None
    got = b""

    def until(*wanted: bytes) -> None:
        nonlocal got
        deadline = time.monotonic() + 60
        while not all(w in got for w in wanted):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([proc.stdout], [], [], max(left, 0))
            assert ready, f"no answer in 60 s (held?): wanted {wanted}, got {got!r}"
            chunk = proc.stdout.read1(65536)  # type: ignore[union-attr]
            assert chunk, f"the server closed its stdout; got {got!r}"
            got += chunk

    try:
        initialized = {"jsonrpc": "2.0", "method": "initialized", "params": {}}
        # 3 comes for pygls while it loads (held), 4 after it failed
        proc.stdin.write(frames(init(root), initialized, request(2, "teamInbox/teams")))
        proc.stdin.write(frames(request(3, "no/such")))
        proc.stdin.flush()
        until(b'"id":2', b'"id":3')
        proc.stdin.write(frames(request(4, "nor/this"), request(5, "teamInbox/teams")))
        proc.stdin.flush()
        until(b'"id":4', b'"id":5')
        proc.stdin.write(frames(request(6, "shutdown", None)))
        proc.stdin.flush()
        until(b'"id":6')
        proc.stdin.write(frames({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        assert proc.wait(60) == 0  # exit after shutdown, though pygls never loaded
    finally:
        if proc.poll() is None:
            proc.kill()
    answers = {m["id"]: m for m in parse(got) if "id" in m}
    assert [t["name"] for t in answers[2]["result"]["teams"]] == ["alpha"]
    assert answers[5]["result"] == answers[2]["result"]  # the core still serves
    for held_or_late in (3, 4):  # answered, not held for ever
        error = answers[held_or_late]["error"]
        assert error["code"] == -32603 and "a broken pygls" in error["message"]
    assert answers[6]["result"] is None


def parse(stream: bytes) -> list[dict[str, Any]]:
    out = []
    while stream:
        head, _, rest = stream.partition(b"\r\n\r\n")
        size = int(head.split(b":")[1])
        out.append(json.loads(rest[:size]))
        stream = rest[size:]
    return out
