"""Salvaging a corrupt inbox: its valid entries kept, its original bytes saved beside it."""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

from ..errors import CorruptInbox, WriteNotVerified
from ..fileio import (
    backup_path,
    check_no_links,
    open_regular,
    read_all,
    temp_path,
    write_temp,
)
from ..formats.base import InboxFormat
from ..locks import DEFAULT_TIMEOUT, drop_temp, track_temp, write_tracked_temp
from .commit import Changed, CommitReport, commit, file_id
from .snapshot import parse

# An object where an array element can start: a line's start (any indented layout), or
# after `[` or `,` (a file written on one line, as JSON.stringify without indent does).
_ENTRY_START = re.compile(r"(?:^|[\[,])[ \t\r\n]*\{", re.MULTILINE)


def _scan_objects(data: bytes) -> list[Any]:
    """Every JSON object that starts a line or follows `[` or `,` and decodes: what
    survives in a broken file (objects inside one already taken are skipped)."""
    text = data.decode("utf-8", errors="replace")
    decoder = json.JSONDecoder()
    found: list[Any] = []
    pos = 0
    for match in _ENTRY_START.finditer(text):
        start = match.end() - 1
        if start < pos:
            continue  # inside an object already taken
        try:
            value, pos = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):  # RecursionError: nested too deep to keep
            continue
        found.append(value)
    return found


def salvage(fmt: InboxFormat, path: str) -> tuple[int, int, str | None]:
    """Keep the valid entries of a broken inbox; the original bytes go to `.corrupt-<time>`.

    Returns (kept, dropped, backup path); a healthy file is left alone. A
    symlinked inbox is refused as on every write (its target could be any
    file, which the backup would copy). The backup and the new file keep the
    original's mode.
    """
    check_no_links(path)
    if not os.path.lexists(path):
        return 0, 0, None
    tmp = temp_path(path)
    track_temp(tmp)
    try:
        with fmt.lock(path, DEFAULT_TIMEOUT) as lock:
            fd = open_regular(path, follow=False)
            if fd is None:
                return 0, 0, None
            try:
                st = os.fstat(fd)
                data = read_all(fd, path, None, st.st_size)
            finally:
                os.close(fd)
            mode = stat.S_IMODE(st.st_mode) & 0o777
            try:
                snap = parse(fmt, path, data)
                if not snap.problems:
                    return len(snap.entries), 0, None
                bad = {p.index for p in snap.problems}
                good = [e for i, e in enumerate(snap.entries) if i not in bad]
                doc = snap.doc
                snap.entries[:] = good
                dropped = len(bad)
            except CorruptInbox:
                found = _scan_objects(data)
                good = [e for e in found if fmt.invalid(e) is None]
                dropped = len(found) - len(good)
                doc = fmt.empty()
                fmt.entries(doc).extend(good)
            backup = backup_path(path)
            write_temp(backup, data, mode)
            new = fmt.serialize(doc)
            report = CommitReport()
            try:
                commit(
                    lock,
                    path,
                    tmp,
                    write_tracked_temp(tmp, new, mode),
                    new,
                    base=file_id(st),
                    report=report,
                )
            except Changed:
                raise WriteNotVerified(
                    f"{path} changed during the repair; nothing was written: run it again",
                    path=path,
                ) from None
            if report.displaced is not None:
                write_temp(backup_path(path), report.displaced, mode)
            if not report.clean:
                raise WriteNotVerified(
                    f"{path}: another writer broke the lock during the repair; its version"
                    " is kept beside the inbox: run the repair again",
                    path=path,
                )
            return len(good), dropped, backup
    finally:
        drop_temp(tmp)
