"""TF's arithmetic with TF's names and arguments (``tf.multiply(x, y, name=None)``,
``tf.matmul(a, b, transpose_b=True)``, ``tf.tensordot``, TF 1's ``to_float``...), eager and
differentiable over :mod:`.ops`.

>>> import numpy as np
>>> matmul(np.eye(2, dtype=np.float32), np.array([[1.0, 2.0]]), transpose_b=True).numpy().tolist()
[[1.0], [2.0]]
>>> to_int32([1.7, -1.7]).numpy().tolist()
[1, -1]
"""

from __future__ import annotations

import numpy as np

from . import ops
from .autodiff import Tensor, value_of
from .tf_array_ops import as_tensor


def _binary(op, name: str, formula: str):
    def binary(x, y, name=None) -> Tensor:
        return op(as_tensor(x), as_tensor(y))

    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = f"``tf.{name}``: ``{formula}``, elementwise with broadcasting."
    return binary


add = _binary(ops.add, "add", "x + y")
subtract = _binary(ops.subtract, "subtract", "x - y")
multiply = _binary(ops.multiply, "multiply", "x * y")
divide = _binary(ops.divide, "divide", "x / y")
squared_difference = _binary(
    lambda x, y: ops.square(ops.subtract(x, y)), "squared_difference", "(x - y) ** 2"
)


def _unary(op, name: str, formula: str):
    def unary(x, name=None) -> Tensor:
        return op(as_tensor(x))

    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"``tf.{name}``: ``{formula}``, elementwise."
    return unary


square = _unary(ops.square, "square", "x ** 2")
sigmoid = _unary(ops.sigmoid, "sigmoid", "1 / (1 + exp(-x))")
tanh = _unary(ops.tanh, "tanh", "tanh(x)")
negative = _unary(ops.negative, "negative", "-x")


def _to(dtype: str, name: str, default_name: str):
    def to(x, name=default_name) -> Tensor:
        return ops.cast(as_tensor(x), dtype)

    to.__name__ = to.__qualname__ = name
    to.__doc__ = f"TF 1's ``tf.{name}``: ``tf.cast(x, {dtype})`` (toward zero for integers)."
    return to


to_float = _to("float32", "to_float", "ToFloat")
to_double = _to("float64", "to_double", "ToDouble")
to_int32 = _to("int32", "to_int32", "ToInt32")
to_int64 = _to("int64", "to_int64", "ToInt64")


def _matrix_transpose(x: Tensor) -> Tensor:
    if x.ndim < 2:
        raise ValueError(f"matmul: a transposed operand must have rank >= 2, got shape {x.shape}")
    return ops.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    name=None,
) -> Tensor:
    """``tf.matmul``: the matrix product of ``a`` and ``b`` (rank >= 2, batched over the
    leading axes), each transposed first when asked (real tensors: adjoint = transpose)."""
    a, b = as_tensor(a), as_tensor(b)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"matmul: both operands need rank >= 2, got {a.shape} and {b.shape}")
    if transpose_a or adjoint_a:
        a = _matrix_transpose(a)
    if transpose_b or adjoint_b:
        b = _matrix_transpose(b)
    return ops.matmul(a, b)


def tensordot(a, b, axes, name=None) -> Tensor:
    """``tf.tensordot``: ``a`` and ``b`` contracted over ``axes`` (an int ``n``: the last
    ``n`` of ``a`` with the first ``n`` of ``b``; or two lists of axes)."""
    a, b = as_tensor(a), as_tensor(b)
    spec = value_of(axes)
    if np.ndim(spec) == 0:
        n = int(spec)
        if not 0 <= n <= min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={n} does not fit shapes {a.shape} and {b.shape}")
        a_axes, b_axes = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        a_axes, b_axes = ([int(i) % t.ndim for i in np.atleast_1d(s)] for s, t in zip(spec, (a, b)))
    if [a.shape[i] for i in a_axes] != [b.shape[i] for i in b_axes]:
        raise ValueError(
            f"tensordot: axes {a_axes} of {a.shape} and {b_axes} of {b.shape} differ in size"
        )
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [i for i in range(b.ndim) if i not in b_axes]
    inner = int(np.prod([a.shape[i] for i in a_axes]))
    a2 = ops.reshape(ops.transpose(a, a_free + a_axes), (-1, inner))
    b2 = ops.reshape(ops.transpose(b, b_axes + b_free), (inner, -1))
    out_shape = tuple(a.shape[i] for i in a_free) + tuple(b.shape[i] for i in b_free)
    return ops.reshape(ops.matmul(a2, b2), out_shape)
