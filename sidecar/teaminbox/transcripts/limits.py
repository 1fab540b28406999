"""What a transcript reader keeps and how far it reads: the bounds, the tools that write a file."""

from __future__ import annotations

import re

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
