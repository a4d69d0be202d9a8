"""What a ``model_fn`` records while one call of it runs: its summaries
(``cn.summary.scalar``) and its regularization losses (``get_variable(...,
regularizer=...)``, ``dense(..., kernel_regularizer=...)``).

TF 1 put both in graph collections that the estimator read once. A ``model_fn`` runs
eagerly here, once per batch, so the estimator calls it inside :func:`recording`, and each
call's records are fresh. Outside a recording call nothing is recorded.

>>> with recording() as calls:
...     current().summaries["loss"] = ("scalar", 0.5)
>>> calls.summaries, current() is None
({'loss': ('scalar', 0.5)}, True)
"""

from __future__ import annotations

import contextlib
import threading
from dataclasses import dataclass, field

__all__ = ["CallRecord", "current", "recording"]

_local = threading.local()


@dataclass
class CallRecord:
    """One ``model_fn`` call's records: ``summaries`` (``{tag: (kind, value)}``) and
    ``regularization_losses`` (``{variable or layer name: loss Tensor}``)."""

    summaries: dict = field(default_factory=dict)
    regularization_losses: dict = field(default_factory=dict)


@contextlib.contextmanager
def recording():
    """Record what the code inside makes into the yielded :class:`CallRecord`."""
    stack = _local.__dict__.setdefault("stack", [])
    record = CallRecord()
    stack.append(record)
    try:
        yield record
    finally:
        stack.pop()


def current():
    """The innermost recording call's :class:`CallRecord`, or ``None``."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None
