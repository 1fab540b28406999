"""A demo: three teams (one per format) in a scratch folder, and simulated teammates.

`<home>/.claude/teams/demo-team` (Claude Code), `<home>/.PseudoClaude/teams/demo-pc`
(PseudoClaude) and `<home>/demo-bus/.team/` (the seed's one-file-per-message bus, in
a workspace-style folder). The teammates behave as the real runners do: they poll
their own inbox, consume unread messages (marking them read; on the file bus, deleting
each file as the seed's reader does), and answer into the person's inbox under the
proper lock (on the file bus: a temp file renamed into place).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

from . import marking
from .discovery import Root, Settings, resolve_team, roster
from .formats import registry
from .model import Draft
from .store import deliver, messages, read
from .timestamps import now_iso, now_rfc3339_nano

CLAUDE_TEAM = "demo-team"
PC_TEAM = "demo-pc"
BUS_TEAM = "demo-bus"  # the workspace folder holding `.team/`
TEAMMATES = {CLAUDE_TEAM: ["researcher", "tester"], PC_TEAM: ["coder"]}
BUS_TEAMMATES = ["reviewer"]


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        path.write_text(json.dumps(value, indent=2))


def roots(home: Path) -> list[Root]:
    return [
        Root(str(home / ".claude" / "teams"), "claude"),
        Root(str(home / ".PseudoClaude" / "teams"), "pseudoclaude"),
        Root(str(home / BUS_TEAM), "filebus"),
    ]


def root_specs(home: Path) -> list[str]:
    """The demo's roots as `--root` takes them."""
    return [f"{r.format}={r.path}" for r in roots(home)]


def _bus_send(home: Path, sender: str, recipient: str, content: str) -> None:
    """A message on the file bus exactly as the seed's FileMessageBus.send_message writes it:
    `<msg_id>.tmp`, fsync, rename to `<msg_id>.json` in the recipient's folder."""
    msg_id = f"m_{int(time.time() * 1000)}_{uuid.uuid4().hex[:6]}"
    payload = {
        "msg_id": msg_id,
        "sender": sender,
        "recipient": recipient,
        "type": "text",
        "content": content,
        "timestamp": time.time(),
    }
    inbox = home / BUS_TEAM / ".team" / "inbox" / recipient.replace("@", "_")
    inbox.mkdir(parents=True, exist_ok=True)
    tmp = inbox / f"{msg_id}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, inbox / f"{msg_id}.json")


def _bus_take(home: Path, agent: str) -> list[dict[str, object]]:
    """Read and empty an agent's folder, as the seed's FileMessageBus.read_inbox does."""
    inbox = home / BUS_TEAM / ".team" / "inbox" / agent.replace("@", "_")
    taken = []
    for file in sorted(inbox.glob("*.json")):
        try:
            with open(file, encoding="utf-8") as f:
                msg = json.load(f)
            file.unlink()
        except (OSError, ValueError):
            continue
        if isinstance(msg, dict):
            taken.append(msg)
    return taken


def _init_bus(home: Path) -> None:
    bus = home / BUS_TEAM / ".team" / "inbox"
    if bus.exists():
        return
    lead, reviewer = f"team-lead@{BUS_TEAM}", f"reviewer@{BUS_TEAM}"
    for agent in (lead, reviewer, "user"):
        (bus / agent.replace("@", "_")).mkdir(parents=True, exist_ok=True)
    _bus_send(home, reviewer, lead, "Review of the cookie fix is done: two nits, no blockers.")
    _bus_send(home, reviewer, "user", "PR #12 reviewed. Want me to push the two nit fixes?")


def init(home: Path) -> None:
    """Create the demo teams under `home` (kept if already there)."""
    team = home / ".claude" / "teams" / CLAUDE_TEAM
    _write(
        team / "config.json",
        {
            "name": CLAUDE_TEAM,
            "description": "Demo: fix the login bug",
            "createdAt": int(time.time() * 1000),
            "leadAgentId": f"team-lead@{CLAUDE_TEAM}",
            "leadSessionId": "demo-session",
            "members": [
                {
                    "agentId": f"team-lead@{CLAUDE_TEAM}",
                    "name": "team-lead",
                    "agentType": "team-lead",
                    "model": "demo",
                    "tmuxPaneId": "",
                    "cwd": str(home),
                },
                {
                    "agentId": f"researcher@{CLAUDE_TEAM}",
                    "name": "researcher",
                    "agentType": "general-purpose",
                    "model": "demo",
                    "color": "blue",
                    "tmuxPaneId": "in-process",
                    "cwd": str(home),
                    "isActive": True,
                },
                {
                    "agentId": f"tester@{CLAUDE_TEAM}",
                    "name": "tester",
                    "agentType": "general-purpose",
                    "model": "demo",
                    "color": "green",
                    "tmuxPaneId": "in-process",
                    "cwd": str(home),
                    "isActive": False,
                },
            ],
        },
    )
    idle = {
        "type": "idle_notification",
        "from": "tester",
        "timestamp": now_iso(),
        "idleReason": "available",
        "completedTaskId": "1",
        "completedStatus": "resolved",
        "result": "All 42 login tests pass on the fix.",
    }
    _write(
        team / "inboxes" / "user.json",
        [
            {
                "from": "researcher",
                "text": "Found the bug: the session cookie is never refreshed in auth.ts.",
                "summary": "Bug found in auth.ts",
                "timestamp": now_iso(),
                "color": "blue",
                "read": False,
            },
            {
                "from": "tester",
                "text": json.dumps(idle),
                "timestamp": now_iso(),
                "color": "green",
                "read": False,
            },
        ],
    )
    _write(team / "inboxes" / "researcher.json", [])
    _write(team / "inboxes" / "tester.json", [])
    _write(team / "inboxes" / "team-lead.json", [])
    pc = home / ".PseudoClaude" / "teams" / PC_TEAM
    _write(
        pc / "config.json",
        {
            "name": PC_TEAM,
            "sanitized_name": PC_TEAM,
            "description": "Demo: a Go team",
            "project_root": str(home),
            "lead_agent_id": f"lead-{PC_TEAM}",
            "backend": "in-process",
            "created_at": now_rfc3339_nano(),
            "members": [
                {"name": "lead", "agent_id": f"lead-{PC_TEAM}", "agent_type": "lead"},
                {
                    "name": "coder",
                    "agent_id": f"team-{PC_TEAM}-coder-1",
                    "agent_type": "coder",
                    "backend_type": "in-process",
                    "is_active": True,
                },
            ],
        },
    )
    _write(
        pc / "inboxes" / f"lead-{PC_TEAM}.json",
        {
            "messages": [
                {
                    "from": "coder",
                    "to": f"lead-{PC_TEAM}",
                    "type": "text",
                    "summary": "jwt.ts written",
                    "content": "src/auth/jwt.ts is written and its tests pass.",
                    "timestamp": now_rfc3339_nano(),
                    "read": False,
                }
            ]
        },
    )
    _write(pc / "inboxes" / f"team-{PC_TEAM}-coder-1.json", {"messages": []})
    _init_bus(home)


def answer_once(home: Path) -> int:
    """Each teammate consumes its unread messages and replies to each. Returns replies sent."""
    sent = 0
    for team, names in TEAMMATES.items():
        for name in names:
            settings = Settings(roots=roots(home))
            r = roster(resolve_team(settings.roots, team), settings)
            member = r.resolve_inbox(name)
            snap = read(r.team.fmt, r.team.inbox_path(member.inbox))
            unread = [
                m
                for m in messages(r.team.fmt, snap, r.team.id, member.inbox)
                if not m.read and m.structured is None
            ]
            if not unread:
                continue
            # the simulated runner consumes its inbox, as a real one does
            marking.set_read(r, member, [m.id for m in unread], discard=True)
            as_me = Settings(roots=roots(home), identity=dict.fromkeys(registry(), name))
            to = r.team.fmt.default_identity or "lead"  # its person: Claude's user, else the lead
            for m in unread:
                first = (m.text.strip().splitlines() or [""])[0][:80]
                _reply(
                    as_me,
                    team,
                    to,
                    f'On it: "{first}". Done, tests pass.',
                    summary=f"Re: {m.summary or first[:40]}",
                )
                sent += 1
    for name in BUS_TEAMMATES:
        me = f"{name}@{BUS_TEAM}"
        for got in _bus_take(home, me):
            first = (str(got.get("content") or "").strip().splitlines() or [""])[0][:80]
            back = got.get("sender")
            _bus_send(
                home,
                me,
                back if isinstance(back, str) else "user",
                f'On it: "{first}". Done, tests pass.',
            )
            sent += 1
    return sent


def _reply(settings: Settings, team: str, to: str, text: str, summary: str) -> None:
    r = roster(resolve_team(settings.roots, team), settings)
    fmt = r.team.fmt
    target = next(m for m in r.members if to in (m.name, m.inbox))
    entry = fmt.new_entry(
        Draft(
            sender=r.identity, recipient=target.agent_id or target.inbox, text=text, summary=summary
        )
    )
    deliver(fmt, r.team.inbox_path(target.inbox), entry, timeout=30.0)


def simulate(home: Path, interval: float = 0.5, duration: float | None = None) -> None:
    """Poll like the real agents do (every 0.5-1 s) until stopped."""
    end = None if duration is None else time.monotonic() + duration
    while end is None or time.monotonic() < end:
        answer_once(home)
        time.sleep(interval)


def default_home() -> Path:
    return Path(os.environ.get("TEAMINBOX_DEMO_HOME", "/tmp/teaminbox-demo"))
