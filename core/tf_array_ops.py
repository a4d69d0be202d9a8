"""TF's shape and selection ops with TF's names, arguments and dtypes (``tf.concat``,
``tf.argmax``, ``tf.shape``, ``tf.one_hot``, ...), eager over :mod:`.ops`.

Ops that move values (concat, split, tile, transpose, squeeze, gather...) are
differentiable; ops that compute indices or shapes (argmax, shape, size, one_hot of
integer indices) give plain integer tensors, as their TF gradients are zero or undefined.
``name`` is accepted and unused, as an eager TF call ignores it.

>>> import numpy as np
>>> argmax(np.array([[1, 3], [4, 2]])).numpy().tolist()
[1, 0]
>>> [t.numpy().tolist() for t in split(np.arange(6), [1, 5])]
[[0], [1, 2, 3, 4, 5]]
>>> one_hot([0, 2, -1], 3).numpy().tolist()
[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

from . import ops
from .autodiff import Tensor, value_of
from .backend import get_xp


def as_tensor(value) -> Tensor:
    """``value`` as a Tensor, a Python number or list converted as TF converts it (a float
    is float32, an int int32); Tensors, Variables and arrays as they are."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (np.ndarray, np.generic)) or hasattr(value, "__array_namespace__"):
        return Tensor(value)
    return Tensor(_as_tf_constant(value))


def numpy_dtype(dtype) -> np.dtype:
    """TF's dtype spellings (``"float32"``, ``cn.int64``, a numpy dtype, an object with
    ``.name`` such as ``tf.float32``) as a numpy dtype; ``"string"`` is an object array's."""
    name = getattr(dtype, "name", dtype) if not isinstance(dtype, (str, np.dtype)) else dtype
    if name in ("string", str, bytes):
        return np.dtype(object)
    try:
        return np.dtype(name)
    except TypeError as e:
        raise TypeError(f"not a dtype TF names: {dtype!r}") from e


def _int_axis(axis, ndim: int, op: str) -> int:
    axis = int(value_of(axis))
    if not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"{op}: axis {axis} is out of range for a tensor of rank {ndim}")
    return axis % max(ndim, 1)


def _arg_reduce(reduce, op: str):
    def arg(input, axis=None, name=None, dimension=None, output_type="int64"):  # noqa: A002
        if dimension is not None:
            if axis is not None:
                raise ValueError(f"{op}: give axis or dimension, not both")
            axis = dimension
        x = as_tensor(input)
        if x.ndim == 0:
            raise ValueError(f"{op}: the input must have rank 1 or more, got a scalar")
        xp = get_xp(x.value)
        kept = _int_axis(0 if axis is None else axis, x.ndim, op)
        return Tensor(reduce(xp, x.value, kept).astype(numpy_dtype(output_type)))

    arg.__name__ = arg.__qualname__ = op
    arg.__doc__ = (
        f"``tf.{op}``: the index of the {'largest' if 'max' in op else 'smallest'} value along "
        "``axis`` (0 by default; the first one on ties), as ``output_type`` (int64)."
    )
    return arg


argmax = _arg_reduce(lambda xp, v, axis: xp.argmax(v, axis=axis), "argmax")
argmin = _arg_reduce(lambda xp, v, axis: xp.argmin(v, axis=axis), "argmin")


def concat(values, axis, name="concat") -> Tensor:
    """``tf.concat``: ``values`` joined along ``axis``; the other dimensions must agree."""
    values = [as_tensor(v) for v in (values if isinstance(values, (list, tuple)) else [values])]
    if not values:
        raise ValueError("concat: values must hold at least one tensor")
    return ops.concat(values, _int_axis(axis, values[0].ndim, "concat"))


def stack(values, axis=0, name="stack") -> Tensor:
    """``tf.stack``: equally shaped tensors stacked along a new ``axis``."""
    values = [as_tensor(v) for v in values]
    if not values:
        raise ValueError("stack: values must hold at least one tensor")
    shapes = {v.shape for v in values}
    if len(shapes) > 1:
        raise ValueError(f"stack: every tensor must have the same shape, got {sorted(shapes)}")
    return ops.stack(values, _int_axis(axis, values[0].ndim + 1, "stack"))


def unstack(value, num=None, axis=0, name="unstack") -> list:
    """``tf.unstack``: the slices of ``value`` along ``axis``, that axis removed."""
    x = as_tensor(value)
    axis = _int_axis(axis, x.ndim, "unstack")
    if num is not None and int(num) != x.shape[axis]:
        raise ValueError(f"unstack: num={num} but axis {axis} has size {x.shape[axis]}")
    index = (slice(None),) * axis
    return [ops.getitem(x, (*index, i)) for i in range(x.shape[axis])]


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list:
    """``tf.split``: ``value`` cut along ``axis`` into ``num_or_size_splits`` equal parts,
    or into parts of the sizes listed (one size may be -1: the rest)."""
    x = as_tensor(value)
    axis = _int_axis(axis, x.ndim, "split")
    length = x.shape[axis]
    sizes = np.asarray(value_of(num_or_size_splits))
    if sizes.ndim == 0:
        parts = int(sizes)
        if parts <= 0 or length % parts:
            raise ValueError(
                f"split: axis {axis} of size {length} does not split into {parts} equal parts"
            )
        sizes = np.full(parts, length // parts)
    else:
        sizes = sizes.astype(np.int64)
        if (sizes == -1).sum() > 1 or (sizes < -1).any():
            raise ValueError(f"split: sizes {sizes.tolist()} may hold one -1 and no other negative")
        if (sizes == -1).any():
            sizes[sizes == -1] = length - sizes[sizes != -1].sum()
        if sizes.sum() != length or (sizes < 0).any():
            raise ValueError(
                f"split: sizes {sizes.tolist()} do not add up to axis {axis}'s size {length}"
            )
    if num is not None and int(num) != len(sizes):
        raise ValueError(f"split: num={num} but there are {len(sizes)} parts")
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    lead = (slice(None),) * axis
    return [ops.getitem(x, (*lead, slice(int(a), int(b)))) for a, b in zip(bounds, bounds[1:])]


def tile(input, multiples, name=None) -> Tensor:  # noqa: A002
    """``tf.tile``: ``input`` repeated ``multiples[i]`` times along each axis ``i``."""
    x = as_tensor(input)
    multiples = [int(m) for m in np.asarray(value_of(multiples)).reshape(-1)]
    if len(multiples) != x.ndim or any(m < 0 for m in multiples):
        raise ValueError(
            f"tile: multiples must give one count >= 0 per axis of the rank-{x.ndim} input, "
            f"got {multiples}"
        )
    for axis, times in enumerate(multiples):
        if times != 1:
            lead = (slice(None),) * axis
            x = ops.concat([x] * times, axis) if times else ops.getitem(x, (*lead, slice(0, 0)))
    return x


def transpose(a, perm=None, name="transpose", conjugate=False) -> Tensor:
    """``tf.transpose``: the axes of ``a`` permuted by ``perm`` (reversed by default)."""
    x = as_tensor(a)
    if perm is not None:
        perm = [int(p) for p in np.asarray(value_of(perm)).reshape(-1)]
        if sorted(p % max(x.ndim, 1) for p in perm) != list(range(x.ndim)):
            raise ValueError(f"transpose: perm {perm} is not a permutation of {x.ndim} axes")
        perm = [p % x.ndim for p in perm]
    return ops.transpose(x, perm)


def squeeze(input, axis=None, name=None, squeeze_dims=None) -> Tensor:  # noqa: A002
    """``tf.squeeze``: ``input`` without its size-1 axes (or only those in ``axis``)."""
    if squeeze_dims is not None:
        if axis is not None:
            raise ValueError("squeeze: give axis or squeeze_dims, not both")
        axis = squeeze_dims
    x = as_tensor(input)
    if axis is None:
        return ops.reshape(x, tuple(d for d in x.shape if d != 1))
    axes = {_int_axis(a, x.ndim, "squeeze") for a in np.atleast_1d(value_of(axis))}
    for a in sorted(axes):
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1")
    return ops.reshape(x, tuple(d for i, d in enumerate(x.shape) if i not in axes))


def shape(input, name=None, out_type=None) -> Tensor:  # noqa: A002
    """``tf.shape``: the dimensions of ``input`` as a 1-D ``out_type`` (int32) tensor."""
    return Tensor(np.asarray(np.shape(value_of(input)), numpy_dtype(out_type or "int32")))


def size(input, name=None, out_type=None) -> Tensor:  # noqa: A002
    """``tf.size``: how many elements ``input`` holds, as an ``out_type`` (int32) scalar."""
    return Tensor(np.asarray(np.size(value_of(input)), numpy_dtype(out_type or "int32")))


def rank(input, name=None) -> Tensor:  # noqa: A002
    """``tf.rank``: how many axes ``input`` has, as an int32 scalar."""
    return Tensor(np.asarray(np.ndim(value_of(input)), np.int32))


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """``tf.one_hot``: ``on_value`` (1) at each index along a new axis of size ``depth``,
    ``off_value`` (0) elsewhere; an index outside ``[0, depth)`` gives a row of
    ``off_value``. The dtype is ``dtype``, else the on/off values', else float32."""
    ids = np.asarray(value_of(indices))
    if ids.dtype.kind not in "iu":
        raise TypeError(f"one_hot: indices must be integers, got dtype {ids.dtype}")
    depth = int(value_of(depth))
    if depth < 0:
        raise ValueError(f"one_hot: depth must be >= 0, got {depth}")
    given = [_as_tf_constant(value_of(v)) for v in (on_value, off_value) if v is not None]
    kind = numpy_dtype(dtype) if dtype is not None else (given[0].dtype if given else "float32")
    on = np.asarray(1 if on_value is None else value_of(on_value)).astype(kind)
    off = np.asarray(0 if off_value is None else value_of(off_value)).astype(kind)
    hot = ids[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(kind)
    if axis is not None and int(axis) != -1:
        out = np.moveaxis(out, -1, _int_axis(axis, out.ndim, "one_hot"))
    return Tensor(out)


def fill(dims, value, name=None, layout=None) -> Tensor:
    """``tf.fill``: a tensor of shape ``dims`` with every element ``value`` (its dtype)."""
    dims = tuple(int(d) for d in np.asarray(value_of(dims)).reshape(-1))
    if any(d < 0 for d in dims):
        raise ValueError(f"fill: dims must be >= 0, got {list(dims)}")
    fill_value = _as_tf_constant(value_of(value))
    return Tensor(np.full(dims, fill_value, dtype=fill_value.dtype))


def _as_tf_constant(value) -> np.ndarray:
    """``value`` as TF makes a constant of it: a Python float is float32, an int int32."""
    array = np.asarray(value)
    if not isinstance(value, np.ndarray) and not isinstance(value, np.generic):
        if array.dtype == np.float64:
            return array.astype(np.float32)
        if array.dtype == np.int64:
            return array.astype(np.int32)
    return array


def _filled(maker, op: str):
    def filled(shape, dtype="float32", name=None, layout=None) -> Tensor:
        dims = tuple(int(d) for d in np.asarray(value_of(shape)).reshape(-1))
        if any(d < 0 for d in dims):
            raise ValueError(f"{op}: shape must be >= 0, got {list(dims)}")
        return Tensor(maker(dims, dtype=numpy_dtype(dtype)))

    filled.__name__ = filled.__qualname__ = op
    filled.__doc__ = f"``tf.{op}``: a tensor of ``shape`` and ``dtype`` (float32), all {op}."
    return filled


ones = _filled(np.ones, "ones")
zeros = _filled(np.zeros, "zeros")


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """``tf.gather``: the slices of ``params`` along ``axis`` (0) picked by ``indices``; an
    index outside ``[0, params.shape[axis])`` is TF's error."""
    if int(batch_dims) != 0:
        raise ValueError(f"gather: batch_dims={batch_dims} is not supported; give 0")
    x = as_tensor(params)
    axis = _int_axis(0 if axis is None else axis, x.ndim, "gather")
    if axis == 0:
        return ops.gather(x, indices)
    order = [axis, *[i for i in range(x.ndim) if i != axis]]
    picked = ops.gather(ops.transpose(x, order), indices)
    ids_rank = np.ndim(value_of(indices))
    lead, rest = range(ids_rank, ids_rank + axis), range(ids_rank + axis, picked.ndim)
    back = [*lead, *range(ids_rank), *rest]
    return ops.transpose(picked, back)
