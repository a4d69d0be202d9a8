"""``tf.debugging``'s asserts, eager: each checks its condition when called and returns
None, or raises.

A condition on the *values* that does not hold raises :class:`InvalidArgumentError`
(TF's eager error; here a ``ValueError``), whose message starts with ``message`` and
shows the first ``summarize`` entries of each input. Conditions on the *type* raise
``TypeError`` and on the *rank or shape* ``ValueError``, as TF does for what it can tell
before running. ``data`` and ``name`` are accepted for TF compatibility.

>>> import numpy as np
>>> assert_less(np.array([1, 2]), 3)
>>> assert_positive(np.array([1.0, -2.0]), message="weights")
Traceback (most recent call last):
...
colonnade.core.debugging.InvalidArgumentError: weights: condition x > 0 did not hold; x = [ 1. -2.]
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


def _fail(message, condition: str, summarize, **inputs):
    shown = "; ".join(f"{k} = {_show(v, summarize)}" for k, v in inputs.items())
    prefix = f"{message}: " if message else ""
    raise InvalidArgumentError(f"{prefix}condition {condition} did not hold; {shown}")


def _compare(op, symbol: str, x, y, summarize, message) -> None:
    x_value, y_value = _host(x), _host(y)
    try:
        holds = np.all(op(x_value, y_value))
    except ValueError:
        raise ValueError(
            f"{message + ': ' if message else ''}shapes {x_value.shape} and {y_value.shape} "
            "are incompatible"
        ) from None
    if not holds:
        _fail(message, f"x {symbol} y", summarize, x=x_value, y=y_value)


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
        _fail(message, f"x {symbol} 0", summarize, x=x_value)


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
        _fail(message, "x and y are close", summarize, x=x_value, y=y_value)


def assert_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """``t`` holds no NaN or Inf (``tf.debugging.assert_all_finite``, v1 and v2 argument
    names); returns ``t``, raises ``FloatingPointError`` as :func:`check_numerics`."""
    t = x if t is None else t
    return check_numerics(t, message if msg is None else msg)


def assert_integer(x, message=None, name=None) -> None:
    """``x`` is of an integer type; TypeError otherwise."""
    dtype = _host(x).dtype
    if dtype.kind not in "iu":
        raise TypeError(f"{message + ': ' if message else ''}expected an integer type, got {dtype}")


def assert_type(tensor, tf_type, message=None, name=None) -> None:
    """``tensor`` has dtype ``tf_type`` (a numpy dtype or its name); TypeError otherwise."""
    dtype = _host(tensor).dtype
    if dtype != np.dtype(tf_type):
        raise TypeError(
            f"{message + ': ' if message else ''}expected dtype {np.dtype(tf_type)}, got {dtype}"
        )


def _rank_error(message, what: str, rank: int):
    prefix = f"{message}: " if message else ""
    return ValueError(f"{prefix}expected rank {what}, got a value of rank {rank}")


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None) -> None:
    """``x`` has rank ``rank``; ValueError otherwise."""
    actual = _host(x).ndim
    if actual != int(rank):
        raise _rank_error(message, str(int(rank)), actual)


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None) -> None:
    """``x`` has rank ``rank`` or more; ValueError otherwise."""
    actual = _host(x).ndim
    if actual < int(rank):
        raise _rank_error(message, f">= {int(rank)}", actual)


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None) -> None:
    """``x``'s rank is one of ``ranks``; ValueError otherwise."""
    actual = _host(x).ndim
    if actual not in [int(r) for r in ranks]:
        raise _rank_error(message, f"in {list(ranks)}", actual)


def assert_scalar(tensor, name=None, message=None) -> None:
    """``tensor`` is a scalar (rank 0); ValueError otherwise."""
    actual = _host(tensor).ndim
    if actual != 0:
        raise _rank_error(message, "0 (a scalar)", actual)


def assert_proper_iterable(values) -> None:
    """``values`` is an iterable that is not a string, bytes or an array (which iterate
    element by element where a list of them was meant); TypeError otherwise."""
    if isinstance(values, (str, bytes, np.ndarray)) or hasattr(values, "shape"):
        raise TypeError(f"expected a proper iterable (a list or tuple), got {values!r}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f"expected an iterable, got {type(values).__name__}")


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
