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

import numpy as np

from .autodiff import value_of
from .model_calls import current

__all__ = ["Deferred", "histogram", "image", "image_uint8", "merge_all", "scalar", "summary_value"]


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


def image(
    name,
    tensor=None,
    max_outputs=3,
    collections=None,
    family=None,
    step=None,
    description=None,
    data=None,
):
    """Record up to ``max_outputs`` images of a ``[batch, height, width, channels]``
    tensor (1, 3 or 4 channels) under ``name/image/0``, ... (``name/image`` for one), as
    TF 1's ``tf.summary.image``: uint8 as it is; floats scaled by :func:`image_uint8`."""
    value = data if tensor is None else tensor
    if value is None:
        raise ValueError(f"summary {name!r} has no images: pass them as the second argument")
    images = value_of(value)
    shape = tuple(getattr(images, "shape", ()))
    if len(shape) != 4 or shape[-1] not in (1, 3, 4):
        raise ValueError(
            f"summary image {name!r} needs shape [batch, height, width, 1|3|4], got {shape}"
        )
    if int(max_outputs) < 1:
        raise ValueError(f"summary image {name!r}: max_outputs must be >= 1, got {max_outputs}")
    count = min(int(max_outputs), shape[0])
    if count == 1:
        return _record("image", f"{name}/image", images[:1], family)
    recorded = [
        _record("image", f"{name}/image/{i}", images[i : i + 1], family) for i in range(count)
    ]
    return all(recorded)


def image_uint8(images) -> np.ndarray:
    """TF 1's image summary encoding, one image at a time: uint8 kept; floats, when all are
    >= 0, scaled so the largest is 255; else shifted so 0 is 128 and scaled by 127 over
    the largest magnitude; then truncated to uint8 (TF 2.15's values, tested against it). A non-finite value
    counts as 0 (TF paints its pixel red)."""
    images = np.asarray(images)
    if images.dtype == np.uint8:
        return images
    values = np.where(np.isfinite(images), images, 0.0).astype(np.float64)
    axes = tuple(range(1, values.ndim))
    low, high = values.min(axis=axes, keepdims=True), values.max(axis=axes, keepdims=True)
    positive = low >= 0
    bound = np.maximum(np.abs(low), np.abs(high))
    scale = np.where(
        positive,
        np.divide(255.0, high, out=np.zeros_like(high), where=high > 0),
        np.divide(127.0, bound, out=np.zeros_like(bound), where=bound > 0),
    )
    offset = np.where(positive, 0.0, 128.0)
    return np.clip(np.trunc(values * scale + offset), 0, 255).astype(np.uint8)


def merge_all(key=None, scope=None, name=None):
    """TF 1's ``merge_all``: nothing to merge here (summaries are written by the
    estimator on its summary steps), so ``None``, which hooks take as "all"."""
    return None
