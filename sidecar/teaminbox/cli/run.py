"""The `teaminbox` command's entry: parse, run the command, and every error as one line
and an exit status."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from ..errors import TeamInboxError, os_error_text
from .inputs import settings_from
from .output import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, say
from .parser import build_parser


def _drop_output() -> None:
    """stdout's reader has gone (`teaminbox teams | head -1`): whatever is left to print
    goes nowhere, so that neither this command nor the interpreter's exit complains."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real stdout (an embedding caller)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = settings_from(args)
        code: int = args.func(args, settings)
        if not sys.stdout.closed:  # `serve` hands stdout to the protocol, which closes it
            sys.stdout.flush()
    except BrokenPipeError:
        # Only printing is left once a command writes its output: the work is done.
        _drop_output()
        return EXIT_OK
    except TeamInboxError as err:
        say(f"teaminbox: {err.message}", err=True)
        return EXIT_ERROR
    except OSError as err:
        say(f"teaminbox: {os_error_text(err)}", err=True)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return code
