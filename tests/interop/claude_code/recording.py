"""Real Claude Code sessions saved as small offline fixtures, and their replay.

`save(run, dest)` writes, for one version (recorded/<version>/):

- `timeline.json`: every version of every file Claude Code (and teaminbox, for the
  person) wrote under ~/.claude/teams and ~/.claude/tasks, in order:
  `{"t": seconds since start, "path": "teams/<team>/inboxes/helper.json",
  "data": text | null (deleted)}`, plus `{"dir": true, "data": null}` when the team
  folder went. Temp files and lock directories are left out.
- `home/.claude/...`: the files as they were mid-session, for a UI to show: the team's
  config.json with every member, each inbox at its fullest version (entries not yet
  pruned), the task file, and the transcripts trimmed to their user/assistant rows.
- `session.json`: what happened: version, team, leadSessionId, cwd, every inbox entry
  ever seen (first-seen time and inbox), the person's sends, the refusals.

Paths are rewritten to a stable fake HOME (`/home/dev`, the project at
`/home/dev/project`) so the files do not depend on where the session ran.
`replay(dest, into, speed)` writes a timeline back into a folder, renaming each
version into place as Claude Code does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .home import project_dir_name

if TYPE_CHECKING:
    from .conftest import CcRun

FAKE_HOME = "/home/dev"
FAKE_CWD = "/home/dev/project"
MAX_TEXT = 1500  # longer strings in transcript rows are cut
KEEP_TYPES = ("user", "assistant")
TEMP = re.compile(r"(\.tmp\.[0-9a-f]{8}|\.teaminbox-tmp)$")


class Rewriter:
    def __init__(self, home: Path, cwd: Path) -> None:
        self.pairs = [
            (project_dir_name(cwd), project_dir_name(FAKE_CWD)),
            (str(cwd), FAKE_CWD),
            (str(home), FAKE_HOME),
        ]

    def __call__(self, text: str) -> str:
        for old, new in self.pairs:
            text = text.replace(old, new)
        return text


def _cut(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "…[cut]"
    if isinstance(value, list):
        return [_cut(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value


def trim_transcript(data: bytes) -> str:
    """The user/assistant rows only, long strings cut; one JSON object a line."""
    out = []
    for line in data.splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("type") in KEEP_TYPES:
            row.pop("toolUseResult", None)
            out.append(json.dumps(_cut(row), ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"


def _fullest(versions: list[Any]) -> bytes | None:
    best: bytes | None = None
    count = -1
    for v in versions:
        try:
            doc = json.loads(v.data) if v.data else None
        except ValueError:
            continue
        if isinstance(doc, list) and len(doc) > count:
            best, count = v.data, len(doc)
    return best


def save(run: CcRun, dest: Path) -> None:
    s = run.session
    rw = Rewriter(s.home, s.cwd)
    rec = run.rec
    team = run.team
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)

    timeline: list[dict[str, Any]] = []
    for path, v in rec.iter_all():
        if not path.startswith(("teams/", "tasks/")) or TEMP.search(path):
            continue
        text = None if v.data is None else rw(v.data.decode("utf-8", "replace"))
        timeline.append({"t": round(v.t, 3), "path": path, "data": text})
    for t, exists in rec.dirs.get(f"teams/{team}", []):
        if not exists:
            timeline.append({"t": round(t, 3), "path": f"teams/{team}", "data": None, "dir": True})
    timeline.sort(key=lambda e: e["t"])
    (dest / "timeline.json").write_text(json.dumps(timeline, indent=1, ensure_ascii=False) + "\n")

    claude = dest / "home" / ".claude"
    tdir = claude / "teams" / team
    tdir.mkdir(parents=True)
    (tdir / "config.json").write_text(rw(json.dumps(run.config(), indent=2)))
    for rel in rec.paths(f"teams/{team}/inboxes/*.json"):
        data = _fullest(rec.versions(rel))
        if data is not None:
            out = tdir / "inboxes" / Path(rel).name
            out.parent.mkdir(exist_ok=True)
            out.write_text(rw(data.decode()))
    for rel in rec.paths(f"tasks/{team}/*"):
        last = [v.data for v in rec.versions(rel) if v.data is not None]
        if last and not TEMP.search(rel):
            out = claude / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(last[-1])
    project = claude / "projects" / project_dir_name(FAKE_CWD)
    sid = run.lead_session_id()
    lead = s.claude_dir / run.project_dir() / f"{sid}.jsonl"
    project.mkdir(parents=True)
    (project / f"{sid}.jsonl").write_text(rw(trim_transcript(lead.read_bytes())))
    subs = s.claude_dir / run.project_dir() / sid / "subagents"
    (project / sid / "subagents").mkdir(parents=True)
    for f in sorted(subs.iterdir()):
        if f.name.endswith(".jsonl"):
            text = trim_transcript(f.read_bytes())
        elif f.name.endswith(".meta.json"):
            text = f.read_text()
        else:
            continue
        (project / sid / "subagents" / f.name).write_text(rw(text))

    facts = {
        "claudeCodeVersion": run.version,
        "team": team,
        "leadSessionId": sid,
        "cwd": FAKE_CWD,
        "home": FAKE_HOME,
        "note": "recorded by tests/interop/claude_code (TEAMINBOX_RECORD_FIXTURES=1)",
        "entries": [
            {"t": round(e.t, 3), "inbox": e.inbox, "entry": json.loads(rw(json.dumps(e.value)))}
            for e in run.entries()
        ],
        "sends": [{"how": how, "to": to, "text": text} for how, to, text, _ in run.outcome.sends],
        "refusals": {
            "teammate": run.tool_result("helper-to-user"),
            "lead": run.tool_result("lead-to-user"),
        },
        "exit": {"how": s.exit_how, "code": s.exit_code},
    }
    (dest / "session.json").write_text(json.dumps(facts, indent=1, ensure_ascii=False) + "\n")


def load_timeline(src: Path) -> list[dict[str, Any]]:
    return list(json.loads((src / "timeline.json").read_text()))


def replay(src: Path, into: Path, speed: float = 0.0) -> None:
    """Write a recorded timeline under `into` (a ~/.claude): each version renamed into
    place (in-place for config.json, as Claude Code writes it), deletions applied.
    `speed` 0 replays at once; 1 at the recorded pace; 10 ten times faster."""
    start = time.monotonic()
    for step in load_timeline(src):
        if speed:
            delay = step["t"] / speed - (time.monotonic() - start)
            if delay > 0:
                time.sleep(delay)
        path = into / step["path"]
        if step.get("dir"):
            shutil.rmtree(path, ignore_errors=True)
            continue
        if step["data"] is None:
            if path.is_file():
                path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.name == "config.json":
            path.write_text(step["data"])
        else:
            tmp = path.with_name(f"{path.name}.tmp.replay{os.getpid()}")
            tmp.write_text(step["data"])
            os.replace(tmp, path)
