"""Encoding rows as serialized ``tf.Example`` s (and ``tf.SequenceExample`` s), and
:func:`write_tfrecord`, which writes a table or ``Dataset`` as a TFRecord file of them.

Each column becomes a feature named after it: strings and binary values a
``bytes_list``, integers and booleans an ``int64_list`` (packed, as TF writes it), floats
a ``float_list`` (float32); a list column gives the row's list, a scalar column a
one-value list. A null leaves the feature out of that row's record, which
``parse_example`` then reads as missing (a default, an error, or an empty list).

>>> import pyarrow as pa
>>> encode_examples(pa.table({"x": [1]}))[0].hex()
'0a0c0a0a0a017812051a030a0101'
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow as pa

from ..core.wire_format import length_delimited as _field
from ..core.wire_format import varint
from .arrow_inputs import as_arrow_table
from .dataset import Dataset
from .polars_frames import as_arrow
from .tfrecord import TFRecordOptions, TFRecordWriter

__all__ = ["encode_examples", "encode_sequence_examples", "example_batches", "write_tfrecord"]

_BYTES, _FLOAT, _INT64 = 1, 2, 3


def _kind(arrow_type: pa.DataType, name: str) -> int:
    t = arrow_type
    while pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        t = t.value_type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t):
        return _BYTES
    if pa.types.is_large_binary(t):
        return _BYTES
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        return _INT64
    if pa.types.is_floating(t):
        return _FLOAT
    raise TypeError(
        f"column {name!r} has type {arrow_type}; a tf.Example holds strings, integers and "
        "floats (and lists of them): cast it first"
    )


def _feature(kind: int, values) -> bytes:
    """A serialized ``Feature`` holding ``values`` (a list) as list kind ``kind``."""
    if kind == _BYTES:
        items = [v.encode() if isinstance(v, str) else bytes(v) for v in values]
        return _field(_BYTES, b"".join(_field(1, v) for v in items))
    if kind == _FLOAT:
        packed = np.asarray(values, dtype="<f4").tobytes()
        return _field(_FLOAT, _field(1, packed) if packed else b"")
    packed = b"".join(varint(int(v)) for v in values)
    return _field(_INT64, _field(1, packed) if packed else b"")


def _flat_values(value):
    """A row's value as a flat list (nested fixed-size lists flattened)."""
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out += _flat_values(v) if isinstance(v, (list, tuple)) else [v]
        return out
    return [value]


def _column_features(column: pa.Array, name: str) -> list:
    """Per row, the serialized map entry ``name -> Feature``, or None for a null."""
    kind = _kind(column.type, name)
    key = _field(1, name.encode())
    out = []
    for value in column.to_pylist():
        if value is None:
            out.append(None)
            continue
        values = [v for v in _flat_values(value) if v is not None]
        out.append(_field(1, key + _field(2, _feature(kind, values))))
    return out


def _as_batches(data):
    """Record batches of a DataFrame (pandas or polars), Arrow table/batch or colonnade
    Dataset."""
    data = as_arrow(data, "write_tfrecord's data")
    if isinstance(data, Dataset):
        yield from data.record_batches()
        return
    if isinstance(data, pa.RecordBatch):
        yield data
        return
    if isinstance(data, pd.DataFrame):
        data = pa.Table.from_pandas(data, preserve_index=False)
    elif not isinstance(data, pa.Table):
        data = as_arrow_table(
            data,
            "write_tfrecord takes a pandas DataFrame, a pyarrow Table or RecordBatch, or a "
            "colonnade Dataset",
        )
    yield from data.to_batches()


def encode_examples(batch) -> list:
    """One serialized ``tf.Example`` (bytes) per row of a table or record batch.

    >>> import pyarrow as pa
    >>> len(encode_examples(pa.table({"a": ["x", None], "b": [[1.5], [2.5, 3.5]]})))
    2
    """
    columns = [_column_features(batch.column(i), name) for i, name in enumerate(batch.schema.names)]
    records = []
    for row in zip(*columns) if columns else [()] * batch.num_rows:
        body = b"".join(entry for entry in row if entry is not None)
        records.append(_field(1, body))
    return records


def example_batches(data):
    """Serialized ``tf.Example`` s of ``data`` (see :func:`_as_batches`), a batch of rows
    at a time."""
    for batch in _as_batches(data):
        yield encode_examples(batch)


def write_tfrecord(
    data, path: str | os.PathLike, compression_type: str | TFRecordOptions | None = None
) -> int:
    """Write ``data`` (a pandas DataFrame, Arrow table or colonnade ``Dataset``) to a
    TFRecord file, one ``tf.Example`` per row: strings become ``bytes_list``, integers
    ``int64_list``, floats ``float_list``, list columns lists; a null leaves the feature
    out of that row. Returns the number of records written. ``path``: the file to write;
    ``compression_type``: None, ``"GZIP"``, ``"ZLIB"`` or a :class:`TFRecordOptions`.

    >>> import os, tempfile, pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "adult.tfrecord")
    >>> write_tfrecord(pd.DataFrame({"age": [39, 50], "workclass": ["State-gov", None]}), path)
    2
    """
    count = 0
    with TFRecordWriter(path, compression_type) as writer:
        for records in example_batches(data):
            for record in records:
                writer.write(record)
            count += len(records)
    return count


def encode_sequence_examples(contexts, feature_lists) -> list:
    """Serialized ``tf.SequenceExample`` s from, per record, a dict of context values and
    a dict of feature lists (each a list of steps, each step a list of values); the kind
    of list is taken from the Python type of the values.

    >>> len(encode_sequence_examples([{"user": [1]}], [{"clicks": [[1], [2]]}])[0])
    45
    """
    records = []
    for context, lists in zip(contexts, feature_lists):
        ctx = b"".join(
            _field(1, _field(1, k.encode()) + _field(2, _feature(_py_kind(v), v)))
            for k, v in context.items()
        )
        seq = b"".join(
            _field(
                1,
                _field(1, k.encode())
                + _field(2, b"".join(_field(1, _feature(_py_kind(steps), s)) for s in steps)),
            )
            for k, steps in lists.items()
        )
        records.append(_field(1, ctx) + _field(2, seq))
    return records


def _py_kind(values) -> int:
    flat = [v for v in _flat_values(values)] if isinstance(values, (list, tuple)) else values
    if any(isinstance(v, (str, bytes)) for v in flat):
        return _BYTES
    if any(isinstance(v, float) for v in flat):
        return _FLOAT
    return _INT64
