"""Claude Code's session transcripts, read only: the lead's answers to the person, and each
member's latest words, last activity and token use.

Claude Code appends one JSON object a line to
`<claude dir>/projects/<lead cwd, every char outside [A-Za-z0-9] as '-'>/<session>.jsonl`
(the lead) and `<same folder>/<session>/subagents/agent-<id>.jsonl` (in-process teammates;
`agent-<id>.meta.json` beside each names the member). `<session>` is config.json's
`leadSessionId`. The files outlive the team folder and reach tens of MB.

Each file is followed from the byte offset last read; a last line without its newline
is not there yet, a line that does not parse is skipped, a line over MAX_LINE is skipped
without being buffered, and a file that is not a regular file is never opened (a FIFO
would block). Nothing here writes. What is kept: answers, what each `SendMessage` call
wrote (transcript_sends), timestamps and token counts (and each member's latest words, in
memory only).

A person's message to the lead is a `user` row holding
`<teammate-message teammate_id="user" ...>` (Claude Code 2.1.197 puts several such blocks
in one row; 2.1.332 adds `verified="false"` to the person's). The lead's next assistant
text is its answer.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import attrs
import orjson

from .model import Activity, FileChange, FileTool, Step, TokenUse, converter
from .request_text import detail, one_line
from .termtext import visible
from .timestamps import epoch
from .transcript_sends import SendLog, Sent

MAX_LINE = 8 * 1024 * 1024  # a longer line is skipped (never buffered whole)
MAX_FILE = 1024 * 1024 * 1024  # a transcript past this is not followed (a sparse file...)
READ_CHUNK = 256 * 1024
MAX_WORDS = 2000  # characters of a member's latest words
MAX_ANSWER = 1024 * 1024  # characters of an answer (a message's own limit)
MAX_META = 1024 * 1024
RECENT_IDS = 64  # message ids remembered to count a message's usage once
WORKING_SECONDS = 10.0
OPEN_CALLS = 64  # calls without a result kept a transcript (the oldest forgotten first)
STEP_CHARS = 120  # a step's one line
MAX_CHANGES = 200  # file changes kept a transcript (the oldest forgotten first)
KEPT_CONTENT = 20  # the newest changes of a transcript whose text is kept for a diff
MAX_CONTENT = 256 * 1024  # characters of a change's before or after text
PERSISTED_CHANGES = 200  # an ended team's changes kept in the history (without their text)
# the tools that write a file, and the field naming it
FILE_TOOLS: dict[str, str] = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
_SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_TEAMMATE_MESSAGE = re.compile(r"<teammate-message\b([^>]*)>\n?(.*?)\n?</teammate-message>", re.S)
_ATTR = re.compile(r'([A-Za-z_][\w-]*)="([^"]*)"')


# --- prices ------------------------------------------------------------------------------


@attrs.frozen
class Price:
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float  # 5-minute cache writes; 1-hour ones cost twice the input price


def price(input: float, output: float) -> Price:
    return Price(input, output, input / 10, input * 1.25)


# An estimate from the public list prices, by a part of the model id: the longest part
# found in the id wins; an unknown model is priced as Sonnet. Overridable per part
# (initializationOptions.tokenPrices). Long-context and batch prices are not modelled.
PRICES: dict[str, Price] = {
    "opus": price(5, 25),  # Opus 4.5 and later
    "claude-opus-4-0": price(15, 75),
    "claude-opus-4-1": price(15, 75),
    "claude-opus-4-2025": price(15, 75),  # claude-opus-4-20250514
    "claude-3-opus": price(15, 75),
    "sonnet": price(3, 15),
    "haiku": price(1, 5),  # Haiku 4.5
    "claude-3-5-haiku": price(0.8, 4),
    "claude-3-haiku": price(0.25, 1.25),
}
DEFAULT_PRICE = PRICES["sonnet"]


def price_for(model: str, table: Mapping[str, Price]) -> Price:
    name = model.lower()
    best = max((k for k in table if k.lower() in name), key=len, default=None)
    return table[best] if best is not None else DEFAULT_PRICE


@attrs.define
class Counts:
    """One model's tokens: input, output, cache reads, cache writes (5 min, 1 h)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int = 0  # part of cache_write

    def add(self, other: Counts, sign: int = 1) -> None:
        self.input += sign * other.input
        self.output += sign * other.output
        self.cache_read += sign * other.cache_read
        self.cache_write += sign * other.cache_write
        self.cache_write_1h += sign * other.cache_write_1h

    def cost(self, p: Price) -> float:
        five = self.cache_write - self.cache_write_1h
        return (
            self.input * p.input
            + self.output * p.output
            + self.cache_read * p.cache_read
            + five * p.cache_write
            + self.cache_write_1h * p.input * 2
        ) / 1e6


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_counts(usage: Any) -> Counts:
    if not isinstance(usage, dict):
        return Counts()
    creation = usage.get("cache_creation")
    one_hour = _int(creation.get("ephemeral_1h_input_tokens")) if isinstance(creation, dict) else 0
    write = _int(usage.get("cache_creation_input_tokens"))
    return Counts(
        _int(usage.get("input_tokens")),
        _int(usage.get("output_tokens")),
        _int(usage.get("cache_read_input_tokens")),
        write,
        min(one_hour, write),
    )


def token_use(by_model: Mapping[str, Counts], prices: Mapping[str, Price] = PRICES) -> TokenUse:
    total = TokenUse()
    for model, c in by_model.items():
        total.input += c.input
        total.output += c.output
        total.cache_read += c.cache_read
        total.cache_write += c.cache_write
        total.cost += c.cost(price_for(model, prices))
    total.cost = round(total.cost, 6)
    return total


def add_tokens(a: TokenUse, b: TokenUse) -> TokenUse:
    return TokenUse(
        a.input + b.input,
        a.output + b.output,
        a.cache_read + b.cache_read,
        a.cache_write + b.cache_write,
        round(a.cost + b.cost, 6),
    )


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
    if "<teammate-message" not in text:
        return []
    return [(dict(_ATTR.findall(m.group(1))), m.group(2)) for m in _TEAMMATE_MESSAGE.finditer(text)]


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
        self.calls: OrderedDict[str, Call] = OrderedDict()  # without a result yet, oldest first
        self.written: list[Written] = []  # its successful file writes, oldest first
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
                asked = person and b"teammate-message" in line
                sent = b"msg_id" in line  # a send's result (in its text too, as \"msg_id\")
                result = bool(self.calls) and b'"tool_result"' in line
                row = _parse(line) if asked or sent or result else None
                if row is not None and row.get("type") == "user":
                    if asked:
                        self._user(row)
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


# --- files -------------------------------------------------------------------------------


class NotFollowed(OSError):
    """A path that is not a regular file (FIFO, device, folder), or one too big to follow."""


def open_regular(path: str) -> int | None:
    """A read descriptor on a regular file, None when there is none; never blocks.

    stat first, so a FIFO or a device is never opened; then O_NONBLOCK and fstat, in
    case it was swapped in between. A symlink loop is an OSError (ELOOP).
    """
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if not stat.S_ISREG(st.st_mode):
        raise NotFollowed(errno.EINVAL, "not a regular file", path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotFollowed(errno.EINVAL, "not a regular file", path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_small(path: str, limit: int = MAX_META) -> bytes | None:
    fd = open_regular(path)
    if fd is None:
        return None
    try:
        data = os.read(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotFollowed(errno.EFBIG, "too large", path)
    return data


class Tail:
    """The complete lines appended to a file since the last read."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.offset = 0  # bytes consumed: complete lines, and skipped ones
        self.partial = b""  # an incomplete last line, from `offset`
        self.skipping = False  # inside a line over MAX_LINE: dropped up to its newline
        self.ident: tuple[int, int] | None = None
        self.seen: tuple[int, int, int] | None = None  # (ino, size, mtime) at the last read
        self.restarted = False  # replaced or truncated: the reader starts over

    @property
    def position(self) -> int:
        return self.offset + len(self.partial)

    def unchanged(self) -> bool:
        try:
            st = os.stat(self.path)
        except OSError:
            return self.seen is None
        return (st.st_ino, st.st_size, st.st_mtime_ns) == self.seen

    def read(self, budget: int) -> Iterator[list[bytes]]:
        """Batches of complete lines, up to about `budget` bytes; `restarted` is set
        before the first batch when the file was replaced or truncated."""
        fd = open_regular(self.path)
        if fd is None:
            return
        try:
            st = os.fstat(fd)
            ident = (st.st_dev, st.st_ino)
            if (self.ident is not None and ident != self.ident) or st.st_size < self.position:
                self.offset, self.partial, self.skipping = 0, b"", False
                self.restarted = True
            self.ident = ident
            if st.st_size > MAX_FILE:
                raise NotFollowed(errno.EFBIG, f"over {MAX_FILE} bytes", self.path)
            end = min(st.st_size, self.position + budget)
            pos = self.position
            while pos < end:
                chunk = os.pread(fd, min(READ_CHUNK, end - pos), pos)
                if not chunk:
                    break
                pos += len(chunk)
                lines = self._cut(chunk)
                if lines:
                    yield lines
            self.seen = (st.st_ino, pos, st.st_mtime_ns) if pos == st.st_size else None
        finally:
            os.close(fd)

    def _cut(self, chunk: bytes) -> list[bytes]:
        if self.skipping:
            nl = chunk.find(b"\n")
            if nl < 0:
                self.offset += len(chunk)
                return []
            self.offset += nl + 1
            chunk = chunk[nl + 1 :]
            self.skipping = False
        data = self.partial + chunk if self.partial else chunk
        last = data.rfind(b"\n")
        lines: list[bytes] = []
        if last < 0:
            self.partial = data
        else:
            lines = [ln for ln in data[:last].split(b"\n") if ln.strip() and len(ln) <= MAX_LINE]
            self.offset += last + 1
            self.partial = data[last + 1 :]
        if len(self.partial) > MAX_LINE:
            self.offset += len(self.partial)
            self.partial = b""
            self.skipping = True
        return lines

    def rest(self) -> bytes | None:
        """The incomplete last line when it parses whole (a session that ended without
        the newline), else None."""
        if self.skipping or not self.partial.strip():
            return None
        return self.partial if _parse(self.partial) is not None else None


class Transcript:
    """One transcript file followed: its tail and what its rows said."""

    def __init__(self, path: str, person: str | None = None) -> None:
        self.path = path
        self.person = person
        self.tail = Tail(path)
        self.stats = Stats(person)
        self.error: str | None = None

    def poll(self, budget: int) -> bool:
        """Read what was appended (at most about `budget` bytes); True when more is left."""
        if (self.error is not None or self.tail.seen is not None) and self.tail.unchanged():
            return False  # not a syscall more than a stat for a file that did not change
        try:
            for lines in self.tail.read(budget):
                self._restart()
                self.stats.feed(lines)
            self._restart()
            self.error = None
        except OSError as err:
            self.error = f"{self.path}: {err.strerror or err}"
            return False
        return self.tail.seen is None and self.tail.ident is not None

    def finish(self) -> None:
        """The session ended: take in a last line written without its newline."""
        rest = self.tail.rest()
        if rest is not None:
            self.stats.feed([rest])
            self.tail.offset += len(rest)
            self.tail.partial = b""

    def _restart(self) -> None:
        if self.tail.restarted:
            self.tail.restarted = False
            answers = self.stats.answers  # found already: kept (their ids are stable)
            sends = self.stats.sends.found
            self.stats = Stats(self.person)
            self.stats.answers = answers
            self.stats.sends.found = sends


# --- where a session's files are ----------------------------------------------------------


def project_dir_name(cwd: str) -> str:
    """Claude Code's folder for a project: every char outside [A-Za-z0-9] becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def valid_session_id(sid: Any) -> bool:
    """A session id safe as a file name (they are UUIDs); a config could say anything."""
    return isinstance(sid, str) and _SESSION_ID.fullmatch(sid) is not None


def default_claude_dir(env: Mapping[str, str] = os.environ) -> str:
    home = env.get("HOME") or os.path.expanduser("~")
    return env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")


def find_lead_transcript(
    projects_dirs: Iterable[str], cwd: str | None, session_id: str, search: bool = True
) -> str | None:
    """`<projects>/<cwd as a folder name>/<session>.jsonl`, else (`search`) the project
    folder that has `<session>.jsonl` (a long cwd's folder name is shortened by Claude Code)."""
    if not valid_session_id(session_id):
        return None
    name = session_id + ".jsonl"
    dirs = list(dict.fromkeys(projects_dirs))
    if cwd:
        for projects in dirs:
            path = os.path.join(projects, project_dir_name(cwd), name)
            if os.path.lexists(path):
                return path
    for projects in dirs if search else []:
        try:
            entries = os.listdir(projects)
        except OSError:
            continue
        for folder in entries:
            path = os.path.join(projects, folder, name)
            if os.path.lexists(path):
                return path
    return None


def subagent_transcripts(lead_path: str, session_id: str) -> list[str]:
    folder = os.path.join(os.path.dirname(lead_path), session_id, "subagents")
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return sorted(
        os.path.join(folder, n) for n in names if n.startswith("agent-") and n.endswith(".jsonl")
    )


def read_meta(transcript: str) -> dict[str, Any] | None:
    """`agent-<id>.meta.json` beside a teammate's transcript, None while it is not there."""
    try:
        data = read_small(transcript[: -len(".jsonl")] + ".meta.json")
    except OSError:
        return None
    if data is None:
        return None
    meta = _parse(data)
    return meta


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
    ) -> None:
        self.projects_dirs = projects_dirs
        self.session_id = session_id
        self.cwd = cwd
        self.lead = lead
        self.person = person
        self.team_names = {n for n in team_names if n}
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
            members[name] = Activity(
                last_active=last,
                last_words=words,
                tokens=tokens,
                working=last is not None and now - last < WORKING_SECONDS,
                doing=step_of(newest) if newest is not None else None,
                changed=len(mine),
            )
            placed = [t.stats for t in main.get(name, []) if t.stats.branch]
            if placed:
                branch = label_branch(max(placed, key=lambda s: s.last_active or 0.0).branch)
                if branch:
                    branches[name] = branch
        changes.sort(key=lambda c: c.time or 0.0, reverse=True)
        return TeamActivity(total, branches.get(lead), members, branches, changes, written)


# --- a call waiting for its result (a permission prompt, or a tool still running) ---------

PENDING_TAIL = 512 * 1024  # bytes of a transcript's end looked at for an unanswered call


@attrs.define
class PendingCall:
    """An assistant `tool_use` with no `tool_result` yet: agent text, shown as data."""

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    timestamp: float | None


def pending_calls(path: str, tail: int = PENDING_TAIL) -> list[PendingCall]:
    """The calls at the end of a transcript that have no result yet, oldest first.

    Only the last `tail` bytes are read: a call's result comes after it, so a call that is
    in them has its result in them too. Lines cut by the start of the window, and lines
    that do not parse, are skipped."""
    fd = open_regular(path)
    if fd is None:
        return []
    try:
        size = os.fstat(fd).st_size
        start = max(0, size - tail)
        data = os.pread(fd, size - start, start)
    finally:
        os.close(fd)
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first is cut
    calls: dict[str, PendingCall] = {}
    for line in lines:
        if b"tool_" not in line:
            continue
        row = _parse(line)
        msg = row.get("message") if row is not None else None
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list) or row is None:
            continue
        for b in content:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use" and row.get("type") == "assistant":
                uid, name, inp = b.get("id"), b.get("name"), b.get("input")
                if isinstance(uid, str) and uid and isinstance(name, str):
                    calls[uid] = PendingCall(
                        uid, name, inp if isinstance(inp, dict) else {}, epoch(row.get("timestamp"))
                    )
            elif b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str):
                calls.pop(b["tool_use_id"], None)
    return list(calls.values())
