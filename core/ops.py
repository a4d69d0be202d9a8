"""Differentiable array ops: a small set of primitives with gradient rules, composites on top.

Each primitive computes its value eagerly and returns a :class:`Tensor` whose
``backward(g, need)`` closure, written next to the forward, maps the output gradient to
the inputs' gradients. Binary ops broadcast like numpy; their gradients go through the
one :func:`unbroadcast` helper. Inputs may be Tensors, Variables, backend arrays or Python
numbers (which keep the other operand's dtype).

>>> import colonnade as cn
>>> x = cn.core.Variable([[1.0, -2.0]])
>>> y = cn.core.relu(x) * 3.0 + 1.0
>>> y.numpy().tolist()
[[4.0, 1.0]]
"""

from __future__ import annotations

import builtins

import numpy as np

from .autodiff import Tensor, as_tensor, make_node, value_of
from .backend import get_xp, scatter_add, segment_sum_array, take_rows
from .indexed_rows import IndexedRows
from .threads import product

# ---------------------------------------------------------------- helpers


def unbroadcast(g, shape: tuple):
    """Sum ``g`` down to ``shape``: undo numpy broadcasting in a gradient."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    extra = g.ndim - len(shape)
    if extra > 0:
        g = g.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)


def _check_broadcast(op: str, a, b) -> None:
    sa, sb = a.shape, b.shape
    for da, db in zip(reversed(sa), reversed(sb)):
        if da != db and da != 1 and db != 1:
            raise ValueError(f"{op}: shapes {sa} and {sb} cannot be broadcast together")


def _binary(op: str, a, b):
    a, b = as_tensor(a), as_tensor(b)
    get_xp(a.value, b.value)  # refuses numpy/cupy mixes with a clear TypeError
    _check_broadcast(op, a, b)
    return a, b


# ---------------------------------------------------------------- elementwise arithmetic


def add(a, b) -> Tensor:
    """``a + b`` with broadcasting."""
    a, b = _binary("add", a, b)
    return make_node(
        a.value + b.value,
        (a, b),
        lambda g, need: (
            unbroadcast(g, a.shape) if need[0] else None,
            unbroadcast(g, b.shape) if need[1] else None,
        ),
    )


def subtract(a, b) -> Tensor:
    """``a - b`` with broadcasting."""
    a, b = _binary("subtract", a, b)
    return make_node(
        a.value - b.value,
        (a, b),
        lambda g, need: (
            unbroadcast(g, a.shape) if need[0] else None,
            unbroadcast(-g, b.shape) if need[1] else None,
        ),
    )


def multiply(a, b) -> Tensor:
    """``a * b`` with broadcasting."""
    a, b = _binary("multiply", a, b)
    return make_node(
        a.value * b.value,
        (a, b),
        lambda g, need: (
            unbroadcast(g * b.value, a.shape) if need[0] else None,
            unbroadcast(g * a.value, b.shape) if need[1] else None,
        ),
    )


def divide(a, b) -> Tensor:
    """``a / b`` with broadcasting."""
    a, b = _binary("divide", a, b)
    out = a.value / b.value
    return make_node(
        out,
        (a, b),
        lambda g, need: (
            unbroadcast(g / b.value, a.shape) if need[0] else None,
            unbroadcast(-g * out / b.value, b.shape) if need[1] else None,
        ),
    )


def negative(a) -> Tensor:
    """``-a``."""
    a = as_tensor(a)
    return make_node(-a.value, (a,), lambda g, need: (-g,))


def power(a, b) -> Tensor:
    """``a ** b``; the gradient with respect to ``b`` uses ``log(a)`` (defined for a > 0)."""
    a, b = _binary("power", a, b)
    xp = get_xp(a.value, b.value)
    out = a.value**b.value

    def backward(g, need):
        ga = gb = None
        if need[0]:
            ga = unbroadcast(g * b.value * a.value ** (b.value - 1), a.shape)
        if need[1]:
            safe = xp.where(a.value > 0, a.value, 1)
            gb = unbroadcast(g * out * xp.log(safe), b.shape)
        return ga, gb

    return make_node(out, (a, b), backward)


def _unary(fn, grad_fn):
    """A primitive elementwise op from its forward and ``grad_fn(x, out, g)``."""

    def op(x) -> Tensor:
        x = as_tensor(x)
        xp = get_xp(x.value)
        out = fn(xp, x.value)
        return make_node(out, (x,), lambda g, need: (grad_fn(xp, x.value, out, g),))

    return op


exp = _unary(lambda xp, x: xp.exp(x), lambda xp, x, out, g: g * out)
exp.__doc__ = "``e ** x``."
log = _unary(lambda xp, x: xp.log(x), lambda xp, x, out, g: g / x)
log.__doc__ = "Natural logarithm."
log1p = _unary(lambda xp, x: xp.log1p(x), lambda xp, x, out, g: g / (1 + x))
log1p.__doc__ = "``log(1 + x)``, accurate for small x."
sqrt = _unary(lambda xp, x: xp.sqrt(x), lambda xp, x, out, g: g * 0.5 / out)
sqrt.__doc__ = "Square root."
abs = _unary(lambda xp, x: xp.abs(x), lambda xp, x, out, g: g * xp.sign(x))
abs.__doc__ = "``|x|``; the gradient at 0 is 0, as TensorFlow's."
tanh = _unary(lambda xp, x: xp.tanh(x), lambda xp, x, out, g: g * (1 - out * out))
tanh.__doc__ = "Hyperbolic tangent."
relu = _unary(lambda xp, x: xp.maximum(x, 0), lambda xp, x, out, g: g * (x > 0))
relu.__doc__ = "``max(x, 0)``."


def _stable_sigmoid(xp, x):
    # exp of a non-positive number never overflows: stable for logits of any size.
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


sigmoid = _unary(_stable_sigmoid, lambda xp, x, out, g: g * out * (1 - out))
sigmoid.__doc__ = "``1 / (1 + exp(-x))``, computed without overflow for large |x|."
softplus = _unary(
    lambda xp, x: xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x))),
    lambda xp, x, out, g: g * _stable_sigmoid(xp, x),
)
softplus.__doc__ = "``log(1 + exp(x))``, computed without overflow for large |x|."


def square(x) -> Tensor:
    """``x * x``."""
    x = as_tensor(x)
    return make_node(x.value * x.value, (x,), lambda g, need: (2 * g * x.value,))


def _pick(name, a, b, a_wins) -> Tensor:
    """``xp.<name>(a, b)`` (maximum or minimum); the gradient goes to ``a`` where
    ``a_wins(a, b)``, to ``b`` elsewhere."""
    a, b = _binary(name, a, b)
    xp = get_xp(a.value, b.value)
    mask = a_wins(a.value, b.value)
    return make_node(
        getattr(xp, name)(a.value, b.value),
        (a, b),
        lambda g, need: (
            unbroadcast(g * mask, a.shape) if need[0] else None,
            unbroadcast(g * ~mask, b.shape) if need[1] else None,
        ),
    )


def maximum(a, b) -> Tensor:
    """Elementwise max; where ``a == b`` the gradient goes to ``a`` (as TensorFlow)."""
    return _pick("maximum", a, b, lambda x, y: x >= y)


def minimum(a, b) -> Tensor:
    """Elementwise min; where ``a == b`` the gradient goes to ``a`` (as TensorFlow)."""
    return _pick("minimum", a, b, lambda x, y: x <= y)


def where(condition, x, y) -> Tensor:
    """``x`` where ``condition`` holds, else ``y`` (broadcasting; condition is not
    differentiated)."""
    cond = value_of(condition)
    x, y = _binary("where", x, y)
    xp = get_xp(cond, x.value, y.value)
    cond = xp.asarray(cond, dtype=bool)
    return make_node(
        xp.where(cond, x.value, y.value),
        (x, y),
        lambda g, need: (
            unbroadcast(xp.where(cond, g, 0), x.shape) if need[0] else None,
            unbroadcast(xp.where(cond, 0, g), y.shape) if need[1] else None,
        ),
    )


def cast(x, dtype) -> Tensor:
    """``x`` converted to ``dtype``; the gradient is converted back."""
    x = as_tensor(x)
    xp = get_xp(x.value)
    src = getattr(x.value, "dtype", None)
    return make_node(
        xp.asarray(x.value).astype(dtype),
        (x,),
        lambda g, need: (g.astype(src) if src is not None else g,),
    )


# ---------------------------------------------------------------- linear algebra, reductions


def matmul(a, b) -> Tensor:
    """Matrix product ``a @ b`` (2-D, or batched with numpy's rules)."""
    a, b = as_tensor(a), as_tensor(b)
    xp = get_xp(a.value, b.value)
    if a.ndim < 1 or b.ndim < 1 or a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} are not aligned")

    def backward(g, need):
        av, bv = a.value, b.value
        if av.ndim == 2 and bv.ndim == 2:
            return (product(g, bv.T) if need[0] else None, product(av.T, g) if need[1] else None)
        a2 = av[None, :] if av.ndim == 1 else av
        b2 = bv[:, None] if bv.ndim == 1 else bv
        g2 = g
        if av.ndim == 1:
            g2 = xp.expand_dims(g2, -2)
        if bv.ndim == 1:
            g2 = xp.expand_dims(g2, -1)
        ga = gb = None
        if need[0]:
            ga = unbroadcast(g2 @ xp.swapaxes(b2, -1, -2), a2.shape).reshape(av.shape)
        if need[1]:
            gb = unbroadcast(xp.swapaxes(a2, -1, -2) @ g2, b2.shape).reshape(bv.shape)
        return ga, gb

    return make_node(product(a.value, b.value), (a, b), backward)


def reduction_axes(axis, ndim) -> tuple:
    """The axes a reduction over ``axis`` removes, as non-negative ints: every axis for
    ``None``, else ``axis`` (an int or a sequence; negatives count from the end)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(a % ndim for a in axes)


def _reduced(x, axis):
    """``(x as a Tensor, its array module, the reduced axes)``: where a reduction starts."""
    x = as_tensor(x)
    return x, get_xp(x.value), reduction_axes(axis, x.ndim)


def _expand_reduced(g, shape, axes):
    """Broadcastable form of a reduced gradient: reinsert the reduced axes as size 1."""
    kept = [1 if i in axes else n for i, n in enumerate(shape)]
    return g.reshape(kept)


def sum(x, axis=None, keepdims=False) -> Tensor:
    """Sum over ``axis`` (all axes by default)."""
    x, xp, axes = _reduced(x, axis)
    out = xp.sum(x.value, axis=axes, keepdims=keepdims)
    return make_node(
        out,
        (x,),
        lambda g, need: (xp.broadcast_to(_expand_reduced(g, x.shape, axes), x.shape),),
    )


def mean(x, axis=None, keepdims=False) -> Tensor:
    """Mean over ``axis`` (all axes by default)."""
    x = as_tensor(x)
    axes = reduction_axes(axis, x.ndim)
    count = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    return multiply(sum(x, axis=axes, keepdims=keepdims), 1.0 / builtins.max(count, 1))


def max(x, axis=None, keepdims=False) -> Tensor:
    """Maximum over ``axis``; tied maxima share the gradient equally, as TensorFlow."""
    x, xp, axes = _reduced(x, axis)
    out = xp.max(x.value, axis=axes, keepdims=keepdims)

    def backward(g, need):
        mask = x.value == _expand_reduced(out, x.shape, axes)
        count = mask.sum(axis=axes, keepdims=True)
        return (mask * (_expand_reduced(g, x.shape, axes) / count),)

    return make_node(out, (x,), backward)


def min(x, axis=None, keepdims=False) -> Tensor:
    """Minimum over ``axis``."""
    return negative(max(negative(x), axis=axis, keepdims=keepdims))


def prod(x, axis=None, keepdims=False) -> Tensor:
    """Product over ``axis`` (all axes by default)."""
    x, xp, axes = _reduced(x, axis)
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
        return (others * _expand_reduced(g, x.shape, axes),)

    return make_node(out, (x,), backward)


def _exclusive_cumprod(a, xp):
    return xp.concatenate([xp.ones_like(a[..., :1]), xp.cumprod(a, axis=-1)[..., :-1]], axis=-1)


# ---------------------------------------------------------------- shapes


def reshape(x, shape) -> Tensor:
    """``x`` with a new shape of the same size (one dimension may be -1)."""
    x = as_tensor(x)
    try:
        out = x.value.reshape(shape)
    except ValueError as e:
        raise ValueError(f"reshape: cannot reshape shape {x.shape} into {tuple(shape)}") from e
    return make_node(out, (x,), lambda g, need: (g.reshape(x.shape),))


def transpose(x, axes=None) -> Tensor:
    """Permute the axes (reverse them by default)."""
    x = as_tensor(x)
    xp = get_xp(x.value)
    axes = tuple(range(x.ndim))[::-1] if axes is None else tuple(axes)
    inverse = tuple(np.argsort(axes))
    return make_node(xp.transpose(x.value, axes), (x,), lambda g, need: (xp.transpose(g, inverse),))


def expand_dims(x, axis: int) -> Tensor:
    """Insert a size-1 axis at ``axis``."""
    x = as_tensor(x)
    xp = get_xp(x.value)
    return reshape(x, xp.expand_dims(xp.empty(x.shape, dtype=bool), axis).shape)


def concat(values, axis: int = -1) -> Tensor:
    """Join tensors along ``axis``; the other dimensions must agree."""
    values = [as_tensor(v) for v in values]
    if not values:
        raise ValueError("concat needs at least one tensor")
    xp = get_xp(*[v.value for v in values])
    ndim = values[0].ndim
    axis = axis % ndim
    for v in values[1:]:
        if v.ndim != ndim or any(
            v.shape[i] != values[0].shape[i] for i in range(ndim) if i != axis
        ):
            raise ValueError(
                f"concat along axis {axis}: shapes {[t.shape for t in values]} do not agree"
            )
    sizes = np.cumsum([v.shape[axis] for v in values])[:-1]

    def backward(g, need):
        return tuple(xp.split(g, [int(s) for s in sizes], axis=axis))

    return make_node(xp.concatenate([v.value for v in values], axis=axis), values, backward)


def stack(values, axis: int = 0) -> Tensor:
    """Stack equally shaped tensors along a new ``axis``."""
    return concat([expand_dims(v, axis) for v in values], axis=axis)


def getitem(x, index) -> Tensor:
    """``x[index]`` with numpy indexing (slices, integer and boolean arrays)."""
    x = as_tensor(x)
    xp = get_xp(x.value)
    index = tuple(value_of(i) for i in index) if isinstance(index, tuple) else value_of(index)

    def backward(g, need):
        out = xp.zeros(x.shape, dtype=g.dtype)
        scatter_add(out, index, g)
        return (out,)

    return make_node(x.value[index], (x,), backward)


# ---------------------------------------------------------------- sparse: gathers and segments


def gather(params, indices, groups=None, in_bounds: bool = False) -> Tensor:
    """Rows of ``params`` picked by integer ``indices`` (an embedding lookup).

    The output has shape ``indices.shape + params.shape[1:]``. The gradient with respect
    to ``params`` is :class:`IndexedRows`: it costs what was gathered, not the table size.
    ``groups``, the indices' :func:`~colonnade.core.indexed_rows.group_rows` if computed
    ahead, spares the optimizer that work; ``in_bounds=True`` says the caller already
    checked that the indices lie in ``[0, len(params))`` (where they were made, maybe on
    another thread), sparing the check.
    """
    params = as_tensor(params)
    ids = value_of(indices)
    xp = get_xp(params.value, ids)
    ids = xp.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"gather indices must be integers, got dtype {ids.dtype}")
    if not in_bounds and ids.size and (int(ids.min()) < 0 or int(ids.max()) >= params.shape[0]):
        raise IndexError(
            f"gather: ids must lie in [0, {params.shape[0]}) for a table of shape "
            f"{params.shape}; got ids from {int(ids.min())} to {int(ids.max())}"
        )
    out = take_rows(params.value, ids)
    row_shape = params.shape[1:]

    def backward(g, need):
        values = g.reshape((-1,) + row_shape)
        return (IndexedRows(ids.reshape(-1), values, params.shape, groups),)

    return make_node(out, (params,), backward)


def segment_sum(data, segment_ids, num_segments: int, weights=None) -> Tensor:
    """``out[s] = sum of weights[i] * data[i] over i with segment_ids[i] == s``.

    ``data`` has shape ``(n, ...)``; ``segment_ids`` are n integers in
    ``[0, num_segments)`` (need not be sorted); ``weights`` (optional, n values) scale each
    row. Segments that receive nothing are zero. This is the ``sum`` combiner of a
    multivalent categorical feature: ids of example ``s`` carry segment id ``s``.
    """
    data = as_tensor(data)
    seg = value_of(segment_ids)
    xp = get_xp(data.value, seg)
    seg = xp.asarray(seg).reshape(-1)
    if seg.shape[0] != data.shape[0]:
        raise ValueError(
            f"segment_sum: {seg.shape[0]} segment ids for data with {data.shape[0]} rows"
        )
    if seg.size and (int(seg.min()) < 0 or int(seg.max()) >= num_segments):
        raise IndexError(f"segment ids must lie in [0, {num_segments})")
    if weights is None:
        return make_node(
            segment_sum_array(data.value, seg, num_segments),
            (data,),
            lambda g, need: (xp.take(g, seg, axis=0),),
        )
    w = as_tensor(weights)
    if w.shape != (data.shape[0],):
        raise ValueError(
            f"segment_sum: weights of shape {w.shape} do not match data with {data.shape[0]} rows"
        )
    wcol = w.value.reshape((-1,) + (1,) * (data.ndim - 1))

    def backward(g, need):
        rows = xp.take(g, seg, axis=0)
        gd = rows * wcol if need[0] else None
        gw = (rows * data.value).reshape(data.shape[0], -1).sum(axis=1) if need[1] else None
        return gd, gw

    return make_node(segment_sum_array(data.value * wcol, seg, num_segments), (data, w), backward)


def div_no_nan(a, b) -> Tensor:
    """``a / b``, with 0 wherever ``b`` is 0 (and no gradient there)."""
    a, b = as_tensor(a), as_tensor(b)
    xp = get_xp(a.value, b.value)
    zero = b.value == 0
    safe = where(zero, xp.ones((), dtype=getattr(b.value, "dtype", None)), b)
    return where(zero, xp.zeros((), dtype=getattr(a.value, "dtype", None)), divide(a, safe))


def _segment_weight_sums(segment_ids, num_segments, weights, like, square_weights):
    xp = get_xp(value_of(like), value_of(segment_ids))
    n = like.shape[0]
    w = as_tensor(weights if weights is not None else xp.ones(n, dtype=like.dtype))
    if square_weights:
        w = square(w)
    return segment_sum(reshape(w, (n, 1)), segment_ids, num_segments)


def segment_mean(data, segment_ids, num_segments: int, weights=None) -> Tensor:
    """Weighted mean per segment: ``sum(w * x) / sum(w)`` (0 for empty segments).

    The ``mean`` combiner of TensorFlow's embedding lookups.
    """
    data = as_tensor(data)
    total = segment_sum(data, segment_ids, num_segments, weights)
    denom = _segment_weight_sums(segment_ids, num_segments, weights, data, False)
    return div_no_nan(total, reshape(denom, (num_segments,) + (1,) * (data.ndim - 1)))


def segment_sqrtn(data, segment_ids, num_segments: int, weights=None) -> Tensor:
    """``sum(w * x) / sqrt(sum(w ** 2))`` per segment (0 for empty segments).

    The ``sqrtn`` combiner of TensorFlow's embedding lookups.
    """
    data = as_tensor(data)
    total = segment_sum(data, segment_ids, num_segments, weights)
    squares = _segment_weight_sums(segment_ids, num_segments, weights, data, True)
    empty = squares.value == 0
    denom = where(empty, 0.0, sqrt(where(empty, 1.0, squares)))  # no 1/sqrt(0) in backward
    return div_no_nan(total, reshape(denom, (num_segments,) + (1,) * (data.ndim - 1)))


# ---------------------------------------------------------------- Tensor's operators
# Tensor (core/autodiff.py) sits below the ops, so its Python operators and array methods
# are attached here, to the ops they record.


def _reflected(op):
    """``op`` with its operands swapped: the method behind ``other <op> tensor``."""

    def method(self, other):
        return op(other, self)

    return method


def _reshape_method(self, *shape):
    """``t.reshape(2, 3)`` or ``t.reshape((2, 3))``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return reshape(self, shape)


_BINARY_OPERATORS = {
    "add": add,
    "sub": subtract,
    "mul": multiply,
    "truediv": divide,
    "pow": power,
    "matmul": matmul,
}
for _name, _op in _BINARY_OPERATORS.items():
    setattr(Tensor, f"__{_name}__", _op)
    setattr(Tensor, f"__r{_name}__", _reflected(_op))
Tensor.__neg__ = negative
Tensor.__getitem__ = getitem
Tensor.T = property(transpose)
Tensor.reshape = _reshape_method
Tensor.sum = sum
Tensor.mean = mean
