"""One scripted Claude Code team session per version, shared by every test here.

`cc` (session-scoped, parametrized over install.VERSIONS) installs the CLI on first
use, starts the real `teaminbox serve` on the scratch HOME, plays scenario.run under a
pty against the fake API, snapshots the server's history before /exit and after it,
and hands the tests the recording. It never raises: a failed step becomes
`CcRun.require()`'s failure, with the pty output, the fake API's request log and the
file timeline in the message.

Set TEAMINBOX_RECORD_FIXTURES=1 to rewrite recorded/<version>/ from these sessions.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from . import scenario
from .api_script import Request
from .errors import HarnessError
from .harness import Session
from .home import project_dir_name
from .install import VERSIONS
from .recorder import Entry, Recorder
from .sidecar_client import ServerView, Sidecar, after_exit, snapshot


@dataclass
class CcRun:
    """A finished session of one Claude Code version, for the tests to look at."""

    version: str
    session: Session
    outcome: scenario.Outcome
    server: ServerView
    wall: float
    inboxes_seen: list[str] = field(default_factory=list)

    # -- failing with the evidence

    def require(self) -> None:
        if self.outcome.error or not self.outcome.team:
            raise HarnessError(
                f"Claude Code {self.version}: the scripted session did not complete:\n"
                f"{self.outcome.error or 'no team folder'}"
            )

    def explain(self) -> str:
        return self.session.explain()

    def require_server(self) -> None:
        self.require()
        if self.server.error:
            raise AssertionError(
                f"teaminbox serve (Claude Code {self.version}): {self.server.error}"
            )

    # -- the recording

    @property
    def rec(self) -> Recorder:
        return self.session.recorder

    @property
    def team(self) -> str:
        return self.outcome.team

    @property
    def team_dir(self) -> str:
        return f"teams/{self.team}"

    @property
    def home(self) -> Path:
        return self.session.home

    def config_versions(self) -> list[dict[str, Any]]:
        return [doc for _, doc in self.rec.json_versions(f"{self.team_dir}/config.json")]

    def config(self) -> dict[str, Any]:
        """The last config.json with the most members (the whole team, settled)."""
        docs = self.config_versions()
        assert docs, f"no parseable config.json was recorded\n{self.explain()}"
        most = max(len(d.get("members", [])) for d in docs)
        return [d for d in docs if len(d.get("members", [])) == most][-1]

    def entries(self) -> list[Entry]:
        return self.rec.entries(self.team)

    def frames(self, kind: str, inbox: str | None = None) -> list[Entry]:
        return [
            e
            for e in self.entries()
            if (e.frame or {}).get("type") == kind and (inbox is None or e.inbox == inbox)
        ]

    def entry_with(self, text: str, inbox: str | None = None) -> Entry:
        hits = [
            e
            for e in self.entries()
            if text in str(e.value.get("text")) and (inbox is None or e.inbox == inbox)
        ]
        assert hits, (
            f"no inbox entry with {text!r} (inbox {inbox}) was ever recorded;"
            f" entries: {[(e.inbox, e.value.get('text')) for e in self.entries()]}"
            f"\n{self.explain()}"
        )
        return hits[0]

    def requests(self, who: str | None = None) -> list[Request]:
        return [r for r in self.session.api.snapshot() if r.body and (who is None or r.who == who)]

    def fired(self, rule: str) -> Request:
        hits = [r for r in self.requests() if r.rule == rule]
        assert hits, f"the fake API rule {rule!r} never fired\n{self.explain()}"
        return hits[0]

    def tool_result(self, rule: str) -> str:
        """The text Claude Code sent back for the tool call the rule `rule` answered."""
        ids = self.fired(rule).tool_use_ids()
        assert ids, f"rule {rule!r} made no tool call"
        for req in self.requests():
            for m in req.body.get("messages") or []:
                content = m.get("content")
                if m.get("role") != "user" or not isinstance(content, list):
                    continue
                for b in content:
                    if isinstance(b, dict) and b.get("tool_use_id") == ids[0]:
                        inner = b.get("content")
                        if isinstance(inner, str):
                            return inner
                        return "\n".join(
                            str(x.get("text", "")) for x in inner or [] if x.get("type") == "text"
                        )
        raise AssertionError(f"no tool_result for {rule!r} ({ids[0]})\n{self.explain()}")

    def lead_session_id(self) -> str:
        return str(self.config()["leadSessionId"])

    def project_dir(self) -> str:
        return f"projects/{project_dir_name(self.session.cwd)}"

    def transcript_rows(self, rel: str) -> list[dict[str, Any]]:
        """The rows of a .jsonl transcript as it was last recorded (or is on disk)."""
        path = self.session.claude_dir / rel
        if path.is_file():
            raw = path.read_bytes()
        else:
            versions = self.rec.versions(rel)
            raw = (versions[-1].data if versions else None) or b""
        return [json.loads(line) for line in raw.splitlines() if line.strip()]


def _run(version: str, base: Path) -> CcRun:
    t0 = time.monotonic()
    view = ServerView()
    sidecar: Sidecar | None = None
    with Session(version, base, scenario.make_script(), scenario.PROMPT) as s:
        (s.claude_dir / "teams").mkdir(parents=True, exist_ok=True)
        try:
            sidecar = Sidecar(s.home).start()
        except Exception as exc:
            view.error = f"could not start teaminbox serve: {exc!r}"
            sidecar = None

        def before_exit(out: scenario.Outcome) -> None:
            if sidecar is None or view.error:
                return
            try:
                # let the server take in the last writes (it re-scans on events)
                time.sleep(1.0)
                snapshot(sidecar, out.team, view)
            except Exception as exc:
                view.error = f"querying the server before /exit failed: {exc!r}"

        out = scenario.run(
            s, server_send=sidecar.send if sidecar else None, before_exit=before_exit
        )
    inboxes = sorted({Path(p).stem for p in s.recorder.paths(f"teams/{out.team}/inboxes/*.json")})
    if sidecar is not None:
        try:
            if not view.error:
                time.sleep(1.5)  # the deletion reaches the server's watcher
                after_exit(sidecar, view, inboxes)
            for method in sidecar.ls.NOTIFICATIONS:
                view.notifications[method] = sidecar.notifications(method)
        except Exception as exc:
            view.error = view.error or f"querying the server after /exit failed: {exc!r}"
        finally:
            try:
                sidecar.stop()
            except Exception as exc:
                view.error = view.error or f"stopping the server failed: {exc!r}"
    run = CcRun(version, s, out, view, time.monotonic() - t0, inboxes)
    with contextlib.suppress(Exception):  # evidence for a failure, beside the session's
        (base / "server.json").write_text(json.dumps(dataclasses.asdict(view), indent=1))
    if os.environ.get("TEAMINBOX_RECORD_FIXTURES") and not out.error:
        from .recording import save

        save(run, Path(__file__).parent / "recorded" / version)
    return run


@pytest.fixture(scope="session", params=VERSIONS, ids=[f"cc{v}" for v in VERSIONS])
def cc(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> CcRun:
    version: str = request.param
    return _run(version, tmp_path_factory.mktemp(f"claude-code-{version}"))
