"""Column names: checking them, splitting off labels, and the columns feature columns read.

A labelled dataset yields ``(features, labels)``: ``features`` is the
:class:`pyarrow.RecordBatch` without the label column(s); ``labels`` is a numpy array
when the label is one name (``label="y"``) and a ``RecordBatch`` when it is a list of
names (``label=["y1", "y2"]``), the Arrow counterpart of TF's dict of labels.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from .tensor_slices import column_from_array, table_from_columns

__all__ = [
    "as_expression",
    "as_names",
    "check_expression",
    "check_names",
    "join_label",
    "label_values",
    "pandas_conversion_error",
    "project",
    "required_columns",
    "split_label",
]


def as_names(columns, what="columns"):
    """A tuple of column names from one name or a list of names."""
    if isinstance(columns, str):
        return (columns,)
    names = tuple(columns)
    bad = [c for c in names if not isinstance(c, str)]
    if bad:
        raise TypeError(f"{what} must be column names (str), got {bad!r}")
    return names


def check_names(names, schema, what="column", origin=None):
    """Raise ``KeyError`` naming each of ``names`` missing from ``schema`` and its columns;
    ``origin()`` says where the schema comes from (e.g. the first of several files), asked
    only when a name is missing."""
    if schema is None:
        return
    missing = [n for n in names if n not in schema.names]
    if missing:
        where = origin() if origin is not None else None
        raise KeyError(
            f"{what} {missing[0]!r} not found; the data has columns {schema.names}"
            + (f" (also missing: {missing[1:]})" if len(missing) > 1 else "")
            + (f"; {where}" if where else "")
        )


def project(schema, names):
    """``schema`` restricted to ``names``, in that order."""
    return pa.schema([schema.field(n) for n in names])


def as_expression(filter):
    """An Arrow expression from an expression or a DNF list such as ``[("x", ">", 1)]``."""
    if filter is None or isinstance(filter, pc.Expression):
        return filter
    if isinstance(filter, (list, tuple)):
        return pq.filters_to_expression(filter)
    raise TypeError(
        "filter must be a pyarrow.compute.Expression such as pc.field('x') > 1, "
        f"or a list of (column, op, value) tuples; got {type(filter).__name__}"
    )


def check_expression(expression, schema):
    """Bind ``expression`` to ``schema`` now, so an unknown column fails before any read."""
    if expression is None or schema is None:
        return
    try:
        pads.dataset(schema.empty_table()).to_table(filter=expression)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as err:
        kind = KeyError if "No match for FieldRef" in str(err) else TypeError
        raise kind(
            f"filter {expression} does not apply to the data's columns {schema.names}: {err}"
        ) from err


def pandas_conversion_error(name, series, err):
    """A ``TypeError`` for a pandas column that Arrow cannot convert, naming the column, the
    first offending row (position and index label), its value, and Arrow's reason.

    Only called once a conversion has failed, so it may look at the values one by one: a
    row is offending when it is not a number while most are (``pd.to_numeric``), else when
    its Python type differs from the first non-null value's.
    """
    import pandas as pd

    present = series.notna().to_numpy()
    numbers = pd.to_numeric(series, errors="coerce").notna().to_numpy()
    if numbers.sum() * 2 >= present.sum():
        bad = present & ~numbers
        expected = "numbers"
    else:
        kinds = series.map(type).to_numpy()
        first = kinds[present.argmax()] if present.any() else None
        bad = present & (kinds != first)
        expected = f"{getattr(first, '__name__', first)} values like the first one"
    reason = err.args[0] if getattr(err, "args", None) else err
    if not bad.any():
        return TypeError(f"column {name!r} cannot be converted to Arrow: {reason}")
    row = int(bad.argmax())
    label = series.index[row]
    label = label.item() if hasattr(label, "item") else label
    return TypeError(
        f"column {name!r} cannot be converted to Arrow: row {row} (index {label!r}) "
        f"holds {series.iloc[row]!r} ({type(series.iloc[row]).__name__}) where the column has "
        f"{expected}; {int(bad.sum())} rows differ ({reason})"
    )


def split_label(batch, names, single):
    """``(features, labels)`` from a RecordBatch holding the label columns ``names``."""
    check_names(names, batch.schema, what="label column")
    features = batch.drop_columns(list(names))
    if single:
        return features, label_values(batch.column(names[0]))
    return features, batch.select(list(names))


def label_values(column) -> np.ndarray:
    """A label column as numpy: a fixed-size list column (the labels of
    ``from_tensor_slices`` given a ``(n, k)`` array) as an ``(n, k)`` array, as TF's
    input_fn gives them; any other column as a 1-d array."""
    if not pa.types.is_fixed_size_list(column.type) or column.null_count:
        return column.to_numpy(zero_copy_only=False)
    width = column.type.list_size
    values = label_values(column.flatten())
    return values.reshape((len(column), width) + values.shape[1:])


def join_label(features, labels, names, single):
    """Inverse of :func:`split_label`: the label columns appended to ``features``."""
    if single:
        columns = [column_from_array(names[0], labels)]
    else:
        if not isinstance(labels, (pa.RecordBatch, pa.Table)):
            labels = table_from_columns(labels, "the labels")
        check_names(names, labels.schema, what="label")
        columns = [labels.column(n) for n in names]
    out = features
    for name, column in zip(names, columns):
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if len(column) != features.num_rows:
            raise ValueError(
                f"label {name!r} has {len(column)} rows but the features have {features.num_rows}"
            )
        out = out.append_column(name, column)
    return out


def _keys_of(column):
    """The raw input names one feature column (or a plain name) reads."""
    if isinstance(column, str):
        return [column]
    keys = getattr(column, "input_keys", None)
    if keys is not None:
        return list(as_names(keys, "input_keys"))
    key = getattr(column, "key", None)
    if isinstance(key, str):
        return [key]
    # Columns built on other columns (crossed, embedding, indicator, weighted) name them.
    nested = getattr(column, "keys", None)
    if nested is not None and not callable(nested):
        return [k for sub in nested for k in _keys_of(sub)]
    for attr in ("categorical_column", "source_column"):
        inner = getattr(column, attr, None)
        if inner is not None:
            return _keys_of(inner)
    name = getattr(column, "name", None)
    if isinstance(name, str):
        return [name]
    raise TypeError(
        f"cannot tell which input columns {column!r} reads: expected a column name or an "
        "object with `input_keys`, `key` or `name`"
    )


def required_columns(feature_columns, label=None, weight=None):
    """The raw column names that ``feature_columns`` (plus ``label`` and ``weight``) read,
    in first-seen order without duplicates: pass them as ``columns=`` so a file source
    reads nothing else.

    Each column contributes ``col.input_keys`` when it has that attribute, else
    ``col.key``, else ``col.name``; plain strings stand for themselves. ``weight`` may be a
    name or a numeric column.

    >>> import colonnade as cn
    >>> cn.data.required_columns(["age", "income"], label="y", weight="w")
    ['age', 'income', 'y', 'w']
    """
    if isinstance(feature_columns, str) or not hasattr(feature_columns, "__iter__"):
        feature_columns = [feature_columns]
    extra = [] if label is None else list(as_names(label, "label"))
    if weight is not None:
        extra += _keys_of(weight)
    names = [k for col in feature_columns for k in _keys_of(col)] + extra
    return list(dict.fromkeys(names))
