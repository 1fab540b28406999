"""The errors the sidecar reports, each with a stable code, and name checks."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Problem

MAX_NAME_BYTES = 255


class TeamInboxError(Exception):
    """A failure with a stable machine-readable `code` and a one-line message."""

    code = "error"

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class UnknownTeam(TeamInboxError):
    code = "unknown_team"


class AmbiguousTeam(TeamInboxError):
    code = "ambiguous_team"


class UnknownInbox(TeamInboxError):
    code = "unknown_inbox"


class UnknownRecipient(TeamInboxError):
    code = "unknown_recipient"


class CorruptInbox(TeamInboxError):
    code = "corrupt_inbox"


class InvalidName(TeamInboxError):
    code = "invalid_name"


class LockTimeout(TeamInboxError):
    code = "lock_timeout"


class LockLost(TeamInboxError):
    """Our lock was removed by someone else before we committed: nothing written."""

    code = "lock_lost"


class TooLarge(TeamInboxError):
    code = "too_large"


class NotOwned(TeamInboxError):
    code = "not_owned"


class WriteNotVerified(TeamInboxError):
    code = "write_not_verified"


class InvalidParams(TeamInboxError):
    code = "invalid_params"


class NotRegularFile(TeamInboxError):
    """A FIFO, directory, socket, device or symlink where a plain file belongs: never opened."""

    code = "not_regular_file"


def error_for(problem: Problem) -> TeamInboxError:
    """The exception for a problem recorded earlier (same code, same message)."""
    kinds = {cls.code: cls for cls in _subclasses(TeamInboxError)}
    err = kinds.get(problem.code, TeamInboxError)(problem.message, path=problem.path)
    err.code = problem.code
    return err


def _subclasses(cls: type[TeamInboxError]) -> list[type[TeamInboxError]]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


def check_name(name: object, what: str = "name") -> str:
    """Reject a name that could escape its folder, before any path is built."""
    if not isinstance(name, str) or not name:
        raise InvalidName(f"invalid {what}: must be a non-empty string")
    if "/" in name or "\\" in name or "\x00" in name or ".." in name or name == ".":
        raise InvalidName(f"invalid {what} {name!r}: '/', '\\', '..' and NUL are not allowed")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise InvalidName(f"invalid {what}: longer than {MAX_NAME_BYTES} bytes")
    return name


class UnknownMessage(TeamInboxError):
    """Ids that name no message in the inbox (taken before a peer's rewrite, or mistyped)."""

    code = "unknown_message"


class TeamEnded(TeamInboxError):
    """The team's folder is gone: its messages are archived and read-only."""

    code = "team_ended"


def os_error_text(err: OSError) -> str:
    """`PATH: reason`, without Python's `[Errno N]` (the CLI's and `serve`'s wording)."""
    reason = err.strerror or str(err)
    paths = [str(p) for p in (err.filename, err.filename2) if p is not None]
    return f"{' -> '.join(paths)}: {reason}" if paths else reason
