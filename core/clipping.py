"""Gradient clipping with TensorFlow's semantics, for dense arrays and IndexedRows.

Each function takes what optimizers take: a backend array, an :class:`IndexedRows`
(whose ``values`` are clipped; the rows stay sparse) or ``None``, which passes through.
"""

from __future__ import annotations

import math

import numpy as np

from . import ops
from .autodiff import Tensor, value_of
from .backend import get_xp
from .indexed_rows import IndexedRows


def _values(t):
    return t.values if isinstance(t, IndexedRows) else value_of(t)


def _rewrap(t, values):
    return t.with_values(values) if isinstance(t, IndexedRows) else values


def _check_clip_norm(clip_norm, shape=None):
    """``clip_norm`` as an array: a positive scalar, or (as TF allows) an array that
    broadcasts to ``shape`` without changing it."""
    value = value_of(clip_norm)
    if getattr(value, "ndim", 0) == 0:
        if not float(value) > 0:
            raise ValueError(f"clip_norm must be > 0, got {clip_norm}")
    elif shape is not None:
        _check_bound_shape("clip_norm", value, shape)
    return value


def _check_bound_shape(what: str, bound, shape) -> None:
    """TF: a clip bound is numbers that broadcast to the clipped value's shape and leave
    it unchanged."""
    if np.asarray(bound).dtype.kind not in "iufb":
        raise TypeError(f"{what} must be a number or an array of numbers, got {bound!r:.60}")
    bound_shape = tuple(getattr(bound, "shape", ()))
    try:
        ok = np.broadcast_shapes(tuple(shape), bound_shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"{what} of shape {bound_shape} does not broadcast to the clipped value's shape "
            f"{tuple(shape)} (it must be a scalar or have a shape that broadcasts to it)"
        )


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp every element of ``t`` into ``[clip_value_min, clip_value_max]``; the bounds
    are scalars or arrays that broadcast to ``t``'s shape (element-wise bounds, as TF).
    A :class:`Tensor` input gives a Tensor whose gradient is 1 inside the bounds, 0
    outside. ``name`` is accepted for TF compatibility.

    >>> import numpy as np
    >>> clip_by_value(np.array([1.0, 5.0, 9.0]), np.array([2.0, 0.0, 0.0]), 4.0).tolist()
    [2.0, 4.0, 4.0]
    """
    if t is None:
        return None
    low, high = value_of(clip_value_min), value_of(clip_value_max)
    shape = t.values.shape if isinstance(t, IndexedRows) else value_of(t).shape
    for what, bound in (("clip_value_min", low), ("clip_value_max", high)):
        _check_bound_shape(what, bound, shape)
    if getattr(low, "ndim", 0) == 0 and getattr(high, "ndim", 0) == 0 and low > high:
        raise ValueError(
            f"clip_value_min ({clip_value_min}) must not exceed clip_value_max ({clip_value_max})"
        )
    if isinstance(t, Tensor):
        return ops.minimum(ops.maximum(t, clip_value_min), clip_value_max)
    v = _values(t)
    xp = get_xp(v)
    clipped = xp.minimum(xp.maximum(v, low), high).astype(v.dtype, copy=False)
    return _rewrap(t, clipped)


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


def _clip_tensor_by_norm(t, clip_norm, axes):
    """TF's ``clip_by_norm`` on a recorded Tensor, built from differentiable ops; where
    the norm is 0 the square root is not taken, so the gradient there is 1, not NaN."""
    l2sum = ops.sum(t * t, axis=axes, keepdims=True)
    positive = value_of(l2sum) > 0
    safe = ops.where(positive, l2sum, Tensor(get_xp(positive).ones_like(value_of(l2sum))))
    l2norm = ops.where(positive, ops.sqrt(safe), l2sum)
    return t * clip_norm / ops.maximum(l2norm, clip_norm)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``: an L2 norm over ``axes`` (all by
    default; an int, or a list or tuple of them, as TF) of at most ``clip_norm``. For
    IndexedRows the norm is of its values; a :class:`Tensor` input gives a Tensor that
    gradients flow through (as TF's). ``name`` is accepted for TF compatibility.

    >>> import numpy as np
    >>> clip_by_norm(np.array([[3.0, 4.0], [0.3, 0.4]]), 1.0, axes=[1]).round(2).tolist()
    [[0.6, 0.8], [0.3, 0.4]]
    """
    if t is None:
        return None
    v = _values(t)
    clip_norm = _check_clip_norm(clip_norm, v.shape)
    axis = _axes(axes, v.ndim)
    if isinstance(t, Tensor):
        return _clip_tensor_by_norm(t, clip_norm, axis)
    xp = get_xp(v)
    norm = xp.sqrt(xp.sum(v * v, axis=axis, keepdims=True))
    clipped = v * clip_norm / xp.maximum(norm, clip_norm)
    return _rewrap(t, clipped.astype(v.dtype, copy=False))


def clip_by_average_norm(t, clip_norm, name=None):
    """``t * clip_norm / max(l2norm(t) / n, clip_norm)`` with ``n`` the number of
    elements: the average L2 norm is at most ``clip_norm``. ``name`` is accepted for TF
    compatibility."""
    if t is None:
        return None
    clip_norm = _check_clip_norm(clip_norm)
    v = _values(t)
    xp = get_xp(v)
    avg_norm = xp.sqrt(xp.sum(v * v)) / max(v.size, 1)
    clipped = v * clip_norm / xp.maximum(avg_norm, clip_norm)
    return _rewrap(t, clipped.astype(v.dtype, copy=False))


def _check_tensor_list(t_list) -> None:
    """TF's check: ``t_list`` is a list or tuple of tensors, not one tensor."""
    if not isinstance(t_list, (list, tuple)):
        raise TypeError(
            f"`t_list` should be a sequence of tensors. Received {type(t_list).__name__}; "
            "wrap a single tensor in a list"
        )


def global_norm(t_list, name=None) -> float:
    """``sqrt(sum of squared elements over every tensor in t_list)``; ``None`` skipped.
    ``name`` is accepted for TF compatibility."""
    _check_tensor_list(t_list)
    total = 0.0
    for t in t_list:
        if t is None:
            continue
        v = _values(t)
        total += float(get_xp(v).sum(v.astype("float64") ** 2))
    return math.sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(clipped_list, global_norm)``. ``None`` entries stay ``None``. If the
    global norm is inf or NaN every output is NaN, as TensorFlow does, so that the step
    is visibly broken rather than silently applied. ``name`` is accepted for TF
    compatibility.
    """
    _check_tensor_list(t_list)
    clip_norm = float(_check_clip_norm(clip_norm))
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


def check_numerics(x, message: str, name=None):
    """Return ``x`` unchanged, or raise ``FloatingPointError`` with ``message`` if it holds
    NaN or Inf (``tf.debugging.check_numerics``)."""
    v = _values(x)
    xp = get_xp(v)
    if bool(xp.any(xp.isnan(v))):
        raise FloatingPointError(f"{message} : Tensor had NaN values")
    if bool(xp.any(xp.isinf(v))):
        raise FloatingPointError(f"{message} : Tensor had Inf values")
    return x
