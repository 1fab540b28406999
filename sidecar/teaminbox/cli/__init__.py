"""The `teaminbox` command: list teams, read, send, mark read, compact, repair, doctor,
tasks, and the JSON-RPC sidecar (`serve`), the MCP server, the hook and the demo.

Every error is one line on stderr (`teaminbox: ...`) and exit status 1; argparse's usage
errors are 2; a broadcast that reached only some recipients is 3. Output cut short by its
reader (`teaminbox teams | head -1`) ends the command quietly, as coreutils do.

The package, a file a job: `run.py` (`main`: the entry, errors as exit statuses),
`parser.py` (`build_parser`: every command's arguments), `inputs.py` (settings, roster,
history, a message's text), `output.py` (what is printed, the exit statuses), and the
commands by group, each a `cmd_<command>`: `inboxes.py` (teams, read, send, broadcast,
mark-read), `upkeep.py` (compact, repair, doctor), `tasks.py`, `services.py` (serve,
mcp, hook, demo).
"""

from __future__ import annotations

from .parser import build_parser
from .run import main

__all__ = ["build_parser", "main"]
