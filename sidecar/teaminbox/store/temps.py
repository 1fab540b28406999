"""Our temp files that a killed writer left beside an inbox, found and removed.

A send killed mid-write leaves a full copy of the inbox at its temp name; the next write
to that inbox removes it once its writer is surely gone.
"""

from __future__ import annotations

import os
import stat
import time

from ..fileio import TEMP_NAME, unlink_quietly
from ..locks import tracked_temps

# A temp file this old whose writer is gone is garbage. Longer than any live write keeps
# one (the default lock timeout is 30 s), for writers in another pid namespace.
DEAD_TEMP_SECONDS = 60.0


def dead_temp_files(folder: str, min_age: float = DEAD_TEMP_SECONDS) -> list[str]:
    """Our kind of temp file (`.<inbox>.<pid>.<rand>.teaminbox-tmp`) whose writer is gone.

    Gone: its pid is not running, or was started after the file was last
    written (the pid was reused), or it is this process and the file is not
    one it is writing. Only files older than `min_age` count: a pid from
    another pid namespace (a container sharing the folder) looks dead here.
    """
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    now = time.time()
    out = []
    for name in names:
        m = TEMP_NAME.match(name)
        if m is None:
            continue
        path = os.path.join(folder, name)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode) or now - st.st_mtime < min_age:
            continue
        if not _writer_alive(int(m["pid"]), st.st_mtime, path):
            out.append(path)
    return sorted(out)


def _writer_alive(pid: int, written: float, path: str) -> bool:
    if pid == os.getpid():
        return path in tracked_temps()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process, alive
    except (OverflowError, ValueError):
        return False
    started = _process_start(pid)
    return started is None or started <= written + 1.0


_boot_time: float | None = None


def _process_start(pid: int) -> float | None:
    """When a process started (epoch seconds), from /proc; None where there is no /proc."""
    global _boot_time
    try:
        if _boot_time is None:
            with open("/proc/stat", "rb") as f:
                for line in f:
                    if line.startswith(b"btime "):
                        _boot_time = float(line.split()[1])
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None
    if _boot_time is None:
        return None
    return _boot_time + int(fields[19]) / ticks  # field 22, starttime


def remove_dead_temps(path: str) -> None:
    """Our own dead temp files for this inbox (a killed send leaves a full copy)."""
    base = os.path.basename(path)
    for dead in dead_temp_files(os.path.dirname(path)):
        m = TEMP_NAME.match(os.path.basename(dead))
        if m is not None and m["inbox"] == base:
            unlink_quietly(dead)
