"""Marks an inbox read as its consuming runner would (discard, every) until STOPFILE exists.

usage: python py_marker.py HOME TEAM INBOX STOPFILE
stdout: "MARKED <n>" per change, "FAIL <code>" per failure, then "DONE <rounds>".
"""

from __future__ import annotations

import os
import sys
import time

from teaminbox import marking
from teaminbox.discovery import Settings, default_roots, resolve_team, roster
from teaminbox.errors import TeamInboxError


def main() -> int:
    home, team, inbox, stop = sys.argv[1:5]
    settings = Settings(roots=default_roots({"HOME": home}))
    rounds = 0
    while not os.path.exists(stop):
        try:
            r = roster(resolve_team(settings.roots, team), settings)
            n = marking.set_read(r, r.resolve_inbox(inbox), [], every=True, discard=True)
        except TeamInboxError as err:
            print(f"FAIL {err.code} {err.message}", flush=True)
        else:
            if n:
                print(f"MARKED {n}", flush=True)
        rounds += 1
        time.sleep(0.02)
    print(f"DONE {rounds}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
