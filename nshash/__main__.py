"""``python -m nshash``: the ``nshash`` command (see :mod:`nshash.cli`)."""

from __future__ import annotations

import sys

from nshash.cli import main

if __name__ == "__main__":
    sys.exit(main())
