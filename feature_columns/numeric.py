"""Numeric and bucketized columns.

>>> price = numeric_column("price")
>>> b = bucketized_column(price, boundaries=[0.0, 10.0, 100.0])
>>> from colonnade.feature_columns import transform_features
>>> transform_features({"price": [-5.0, 10.0, 150.0]}, [b])["price_bucketized"].ids.tolist()
[0, 2, 3]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..core.autodiff import Tensor
from ..core.backend import DEFAULT_DTYPE, to_device
from .base import CategoricalColumn, DenseColumn, KeyedColumn, WrapsSource, check_key
from .features import ColumnArgumentError, dtype_name, is_list_type, value_kind
from .ids import CategoricalIds
from .normalizers import Normalizer, normalizer_from_config

__all__ = ["BucketizedColumn", "NumericColumn", "bucketized_column", "numeric_column"]


# ---------------------------------------------------------------- shared helpers


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


def flat_numbers(column, key: str, arr: pa.Array, dtype: str) -> pa.Array:
    """``arr``'s numbers (booleans as 0 and 1) as ``dtype``; an error naming ``column``
    and ``key`` for values that are not numbers."""
    if pa.types.is_boolean(arr.type):  # booleans read as 0 and 1, as tf.cast gives them
        return pc.cast(arr, pa.from_numpy_dtype(np.dtype(dtype)))
    kind = value_kind(arr.type)
    if kind not in ("integer", "floating"):
        raise ColumnArgumentError(
            f"column {column.name!r} expects numeric values in feature {key!r}, got Arrow type "
            f"{arr.type}"
        )
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    target = pa.from_numpy_dtype(np.dtype(dtype))
    try:
        return pc.cast(arr, target, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise TypeError(
            f"column {column.name!r}: feature {key!r} of type {arr.type} does not convert to "
            f"dtype {dtype} without loss: {e}"
        ) from e


def _nested_flatten(arr: pa.Array):
    """Flatten fixed-size sublists (a multi-dimensional row): ``(values, row_lengths)``."""
    lengths = pc.list_value_length(arr)
    values = pc.list_flatten(arr)
    while is_list_type(values.type):
        inner = pc.list_value_length(values).to_numpy(zero_copy_only=False)
        if values.null_count or (inner.size and not np.all(inner == inner[0])):
            raise ValueError("nested lists of a numeric feature must all have the same length")
        factor = int(inner[0]) if inner.size else 1
        lengths = pc.multiply(lengths, factor)
        values = pc.list_flatten(values)
    return values, lengths


def _float_fast_path(arr: pa.Array, np_dtype: np.dtype) -> np.ndarray | None:
    """``arr`` cast to the float ``np_dtype`` by numpy when no check can fail: floats, or
    integers small enough to be exact (no nulls). Arrow's cast costs more per call than
    the rest of a one-row request's transform; ``None`` leaves the case to it."""
    if np_dtype.kind != "f" or arr.null_count:
        return None
    if pa.types.is_floating(arr.type):
        with np.errstate(over="ignore"):  # too large for float32: inf, refused later
            return arr.to_numpy(zero_copy_only=False).astype(np_dtype, copy=False)
    if pa.types.is_integer(arr.type):
        values = arr.to_numpy(zero_copy_only=False)
        exact = 2 ** (np.finfo(np_dtype).nmant + 1)  # Arrow's safe cast allows up to this
        if values.size and (values.min() < -exact or values.max() > exact):
            return None
        return values.astype(np_dtype)
    return None


def _reading_dtype(dtype: str, arrow_type: pa.DataType) -> str:
    """The dtype a numeric column reads its feature as: its own, except that an integer
    column keeps float values as floats (as TF, whose ``dtype`` only says how to parse and
    whose transform casts the feature as given to float32)."""
    while is_list_type(arrow_type):
        arrow_type = arrow_type.value_type
    if np.dtype(dtype).kind in "iu" and value_kind(arrow_type) == "floating":
        return "float64"
    return dtype


def read_numeric_rows(column, key: str, arr: pa.Array, size: int, dtype: str, default):
    """A numeric feature as ``(num_rows, size)`` numpy values of ``dtype``, nulls filled
    with ``default`` (a flat tuple) or refused."""
    n = len(arr)
    np_dtype = np.dtype(dtype)
    if not is_list_type(arr.type):
        if size != 1:
            raise ValueError(
                f"column {column.name!r} has {size} values per row but feature {key!r} is a "
                f"scalar column of type {arr.type}; give a list column with {size} values per row"
            )
        out = _float_fast_path(arr, np_dtype)
        if out is not None:
            return _fill_nans(column, key, out.reshape(n, 1), default)
        values = flat_numbers(column, key, arr, dtype)
        nulls = values.null_count
        if nulls:
            _refuse_nulls(column, key, nulls, default)
            values = pc.fill_null(values, pa.scalar(default[0], values.type))
        out = values.to_numpy(zero_copy_only=False).astype(np_dtype, copy=False).reshape(n, 1)
        return _fill_nans(column, key, out, default)
    flat, lengths = _nested_flatten(arr)
    flat = flat_numbers(column, key, flat, dtype)
    row_valid = np.ones(n, dtype=bool)
    null_rows = arr.null_count
    if null_rows:
        row_valid = arr.is_valid().to_numpy(zero_copy_only=False)
    lengths = pc.fill_null(lengths, size).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(lengths != size)
    if bad.size:
        r = int(bad[0])
        raise ValueError(
            f"column {column.name!r} needs {size} values per row of feature {key!r}, but row "
            f"{r} has {int(lengths[r])} ({bad.size} rows differ): Cannot reshape a tensor with "
            f"{int(lengths.sum())} elements to shape [{n},{size}]"
        )
    nulls = null_rows * size + flat.null_count
    if nulls:
        _refuse_nulls(column, key, nulls, default)
    values = flat.to_numpy(zero_copy_only=False)
    if flat.null_count:
        mask = flat.is_null().to_numpy(zero_copy_only=False)
        fill = np.tile(np.asarray(default, dtype=np_dtype), values.shape[0] // size)
        values = np.where(mask, fill, values)
    values = values.astype(np_dtype, copy=False).reshape(-1, size)
    if null_rows:
        out = np.empty((n, size), dtype=np_dtype)
        out[row_valid] = values
        out[~row_valid] = np.asarray(default, dtype=np_dtype)
        return _fill_nans(column, key, out, default)
    return _fill_nans(column, key, values, default)


def _fill_nans(column, key: str, values: np.ndarray, default) -> np.ndarray:
    """NaN counts as missing, like a null: it takes ``default`` or is refused, so no NaN
    reaches a model silently. ±inf is refused always: it is not a missing value a default
    could stand for, and one infinite input makes the loss and every gradient NaN."""
    if values.dtype.kind != "f":
        return values
    finite = np.isfinite(values)
    if finite.all():
        return values
    inf = np.isinf(values)
    if inf.any():
        rows = np.flatnonzero(inf.reshape(values.shape[0], -1).any(axis=1))
        raise ValueError(
            f"column {column.name!r}: feature {key!r} has {int(inf.sum())} infinite values "
            f"(+inf/-inf; first in row {int(rows[0])} of the batch); expected finite numbers. "
            "Replace or clip them before training"
        )
    nan = ~finite
    if default is None:
        raise ValueError(
            f"column {column.name!r}: feature {key!r} has {int(nan.sum())} NaN values and the "
            "column has no default_value; give it one (numeric_column(..., default_value=0.0)) "
            "or fill them"
        )
    fill = np.broadcast_to(np.asarray(default, dtype=values.dtype), values.shape)
    return np.where(nan, fill, values)


def _refuse_nulls(column, key: str, nulls: int, default) -> None:
    if default is None:
        raise ValueError(
            f"column {column.name!r}: feature {key!r} has {nulls} null values and the column "
            "has no default_value; give it one (numeric_column(..., default_value=0.0)) or fill "
            "the nulls"
        )


def apply_normalizer(column, fn, values: np.ndarray) -> np.ndarray:
    out = np.asarray(fn(values))
    if out.shape != values.shape:
        raise ValueError(
            f"column {column.name!r}: normalizer_fn returned shape {out.shape} for input of "
            f"shape {values.shape}; it must keep the shape"
        )
    if out.dtype.kind in "fc":
        # Only the normalizer's own non-finite outputs: those of finite inputs.
        bad = ~np.isfinite(out)
        if values.dtype.kind in "fc":
            bad &= np.isfinite(values)
        if bad.any():
            raise ValueError(
                f"column {column.name!r}: normalizer_fn returned {int(bad.sum())} non-finite "
                "values (NaN or +-inf) from finite inputs; expected finite "
                "numbers (e.g. log of 0 or of a negative value). Fix the normalizer or clip "
                "its input"
            )
    return out


# ---------------------------------------------------------------- numeric_column


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
            _reading_dtype(self.dtype, raw.type),
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


# ---------------------------------------------------------------- bucketized_column


COMPARE_MAX_BOUNDARIES = 16
"""Up to this many boundaries, bucket ids are counted by comparisons (one vectorized pass
per boundary, with no per-element branching: cheaper than a binary search for the usual
handful)."""


def bucketize(values, boundaries):
    """The bucket of each value: how many ``boundaries`` (sorted) are ``<=`` it, as
    TensorFlow's Bucketize.

    >>> bucketize(np.array([0.5, 1.0, 7.0]), np.array([1.0, 5.0])).tolist()
    [0, 1, 2]
    """
    if len(boundaries) > COMPARE_MAX_BOUNDARIES:
        return np.searchsorted(boundaries, values, side="right")
    buckets = np.full(values.shape, len(boundaries), np.int64)
    for boundary in boundaries:
        buckets -= values < boundary  # counting from the top puts NaN last, as TF does
    return buckets


@dataclass(frozen=True)
class BucketizedColumn(WrapsSource, DenseColumn, CategoricalColumn):
    """Discretized numeric feature; see :func:`bucketized_column`.

    >>> bucketized_column(numeric_column("age"), [18, 65]).boundaries
    (18.0, 65.0)
    """

    source_column: NumericColumn
    boundaries: tuple

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def num_buckets(self) -> int:
        return (len(self.boundaries) + 1) * self.source_column.dimension

    @property
    def dimension(self) -> int:
        return self.num_buckets

    @property
    def variable_shape(self) -> tuple:
        """TF's shape of the one-hot dense tensor per example: ``(values, buckets)``."""
        return (self.source_column.dimension, len(self.boundaries) + 1)

    def transform(self, cache) -> CategoricalIds:
        """Bucket ids: element ``i`` of a row falls in ``i * (len(boundaries) + 1) + bucket``."""
        values = cache.get(self.source_column)
        # TensorFlow's Bucketize compares float32 values with float32 boundaries.
        buckets = bucketize(
            values.astype(np.float32, copy=False), np.asarray(self.boundaries, np.float32)
        )
        width = values.shape[1]
        if width > 1:
            buckets = buckets + (len(self.boundaries) + 1) * np.arange(width)
            splits = np.arange(0, values.size + 1, width, dtype=np.int64)
            return CategoricalIds(buckets.reshape(-1), splits, self.num_buckets)
        return CategoricalIds(buckets.reshape(-1), None, self.num_buckets)

    def dense_output(self, cache, variables) -> Tensor:
        ids = cache.get(self)
        out = np.zeros((ids.num_rows, self.num_buckets), dtype=DEFAULT_DTYPE)
        out[ids.segment_ids, ids.ids] = 1
        return Tensor(to_device(out))

    def to_config(self) -> dict:
        return {
            "type": "bucketized_column",
            "source_column": self.source_column.to_config(),
            "boundaries": list(self.boundaries),
        }


def bucketized_column(
    source_column: NumericColumn, boundaries: Sequence[float]
) -> BucketizedColumn:
    """Discretize a numeric column: buckets include their left edge (TF's
    ``bucketized_column``).

    ``boundaries=[0., 1., 2.]`` makes the buckets ``(-inf, 0)``, ``[0, 1)``, ``[1, 2)``,
    ``[2, inf)``: ids 0..3. Boundaries must be strictly increasing. A source of shape
    ``(k,)`` gives ``k`` ids a row, element ``i``'s offset by ``i * (len(boundaries) + 1)``.
    Usable as a dense column (one-hot) or as a categorical one (linear models, crosses).

    Args:
        source_column: the ``numeric_column`` to discretize.
        boundaries: the buckets' edges, strictly increasing.

    >>> b = bucketized_column(numeric_column("age"), [18, 65])
    >>> b.name, b.num_buckets
    ('age_bucketized', 3)
    """
    if not isinstance(source_column, NumericColumn):
        raise ValueError(
            "source_column must be a column generated with numeric_column(); "
            "bucketized_column needs a numeric_column as source_column, got "
            f"{type(source_column).__name__}"
        )
    if len(source_column.shape) != 1:
        raise ValueError(
            "source_column must be one-dimensional column: "
            f"bucketized_column needs a one-dimensional source column; {source_column.name!r} "
            f"has shape {source_column.shape}"
        )
    name = f"{source_column.name}_bucketized"
    if boundaries is None or (isinstance(boundaries, (list, tuple)) and not boundaries):
        raise ValueError(f"column {name!r}: boundaries must not be empty, got {boundaries!r}")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError(
            f"column {name!r}: boundaries must be a sorted list (non-empty, of numbers), "
            f"got {boundaries!r}"
        )
    for b in boundaries:
        if isinstance(b, bool) or not isinstance(b, numbers.Real) or math.isnan(b):
            raise ValueError(f"column {name!r}: boundaries must be numbers, got {b!r}")
    values = tuple(float(b) for b in boundaries)
    for lo, hi in zip(values, values[1:]):
        if not lo < hi:
            raise ValueError(
                f"column {name!r}: boundaries must be a sorted list without duplicates, but "
                f"{lo} is followed by {hi}"
            )
    as32 = np.asarray(values, dtype=np.float32)
    if np.any(np.diff(as32) <= 0):
        raise ValueError(
            f"column {name!r}: boundaries {list(values)} collapse to duplicates in float32, "
            "the precision TensorFlow bucketizes in"
        )
    return BucketizedColumn(source_column, values)
