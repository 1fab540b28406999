"""A team's session: its lead's and teammates' transcripts followed together (`Session`),
and what they say of the team (`TeamActivity`)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..model import Activity, ContextUse, FileChange, TokenUse, converter
from ..timestamps import epoch
from ..transcript_frames import Delivered, DeliveredLog
from ..transcript_sends import Sent
from .files import Transcript
from .limits import PERSISTED_CHANGES, WORKING_SECONDS
from .paths import find_lead_transcript, project_dir_name, read_meta, subagent_transcripts
from .rows import Answer, Written, step_of
from .tokens import PRICES, Price, add_tokens, context_window

# --- a team's session -----------------------------------------------------------------------


@attrs.define
class TeamActivity:
    """What a team's transcripts said, as the features show it."""

    tokens: TokenUse
    branch: str | None
    members: dict[str, Activity]  # by member name
    branches: dict[str, str] = attrs.Factory(dict)  # by member name
    changes: list[FileChange] = attrs.Factory(list)  # every member's, newest first
    written: dict[str, Written] = attrs.Factory(dict)  # by tool_use id: their text (live only)

    def persisted(self) -> dict[str, Any]:
        """What the history keeps of it: timestamps, token counts and the files changed (not
        their text), not words."""
        return {
            "tokens": converter.unstructure(self.tokens),
            "branch": self.branch,
            "members": {
                name: {
                    "lastActive": a.last_active,
                    "tokens": converter.unstructure(a.tokens),
                    # a key added later: an older body has none, and reads as no context
                    **({"context": converter.unstructure(a.context)} if a.context else {}),
                }
                for name, a in self.members.items()
            },
            "changes": converter.unstructure(self.changes[:PERSISTED_CHANGES]),
        }

    @classmethod
    def restored(cls, body: Any) -> TeamActivity | None:
        if not isinstance(body, dict):
            return None
        try:
            members = {
                str(name): Activity(
                    last_active=epoch(m.get("lastActive")),
                    tokens=converter.structure(m.get("tokens") or {}, TokenUse),
                    context=_context(m.get("context")),
                )
                for name, m in (body.get("members") or {}).items()
                if isinstance(m, dict)
            }
            tokens = converter.structure(body.get("tokens") or {}, TokenUse)
        except Exception:
            return None
        try:
            changes = converter.structure(body.get("changes") or [], list[FileChange])
        except Exception:
            changes = []  # an older sidecar's, or a damaged one: the rest still counts
        for c in changes:
            if c.member in members:
                members[c.member].changed += 1
        branch = body.get("branch")
        return cls(tokens, branch if isinstance(branch, str) else None, members, {}, changes)


def _context(body: Any) -> ContextUse | None:
    """A kept context; None where an older sidecar kept none, or a damaged one."""
    if not isinstance(body, dict):
        return None
    try:
        c = converter.structure(body, ContextUse)
    except Exception:
        return None
    ok = all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (c.used, c.window))
    return c if ok and c.window > 0 else None


def label_branch(branch: str | None) -> str | None:
    """A branch worth showing: `HEAD` is what Claude Code writes outside a repository
    (and on a detached head)."""
    return branch if branch and branch != "HEAD" else None


class Session:
    """A team's transcripts, the lead's and its teammates', followed together."""

    def __init__(
        self,
        projects_dirs: list[str],
        session_id: str,
        cwd: str | None,
        lead: str | None,
        person: str,
        team_names: Iterable[str],
        models: Mapping[str, str] | None = None,
    ) -> None:
        self.projects_dirs = projects_dirs
        self.session_id = session_id
        self.cwd = cwd
        self.lead = lead
        self.person = person
        self.team_names = {n for n in team_names if n}
        self.models = dict(models or {})  # member name -> the model its team's config names
        self.lead_file: Transcript | None = None
        self.agents: dict[str, Transcript] = {}
        self.owners: dict[str, str | None] = {}  # agent transcript -> member name (None: lead's)
        self._looked = 0.0
        self.caught_up = False  # every file read to its end at least once

    def locate(self, search_every: float = 10.0) -> None:
        if self.lead_file is None:
            # Where the cwd says: a stat a pass; a search of every project folder: seldom.
            now = time.monotonic()
            search = not self._looked or now - self._looked >= search_every
            if search:
                self._looked = now
            path = find_lead_transcript(self.projects_dirs, self.cwd, self.session_id, search)
            if path is None:
                return
            self.lead_file = Transcript(path, self.person)
        for path in subagent_transcripts(self.lead_file.path, self.session_id):
            if path not in self.agents:
                self.agents[path] = Transcript(path)
                self.agents[path].stats.delivered = DeliveredLog(own=True)  # its frames
            if path not in self.owners:
                self._owner(path)

    def _owner(self, path: str) -> None:
        meta = read_meta(path)
        if meta is None:
            return  # not written yet: asked again next time
        name, team = meta.get("name"), meta.get("teamName")
        teammate = (
            isinstance(name, str)
            and name
            and (
                team in self.team_names
                or (team is None and meta.get("taskKind") == "in_process_teammate")
            )
        )
        self.owners[path] = str(name) if teammate else None

    def files(self) -> list[Transcript]:
        return ([self.lead_file] if self.lead_file else []) + list(self.agents.values())

    def folders(self) -> list[str]:
        """What to watch (each not recursively): the project folder, the session's folder
        and its subagents folder."""
        if self.lead_file is None:  # where it will be: its creation starts a pass
            cwd = self.cwd
            return (
                [os.path.join(p, project_dir_name(cwd)) for p in self.projects_dirs] if cwd else []
            )
        project = os.path.dirname(self.lead_file.path)
        session = os.path.join(project, self.session_id)
        return [project, session, os.path.join(session, "subagents")]

    def interesting(self, path: str) -> bool:
        name = os.path.basename(path)
        return name in (self.session_id + ".jsonl", self.session_id, "subagents") or (
            name.startswith("agent-") and name.endswith((".jsonl", ".meta.json"))
        )

    def poll(self, budget: int) -> bool:
        """Read what every file appended, `budget` bytes in all; True when more is left."""
        self.locate()
        more = False
        for t in self.files():
            if budget <= 0:
                more = True
                break
            before = t.tail.position
            more = t.poll(budget) or more
            budget -= max(t.tail.position - before, 0)
        if not more and self.lead_file is not None:
            self.caught_up = True
        return more

    def finish(self) -> None:
        for t in self.files():
            t.finish()

    def take_answers(self) -> list[Answer]:
        return self.lead_file.stats.take_answers() if self.lead_file else []

    def take_sends(self) -> list[Sent]:
        """What the lead's and this team's teammates' SendMessage calls wrote since last
        taken, each with its sender: the one its result names, else the lead or the name in
        the file's meta.json. A file whose meta.json is not there yet keeps its sends until
        it is; those of another team's teammate, or of the lead's own subagents, are dropped."""
        lead = self.lead or "team-lead"
        out: list[Sent] = []
        for t in self.files():
            if t is self.lead_file:
                owner: str | None = lead
            elif t.path in self.owners:
                owner = self.owners[t.path]
            else:
                continue
            sends = t.stats.sends.take()
            if owner is not None:
                out += [s if s.sender else attrs.evolve(s, sender=owner) for s in sends]
        return out

    def take_delivered(self) -> list[Delivered]:
        """The entries the lead's transcript shows it was handed since last taken, and the
        frames each teammate's shows (`to` it). A file whose meta.json is not there yet keeps
        its own until it is; the lead's own subagents' are dropped."""
        out = self.lead_file.stats.delivered.take() if self.lead_file else []
        for path, t in self.agents.items():
            if path in self.owners:
                found, owner = t.stats.delivered.take(), self.owners[path]
                out += [attrs.evolve(d, to=owner) for d in found] if owner is not None else []
        return out

    def activity(
        self, prices: Mapping[str, Price] = PRICES, now: float | None = None
    ) -> TeamActivity | None:
        if self.lead_file is None:
            return None
        now = time.time() if now is None else now
        groups: dict[str, list[Transcript]] = {}
        main: dict[str, list[Transcript]] = {}  # whose words count as the member's
        lead = self.lead or "team-lead"
        groups.setdefault(lead, []).append(self.lead_file)
        main.setdefault(lead, []).append(self.lead_file)
        for path, t in self.agents.items():
            if path not in self.owners:
                continue  # its meta.json is not there yet: whose it is comes with it
            owner = self.owners[path]
            groups.setdefault(owner or lead, []).append(t)
            if owner:
                main.setdefault(owner, []).append(t)
        members: dict[str, Activity] = {}
        branches: dict[str, str] = {}
        changes: list[FileChange] = []
        written: dict[str, Written] = {}
        total = TokenUse()
        for name, files in groups.items():
            mine = [w for t in main.get(name, []) for w in t.stats.written]
            changes += [w.change(name) for w in mine]
            written.update((w.tool_use_id, w) for w in mine)
            tokens = TokenUse()
            for t in files:
                tokens = add_tokens(tokens, t.stats.tokens(prices))
            total = add_tokens(total, tokens)
            times = [t.stats.last_active for t in files if t.stats.last_active is not None]
            spoken = [t.stats for t in main.get(name, []) if t.stats.last_words]
            words = max(spoken, key=lambda s: s.words_at or 0.0).last_words if spoken else None
            last = max(times) if times else None
            calls = [c for t in main.get(name, []) for c in t.stats.calls.values()]
            newest = max(calls, key=lambda c: c.at or 0.0, default=None)
            turns = [u for u in (t.stats.turn for t in main.get(name, [])) if u is not None]
            turn = max(turns, key=lambda u: u.at or 0.0, default=None)
            members[name] = Activity(
                last_active=last,
                last_words=words,
                tokens=tokens,
                working=last is not None and now - last < WORKING_SECONDS,
                doing=step_of(newest) if newest is not None else None,
                changed=len(mine),
                context=ContextUse(
                    turn.prompt,
                    context_window(turn.model, turn.prompt, self.models.get(name, "")),
                    turn.model,
                )
                if turn is not None
                else None,
            )
            placed = [t.stats for t in main.get(name, []) if t.stats.branch]
            if placed:
                branch = label_branch(max(placed, key=lambda s: s.last_active or 0.0).branch)
                if branch:
                    branches[name] = branch
        changes.sort(key=lambda c: c.time or 0.0, reverse=True)
        return TeamActivity(total, branches.get(lead), members, branches, changes, written)
