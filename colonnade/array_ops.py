"""TF's spellings of the array ops a ``serving_input_fn`` calls (``tf.expand_dims``,
``tf.cast``, ``tf.constant``, ``tf.math.log1p``...), and ``tf.compat.v1.placeholder``.

Given a serving input (a :class:`~colonnade.core.symbolic.SymbolicTensor`, from
``placeholder``), each records a node of the serving graph an export applies to its
requests; given values, it computes as ``cn.core``'s op of that name (numbers: a
differentiable Tensor; strings: a numpy array).

>>> import numpy as np
>>> x = placeholder(float32, [None], name="x")
>>> expand_dims(log1p(x), -1).op
'expand_dims'
>>> expand_dims(np.array([1.0, 2.0], np.float32), -1).numpy().tolist()
[[1.0], [2.0]]
"""

from __future__ import annotations

import numpy as np

from colonnade import core
from colonnade.core import symbolic
from colonnade.core.symbolic import any_symbolic, node, placeholder, placeholder_with_default
from colonnade.core.tf_array_ops import numpy_dtype

__all__ = [
    "abs",
    "bool",
    "cast",
    "clip_by_value",
    "equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "not_equal",
    "constant",
    "exp",
    "expand_dims",
    "float16",
    "float32",
    "float64",
    "int16",
    "int32",
    "int64",
    "int8",
    "log",
    "log1p",
    "maximum",
    "minimum",
    "placeholder",
    "placeholder_with_default",
    "reshape",
    "sqrt",
    "string",
    "uint8",
    "where",
]

float16, float32, float64, string = "float16", "float32", "float64", "string"
int8, int16, int32, int64, uint8 = "int8", "int16", "int32", "int64", "uint8"
bool = "bool"  # noqa: A001 (TF's name: tf.bool)
"""TF's dtype names (``tf.float32``...), as the dtype strings colonnade takes."""


def _is_strings(value) -> bool:
    if isinstance(value, (core.Tensor, core.Variable)):
        return False
    return np.asarray(value).dtype.kind in "OUS"


def constant(value, dtype=None, shape=None, name=None):
    """``tf.constant``: ``value`` as an array of ``dtype`` (strings: an object array),
    broadcast to ``shape`` when given."""
    array = np.asarray(value.numpy() if isinstance(value, core.Tensor) else value)
    if dtype is not None:
        array = array.astype(numpy_dtype(dtype))
    elif array.dtype.kind in "US":
        array = array.astype(object)
    elif array.dtype == np.float64 and not isinstance(value, np.ndarray):
        array = array.astype(np.float32)  # TF: a Python float is a float32 constant
    return np.broadcast_to(array, shape).copy() if shape is not None else array


def expand_dims(input, axis, name=None):  # noqa: A002 (TF's argument names)
    """``tf.expand_dims``: ``input`` with a new axis of size 1 at ``axis``."""
    if any_symbolic(input):
        return node("expand_dims", input, axis=int(axis))
    if _is_strings(input):
        return np.expand_dims(np.asarray(input, dtype=object), int(axis))
    return core.expand_dims(input, int(axis))


def reshape(tensor, shape, name=None):
    """``tf.reshape``; of a serving input, only the per-row part (``shape[0]`` is -1)."""
    if any_symbolic(tensor):
        dims = [int(d) if d is not None else -1 for d in shape]
        if not dims or dims[0] != -1 or -1 in dims[1:]:
            raise ValueError(
                f"reshape of a serving input keeps the batch first: give shape [-1, ...] "
                f"with the per-row dimensions known, got {list(shape)}"
            )
        return node("reshape", tensor, shape=dims)
    if _is_strings(tensor):
        return np.reshape(np.asarray(tensor, dtype=object), shape)
    return core.reshape(tensor, tuple(shape))


def cast(x, dtype, name=None):
    """``tf.cast``: ``x`` as ``dtype`` (numbers and booleans; strings take
    ``cn.strings.to_number``)."""
    if any_symbolic(x):
        kind = symbolic.dtype_name(dtype)
        if kind == "string" or x.dtype == "string":
            raise TypeError(
                f"cast from {x.dtype} to {kind} is not supported (as TF's); use "
                "cn.strings.to_number or cn.strings.as_string"
            )
        return node("cast", x, dtype=kind)
    kind = numpy_dtype(dtype)
    if kind.kind == "O":
        raise TypeError("cast to a string is not supported (as TF's); use cn.strings.as_string")
    return core.cast(x, kind)


def _unary(op: str, eager, doc: str):
    def unary(x, name=None):
        return node(op, x) if any_symbolic(x) else eager(x)

    unary.__name__ = unary.__qualname__ = op
    unary.__doc__ = doc
    return unary


log = _unary("log", core.log, "``tf.math.log``: the natural logarithm, elementwise.")
log1p = _unary("log1p", core.log1p, "``tf.math.log1p``: ``log(1 + x)``, elementwise.")
exp = _unary("exp", core.exp, "``tf.math.exp``: ``e ** x``, elementwise.")
sqrt = _unary("sqrt", core.sqrt, "``tf.math.sqrt``: the square root, elementwise.")
abs = _unary("abs", core.abs, "``tf.math.abs``: the absolute value, elementwise.")  # noqa: A001


def minimum(x, y, name=None):
    """``tf.minimum``: the smaller of ``x`` and ``y``, elementwise (broadcasting)."""
    return node("minimum", x, y) if any_symbolic(x, y) else core.minimum(x, y)


def maximum(x, y, name=None):
    """``tf.maximum``: the larger of ``x`` and ``y``, elementwise (broadcasting)."""
    return node("maximum", x, y) if any_symbolic(x, y) else core.maximum(x, y)


def _comparison(op: str, np_fn):
    def compare(x, y, name=None):
        if any_symbolic(x, y):
            return node(op, x, y)
        values = [v.numpy() if isinstance(v, (core.Tensor, core.Variable)) else v for v in (x, y)]
        return np_fn(*values)

    compare.__name__ = compare.__qualname__ = op
    compare.__doc__ = f"``tf.math.{op}``: ``x`` and ``y`` compared elementwise (booleans)."
    return compare


equal = _comparison("equal", np.equal)
not_equal = _comparison("not_equal", np.not_equal)
less = _comparison("less", np.less)
less_equal = _comparison("less_equal", np.less_equal)
greater = _comparison("greater", np.greater)
greater_equal = _comparison("greater_equal", np.greater_equal)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``tf.clip_by_value``: ``t`` clipped to ``[clip_value_min, clip_value_max]``."""
    if any_symbolic(t, clip_value_min, clip_value_max):
        return node("clip_by_value", t, clip_value_min, clip_value_max)
    return core.minimum(core.maximum(t, clip_value_min), clip_value_max)


def where(condition, x=None, y=None, name=None):
    """``tf.where(condition, x, y)``: ``x`` where ``condition`` holds, else ``y``."""
    if x is None or y is None:
        raise TypeError("where takes condition, x and y (the indices form is not supported)")
    if any_symbolic(condition, x, y):
        return node("where", condition, x, y)
    return core.where(condition, x, y)
