"""`python -m teaminbox.cli`, as `teaminbox`."""

import sys

from .run import main

sys.exit(main())
