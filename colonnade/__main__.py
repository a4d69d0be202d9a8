"""``python -m colonnade``: the command line. Python put the current directory first on
``sys.path`` for ``-m``; it is taken off before anything else is imported, so a file of
the directory a command runs in (an export received from someone else holding an
``orjson.py``) is never imported in place of a package (as ``python -P`` does)."""

import os
import sys

if sys.path and sys.path[0] in ("", os.getcwd()) and not sys.flags.safe_path:
    del sys.path[0]

from .cli import main  # noqa: E402

sys.exit(main())
