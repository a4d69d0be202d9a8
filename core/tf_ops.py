"""TF's spellings of the array ops a hand-written ``model_fn`` calls: ``reduce_*``,
``ones_like``/``zeros_like`` and ``identity``, with TF's arguments, over :mod:`.ops`.

They take TF 1's ``keep_dims`` and ``reduction_indices`` as well as ``keepdims`` and
``axis``, and ``name`` (accepted, as an eager TF call ignores it).

>>> import numpy as np
>>> x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
>>> reduce_sum(x, axis=1).numpy().tolist(), reduce_mean(x).numpy().item()
([3.0, 7.0], 2.5)
>>> reduce_prod(x, 0, keepdims=True).numpy().tolist()
[[3.0, 8.0]]
"""

from __future__ import annotations

import numpy as np

from . import ops
from .autodiff import Tensor, as_tensor, make_node
from .backend import get_xp
from .tf_array_ops import as_tensor as tf_constant


def _axis_and_keepdims(axis, keepdims, keep_dims, reduction_indices):
    """TF 1's ``reduction_indices``/``keep_dims`` or TF 2's ``axis``/``keepdims``; both
    spellings of one argument is TF's ValueError."""
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("give axis or reduction_indices, not both")
        axis = reduction_indices
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("give keepdims or keep_dims, not both")
        keepdims = keep_dims
    if axis is not None and not isinstance(axis, int):
        axis = tuple(int(a) for a in np.atleast_1d(axis))
    return axis, bool(keepdims)


def _reducer(op, doc):
    def reduce(
        input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
    ) -> Tensor:
        axis, keepdims = _axis_and_keepdims(axis, keepdims, keep_dims, reduction_indices)
        return op(tf_constant(input_tensor), axis=axis, keepdims=keepdims)

    reduce.__doc__ = doc
    return reduce


reduce_sum = _reducer(ops.sum, "The sum over ``axis`` (all axes by default): ``tf.reduce_sum``.")


def _mean(x, axis=None, keepdims=False) -> Tensor:
    """The mean; of integers, TF's integer mean (the sum divided by the count, toward 0)."""
    x = as_tensor(x)
    value = x.value if hasattr(x.value, "dtype") else np.asarray(x.value)
    if value.dtype.kind not in "iu":
        return ops.mean(x, axis=axis, keepdims=keepdims)
    xp = get_xp(value)
    total = xp.sum(value, axis=_axes(axis, value.ndim), keepdims=keepdims, dtype=value.dtype)
    count = max(value.size // max(total.size, 1), 1) if value.size else 1
    return Tensor(xp.trunc(total / count).astype(value.dtype))


reduce_mean = _reducer(_mean, "The mean over ``axis``: ``tf.reduce_mean``.")
reduce_max = _reducer(ops.max, "The maximum over ``axis``: ``tf.reduce_max``.")
reduce_min = _reducer(ops.min, "The minimum over ``axis``: ``tf.reduce_min``.")


def _prod(x, axis=None, keepdims=False) -> Tensor:
    x = as_tensor(x)
    xp = get_xp(x.value)
    axes = _axes(axis, x.ndim)
    out = xp.prod(x.value, axis=axes, keepdims=keepdims)

    def backward(g, need):
        # d prod / d x_i is the product of the others: exclusive cumulative products from
        # both ends of the reduced axes (exact where x holds zeros, unlike prod / x).
        last = tuple(range(x.ndim - len(axes), x.ndim))
        moved = xp.moveaxis(x.value, axes, last)
        flat = moved.reshape(moved.shape[: x.ndim - len(axes)] + (-1,))
        after = xp.flip(_exclusive_cumprod(xp.flip(flat, -1), xp), -1)
        others = xp.moveaxis(
            (_exclusive_cumprod(flat, xp) * after).reshape(moved.shape), last, axes
        )
        return (others * g.reshape(_kept_shape(x.shape, axes)),)

    return make_node(out, (x,), backward)


def _axes(axis, ndim) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))


def _kept_shape(shape, axes) -> tuple:
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _exclusive_cumprod(a, xp):
    return xp.concatenate([xp.ones_like(a[..., :1]), xp.cumprod(a, axis=-1)[..., :-1]], axis=-1)


reduce_prod = _reducer(_prod, "The product over ``axis``: ``tf.reduce_prod``.")


def _logsumexp(x, axis=None, keepdims=False) -> Tensor:
    x = as_tensor(x)
    xp = get_xp(x.value)
    axes = _axes(axis, x.ndim)
    peak = xp.max(x.value, axis=axes, keepdims=True)  # a constant shift: same gradient
    peak = xp.where(xp.isfinite(peak), peak, 0)
    total = ops.add(
        ops.log(ops.sum(ops.exp(ops.subtract(x, peak)), axis=axes, keepdims=True)), peak
    )
    if keepdims:
        return total
    return ops.reshape(total, tuple(d for i, d in enumerate(x.shape) if i not in axes))


reduce_logsumexp = _reducer(
    _logsumexp, "``log(sum(exp(x)))`` over ``axis``, computed stably: ``tf.reduce_logsumexp``."
)


def _variance(x, axis=None, keepdims=False) -> Tensor:
    centered = ops.subtract(x, ops.mean(x, axis=axis, keepdims=True))
    return ops.mean(ops.square(centered), axis=axis, keepdims=keepdims)


reduce_variance = _reducer(
    _variance, "The population variance over ``axis``: ``tf.math.reduce_variance``."
)
reduce_std = _reducer(
    lambda x, axis=None, keepdims=False: ops.sqrt(_variance(x, axis=axis, keepdims=keepdims)),
    "The population standard deviation over ``axis``: ``tf.math.reduce_std``.",
)


def _boolean(np_name, doc):
    def reduce(
        input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
    ):
        axis, keepdims = _axis_and_keepdims(axis, keepdims, keep_dims, reduction_indices)
        value = as_tensor(input_tensor).value
        return getattr(get_xp(value), np_name)(value.astype(bool), axis=axis, keepdims=keepdims)

    reduce.__doc__ = doc
    return reduce


reduce_any = _boolean("any", "Logical or over ``axis`` (an array: not differentiable).")
reduce_all = _boolean("all", "Logical and over ``axis`` (an array: not differentiable).")


def identity(input, name=None) -> Tensor:  # noqa: A002 (TF's argument name)
    """``input`` as a Tensor (``tf.identity``); gradients pass through."""
    return as_tensor(input)


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    """An array of zeros of ``input``'s shape and dtype (or ``dtype``): a constant."""
    value = as_tensor(input).value
    return get_xp(value).zeros_like(value, dtype=dtype)


def ones_like(input, dtype=None, name=None):  # noqa: A002
    """An array of ones of ``input``'s shape and dtype (or ``dtype``): a constant."""
    value = as_tensor(input).value
    return get_xp(value).ones_like(value, dtype=dtype)
