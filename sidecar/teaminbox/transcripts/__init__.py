"""Claude Code's session transcripts, read only: the lead's answers to the person, and each
member's latest words, last activity, token use and context (its last turn's prompt).

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

from .files import NotFollowed, Tail, Transcript, open_regular, read_small
from .limits import (
    _ATTR,
    _SESSION_ID,
    _TEAMMATE_MESSAGE,
    FILE_TOOLS,
    KEPT_CONTENT,
    MAX_ANSWER,
    MAX_CHANGES,
    MAX_CONTENT,
    MAX_FILE,
    MAX_LINE,
    MAX_META,
    MAX_WORDS,
    OPEN_CALLS,
    PERSISTED_CHANGES,
    READ_CHUNK,
    RECENT_IDS,
    STEP_CHARS,
    WORKING_SECONDS,
)
from .paths import (
    default_claude_dir,
    find_lead_transcript,
    project_dir_name,
    read_meta,
    subagent_transcripts,
    valid_session_id,
)
from .pending import PENDING_TAIL, PendingCall, pending_calls
from .rows import (
    Answer,
    Call,
    Stats,
    Written,
    _blocks,
    _parse,
    _text,
    content_text,
    step_of,
    teammate_messages,
    written,
)
from .session import Session, TeamActivity, label_branch
from .tokens import (
    CONTEXT_WINDOWS,
    DEFAULT_PRICE,
    DEFAULT_WINDOW,
    PRICES,
    Counts,
    Price,
    _int,
    add_tokens,
    context_window,
    price,
    price_for,
    token_use,
    usage_counts,
)

__all__ = [
    "Answer",
    "CONTEXT_WINDOWS",
    "Call",
    "Counts",
    "DEFAULT_PRICE",
    "DEFAULT_WINDOW",
    "FILE_TOOLS",
    "KEPT_CONTENT",
    "MAX_ANSWER",
    "MAX_CHANGES",
    "MAX_CONTENT",
    "MAX_FILE",
    "MAX_LINE",
    "MAX_META",
    "MAX_WORDS",
    "NotFollowed",
    "OPEN_CALLS",
    "PENDING_TAIL",
    "PERSISTED_CHANGES",
    "PRICES",
    "PendingCall",
    "Price",
    "READ_CHUNK",
    "RECENT_IDS",
    "STEP_CHARS",
    "Session",
    "Stats",
    "Tail",
    "TeamActivity",
    "Transcript",
    "WORKING_SECONDS",
    "Written",
    "_ATTR",
    "_SESSION_ID",
    "_TEAMMATE_MESSAGE",
    "_blocks",
    "_int",
    "_parse",
    "_text",
    "add_tokens",
    "content_text",
    "context_window",
    "default_claude_dir",
    "find_lead_transcript",
    "label_branch",
    "open_regular",
    "pending_calls",
    "price",
    "price_for",
    "project_dir_name",
    "read_meta",
    "read_small",
    "step_of",
    "subagent_transcripts",
    "teammate_messages",
    "token_use",
    "usage_counts",
    "valid_session_id",
    "written",
]
