"""Numeric columns: ``numeric_column``, and the argument checks and config of numbers that
sequence and equality columns share; reading the values is :mod:`.numeric_reading`,
bucketizing them :mod:`.bucketized`.

>>> from colonnade.feature_columns import transform_features
>>> price = numeric_column("price", default_value=0.0)
>>> transform_features({"price": [1.5, None]}, [price])["price"].tolist()
[[1.5], [0.0]]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_device
from .base import DenseColumn, KeyedColumn, check_key
from .features import dtype_name
from .normalizers import Normalizer, normalizer_from_config
from .numeric_reading import apply_normalizer, read_numeric_rows, reading_dtype

__all__ = ["NumericColumn", "numeric_column"]


# ---------------------------------------------------------------- shared checks


def check_shape(shape, column: str) -> tuple:
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError as e:
        raise TypeError(f"column {column!r}: shape must be an int or ints, got {shape!r}") from e
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, numbers.Integral):
            raise TypeError(f"column {column!r}: shape dimensions must be integer, got {shape!r}")
        if d < 1:
            raise ValueError(
                f"column {column!r}: shape dimensions must be greater than 0, got {shape!r}"
            )
    return tuple(int(d) for d in dims)


def check_numeric_dtype(dtype, column: str) -> str:
    name = dtype_name(dtype)
    if name == "string":
        raise ValueError(
            f"column {column!r}: dtype must be convertible to float (a real integer or floating "
            f"type), got {dtype!r}"
        )
    return name


def check_default(default_value, shape: tuple, dtype: str, column: str):
    """``default_value`` as nested tuples of ``shape`` (TF's form: ``(4.0,)`` for shape
    ``(1,)``, ``((3.0, 2.0),)`` for ``(1, 2)``), or ``None``."""
    if default_value is None:
        return None
    try:
        arr = np.asarray(default_value)
    except ValueError as e:
        raise ValueError(
            f"column {column!r}: The shape of default_value must be equal to given shape "
            f"{shape}, got the ragged {default_value!r}"
        ) from e
    if arr.dtype.kind not in "iuf" or arr.dtype.kind == "b":
        raise TypeError(
            f"column {column!r}: default_value must be compatible with dtype {dtype}, got "
            f"{default_value!r}"
        )
    if arr.ndim == 0:
        arr = np.full(shape, arr)
    elif arr.shape != shape:
        raise ValueError(
            f"column {column!r}: The shape of default_value must be equal to given shape "
            f"{shape}, got {arr.shape}"
        )
    if dtype.startswith(("int", "uint")):
        if arr.dtype.kind == "f":
            raise TypeError(
                f"column {column!r}: default_value {default_value!r} must be compatible with "
                f"dtype {dtype}"
            )
        return _nested(arr.astype(np.int64))
    return _nested(arr.astype(np.float64))


def _nested(arr: np.ndarray):
    """``arr`` as nested tuples of Python numbers (a scalar for a 0-d array)."""
    if arr.ndim == 0:
        return arr.item()
    return tuple(_nested(a) for a in arr)


def check_normalizer(fn, column: str):
    if fn is not None and not callable(fn):
        raise TypeError(f"column {column!r}: normalizer_fn must be a callable, got {fn!r}")
    return fn


def normalizer_config(fn, column: str) -> dict:
    if isinstance(fn, Normalizer):
        return fn.to_config()
    raise ValueError(
        f"column {column!r}: its normalizer_fn {fn!r} is an arbitrary Python callable, which "
        "cannot be written to a config; use one of the serializable normalizers "
        "cn.feature_columns.log1p(), standardize(mean, stddev), clip(lo, hi), "
        "log_offset(offset) or chain(...) instead"
    )


def with_normalizer_config(out: dict, column) -> dict:
    """``out``, a numeric column's config, with its ``normalizer_fn``'s config added when
    it has one (an error if that normalizer cannot be written to a config)."""
    if column.normalizer_fn is not None:
        out["normalizer_fn"] = normalizer_config(column.normalizer_fn, column.name)
    return out


@dataclass(frozen=True)
class NumericColumn(KeyedColumn, DenseColumn):
    """Real-valued feature; see :func:`numeric_column`.

    >>> numeric_column("price", shape=2).shape
    (2,)
    """

    key: str
    shape: tuple = (1,)
    default_value: tuple | None = None
    dtype: str = "float32"
    normalizer_fn: object = None

    @property
    def dimension(self) -> int:
        return math.prod(self.shape)

    @property
    def variable_shape(self) -> tuple:
        """TF's shape of one example's values: ``shape``."""
        return self.shape

    @property
    def flat_default(self) -> tuple | None:
        """``default_value`` flattened: ``prod(shape)`` numbers, or ``None``."""
        if self.default_value is None:
            return None
        return tuple(np.asarray(self.default_value).reshape(-1).tolist())

    def transform(self, cache) -> np.ndarray:
        """``(batch, dimension)`` values in the default float dtype, defaults and the
        normalizer applied."""
        raw = cache.raw(self.key, self.name)
        values = read_numeric_rows(
            self,
            self.key,
            raw,
            self.dimension,
            reading_dtype(self.dtype, raw.type),
            self.flat_default,
        )
        if self.normalizer_fn is not None:
            values = values.reshape((values.shape[0],) + self.shape)
            values = apply_normalizer(self, self.normalizer_fn, values)
        return np.asarray(values, dtype=DEFAULT_DTYPE).reshape(-1, self.dimension)

    def dense_output(self, cache, variables) -> Tensor:
        return Tensor(to_device(cache.get(self)))

    def parse_spec(self) -> dict:
        t = pa.from_numpy_dtype(np.dtype(self.dtype))
        return {self.key: t if self.dimension == 1 else pa.list_(t, self.dimension)}

    def to_config(self) -> dict:
        out = {"type": "numeric_column", "key": self.key, "shape": list(self.shape)}
        if self.default_value is not None:
            out["default_value"] = list(self.flat_default)
        out["dtype"] = self.dtype
        return with_normalizer_config(out, self)


def numeric_column(
    key: str,
    shape: int | Sequence[int] = (1,),
    default_value: float | Sequence[float] | None = None,
    dtype: str = "float32",
    normalizer_fn: Callable | None = None,
) -> NumericColumn:
    """A real-valued feature, ``shape`` values per example (TF's ``numeric_column``).

    Nulls take ``default_value`` (a number, or an array of ``shape``); without one, a
    null is an error naming the column. ``normalizer_fn`` (e.g. ``standardize(3.0, 4.2)``
    or any callable on numpy arrays) is applied after the defaults; the output is float32.
    Input is a scalar numeric column, or a list column with ``prod(shape)`` values a row.

    Args:
        key: the input feature's name (the column of the data).
        shape: values per example (TF's default ``(1,)``); the input is then a list column.
        default_value: what nulls (and NaN) become; TF's default ``None``: they are an
            error.
        dtype: the values' numeric type as parsed and read (TF's default ``"float32"``);
            an integer column takes float values as they are, as TF does.
        normalizer_fn: applied to the values after defaults (TF's default ``None``).

    >>> c = numeric_column("price", default_value=0.0)
    >>> c.name, c.dimension, c.input_keys
    ('price', 1, ('price',))
    """
    key = check_key(key)
    shape = check_shape(shape, key)
    dtype = check_numeric_dtype(dtype, key)
    default = check_default(default_value, shape, dtype, key)
    return NumericColumn(key, shape, default, dtype, check_normalizer(normalizer_fn, key))


def numeric_column_from_config(c: dict) -> NumericColumn:
    fn = c.get("normalizer_fn")
    return numeric_column(
        c["key"],
        tuple(c.get("shape", (1,))),
        default_value=_default_from_config(c.get("default_value"), c.get("shape", (1,))),
        dtype=c.get("dtype", "float32"),
        normalizer_fn=normalizer_from_config(fn) if fn is not None else None,
    )


def _default_from_config(value, shape):
    if value is None:
        return None
    return np.asarray(value).reshape(tuple(shape)) if isinstance(value, list) else value
