"""No write follows a symbolic link inside a team: the check every write path makes first.

A team's folder comes from wherever the person keeps it, or from a cloned
repository, which can ship `.team/inbox/bob -> ~/.config/autostart`. So
before a write (send, mark read, discard, repair, compact, a task's status,
the `mkdir -p` of an inbox folder, a lock, a temp file) every path component
from the team's own folder down to the paths it will touch is lstat'ed, and
any symbolic link among them refuses the write, naming the link, before a
byte is written. Links whose target stays inside the team are refused too:
one rule, no resolving. The path TO the team's folder (`~/.claude` on
another disk, a workspace reached through a link) is not checked.

Check-then-write leaves a window: a process that can already write inside
the team folder could swap a folder for a link between this check and the
write. Links that sit there beforehand (a clone, a tool) are what this
stops; the files created at the end of the path never follow one anyway
(O_NOFOLLOW / O_EXCL opens, mkdir, rename onto the name). docs/security-links.md.

Imports only errors.py (which imports nothing at run time): the bottom layer.
"""

from __future__ import annotations

import os
import stat

from .errors import NotRegularFile


class SymlinkInTeam(NotRegularFile):
    """A symbolic link inside a team on a write path: nothing was written."""

    code = "symlink_in_team"


def _shown(text: str) -> str:
    """A path as one printable line (a hostile name may hold a newline)."""
    return text if text.isprintable() else repr(text)[1:-1]


def refused(link: str) -> SymlinkInTeam:
    try:
        target = f" to {_shown(os.readlink(link))}"
    except OSError:
        target = ""
    return SymlinkInTeam(
        f"{_shown(link)} is a symbolic link{target}: Team Inbox never writes through a link"
        " inside a team, so nothing was written; put the real folder or file in its place",
        path=link,
    )


def refuse_links(top: str, *paths: str) -> None:
    """Raise SymlinkInTeam if `top` or any component from it down to one of `paths` is a
    symbolic link. A component that does not exist yet ends that path's walk (nothing
    below it exists); `paths` must lie under `top`."""
    seen: set[str] = set()
    prefix = top.rstrip(os.sep) + os.sep
    for path in paths:
        if path.rstrip(os.sep) == prefix.rstrip(os.sep):
            below = []
        elif path.startswith(prefix):
            below = path[len(prefix) :].split(os.sep)
        else:
            raise ValueError(f"{path} is not under {top}")
        here = top
        for part in ["", *below]:
            if part in (os.curdir, os.pardir):
                raise ValueError(f"{path}: no . or .. below {top}")
            here = os.path.join(here, part) if part else here
            if here in seen:
                continue
            seen.add(here)
            try:
                st = os.lstat(here)
            except (FileNotFoundError, NotADirectoryError):
                break
            if stat.S_ISLNK(st.st_mode):
                raise refused(here)


def makedirs(top: str, folder: str) -> None:
    """`mkdir -p folder` (from `top`, the team's folder, down) through no link."""
    refuse_links(top, folder)
    os.makedirs(folder, exist_ok=True)


def open_new(path: str, mode: int = 0o666) -> int:
    """A write descriptor on a file created here and now: never an existing file, never
    through a link at `path` (a dangling one included)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(path, flags, mode)
    except FileExistsError:
        if os.path.islink(path):
            raise refused(path) from None
        raise
