"""``cn.logging``: ``tf.compat.v1.logging`` over the ``colonnade`` logger.

Estimator scripts start with ``tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)``
to see the training log ("loss = ..., step = ..."). Here ``set_verbosity`` sets the level
of the ``colonnade`` logger, which the library logs to, and, when the program has not
configured logging itself (the root logger has no handler), gives it one handler on
stderr, as TF's logger has. The message functions log to the same logger, with
``%``-style arguments as TF's.

>>> import colonnade as cn
>>> cn.logging.set_verbosity(cn.logging.WARN)
>>> cn.logging.get_verbosity() == cn.logging.WARN
True
"""

from __future__ import annotations

import logging as _logging
import sys

__all__ = [
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "debug",
    "error",
    "fatal",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "warn",
    "warning",
]

DEBUG, INFO, WARN, ERROR, FATAL = (
    _logging.DEBUG,
    _logging.INFO,
    _logging.WARNING,
    _logging.ERROR,
    _logging.CRITICAL,
)

LOGGER = _logging.getLogger("colonnade")
_counts: dict = {}


def set_verbosity(level) -> None:
    """Log messages of ``level`` and above (``DEBUG``, ``INFO``, ``WARN``, ``ERROR``,
    ``FATAL``, or a level name); shown on stderr unless the program configured logging."""
    if isinstance(level, str):
        level = _logging.getLevelName(level.upper())
    if not isinstance(level, int):
        raise ValueError(f"set_verbosity takes a logging level, got {level!r}")
    LOGGER.setLevel(level)
    if not LOGGER.handlers and not _logging.getLogger().handlers:
        handler = _logging.StreamHandler(sys.stderr)
        handler.setFormatter(_logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
        LOGGER.addHandler(handler)


def get_verbosity() -> int:
    """The level set by :func:`set_verbosity` (the effective level of the logger)."""
    return LOGGER.getEffectiveLevel()


def log(level, msg, *args) -> None:
    """Log ``msg % args`` at ``level``."""
    LOGGER.log(level, msg, *args)


def debug(msg, *args) -> None:
    """Log at ``DEBUG``."""
    LOGGER.debug(msg, *args)


def info(msg, *args) -> None:
    """Log at ``INFO``."""
    LOGGER.info(msg, *args)


def warning(msg, *args) -> None:
    """Log at ``WARN``."""
    LOGGER.warning(msg, *args)


warn = warning


def error(msg, *args) -> None:
    """Log at ``ERROR``."""
    LOGGER.error(msg, *args)


def fatal(msg, *args) -> None:
    """Log at ``FATAL`` (TF's ``fatal`` logs; it does not exit)."""
    LOGGER.critical(msg, *args)


def log_if(level, msg, condition, *args) -> None:
    """Log ``msg % args`` at ``level`` when ``condition`` holds."""
    if condition:
        LOGGER.log(level, msg, *args)


def _call_site() -> tuple:
    frame = sys._getframe(2)
    return frame.f_code.co_filename, frame.f_lineno


def log_every_n(level, msg, n, *args) -> None:
    """Log on the 1st, (n+1)th, (2n+1)th... call from the same line of code."""
    if n < 1:
        raise ValueError(f"log_every_n needs n >= 1, got {n}")
    site = _call_site()
    count = _counts.get(site, 0)
    _counts[site] = count + 1
    log_if(level, msg, count % n == 0, *args)


def log_first_n(level, msg, n, *args) -> None:
    """Log the first ``n`` calls from the same line of code."""
    site = _call_site()
    count = _counts.get(site, 0)
    _counts[site] = count + 1
    log_if(level, msg, count < n, *args)
