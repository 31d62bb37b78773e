"""``python -m cardenv``: the ``cardenv`` command."""

import sys

from cardenv.cli import main

sys.exit(main())
