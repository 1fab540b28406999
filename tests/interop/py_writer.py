"""A writer process for the interop tests: sending.send in a loop.

usage: python py_writer.py HOME TEAM TO COUNT PREFIX [--sender NAME] [--slow-commit SECONDS]
stdout, flushed per message: "ACK <token> <message id>" once send returned,
or "FAIL <token> <code>". --slow-commit sleeps inside the lock just before the
commit, to widen the window a SIGKILL can land in while the lock is held.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

from teaminbox import sending
from teaminbox.discovery import Settings, default_roots, resolve_team, roster
from teaminbox.errors import TeamInboxError
from teaminbox.store import write


def main() -> int:
    p = argparse.ArgumentParser()
    for name in ("home", "team", "to", "count", "prefix"):
        p.add_argument(name)
    p.add_argument("--sender")
    p.add_argument("--slow-commit", type=float, default=0.0)
    args = p.parse_args()
    if args.slow_commit:
        real_commit = write.commit

        def slow_commit(*a: object, **kw: object) -> None:
            time.sleep(args.slow_commit)
            real_commit(*a, **kw)  # type: ignore[arg-type]

        write.commit = slow_commit  # type: ignore[assignment]
    settings = Settings(roots=default_roots({"HOME": args.home}))
    count = int(args.count)
    for i in range(count) if count >= 0 else itertools.count():
        token = f"{args.prefix}-{i}"
        try:
            r = roster(resolve_team(settings.roots, args.team), settings)
            [res] = sending.send(r, args.to, token, sender=args.sender)
        except TeamInboxError as err:
            print(f"FAIL {token} {err.code} {err.message}", flush=True)
            continue
        print(f"ACK {token} {res.message_id}", flush=True)
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
