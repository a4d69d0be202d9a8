"""Summaries a ``model_fn`` writes (``tf.summary.scalar`` / ``histogram``): collected while
the model is called, written to TensorBoard by the training loop.

In TF 1 a summary op joins a graph collection that the estimator's summary saver runs
every ``save_summary_steps``. Here the estimator calls the ``model_fn`` inside
:func:`~.model_calls.recording`; each ``scalar``/``histogram`` call records its value
under its tag, and the estimator writes the training step's values beside ``loss`` on the
same steps. Outside a recording call they record nothing (as TF 2's without a default
writer).

>>> from colonnade.core.model_calls import recording
>>> with recording() as call:
...     _ = scalar("accuracy", 0.75, family="train")
>>> call.summaries
{'train/accuracy': ('scalar', 0.75)}
"""

from __future__ import annotations

from .autodiff import value_of
from .model_calls import current

__all__ = ["Deferred", "histogram", "merge_all", "scalar", "summary_value"]


class Deferred:
    """A summary value computed only when a writer reads it: a per-step statistic (a
    layer's share of zeros) costs nothing on the steps no summary is written."""

    def __init__(self, compute):
        self.compute = compute


def summary_value(value):
    """The array a recorded summary ``value`` holds (a :class:`Deferred` computed now)."""
    return value_of(value.compute() if isinstance(value, Deferred) else value)


def _record(kind, name, value, family) -> bool:
    call = current()
    if call is None:
        return False
    if not isinstance(name, str) or not name:
        raise ValueError(f"a summary needs a non-empty name; got {name!r}")
    call.summaries[f"{family}/{name}" if family else name] = (kind, value)
    return True


def scalar(
    name, tensor=None, step=None, description=None, collections=None, family=None, data=None
):
    """Record a scalar under ``name`` (``family/name`` with TF 1's ``family``); TF 2's
    ``data`` may name the value. Returns whether it was recorded (TF 2's result)."""
    value = data if tensor is None else tensor
    if value is None:
        raise ValueError(f"summary {name!r} has no value: pass it as the second argument")
    return _record("scalar", name, value, family)


def histogram(
    name,
    values=None,
    step=None,
    buckets=None,
    description=None,
    collections=None,
    family=None,
    data=None,
):
    """Record the distribution of ``values`` under ``name`` (see :func:`scalar`)."""
    value = data if values is None else values
    if value is None:
        raise ValueError(f"summary {name!r} has no values: pass them as the second argument")
    return _record("histogram", name, value, family)


def merge_all(key=None, scope=None, name=None):
    """TF 1's ``merge_all``: nothing to merge here (summaries are written by the
    estimator on its summary steps), so ``None``, which hooks take as "all"."""
    return None
