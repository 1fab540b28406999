"""`initialize`: the options the client starts the sidecar with."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from ..errors import InvalidParams
from ..model import converter

NotifyMode = Literal["off", "replies", "messages", "all"]  # notify_policy.py says what each does


@attrs.define
class InitializationOptions:
    """`initializationOptions` of `initialize`."""

    roots: list[str] = attrs.Factory(list)  # PATH or FORMAT=PATH; workspace folders too
    default_roots: bool = True  # also ~/.claude/teams and ~/.PseudoClaude/teams
    identity: dict[str, str | None] | str | None = None  # who the person is: one, or by format
    history_path: str | None = None  # the SQLite archive (default: the user's data folder)
    history_days: float = 90  # days to keep archived messages and ended teams; 0: forever
    notify: NotifyMode = "replies"  # what fires teamInbox/replied (see below)
    notify_lead_traffic: bool = True  # at "messages" and "all": every teammate's text to the lead
    read_transcripts: bool = True  # Claude Code's transcripts: lead answers, activity, tokens
    # USD per million tokens by a part of the model id ("opus", "claude-opus-4-1"): the
    # longest part found in the id wins; merged over the built-in estimate (transcripts/tokens.py)
    token_prices: dict[str, TokenPrice] = attrs.Factory(dict)
    # a member with messages waiting unread longer than this while not working is stalled
    stall_minutes: float = 10


@attrs.define
class TokenPrice:
    """USD per million tokens for a model family: the transcripts' cost estimate."""

    input: float
    output: float
    cache_read: float | None = None  # default: a tenth of input
    cache_write: float | None = None  # default: 1.25 x input (5-minute cache writes)


def _identity(value: Any, _: Any) -> dict[str, str | None] | str | None:
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, dict):
        raise InvalidParams("identity must be a name or an object of names by format")
    result: dict[str, str | None] = converter.structure(value, dict[str, str | None])
    return result


converter.register_structure_hook_func(
    lambda t: t == (dict[str, str | None] | str | None), _identity
)
