"""Gradient clipping with TensorFlow's semantics, for dense arrays and IndexedRows.

Each function takes what optimizers take: a backend array, an :class:`IndexedRows`
(whose ``values`` are clipped; the rows stay sparse) or ``None``, which passes through.
"""

from __future__ import annotations

import math

from . import ops
from .autodiff import Tensor, value_of
from .backend import get_xp
from .indexed_rows import IndexedRows


def _values(t):
    return t.values if isinstance(t, IndexedRows) else value_of(t)


def _rewrap(t, values):
    return t.with_values(values) if isinstance(t, IndexedRows) else values


def _check_clip_norm(clip_norm):
    if not clip_norm > 0:
        raise ValueError(f"clip_norm must be > 0, got {clip_norm}")


def clip_by_value(t, clip_value_min, clip_value_max):
    """Clamp every element of ``t`` into ``[clip_value_min, clip_value_max]``."""
    if t is None:
        return None
    if isinstance(t, Tensor):
        return ops.minimum(ops.maximum(t, clip_value_min), clip_value_max)
    if clip_value_min > clip_value_max:
        raise ValueError(
            f"clip_value_min ({clip_value_min}) must not exceed clip_value_max ({clip_value_max})"
        )
    v = _values(t)
    return _rewrap(t, get_xp(v).clip(v, clip_value_min, clip_value_max))


def _axes(axes, ndim: int):
    """``axes`` as numpy takes them: None, or a tuple of ints in ``[-ndim, ndim)``."""
    if axes is None:
        return None
    axes = value_of(axes)
    flat = [axes] if isinstance(axes, int) else list(getattr(axes, "tolist", lambda: axes)())
    if not all(type(a) is int and -ndim <= a < ndim for a in flat):
        raise ValueError(
            f"axes must be ints in [{-ndim}, {ndim}) for a rank-{ndim} value; got {axes!r}"
        )
    return tuple(flat)


def clip_by_norm(t, clip_norm, axes=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``: an L2 norm over ``axes`` (all by
    default; an int, or a list or tuple of them, as TF) of at most ``clip_norm``. For
    IndexedRows the norm is of its values.

    >>> import numpy as np
    >>> clip_by_norm(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0, axes=[1]).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    if t is None:
        return None
    _check_clip_norm(clip_norm)
    v = _values(t)
    xp = get_xp(v)
    norm = xp.sqrt(xp.sum(v * v, axis=_axes(axes, v.ndim), keepdims=True))
    clipped = v * clip_norm / xp.maximum(norm, clip_norm)
    return _rewrap(t, clipped.astype(v.dtype, copy=False))


def clip_by_average_norm(t, clip_norm):
    """``t * clip_norm / max(l2norm(t) / n, clip_norm)`` with ``n`` the number of
    elements: the average L2 norm is at most ``clip_norm``."""
    if t is None:
        return None
    _check_clip_norm(clip_norm)
    v = _values(t)
    xp = get_xp(v)
    avg_norm = xp.sqrt(xp.sum(v * v)) / max(v.size, 1)
    clipped = v * clip_norm / xp.maximum(avg_norm, clip_norm)
    return _rewrap(t, clipped.astype(v.dtype, copy=False))


def global_norm(t_list) -> float:
    """``sqrt(sum of squared elements over every tensor in t_list)``; ``None`` skipped."""
    total = 0.0
    for t in t_list:
        if t is None:
            continue
        v = _values(t)
        total += float(get_xp(v).sum(v.astype("float64") ** 2))
    return math.sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None):
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(clipped_list, global_norm)``. ``None`` entries stay ``None``. If the
    global norm is inf or NaN every output is NaN, as TensorFlow does, so that the step
    is visibly broken rather than silently applied.
    """
    _check_clip_norm(clip_norm)
    t_list = list(t_list)
    norm = global_norm(t_list) if use_norm is None else float(value_of(use_norm))
    scale = clip_norm / max(norm, clip_norm) if math.isfinite(norm) else math.nan
    out = []
    for t in t_list:
        if t is None:
            out.append(None)
            continue
        v = _values(t)
        out.append(_rewrap(t, (v * scale).astype(v.dtype, copy=False)))
    return out, norm


def check_numerics(x, message: str):
    """Return ``x`` unchanged, or raise ``FloatingPointError`` with ``message`` if it holds
    NaN or Inf (``tf.debugging.check_numerics``)."""
    v = _values(x)
    xp = get_xp(v)
    if bool(xp.any(xp.isnan(v))):
        raise FloatingPointError(f"{message} : Tensor had NaN values")
    if bool(xp.any(xp.isinf(v))):
        raise FloatingPointError(f"{message} : Tensor had Inf values")
    return x
