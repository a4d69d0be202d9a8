"""``cn.sparse``: ``tf.sparse.to_dense`` for the variable-length features a ``model_fn``
gets.

A variable-length feature (TF's ``VarLenFeature``, a list column) reaches a ``model_fn``
as an Arrow ``ListArray``, where TF gives a ``SparseTensor``. Feature columns read it as
it is; :func:`to_dense` pads it into a ``(batch, longest)`` array for hand-written ops.

>>> import pyarrow as pa
>>> to_dense(pa.array([[1, 2], [], [3]])).tolist()
[[1, 2], [0, 0], [3, 0]]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["MAX_DENSE_VALUES", "to_dense"]

MAX_DENSE_VALUES = 1 << 28
"""The most cells ``to_dense`` makes (2 GiB of float64): one hostile row of a huge list
must not make every row that wide in memory."""


def to_dense(sp_input, default_value=None, validate_indices=True, name=None) -> np.ndarray:
    """``sp_input`` (an Arrow list array, one list per example) as a ``(batch, n)`` array,
    ``n`` the longest list, each row padded with ``default_value`` (0, or ``""`` for
    strings; TF's default). A null list is an empty one. ``validate_indices`` and
    ``name`` are TF's, accepted and not needed."""
    if isinstance(sp_input, pa.ChunkedArray):
        sp_input = sp_input.combine_chunks()
    if not isinstance(sp_input, (pa.ListArray, pa.LargeListArray, pa.FixedSizeListArray)):
        raise TypeError(
            "to_dense takes a variable-length feature (an Arrow list array); got "
            f"{type(sp_input).__name__}"
        )
    lengths = pc.fill_null(pc.list_value_length(sp_input), 0).to_numpy().astype(np.int64)
    values = pc.list_flatten(sp_input).to_numpy(zero_copy_only=False)
    if default_value is None:
        default_value = "" if values.dtype == object else 0
    width = int(lengths.max(initial=0))
    if len(lengths) * width > MAX_DENSE_VALUES:
        raise ValueError(
            f"to_dense: {len(lengths):,} rows padded to the longest list ({width:,} values) "
            f"would hold {len(lengths) * width:,} values, more than {MAX_DENSE_VALUES:,}; "
            "read the list with feature columns (sparse) instead"
        )
    dtype = object if values.dtype == object else values.dtype
    out = np.full((len(lengths), width), default_value, dtype=dtype)
    rows = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.cumsum(lengths) - lengths
    columns = np.arange(len(values)) - np.repeat(starts, lengths)
    out[rows, columns] = values
    return out
