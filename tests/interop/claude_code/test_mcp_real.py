"""The real Claude Code CLI as an MCP client of `teaminbox mcp`.

Claude Code 2.1.332 starts `teaminbox mcp --read-only` itself from `--mcp-config`, on the
session's scratch HOME with its own history file. The lead spawns helper; helper messages
the lead (MCP-SECRET-HELPER-42); Claude Code delivers it to the lead's model and prunes it
from team-lead.json. Only once the recorder has seen the entry gone does the person ask the
lead to look it up; the scripted model calls `mcp__teaminbox__search_messages`, and the
tool result Claude Code sends in the model request that follows is checked: the pruned
message, found in the history the MCP server kept while it watched.

One session (about 30 s), shared by the tests below; nothing leaves the machine.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .api_script import Request, Rule, Script, call, say
from .errors import HarnessError
from .harness import Session, teaminbox_exe

VERSION = "2.1.332"
TOOL = "mcp__teaminbox__search_messages"
PROMPT = "MCP-START: wait for the person."
PERSON_GO = "MCP-PERSON-GO: spawn a teammate named helper and wait for its message."
HELPER_PROMPT = "MCP-HELPER-TASK: send the lead your message, then wait."
SECRET = "MCP-SECRET-HELPER-42"
HELPER_TEXT = f"{SECRET}: the build is green on every target"
LEAD_ACK = "MCP-LEAD-ACK"
PERSON_ASKS = "MCP-PERSON-ASKS: what did helper tell you earlier?"
LEAD_FOUND = "MCP-LEAD-FOUND"


def has_results(req: Request) -> bool:
    return bool(req.tool_results())


def make_script() -> Script:
    return Script(
        [
            Rule("waiting", "lead", "MCP-START", say("MCP-LEAD-WAITING")),
            Rule(
                "spawn",
                "lead",
                "MCP-PERSON-GO",
                call(
                    "Agent",
                    {"description": "Spawn helper", "name": "helper", "prompt": HELPER_PROMPT},
                ),
            ),
            Rule("lead-ack", "lead", SECRET, say(LEAD_ACK)),
            Rule(
                "search",
                "lead",
                "MCP-PERSON-ASKS",
                call(TOOL, {"query": f'"{SECRET}"', "limit": 5}),
            ),
            Rule("search-seen", "lead", has_results, say(LEAD_FOUND), after=("search",)),
            Rule(
                "hello",
                "helper",
                "MCP-HELPER-TASK",
                call(
                    "SendMessage",
                    {"to": "team-lead", "message": HELPER_TEXT, "summary": "helper reports"},
                ),
            ),
            Rule("hello-done", "helper", has_results, say("MCP-HELPER-IDLE"), after=("hello",)),
        ]
    )


def mcp_config(s: Session) -> Path:
    """Claude Code's --mcp-config: this venv's `teaminbox mcp`, on the scratch HOME only."""
    doc = {
        "mcpServers": {
            "teaminbox": {
                "type": "stdio",
                "command": str(teaminbox_exe()),
                "args": [
                    "--no-default-roots",
                    "--root",
                    f"claude={s.claude_dir / 'teams'}",
                    "mcp",
                    "--read-only",
                    "--history",
                    str(s.base / "mcp-history.db"),
                ],
                "env": {"HOME": str(s.home), "TEAMINBOX_LOG": "INFO"},
            }
        }
    }
    path = s.base / "mcp.json"
    path.write_text(json.dumps(doc, indent=1))
    return path


@dataclass
class McpRun:
    session: Session
    team: str
    error: str | None
    result: Any = None  # the tool_result block Claude Code sent back
    pruned_at: float | None = None  # recorder time the entry was gone from team-lead.json
    searched_at: float | None = None  # fake API time of the search call

    def require(self) -> None:
        if self.error:
            raise HarnessError(f"the MCP session did not complete:\n{self.error}")


def _tool_result(s: Session, call_req: Request) -> dict[str, Any] | None:
    """The tool_result block for `call_req`'s tool call, in a later request's messages."""
    ids = call_req.tool_use_ids(TOOL)
    if not ids:
        return None
    for req in s.api.snapshot():
        if req.index <= call_req.index or not req.body:
            continue
        for b in req.tool_results():
            if b.get("tool_use_id") == ids[0]:
                return b
    return None


def _helper_entry_in_lead_inbox(s: Session, team: str) -> bool:
    doc = s.recorder.last_json(f"teams/{team}/inboxes/team-lead.json")
    return isinstance(doc, list) and any(SECRET in str(e.get("text")) for e in doc)


def _history_knows(s: Session, team: str) -> bool:
    """The MCP server's first scan saw the team (read-only look at its history file)."""
    path = s.base / "mcp-history.db"
    if not path.is_file():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT id FROM teams WHERE id = ?", (f"claude:{team}",))
            return rows.fetchone() is not None
    except sqlite3.Error:  # not made yet, or busy: look again
        return False


def _play(s: Session) -> McpRun:
    run = McpRun(s, team="", error=None)
    try:
        run.team = s.team(timeout=40)
        s.wait_rule("waiting", 40)
        # Claude Code connects its MCP servers beside its first turn (about 2.5 s here);
        # a teammate's message that came and was pruned before the server's first scan
        # would be in no history. So helper is spawned once the server watches the team.
        s.wait(lambda: _history_knows(s, run.team), 40, "teaminbox mcp to have scanned the team")
        # typed at the prompt: a lead with no teammate yet does not read its inbox
        s.idle()
        assert s.pty is not None
        s.pty.type(PERSON_GO)
        s.wait_rule("spawn", 40)
        s.wait_rule("hello", 40)
        # helper's message was in the lead's file, the lead's model was shown it ...
        s.wait(
            lambda: any(
                SECRET in str(e.value.get("text")) and e.inbox == "team-lead"
                for e in s.recorder.entries(run.team)
            ),
            30,
            "helper's message in team-lead.json",
        )
        s.wait_rule("lead-ack", 30)
        # ... and Claude Code pruned it from the file
        s.wait(lambda: not _helper_entry_in_lead_inbox(s, run.team), 15, "the entry pruned")
        run.pruned_at = s.recorder.versions(f"teams/{run.team}/inboxes/team-lead.json")[-1].t
        s.idle()
        s.send_cli(run.team, "team-lead", PERSON_ASKS, "person asks the lead")
        call_req = s.wait_rule("search", 40)
        run.searched_at = call_req.t
        seen = s.wait_rule("search-seen", 40)
        run.result = _tool_result(s, call_req) or {"missing_in": seen.index}
    except HarnessError as exc:
        run.error = str(exc)
    except Exception as exc:
        run.error = f"{exc!r}\n{s.explain()}"
    finally:
        s.exit()
    return run


@pytest.fixture(scope="module")
def mcp_run(tmp_path_factory: pytest.TempPathFactory) -> McpRun:
    base = tmp_path_factory.mktemp(f"claude-code-mcp-{VERSION}")
    # Session.start makes the HOME; the config only names paths inside it
    s = Session(VERSION, base, make_script(), PROMPT)
    s.extra_args = [
        "--mcp-config",
        str(mcp_config(s)),
        "--strict-mcp-config",
        f"--allowedTools={TOOL}",  # one value: the option is variadic, the prompt follows
    ]
    with s:
        return _play(s)


def _text(block: dict[str, Any]) -> str:
    """The server's text: Claude Code appends its own <system-reminder> after a blank line."""
    inner = block.get("content")
    if not isinstance(inner, str):
        inner = "".join(str(x.get("text", "")) for x in inner or [] if x.get("type") == "text")
    return inner.split("\n\n<system-reminder>", 1)[0]


def test_claude_code_lists_the_teaminbox_tools(mcp_run: McpRun) -> None:
    """Claude Code connected to `teaminbox mcp` and offered its read-only tools to the model.

    2.1.332 may defer MCP tools behind ToolSearch; then the lead's tool list holds them
    once the harness selected them. Either way the request that carried the call's
    result lists `mcp__teaminbox__search_messages`, and no send tool (`--read-only`).
    """
    mcp_run.require()
    s = mcp_run.session
    seen = [r for r in s.api.snapshot() if r.rule == "search-seen"][0]
    tools = set(seen.tools)
    assert TOOL in tools, sorted(tools)
    assert not {t for t in tools if t.startswith("mcp__teaminbox__send")}, sorted(tools)


def test_search_finds_the_message_claude_code_pruned(mcp_run: McpRun) -> None:
    """The scripted model's search_messages call returns helper's pruned message.

    The tool result (in the next model request, as Claude Code sent it) is not an error
    and is the server's JSON: `count >= 1`, one message whose text is helper's, from
    helper, to and in team-lead, of `claude:<team>`, `archived: true` (no longer in its
    file). The search ran after the recorder saw the entry gone from team-lead.json.
    """
    mcp_run.require()
    s = mcp_run.session
    block = mcp_run.result
    assert isinstance(block, dict) and block.get("type") == "tool_result", (block, s.explain())
    assert not block.get("is_error"), (block, s.explain())
    text = _text(block)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise AssertionError(f"the tool result is not JSON: {text[:2000]!r}") from exc
    hits = [m for m in data["messages"] if m.get("text") == HELPER_TEXT]
    assert len(hits) == 1, data
    m = hits[0]
    assert (m["from"], m["to"], m["inbox"]) == ("helper", "team-lead", "team-lead"), m
    assert m["team"] == f"claude:{mcp_run.team}", m
    assert m["archived"] is True, m
    assert data["count"] >= 1
    # the message really was gone from the file before the model asked
    assert mcp_run.pruned_at is not None and mcp_run.searched_at is not None
    assert mcp_run.pruned_at <= mcp_run.searched_at, (mcp_run.pruned_at, mcp_run.searched_at)
