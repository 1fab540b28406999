import sys

from . import codecache

codecache.install()  # before any attrs class is defined: the sidecar's start is mostly that

if sys.argv[1:] in (["serve"], ["serve", "--stdio"]):  # the extension's: no CLI to import
    from .server import serve_main  # noqa: E402

    sys.exit(serve_main())

from .cli import main  # noqa: E402

sys.exit(main())
