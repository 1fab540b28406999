"""What a command starts from besides its options: the settings (with TEAMINBOX_ROOTS), a
team's roster, the history database (read only for a command that only reads), and a
message's text (an argument, stdin or a file)."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..discovery import Roster, Settings, resolve_team, roster
from ..errors import InvalidParams, TeamInboxError, TooLarge, os_error_text
from ..history import History, NotAHistory, default_path
from ..sending import MAX_MESSAGE_BYTES
from ..termtext import visible


def settings_from(args: argparse.Namespace) -> Settings:
    extra = list(args.root or [])
    env_roots = os.environ.get("TEAMINBOX_ROOTS")
    if env_roots:
        extra += [r for r in env_roots.split(os.pathsep) if r]
    return Settings.build(extra, defaults=not args.no_default_roots, identity=args.identity)


def team_roster(settings: Settings, team: str) -> Roster:
    return roster(resolve_team(settings.roots, team), settings)


def open_history(args: argparse.Namespace) -> Any:
    path = getattr(args, "history", None)
    try:
        return History(path, strict=True)
    except (OSError, sqlite3.Error, NotAHistory) as err:
        reason = os_error_text(err) if isinstance(err, OSError) else str(err)
        raise TeamInboxError(
            f"cannot open the history database {path or default_path()}: {reason}"
        ) from None


def _cannot_read(args: argparse.Namespace, reason: str) -> None:
    path = getattr(args, "history", None) or default_path()
    print(
        visible(
            f"teaminbox: the history database {path} cannot be read ({reason}): ended teams"
            " and gaps are not shown"
        ),
        file=sys.stderr,
    )


@contextmanager
def read_history(args: argparse.Namespace) -> Iterator[History | None]:
    """The history read only, for a command that only reads (nothing written, nothing made;
    no file yet: an empty one). One that cannot be read is said once on stderr (None, or
    the read given up): the files are still shown."""
    try:
        history = History(getattr(args, "history", None), strict=True, read_only=True)
    except (OSError, sqlite3.Error, NotAHistory) as err:
        _cannot_read(args, os_error_text(err) if isinstance(err, OSError) else str(err))
        yield None
        return
    try:
        yield history
    except sqlite3.Error as err:  # damaged, or from before a table it reads
        _cannot_read(args, str(err))
    finally:
        history.close()


def text_arg(args: argparse.Namespace) -> str:
    if args.file:
        if args.text is not None:
            raise InvalidParams("give TEXT or --file, not both")
        return message_text(args.file)
    if args.text is None:
        if args.type or args.payload is not None:
            return ""  # a frame may be only its payload (PseudoClaude's often are)
        raise InvalidParams("no message text: give TEXT, '-' for stdin, or --file F")
    if args.text == "-":
        return message_text(None)
    return str(args.text)


def message_text(path: str | None) -> str:
    """The message in a file, or on stdin (None), as text mode would read it.

    Reads at most one byte past the size limit (`--file /dev/zero` never
    ends), says which byte is not UTF-8, and turns a missing or unreadable
    file into one line. Newlines: \r\n and \r become \n, as before.
    """
    name = path if path is not None else "stdin"
    try:
        if path is None:
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a replaced sys.stdin: already text
                raw = sys.stdin.read(MAX_MESSAGE_BYTES + 1).encode("utf-8", "surrogatepass")
            else:
                raw = stream.read(MAX_MESSAGE_BYTES + 1)
        else:
            with open(path, "rb") as f:
                raw = f.read(MAX_MESSAGE_BYTES + 1)
    except OSError as err:
        raise InvalidParams(f"cannot read {name}: {err.strerror or err}") from None
    if len(raw) > MAX_MESSAGE_BYTES:
        raise TooLarge(f"{name}: message is over the limit of {MAX_MESSAGE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidParams(f"{name} is not UTF-8 (byte {err.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
