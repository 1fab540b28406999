"""The router (server/router.py): the first answers leave before pygls is imported, pygls
serves everything after it, and what came for pygls before it loaded is handed to it in
order. Each case runs in a fresh interpreter, where nothing has imported pygls yet."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from support.lsp_wire import EXIT, INITIALIZED, Messages, frame, initialize, request, serve
from support.world import make_team
from teaminbox.server import build
from teaminbox.server.lsp import LspServer, handle
from teaminbox.server.router import initialize_result

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar"

# The script's part: a Router over the real core, a writer that records each message with
# whether pygls was imported when it was written.
RUN = textwrap.dedent(
    """
    import asyncio, json, os, sys
    from teaminbox.server import build
    from teaminbox.server import router as router_module
    from teaminbox.server.router import Router

    if os.environ.get("TI_LOAD_AFTER"):  # a case that needs a longer wait than a busy machine's
        router_module.LOAD_AFTER = float(os.environ["TI_LOAD_AFTER"])

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
        deadline = asyncio.get_running_loop().time() + 60
        while asyncio.get_running_loop().time() < deadline:
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
            elif "until_loaded" in step:  # pygls handed over, within a deadline
                deadline = asyncio.get_running_loop().time() + step["until_loaded"]
                while router.lsp is None and asyncio.get_running_loop().time() < deadline:
                    await asyncio.sleep(0.01)
            elif "started" in step:  # whether the core starts (its tracker made) in 60 s
                deadline = asyncio.get_running_loop().time() + 60
                while router.core.tracker is None and asyncio.get_running_loop().time() < deadline:
                    await asyncio.sleep(0.01)
                out.append({"msg": {}, "started": router.core.tracker is not None})
            else:
                router.route(step)
        await router.core.stop()
        print(json.dumps({"out": out, "loaded": router.lsp is not None}))

    asyncio.run(main(json.loads(sys.argv[1])))
    """
)


def run(
    steps: list[dict[str, Any]], load_after: float | None = None
) -> tuple[list[dict[str, Any]], bool]:
    env = {"PYTHONPATH": str(SIDECAR), "PATH": "/usr/bin:/bin"}
    if load_after is not None:
        env["TI_LOAD_AFTER"] = str(load_after)
    done = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(steps)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    return result["out"], result["loaded"]


def init(root: Path) -> dict[str, Any]:
    opts = {
        "defaultRoots": False,
        "roots": [f"claude={root}"],
        "historyPath": str(root.parent / "h.db"),
    }
    return initialize(1, opts, processId=None)


def by_id(out: list[dict[str, Any]], msg_id: int) -> dict[str, Any]:
    return next(o for o in out if o["msg"].get("id") == msg_id)


def test_the_first_answers_leave_before_pygls_and_pygls_serves_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "tester"])
    out, loaded = run(
        [
            init(root),
            INITIALIZED,
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
    out, _ = run([init(root), {"wait": 1}, {"started": True}])  # no `initialized` comes
    assert [o["started"] for o in out if "started" in o] == [True]


def test_pygls_loads_a_while_after_the_first_answer_unasked(tmp_path: Path) -> None:
    """Not at once (a window's first start draws the answer meanwhile), but without any
    message that needs it: the follow-up requests are the core's."""
    root = tmp_path / "teams"
    make_team(root, "alpha", ["team-lead", "tester"])
    # A longer wait than the server's own, so that a busy machine's pause between two
    # requests never reaches it; then pygls comes by itself, within a deadline.
    load_after = 8.0
    out, loaded = run(
        [
            init(root),
            INITIALIZED,
            request(2, "teamInbox/teams"),
            {"wait": 2},
            {"sleep": 0.25},
            request(3, "teamInbox/teams"),
            {"wait": 3},
            {"until_loaded": load_after + 60},
            request(4, "teamInbox/teams"),
            {"wait": 4},
        ],
        load_after=load_after,
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


def test_exit_before_pygls_has_loaded_ends_the_server_as_lsp_says(tmp_path: Path) -> None:
    """`exit` waits for pygls like any message of its own: 1 without `shutdown` first (even
    when stdin closes right after it), 0 after `shutdown` was answered; no task error."""
    root = tmp_path / "teams"
    root.mkdir()
    env = {"PYTHONPATH": str(SIDECAR), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for shutdown_first, code in ((False, 1), (True, 0)):
        proc = serve(env)
        assert proc.stdin is not None and proc.stdout is not None
        try:
            msgs = [init(root), request(2, "shutdown", None)] if shutdown_first else [init(root)]
            proc.stdin.write(frame(*msgs))
            proc.stdin.flush()
            # the answer (a client sends exit after shutdown's answer)
            answer = Messages(proc.stdout).response(2 if shutdown_first else 1, timeout=60)
            assert "result" in answer, answer
            proc.stdin.write(frame(EXIT))
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
    msgs = Messages(proc.stdout)
    answers: dict[int, dict[str, Any]] = {}
    try:
        # 3 comes for pygls while it loads (held), 4 after it failed
        proc.stdin.write(frame(init(root), INITIALIZED, request(2, "teamInbox/teams")))
        proc.stdin.write(frame(request(3, "no/such")))
        proc.stdin.flush()
        answers |= msgs.responses(2, 3, timeout=60)
        proc.stdin.write(frame(request(4, "nor/this"), request(5, "teamInbox/teams")))
        proc.stdin.flush()
        answers |= msgs.responses(4, 5, timeout=60)
        proc.stdin.write(frame(request(6, "shutdown", None)))
        proc.stdin.flush()
        answers |= msgs.responses(6, timeout=60)
        proc.stdin.write(frame(EXIT))
        proc.stdin.flush()
        assert proc.wait(60) == 0  # exit after shutdown, though pygls never loaded
    finally:
        if proc.poll() is None:
            proc.kill()
    assert [t["name"] for t in answers[2]["result"]["teams"]] == ["alpha"]
    assert answers[5]["result"] == answers[2]["result"]  # the core still serves
    for held_or_late in (3, 4):  # answered, not held for ever
        error = answers[held_or_late]["error"]
        assert error["code"] == -32603 and "a broken pygls" in error["message"]
    assert answers[6]["result"] is None
