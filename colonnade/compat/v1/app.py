"""``cn.compat.v1.app``: TF 1's ``tf.app``: ``flags`` (:mod:`.flags`) and ``run``.

>>> from colonnade.compat.v1 import app
>>> app.flags is flags
True
"""

from __future__ import annotations

import sys

from . import flags

__all__ = ["flags", "run"]


def run(main=None, argv=None):
    """``tf.compat.v1.app.run``: parse ``argv`` (``sys.argv`` by default) into
    ``flags.FLAGS``, then exit with ``main(remaining_argv)`` (``main`` defaults to the
    ``__main__`` module's ``main``)."""
    main = main if main is not None else getattr(sys.modules["__main__"], "main", None)
    if main is None:
        raise ValueError("app.run needs main: pass it, or define main() in the script")
    remaining = flags.FLAGS(sys.argv if argv is None else argv)
    sys.exit(main(remaining))
