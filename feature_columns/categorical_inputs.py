"""The input checks the categorical columns share: what a feature must hold for a
column's ``dtype``, integers read safely, and the checked ``dtype`` argument.

>>> import pyarrow as pa
>>> from colonnade.feature_columns import categorical_column_with_identity
>>> as_int64(categorical_column_with_identity("k", 3), "k", pa.array([1.0, 2.0])).to_pylist()
[1, 2]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .base import ColumnArgumentError
from .features import dtype_name, value_kind

__all__ = ["as_int64", "check_dtype_arg", "check_input", "expected_kind", "list_spec"]


def expected_kind(dtype: str) -> str:
    """The value kind (:func:`~.features.value_kind`) a column of ``dtype`` reads."""
    return "string" if dtype == "string" else "integer"


def check_input(column, key: str, arrow_type: pa.DataType, dtype: str) -> None:
    """``ColumnArgumentError`` (a ValueError, as TF's) unless feature ``key`` holds what a
    column of ``dtype`` reads: strings for ``string``; integers (or integral floats, as
    pandas stores ints with missing values) otherwise."""
    got = value_kind(arrow_type)
    if dtype != "string" and got == "floating":
        return
    if got == "list":
        raise ColumnArgumentError(
            f"column {column.name!r}: feature {key!r} holds lists of lists (Arrow type "
            f"{arrow_type}), TF's 3-D SparseTensor; the column reads one list of values per "
            "example: flatten the inner lists into it, or use a sequence_categorical_column_with_*"
        )
    expected = expected_kind(dtype)
    if got != expected:
        what = "string or integer" if got not in ("string", "integer") else "compatible"
        raise ColumnArgumentError(
            f"column {column.name!r}: input dtype must be {what}: the column's dtype is {dtype}, "
            f"so it expects {expected} values in feature {key!r}, got Arrow type {arrow_type}"
        )


def as_int64(column, key: str, arr: pa.Array) -> pa.Array:
    """``arr`` as int64, refusing (TypeError) floats that are not whole numbers."""
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(arr.type.value_type)
    try:
        return pc.cast(arr, pa.int64(), safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise ColumnArgumentError(
            f"column {column.name!r} reads integers, but feature {key!r} of type {arr.type} has "
            f"values that are not whole numbers: {e}"
        ) from e


def check_dtype_arg(dtype, column: str) -> str:
    """The name of ``dtype`` (a string or integer type), else a ``ValueError`` naming the
    column."""
    name = dtype_name(dtype)
    if name != "string" and not name.startswith(("int", "uint")):
        raise ValueError(f"column {column!r}: dtype must be string or integer, got {dtype!r}")
    return name


def list_spec(dtype: str) -> pa.DataType:
    """The parse-spec type of a categorical feature of ``dtype``: a list of its values."""
    return pa.list_(pa.string() if dtype == "string" else pa.from_numpy_dtype(np.dtype(dtype)))
