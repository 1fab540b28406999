import sys

from . import codecache

codecache.install()  # before any attrs class is defined: the sidecar's start is mostly that

from .cli import main  # noqa: E402

sys.exit(main())
