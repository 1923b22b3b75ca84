"""``python -m flashpress``: the ``flashpress`` command."""

import sys

from flashpress.cli import main

sys.exit(main())
