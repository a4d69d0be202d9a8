"""Arrow columns from in-memory arrays of any rank, sliced along their first axis as
``tf.data.Dataset.from_tensor_slices`` slices them.

A row of a multi-dimensional column is its values flattened in row-major order, as a
fixed-size list: what ``numeric_column(key, shape=...)`` reads (and what TF's
``input_layer`` flattens a dense tensor to). Asked to (``keep_row_shape``: the features a
serving receiver gives a ``model_fn``), a column of rank 3 or more also records its row
shape in its field's metadata (:data:`ROW_SHAPE_KEY`), so the ``model_fn`` gets the array
in its own shape, ``(batch, 3, 2)``, as TF hands it the tensor, not ``(batch, 6)``.

>>> import numpy as np
>>> table = table_from_columns({"x": np.arange(6.0).reshape(3, 2), "y": [0, 1, 0]}, "from_dict")
>>> table.column("x").to_pylist(), table.column("x").type.list_size
([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]], 2)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

__all__ = [
    "FEATURES_NAME",
    "LABEL_NAME",
    "ROW_SHAPE_KEY",
    "WHOLE_FEATURES_KEY",
    "column_from_array",
    "is_whole_features",
    "mark_whole_features",
    "row_shape",
    "slices_table",
    "table_from_columns",
]

LABEL_NAME = "label"
"""The column a ``(features, labels)`` pair's unnamed labels get."""


ROW_SHAPE_KEY = b"colonnade.row_shape"
"""Field metadata of a fixed-size list column of rank 3 or more: its row shape, as JSON."""

FEATURES_NAME = "features"
"""The column of ``from_tensor_slices`` given one array (not a dict) as its features."""

WHOLE_FEATURES_KEY = b"colonnade.whole_features"
"""Field metadata of the :data:`FEATURES_NAME` column that stands for the whole features:
a ``model_fn`` gets that column's array as ``features``, as TF gives it the one tensor."""


def is_whole_features(schema: pa.Schema) -> bool:
    """True when ``schema`` (a features batch's) is one column marked
    :data:`WHOLE_FEATURES_KEY`: its array is the features, not a dict of them."""
    if len(schema) != 1:
        return False
    metadata = schema.field(0).metadata or {}
    return WHOLE_FEATURES_KEY in metadata


def mark_whole_features(data, name: str = FEATURES_NAME):
    """``data`` (a Table or RecordBatch) with its column ``name`` marked
    :data:`WHOLE_FEATURES_KEY` (see :func:`is_whole_features`)."""
    index = data.schema.get_field_index(name)
    field = data.schema.field(index)
    marked = field.with_metadata({**(field.metadata or {}), WHOLE_FEATURES_KEY: b"1"})
    return data.cast(data.schema.set(index, marked))


def row_shape(field: pa.Field) -> tuple | None:
    """The row shape :func:`table_from_columns` recorded on ``field`` (``(3, 2)``), or None
    when there is none or it does not fit the field's fixed-size list."""
    metadata = field.metadata or {}
    if ROW_SHAPE_KEY not in metadata or not pa.types.is_fixed_size_list(field.type):
        return None
    try:
        shape = tuple(json.loads(metadata[ROW_SHAPE_KEY]))
    except (ValueError, TypeError):
        return None
    if not all(isinstance(d, int) and d > 0 for d in shape):
        return None
    return shape if math.prod(shape) == field.type.list_size else None


_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError)


def _arrow_values(name, values, from_pandas: bool) -> pa.Array:
    """``pa.array(values)``, its errors (mixed types, unsupported objects) a ValueError
    naming the column."""
    try:
        return pa.array(values, from_pandas=from_pandas)
    except _ARROW_ERRORS as e:
        raise ValueError(
            f"column {name!r} cannot be converted to an Arrow column (values of one type, "
            f"or lists of them, expected): {e}"
        ) from None


def column_from_array(name, values) -> pa.Array | pa.ChunkedArray:
    """``values`` (an Arrow array, a list or an array of any rank >= 1) as one Arrow
    column of ``len(values)`` rows. Ragged nested lists give a list column (one list per
    row); a list mixing types (``[1, "x"]``) is a ``ValueError`` naming the column, as TF
    refuses it."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values
    if isinstance(values, (Mapping, set, frozenset)):
        raise ValueError(
            f"column {name!r} is a {type(values).__name__}, which has no row order: give an "
            "array or list with one entry per example"
        )
    try:
        array = np.asarray(values)
    except ValueError:  # ragged nested lists: Arrow holds them as lists
        return _arrow_values(name, values, from_pandas=False)
    if array.ndim == 0:
        raise ValueError(f"column {name!r} is a scalar: give an array with one entry per example")
    if array.ndim == 1:
        if array.dtype.kind in "US" and not isinstance(values, np.ndarray):
            return _arrow_values(name, values, from_pandas=False)  # numpy made [1, "x"] text
        return _arrow_values(name, array, from_pandas=array.dtype == object)
    width = math.prod(array.shape[1:])
    if width == 0:
        raise ValueError(f"column {name!r} has shape {array.shape}: rows of no values")
    flat = np.ascontiguousarray(array).reshape(-1)
    return pa.FixedSizeListArray.from_arrays(
        _arrow_values(name, flat, from_pandas=array.dtype == object), width
    )


def table_from_columns(mapping: Mapping, origin: str, keep_row_shape: bool = False) -> pa.Table:
    """A table of ``mapping``'s columns (name -> array of any rank); columns of unequal
    length are a ``ValueError`` naming two of them and ``origin``, the caller.
    ``keep_row_shape``: record the row shape of each column of rank 3 or more
    (:func:`row_shape`)."""
    if not isinstance(mapping, Mapping):
        raise TypeError(
            f"{origin} takes a dict of column name -> array; got {type(mapping).__name__}"
        )
    columns = {str(name): column_from_array(name, values) for name, values in mapping.items()}
    shapes = {
        str(name): _rank_3_row_shape(values) if keep_row_shape else None
        for name, values in mapping.items()
    }
    lengths = {name: len(column) for name, column in columns.items()}
    if len(set(lengths.values())) > 1:
        (a, n), (b, m) = sorted(lengths.items(), key=lambda item: item[1])[:: len(lengths) - 1]
        raise ValueError(
            f"{origin}: every column needs one row per example; column {a!r} has {n} rows, "
            f"column {b!r} has {m}"
        )
    fields = [
        pa.field(name, column.type, metadata=_shape_metadata(shapes[name]))
        for name, column in columns.items()
    ]
    return pa.Table.from_arrays(list(columns.values()), schema=pa.schema(fields))


def _rank_3_row_shape(values) -> tuple | None:
    """The row shape of an array (or nested lists) of rank 3 or more, else None."""
    if isinstance(values, np.ndarray):
        shape = values.shape
    elif isinstance(values, (list, tuple)) and values and isinstance(values[0], (list, tuple)):
        try:
            shape = np.shape(values)
        except ValueError:  # ragged
            return None
    else:
        return None
    return tuple(int(d) for d in shape[1:]) if len(shape) >= 3 else None


def _shape_metadata(shape) -> dict | None:
    return None if shape is None else {ROW_SHAPE_KEY: json.dumps(list(shape)).encode()}


def slices_table(tensors) -> tuple:
    """``(table, label)`` of what ``from_tensor_slices`` takes: features alone, or a
    ``(features, labels)`` pair whose ``labels`` is one array (the column
    :data:`LABEL_NAME`; a ``(n, 1)`` array is taken as ``(n,)``) or a dict of arrays (a
    list of label columns). Features are a dict of arrays, or one array (TF's single
    tensor: the column :data:`FEATURES_NAME`, which a ``model_fn`` gets as its
    ``features``, in its own row shape)."""
    if isinstance(tensors, tuple) and len(tensors) != 2:
        raise ValueError(
            "from_tensor_slices: an input_fn should return (features, labels) as a len 2 "
            f"tuple, or features alone; got a tuple of {len(tensors)}"
        )
    features, labels = tensors if isinstance(tensors, tuple) else (tensors, None)
    if not isinstance(features, Mapping):
        return _whole_features_table(features, labels)
    if not features:
        raise ValueError("from_tensor_slices takes at least one column, got an empty dict")
    if labels is None:
        return table_from_columns(features, "from_tensor_slices"), None
    if isinstance(labels, Mapping):
        clash = sorted(set(map(str, labels)) & set(map(str, features)))
        if clash:
            raise ValueError(f"from_tensor_slices: {clash} are both features and labels")
        return table_from_columns({**features, **labels}, "from_tensor_slices"), list(labels)
    if LABEL_NAME in features:
        raise ValueError(
            f"from_tensor_slices: a feature is named {LABEL_NAME!r}, the name the labels "
            "take; rename it, or give the labels as a dict"
        )
    table = table_from_columns({**features, LABEL_NAME: _labels(labels)}, "from_tensor_slices")
    return table, LABEL_NAME


def _labels(labels):
    labels = np.asarray(labels) if not isinstance(labels, (pa.Array, pa.ChunkedArray)) else labels
    if isinstance(labels, np.ndarray) and labels.ndim == 2 and labels.shape[1] == 1:
        labels = labels[:, 0]
    return labels


def _whole_features_table(features, labels) -> tuple:
    """The table of one features array (and ``labels``, an array or None): its column
    :data:`FEATURES_NAME` marked :data:`WHOLE_FEATURES_KEY`, its row shape kept."""
    if isinstance(labels, Mapping):
        raise TypeError(
            "from_tensor_slices: labels given as a dict need features as a dict too; got "
            f"features as {type(features).__name__}"
        )
    if hasattr(features, "numpy") and not isinstance(features, np.ndarray):
        features = features.numpy()
    columns = {FEATURES_NAME: features}
    if labels is not None:
        columns[LABEL_NAME] = _labels(labels)
    table = table_from_columns(columns, "from_tensor_slices", keep_row_shape=True)
    return mark_whole_features(table), None if labels is None else LABEL_NAME
