"""One transcript's rows, read as they come: answers to the person, words, tokens, calls
waiting for their result, files written, sends (`Stats`)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

import attrs
import orjson

from ..model import FileChange, FileTool, Step, TokenUse
from ..request_text import detail, one_line
from ..termtext import visible
from ..timestamps import epoch
from ..transcript_frames import DeliveredLog, blocks
from ..transcript_sends import SendLog
from .limits import (
    FILE_TOOLS,
    KEPT_CONTENT,
    MAX_ANSWER,
    MAX_CHANGES,
    MAX_CONTENT,
    MAX_WORDS,
    OPEN_CALLS,
    RECENT_IDS,
    STEP_CHARS,
)
from .tokens import PRICES, Counts, Price, token_use, usage_counts

# --- rows --------------------------------------------------------------------------------


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or its `text` blocks (tool calls,
    tool results, thinking and images are not text)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        b["text"]
        for b in content
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    return "\n\n".join(p for p in parts if p)


def teammate_messages(text: str) -> list[tuple[dict[str, str], str]]:
    """Each `<teammate-message a="b" ...>body</teammate-message>` block: (attributes, body)."""
    return blocks(text) if "<teammate-message" in text else []


@attrs.define
class Call:
    """An assistant `tool_use` whose `tool_result` is not there yet."""

    tool_use_id: str
    tool: str
    input: dict[str, Any]
    at: float | None


def step_of(call: Call) -> Step:
    """A call as a row shows it: text, one line, cut (agent data: never interpreted)."""
    tool = one_line(call.tool, 60) or "?"
    what = detail(call.tool, call.input)
    return Step(
        tool=tool,
        detail=what,
        text=one_line(f"{tool}: {what}" if what != call.tool else tool, STEP_CHARS),
        since=call.at,
        tool_use_id=visible(call.tool_use_id),
    )


@attrs.define
class Written:
    """A file a call wrote, its result no error; its text kept while among the newest."""

    path: str
    tool: FileTool
    time: float | None
    tool_use_id: str
    before: str | None  # an edit's old text (None for a Write: the file before is unknown)
    after: str | None
    cut: bool = False  # a text was longer than MAX_CONTENT
    kept: bool = True  # False: its text is no longer held

    def change(self, member: str) -> FileChange:
        return FileChange(
            member, self.path, one_line(self.path, 400), self.tool, self.time, self.tool_use_id
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def written(call: Call, at: float | None) -> Written | None:
    """What a successful file call wrote: its path, and its before and after text."""
    key = FILE_TOOLS.get(call.tool)
    path = call.input.get(key) if key else None
    if not isinstance(path, str) or not path:
        return None
    inp = call.input
    before: str | None
    if call.tool == "Write":
        before, after = None, _text(inp.get("content"))
    elif call.tool == "Edit":
        before, after = _text(inp.get("old_string")), _text(inp.get("new_string"))
    elif call.tool == "MultiEdit":
        edits = [e for e in inp.get("edits") or [] if isinstance(e, dict)]
        before = "\n\n".join(_text(e.get("old_string")) for e in edits)
        after = "\n\n".join(_text(e.get("new_string")) for e in edits)
    else:  # NotebookEdit: the cell's new source
        before, after = None, _text(inp.get("new_source"))
    cut = len(before or "") > MAX_CONTENT or len(after) > MAX_CONTENT
    return Written(
        path,
        call.tool,  # type: ignore[arg-type]  # a key of FILE_TOOLS
        at if at is not None else call.at,
        call.tool_use_id,
        before[:MAX_CONTENT] if before is not None else None,
        after[:MAX_CONTENT],
        cut,
    )


def _blocks(msg: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = msg.get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind]


@attrs.define
class Turn:
    """An assistant turn's prompt: what the model's context held then."""

    model: str
    prompt: int  # input + cache read + cache write tokens
    at: float | None


@attrs.define
class Answer:
    """The lead's first assistant text after the person wrote to it."""

    uuid: str
    timestamp: str
    text: str


class Stats:
    """What one transcript's rows said so far."""

    def __init__(self, person: str | None = None) -> None:
        self.person = person  # the person's teammate_id: watch for answers (the lead's file)
        self.by_model: dict[str, Counts] = {}
        self._recent: OrderedDict[str, tuple[str, Counts]] = OrderedDict()
        self.last_active: float | None = None
        self.last_words: str | None = None
        self.words_at: float | None = None
        self.branch: str | None = None
        self.cwd: str | None = None
        self.awaiting = False  # the person wrote; no answer yet
        self.answers: list[Answer] = []  # found since last taken
        self.sends = SendLog()  # what its SendMessage calls wrote
        self.delivered = DeliveredLog()  # the entries handed to it (the lead's file; a
        # teammate's own frames where the session makes it `own`)
        self.calls: OrderedDict[str, Call] = OrderedDict()  # without a result yet, oldest first
        self.written: list[Written] = []  # its successful file writes, oldest first
        # its last assistant turn with a usage: model, prompt, timestamp (parsed when asked)
        self._turn: tuple[str, int, Any] | None = None
        self.rows = 0  # rows interpreted

    def feed(self, lines: list[bytes]) -> None:
        """Complete lines, in order. Only the rows that matter are parsed."""
        person = self.person is not None
        for line in lines:
            if b'"type":"assistant"' in line:
                row = _parse(line)
                if row is not None and row.get("type") == "assistant":
                    self._assistant(row)
                    if b'"SendMessage"' in line:
                        self.sends.assistant(row)
            elif b'"type":"user"' in line:
                asked = (person or self.delivered.own) and b"teammate-message" in line
                sent = b"msg_id" in line  # a send's result (in its text too, as \"msg_id\")
                result = bool(self.calls) and b'"tool_result"' in line
                row = _parse(line) if asked or sent or result else None
                if row is not None and row.get("type") == "user":
                    if asked:
                        if person:
                            self._user(row)
                        self.delivered.user(row)
                    if sent:
                        self.sends.user(row)
                    if result:
                        self._results(row)
        # The last row's time, whatever its kind (attachments, tool results, system rows).
        for line in reversed(lines[-16:]):
            if b'"timestamp":' in line:
                row = _parse(line)
                if row is not None and self._stamp(row.get("timestamp")):
                    break

    def _stamp(self, ts: Any) -> bool:
        t = epoch(ts)
        if t is None:
            return False
        if self.last_active is None or t > self.last_active:
            self.last_active = t
        return True

    def _place(self, row: dict[str, Any]) -> None:
        branch, cwd = row.get("gitBranch"), row.get("cwd")
        if isinstance(branch, str) and branch:
            self.branch = branch
        if isinstance(cwd, str) and cwd:
            self.cwd = cwd

    def _message(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """A row's message, counted with its time and place; None for a row without one."""
        msg = row.get("message")
        if not isinstance(msg, dict):
            return None
        self.rows += 1
        self._stamp(row.get("timestamp"))
        self._place(row)
        return msg

    def _assistant(self, row: dict[str, Any]) -> None:
        msg = self._message(row)
        if msg is None:
            return
        found = msg.get("model")
        model = found if isinstance(found, str) else "unknown"
        counts = usage_counts(msg.get("usage"))
        # Claude Code writes one row per content block of a message, each with the
        # message's usage: count a message once, with the largest figures it showed.
        key = msg.get("id") or row.get("requestId") or row.get("uuid")
        if isinstance(key, str) and key:
            seen = self._recent.get(key)
            if seen is not None:
                old_model, old = seen
                self.by_model.setdefault(old_model, Counts()).add(old, -1)
                counts = Counts(
                    *(
                        max(a, b)
                        for a, b in zip(attrs.astuple(old), attrs.astuple(counts), strict=True)
                    )
                )
            self._recent[key] = (model, counts)
            self._recent.move_to_end(key)
            while len(self._recent) > RECENT_IDS:
                self._recent.popitem(last=False)
        self.by_model.setdefault(model, Counts()).add(counts)
        prompt = counts.prompt()
        if prompt:  # Claude Code's own rows (`<synthetic>`) count none
            self._turn = (model, prompt, row.get("timestamp"))
        self._calls(row, msg)
        if row.get("isApiErrorMessage") or model == "<synthetic>":
            return  # "API Error: ..." shown by Claude Code itself: not the member's words
        text = content_text(msg.get("content")).strip()
        if not text:
            return
        self.last_words = text[:MAX_WORDS]
        self.words_at = epoch(row.get("timestamp"))
        uuid = row.get("uuid")
        if self.awaiting and row.get("isSidechain") is not True and isinstance(uuid, str):
            ts = row.get("timestamp")
            self.answers.append(Answer(uuid, ts if isinstance(ts, str) else "", text[:MAX_ANSWER]))
            self.awaiting = False

    def _user(self, row: dict[str, Any]) -> None:
        if row.get("isSidechain") is True:
            return
        msg = self._message(row)
        if msg is None:
            return
        for attributes, _ in teammate_messages(content_text(msg.get("content"))):
            if attributes.get("teammate_id") == self.person:
                self.awaiting = True

    def _calls(self, row: dict[str, Any], msg: dict[str, Any]) -> None:
        for b in _blocks(msg, "tool_use"):
            uid, name, inp = b.get("id"), b.get("name"), b.get("input")
            if isinstance(uid, str) and uid and isinstance(name, str):
                self.calls[uid] = Call(
                    uid, name, inp if isinstance(inp, dict) else {}, epoch(row.get("timestamp"))
                )
                self.calls.move_to_end(uid)
        while len(self.calls) > OPEN_CALLS:
            self.calls.popitem(last=False)

    def _results(self, row: dict[str, Any]) -> None:
        msg = row.get("message")
        for b in _blocks(msg, "tool_result") if isinstance(msg, dict) else []:
            uid = b.get("tool_use_id")
            call = self.calls.pop(uid, None) if isinstance(uid, str) else None
            if call is None or call.tool not in FILE_TOOLS or b.get("is_error") is True:
                continue
            w = written(call, epoch(row.get("timestamp")))
            if w is not None:
                self._wrote(w)

    def _wrote(self, w: Written) -> None:
        self.written.append(w)
        if len(self.written) > KEPT_CONTENT:  # only the newest keep their text
            old = self.written[-KEPT_CONTENT - 1]
            old.before = old.after = None
            old.kept = False
        del self.written[:-MAX_CHANGES]

    @property
    def turn(self) -> Turn | None:
        """Its last assistant turn with a usage: what its context held then."""
        if self._turn is None:
            return None
        model, prompt, ts = self._turn
        return Turn(model, prompt, epoch(ts))

    def step(self) -> Step | None:
        """The newest call without a result: what the member does now."""
        if not self.calls:
            return None
        return step_of(next(reversed(self.calls.values())))

    def take_answers(self) -> list[Answer]:
        out, self.answers = self.answers, []
        return out

    def tokens(self, prices: Mapping[str, Price] = PRICES) -> TokenUse:
        return token_use(self.by_model, prices)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        row = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None  # malformed: skipped
    return row if isinstance(row, dict) else None
