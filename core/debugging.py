"""``tf.debugging``'s asserts, eager: each checks its condition when called and returns
None, or raises.

A condition on the *values* that does not hold raises :class:`InvalidArgumentError`
(TF's eager error; here a ``ValueError``) with TF 2.15's eager message: ``message``, the
condition, and the first ``summarize`` entries (3 by default, all when negative).
Conditions on the *type* raise ``TypeError`` and on the *rank or shape* ``ValueError``,
as TF does for what it can tell before running. ``data`` and ``name`` are accepted for
TF compatibility.

>>> import numpy as np
>>> assert_less(np.array([1, 2]), 3)
>>> try:
...     assert_positive(np.array([1.0, -2.0]), message="weights")
... except InvalidArgumentError as error:
...     print(str(error).splitlines()[1:])
['Condition x > 0 did not hold element-wise:', 'x (shape=(2,) dtype=float64) = ', "['1.0', '-2.0']"]
"""

from __future__ import annotations

import numpy as np

from .autodiff import value_of
from .backend import to_host
from .clipping import check_numerics

__all__ = [
    "Assert",
    "InvalidArgumentError",
    "assert_all_finite",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "check_numerics",
    "is_finite",
    "is_inf",
    "is_nan",
    "is_non_decreasing",
    "is_numeric_tensor",
    "is_strictly_increasing",
]

_SUMMARIZE = 3  # TF's default count of entries an assert message shows per input


class InvalidArgumentError(ValueError):
    """A ``tf.debugging`` assert failed on the values (TF's ``InvalidArgumentError``)."""


def _host(x) -> np.ndarray:
    return np.asarray(to_host(value_of(x)))


def _show(array: np.ndarray, summarize) -> str:
    count = _SUMMARIZE if summarize is None else int(summarize)
    flat = array.reshape(-1)
    return str(flat[:count]) + (" ..." if flat.size > count else "")


def _prefix(message) -> str:
    return f"{message}.  " if message else ""


def _count(summarize, size: int) -> int:
    # TF: 3 entries by default, every entry for a negative ``summarize``
    count = _SUMMARIZE if summarize is None else int(summarize)
    return size if count < 0 else min(count, size)


def _describe(array: np.ndarray) -> str:
    return f"shape={array.shape} dtype={array.dtype}"


def _compare(op, symbol: str, x, y, summarize, message) -> None:
    """TF's eager ``_binary_assert``: its message lists where and what differs."""
    x_value, y_value = _host(x), _host(y)
    try:
        holds = np.asarray(op(x_value, y_value))
    except ValueError:
        shapes = [f"[{','.join(map(str, v.shape))}]" for v in (x_value, y_value)]
        raise InvalidArgumentError(
            f"{_prefix(message)}Incompatible shapes: {shapes[0]} vs. {shapes[1]}"
        ) from None
    if np.all(holds):
        return
    where = np.argwhere(~holds) if holds.ndim else np.zeros((1, 0), np.int64)
    shown = _count(summarize, len(where))
    x_b, y_b = np.broadcast_arrays(x_value, y_value)
    picked = tuple(where[:shown].T)
    lines = [message] if message else []
    lines += [
        f"Condition x {symbol} y did not hold.",
        f"Indices of first {shown} different values:",
        str(where[:shown]),
        "Corresponding x values:",
        str(x_b[picked] if holds.ndim else x_b.reshape(1)),
        "Corresponding y values:",
        str(y_b[picked] if holds.ndim else y_b.reshape(1)),
    ]
    for label, v in (("x", x_value), ("y", y_value)):
        count = _count(summarize, v.size)
        lines += [f"First {count} elements of {label}:", str(v.reshape(-1)[:count])]
    raise InvalidArgumentError("\n".join(lines))


def assert_equal(x, y, data=None, summarize=None, message=None, name=None) -> None:
    """``x == y`` element-wise (broadcasting)."""
    _compare(np.equal, "==", x, y, summarize, message)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None) -> None:
    """``x != y`` for every element."""
    _compare(np.not_equal, "!=", x, y, summarize, message)


def assert_less(x, y, data=None, summarize=None, message=None, name=None) -> None:
    """``x < y`` element-wise."""
    _compare(np.less, "<", x, y, summarize, message)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None) -> None:
    """``x <= y`` element-wise."""
    _compare(np.less_equal, "<=", x, y, summarize, message)


def assert_greater(x, y, data=None, summarize=None, message=None, name=None) -> None:
    """``x > y`` element-wise."""
    _compare(np.greater, ">", x, y, summarize, message)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None) -> None:
    """``x >= y`` element-wise."""
    _compare(np.greater_equal, ">=", x, y, summarize, message)


def _against_zero(op, symbol, x, summarize, message) -> None:
    x_value = _host(x)
    if not np.all(op(x_value, 0)):
        shown = [str(v) for v in x_value.reshape(-1)[: _count(summarize, x_value.size)]]
        raise InvalidArgumentError(
            f"{_prefix(message)}\nCondition x {symbol} 0 did not hold element-wise:\n"
            f"x ({_describe(x_value)}) = \n{shown}"
        )


def assert_positive(x, data=None, summarize=None, message=None, name=None) -> None:
    """``x > 0`` element-wise."""
    _against_zero(np.greater, ">", x, summarize, message)


def assert_negative(x, data=None, summarize=None, message=None, name=None) -> None:
    """``x < 0`` element-wise."""
    _against_zero(np.less, "<", x, summarize, message)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None) -> None:
    """``x >= 0`` element-wise."""
    _against_zero(np.greater_equal, ">=", x, summarize, message)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None) -> None:
    """``x <= 0`` element-wise."""
    _against_zero(np.less_equal, "<=", x, summarize, message)


def assert_near(
    x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None
) -> None:
    """``|x - y| <= atol + rtol * |y|`` element-wise; both tolerances default to 10 times
    the float type's machine epsilon, as TF's."""
    x_value, y_value = _host(x), _host(y)
    dtype = np.result_type(x_value, y_value)
    eps = np.finfo(dtype if dtype.kind == "f" else np.float64).eps
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    if not np.all(np.abs(x_value - y_value) <= atol + rtol * np.abs(y_value)):
        raise InvalidArgumentError(
            f"{_prefix(message)}x and y not equal to tolerance rtol = {rtol}, atol = {atol}\n"
            f"x ({_describe(x_value)}) = \n{_show(x_value, summarize)}\n"
            f"y ({_describe(y_value)}) = \n{_show(y_value, summarize)}"
        )


def assert_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """``t`` holds no NaN or Inf (``tf.debugging.assert_all_finite``, v1 and v2 argument
    names); returns ``t``, raises ``FloatingPointError`` as :func:`check_numerics`."""
    t = x if t is None else t
    return check_numerics(t, message if msg is None else msg)


def _tf_dtype(dtype) -> str:
    return f"tf.{np.dtype(dtype).name}"


def assert_integer(x, message=None, name=None) -> None:
    """``x`` is of an integer type; TypeError otherwise (TF's message)."""
    dtype = _host(x).dtype
    if dtype.kind not in "iu":
        raise TypeError(
            f'{_prefix(message)}Expected "{name or "x"}" to be integer type.  Found: tensor of '
            f"dtype <dtype: '{dtype.name}'>"
        )


def assert_type(tensor, tf_type, message=None, name=None) -> None:
    """``tensor`` has dtype ``tf_type`` (a numpy dtype or its name); TypeError otherwise."""
    dtype = _host(tensor).dtype
    if dtype != np.dtype(tf_type):
        raise TypeError(
            f"{_prefix(message)}{name or 'tensor'} must be of type {_tf_dtype(tf_type)}; "
            f"got {_tf_dtype(dtype)}"
        )


def _rank_argument(rank) -> np.ndarray:
    """A rank argument as TF checks it: an integer (TypeError otherwise, as TF's
    ``assert_rank([42, 43], 1.9)``), and a scalar for ``assert_rank`` (ValueError)."""
    value = _host(rank)
    if value.dtype.kind not in "iu":
        # a Python float converts to tf.float32, as in TF
        got = np.float32 if isinstance(rank, float) else value.dtype
        raise TypeError(f"tensor must be of type tf.int32; got {_tf_dtype(got)}")
    return value


def _scalar_rank(rank) -> int:
    value = _rank_argument(rank)
    if value.ndim != 0:
        raise ValueError("Rank must be a scalar.")
    return int(value)


def _rank_error(message, name, what: str, array: np.ndarray):
    return ValueError(
        f"{_prefix(message)}Tensor {name or ''} must have rank {what}.  Received rank "
        f"{array.ndim}, shape {array.shape}"
    )


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None) -> None:
    """``x`` has rank ``rank`` (an integer scalar); ValueError otherwise."""
    rank, array = _scalar_rank(rank), _host(x)
    if array.ndim != rank:
        raise _rank_error(message, name, str(rank), array)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None) -> None:
    """``x`` has rank ``rank`` or more; ValueError otherwise."""
    rank, array = _scalar_rank(rank), _host(x)
    if array.ndim < rank:
        raise _rank_error(message, name, f"at least {rank}", array)


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None) -> None:
    """``x``'s rank is one of ``ranks`` (integer scalars); ValueError otherwise."""
    wanted = tuple(_scalar_rank(r) for r in ranks)
    array = _host(x)
    if array.ndim not in wanted:
        raise _rank_error(message, name, f"in {wanted}", array)


def assert_scalar(tensor, name=None, message=None) -> None:
    """``tensor`` is a scalar (rank 0); ValueError otherwise."""
    shape = _host(tensor).shape
    if shape != ():
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {shape}.")


def assert_proper_iterable(values) -> None:
    """``values`` is an iterable that is not a string, bytes or an array (which iterate
    element by element where a list of them was meant); TypeError otherwise."""
    if isinstance(values, (str, bytes, np.ndarray)) or hasattr(values, "shape"):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None) -> None:
    """Every ``(x, spec)`` pair of ``shapes`` (a list of pairs, or a dict) has the shape
    ``spec`` says, and a symbol (a string) names one size everywhere it appears
    (``tf.debugging.assert_shapes``); ValueError naming both tensors otherwise.

    A spec entry is a size, a symbol or None (any size); a leading ``...`` matches any
    leading dimensions. A spec of length 0 or 1 also accepts a scalar or a one-element
    vector where the other is written, as TF's.

    >>> assert_shapes([(np.ones((2, 3)), ("N", "Q")), (np.ones((2, 5)), ("N", None))])
    >>> try:
    ...     assert_shapes([(np.ones((2, 3)), ("N", "Q")), (np.ones((3, 3)), ("N", "D"))])
    ... except ValueError as error:
    ...     print(str(error).split(".  ")[1])
    Tensor shape=(3, 3) dtype=float64 dimension 0 must have size 2
    """
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    sizes: dict = {}
    for x, spec in pairs:
        array = _host(x)
        if not (hasattr(spec, "__iter__") or hasattr(spec, "__getitem__")):
            raise ValueError(
                f"{_prefix(message)}Tensor {_describe(array)}.  Specified shape must be an "
                "iterable.  An iterable has the attribute `__iter__` or `__getitem__`.  "
                f"Received specified shape: {spec}"
            )
        spec = list(spec)
        if any(entry is Ellipsis for entry in spec[1:]):
            raise ValueError(f"'...' can only be the first entry of a shape spec, got {spec}")
        leading = bool(spec) and spec[0] is Ellipsis
        dims = spec[1:] if leading else spec
        shape = array.shape
        if leading:
            if array.ndim < len(dims):
                raise _rank_error(message, name, f"at least {len(dims)}", array)
        elif len(dims) <= 1:
            if array.ndim not in (0, 1):
                raise _rank_error(message, name, "in (0, 1)", array)
            shape = shape if len(dims) == array.ndim else (1,) * len(dims)
            if not dims and array.size != 1:
                raise _rank_error(message, name, "0", array)
        elif array.ndim != len(dims):
            raise _rank_error(message, name, str(len(dims)), array)
        offset = len(shape) - len(dims)
        for i, entry in enumerate(dims):
            axis, actual = offset + i, shape[offset + i]
            if entry is None:
                continue
            if isinstance(entry, str):
                if entry not in sizes:
                    sizes[entry] = (actual, _describe(array), axis)
                    continue
                size, source = (
                    sizes[entry][0],
                    "Specified by tensor {1} dimension {2}".format(*sizes[entry]),
                )
            else:
                size, source = int(entry), "Specified explicitly"
            if actual != size:
                raise ValueError(
                    f"{_prefix(message)}{source}.  Tensor {_describe(array)} dimension {axis} "
                    f"must have size {size}.  Received size {actual}, shape {array.shape}"
                )


def Assert(condition, data, summarize=None, name=None) -> None:  # noqa: N802  (TF's name)
    """``tf.debugging.Assert``: raise :class:`InvalidArgumentError` showing the first
    ``summarize`` entries of each of ``data`` (a list of values) unless ``condition``
    (a boolean scalar) holds.

    >>> Assert(np.array(True), [np.arange(5)])
    >>> Assert(np.array(False), ["x is", np.arange(5)], summarize=2)
    Traceback (most recent call last):
    ...
    colonnade.core.debugging.InvalidArgumentError: assertion failed: [x is] [[0 1] ...]
    """
    holds = _host(condition)
    if holds.shape != () or holds.dtype != np.bool_:
        raise ValueError(
            f"Assert's condition must be a boolean scalar, got {holds.dtype} of shape {holds.shape}"
        )
    if not holds:
        shown = " ".join(
            f"[{item}]" if isinstance(item, (str, bytes)) else f"[{_show(_host(item), summarize)}]"
            for item in data
        )
        raise InvalidArgumentError(f"assertion failed: {shown}")


def _float_values(x, caller: str) -> np.ndarray:
    values = _host(x)
    if values.dtype.kind not in "fc":
        raise TypeError(f"{caller} takes a floating-point value, got {values.dtype}")
    return values


def is_finite(x, name=None) -> np.ndarray:
    """Which elements of ``x`` are finite (``tf.math.is_finite``), as a bool array."""
    return np.isfinite(_float_values(x, "is_finite"))


def is_inf(x, name=None) -> np.ndarray:
    """Which elements of ``x`` are +-Inf (``tf.math.is_inf``), as a bool array."""
    return np.isinf(_float_values(x, "is_inf"))


def is_nan(x, name=None) -> np.ndarray:
    """Which elements of ``x`` are NaN (``tf.math.is_nan``), as a bool array."""
    return np.isnan(_float_values(x, "is_nan"))


def _ordered(x, caller: str, strictly: bool) -> bool:
    values = _host(x)
    if values.dtype.kind not in "iuf":
        raise TypeError(f"{caller} takes a real numeric value, got {values.dtype}")
    steps = np.diff(values.reshape(-1))
    return bool(np.all(steps > 0) if strictly else np.all(steps >= 0))


def is_non_decreasing(x, name=None) -> bool:
    """Whether ``x``, read in row-major order, never decreases (True for fewer than two
    elements), as ``tf.math.is_non_decreasing``.

    >>> is_non_decreasing([1, 1, 2]), is_non_decreasing([[1, 2], [0, 3]])
    (True, False)
    """
    return _ordered(x, "is_non_decreasing", strictly=False)


def is_strictly_increasing(x, name=None) -> bool:
    """Whether ``x``, read in row-major order, always increases (True for fewer than two
    elements), as ``tf.math.is_strictly_increasing``."""
    return _ordered(x, "is_strictly_increasing", strictly=True)


def is_numeric_tensor(tensor) -> bool:
    """Whether ``tensor`` is an array value (a Tensor, Variable or array) of a numeric
    dtype (integer, float or complex; not bool or strings), as
    ``tf.debugging.is_numeric_tensor``; a Python number or list is not a tensor."""
    dtype = getattr(tensor, "dtype", None)
    return dtype is not None and np.dtype(dtype).kind in "iufc"
