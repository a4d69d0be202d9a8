"""``Dataset.padded_batch``: batches whose variable-length columns are padded to one
length, as TF pads each component to the longest in the batch (or to ``padded_shapes``).

A variable-length list column becomes a fixed-size list column of the batch's padded
length (an ``(n, length)`` array to a map function), filled with the column's
``padding_values`` entry (0, or ``""`` for strings, by default). Padding is one numpy
scatter per column and batch: the values land where ``arange(length) < lengths``.

>>> import pyarrow as pa
>>> batch = pa.record_batch({"v": pa.array([[1], [2, 3]])})
>>> pad_batch(batch, {}, {}).column("v").to_pylist()
[[1, 0], [2, 3]]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

__all__ = ["PaddedBatch", "pad_batch", "per_column"]

OP = "Dataset.padded_batch"


def per_column(structure, label, single, what) -> dict:
    """``padded_shapes``/``padding_values`` (a dict, or a ``(features, labels)`` pair on
    a labelled dataset) as ``{column: entry}``."""
    if structure is None:
        return {}
    if label is not None:
        if not (isinstance(structure, tuple) and len(structure) == 2):
            raise TypeError(
                f"{OP}: {what} of a labelled dataset is a (features, labels) pair, got "
                f"{type(structure).__name__}"
            )
        features, labels = structure
        out = dict(features or {})
        if labels is not None:
            if single:
                out[label] = labels
            else:
                out.update(labels)
        return {str(k): v for k, v in out.items()}
    if not isinstance(structure, Mapping):
        raise TypeError(
            f"{OP}: {what} is a dict of column -> entry, as the elements are; got "
            f"{type(structure).__name__}"
        )
    return {str(k): v for k, v in structure.items()}


def _length(name, shape, width=None):
    """The padded length ``shape`` asks for (None: the batch's longest)."""
    if shape is None:
        return None
    dims = list(shape.as_list() if hasattr(shape, "as_list") else shape)
    if len(dims) != (0 if width is False else 1):
        raise ValueError(
            f"{OP}: column {name!r}: padded shape {dims} does not fit an element of rank "
            f"{0 if width is False else 1}"
        )
    if not dims or dims[0] is None or dims[0] == -1:
        return None
    return int(dims[0])


def _padded(name, column, length, value):
    lengths = column.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    longest = int(lengths.max()) if lengths.size else 0
    if length is None:
        length = longest
    elif length < longest:
        raise ValueError(
            f"{OP}: column {name!r}: padded shape [{length}] is smaller than an element of "
            f"length {longest} in the batch"
        )
    values = column.flatten()
    text = pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
    dtype = object if text else values.type.to_pandas_dtype()
    fill = "" if value is None and text else 0 if value is None else value
    try:
        fill = np.asarray(fill, dtype=dtype)
    except (TypeError, ValueError):
        raise ValueError(
            f"{OP}: column {name!r}: padding value {value!r} is not a {values.type}"
        ) from None
    if fill.ndim:
        raise ValueError(
            f"{OP}: column {name!r}: the padding value must be a scalar, got {value!r}"
        )
    out = np.full((len(column), length), fill, dtype=dtype)
    out[np.arange(length) < lengths[:, None]] = values.to_numpy(zero_copy_only=False)
    flat = pa.array(out.reshape(-1), type=values.type)
    return pa.FixedSizeListArray.from_arrays(flat, length)


def pad_batch(batch: pa.RecordBatch, shapes: dict, values: dict) -> pa.RecordBatch:
    """``batch`` with each variable-length list column padded (see the module docstring)."""
    unknown = sorted(set(shapes) - set(batch.schema.names)) + sorted(
        set(values) - set(batch.schema.names)
    )
    if unknown:
        raise KeyError(
            f"{OP}: padded_shapes / padding_values name {unknown[0]!r}, which the elements "
            f"do not have (they have {batch.schema.names})"
        )
    columns = []
    for name, column in zip(batch.schema.names, batch.columns):
        kind = column.type
        if pa.types.is_list(kind) or pa.types.is_large_list(kind):
            column = _padded(name, column, _length(name, shapes.get(name)), values.get(name))
        elif pa.types.is_fixed_size_list(kind):
            length = _length(name, shapes.get(name))
            if length not in (None, kind.list_size):
                raise ValueError(
                    f"{OP}: column {name!r}: padded shape [{length}] is not compatible with "
                    f"its elements' shape [{kind.list_size}]"
                )
        else:
            _length(name, shapes.get(name), width=False)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


@dataclass(frozen=True, eq=False)
class PaddedBatch:
    """Pad each batch of the child (a :class:`~.plan.Batch`)."""

    child: object
    shapes: dict
    values: dict

    schema = None

    def describe(self):
        return [*self.child.describe(), "padded"]

    def iterate(self, key):
        for batch in self.child.iterate(key):
            yield pad_batch(batch, self.shapes, self.values)
