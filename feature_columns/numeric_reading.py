"""Reading a numeric feature: Arrow values into ``(rows, size)`` numpy arrays of a
column's dtype, nulls and NaN filled with its default or refused, infinities refused, and
its normalizer applied and checked. Numeric, sequence numeric and equality columns read
through it.

>>> import pyarrow as pa
>>> from colonnade.feature_columns import numeric_column
>>> column = numeric_column("x", default_value=-1.0)
>>> read_numeric_rows(column, "x", pa.array([2.0, None]), 1, "float32", (-1.0,)).tolist()
[[2.0], [-1.0]]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .features import ColumnArgumentError, is_list_type, value_kind

__all__ = ["apply_normalizer", "flat_numbers", "read_numeric_rows", "reading_dtype"]


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


def reading_dtype(dtype: str, arrow_type: pa.DataType) -> str:
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
