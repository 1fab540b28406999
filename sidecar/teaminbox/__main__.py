import gc
import sys

# The start allocates ~100,000 objects that all live (classes, functions, tables) and the
# collector would walk them again and again (~9% of a start's CPU): it waits until the
# server is built (server.serve, which hands them to gc.freeze).
gc.disable()

from . import codecache  # noqa: E402

codecache.install()  # before any attrs class is defined: the sidecar's start is mostly that

if sys.argv[1:] in (["serve"], ["serve", "--stdio"]):  # the extension's: no CLI to import
    from .server import serve_main  # noqa: E402

    sys.exit(serve_main())

gc.enable()
from .cli import main  # noqa: E402

sys.exit(main())
