"""The errors the sidecar reports, each with a stable code, and name checks."""

from __future__ import annotations

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


def check_name(name: object, what: str = "name") -> str:
    """Reject a name that could escape its folder, before any path is built."""
    if not isinstance(name, str) or not name:
        raise InvalidName(f"invalid {what}: must be a non-empty string")
    if "/" in name or "\\" in name or "\x00" in name or ".." in name or name == ".":
        raise InvalidName(f"invalid {what} {name!r}: '/', '\\', '..' and NUL are not allowed")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise InvalidName(f"invalid {what}: longer than {MAX_NAME_BYTES} bytes")
    return name
