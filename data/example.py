"""Parsing serialized ``tf.Example`` and ``tf.SequenceExample`` protos into Arrow tables.

The messages (field numbers as in TensorFlow's ``example.proto`` / ``feature.proto``)::

    Example         { Features features = 1; }
    SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }
    Features        { map<string, Feature> feature = 1; }
    FeatureLists    { map<string, FeatureList> feature_list = 1; }
    FeatureList     { repeated Feature feature = 1; }
    Feature         { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2;
                                   Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }   FloatList { repeated float value = 1; }
    Int64List { repeated int64 value = 1; }

A batch of records is decoded level by level with the vectorised wire reader of
:mod:`.wire` (one numpy pass per field position, across all records), not record by
record; this is what lets it keep up with TensorFlow's C++ parser (benchmarks/tfrecord.py).
Protobuf semantics are kept: fields in any order, unknown fields skipped, a map key seen
twice keeps its last value, packed and unpacked lists both read.

>>> from colonnade.data.example_writer import encode_examples
>>> import pyarrow as pa
>>> records = encode_examples(pa.table({"age": [39, 50], "tags": [["a"], []]}))
>>> table = parse_example(records, {"age": FixedLenFeature([], "int64"),
...                                 "tags": VarLenFeature("string")})
>>> table.to_pydict()
{'age': [39, 50], 'tags': [['a'], []]}
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from ..core.symbolic import SymbolicTensor, node
from .example_columns import (
    check_kind,
    feature_values,
    features_table,
    last_per_owner,
    list_column,
)
from .example_messages import (
    FeatureValues,
    RecordContext,
    delimited_fields,
    map_entries,
    scan_messages,
)
from .example_sparse import sparse_columns, with_sparse_parts
from .parse_spec import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    feature_list_kind,
    normalize_features,
)
from .wire import pad

__all__ = [
    "parse_example",
    "parse_records",
    "parse_sequence_example",
    "parse_single_example",
    "parse_single_sequence_example",
]


def _as_buffer(serialized):
    """``(buf, starts, ends)`` for bytes, a sequence of bytes, or an Arrow binary array."""
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        serialized = [bytes(serialized)]
    if isinstance(serialized, pa.ChunkedArray):
        serialized = serialized.combine_chunks()
    if isinstance(serialized, pa.Array):
        array = serialized.cast(pa.large_binary())
        offsets = np.frombuffer(array.buffers()[1], dtype=np.int64)
        offsets = offsets[array.offset : array.offset + len(array) + 1]
        data = array.buffers()[2]
        buf = pad(data if data is not None else b"")
        return buf, offsets[:-1].copy(), offsets[1:].copy()
    items = [s.encode() if isinstance(s, str) else bytes(s) for s in serialized]
    lengths = np.fromiter((len(s) for s in items), dtype=np.int64, count=len(items))
    ends = np.cumsum(lengths)
    return pad(b"".join(items)), ends - lengths, ends


def parse_records(
    buf, starts, ends, features, first_index=0, source=None, example_names=None
) -> pa.Table:
    """:func:`parse_example` on records already in a padded buffer (see
    :func:`.wire.pad`): record ``i`` is ``buf[starts[i]:ends[i]]``. ``first_index`` and
    ``source`` (a file name) and ``example_names`` (one per record) only make error
    messages point at the right record.

    >>> from colonnade.data.wire import pad
    >>> import numpy as np
    >>> parse_records(pad(b""), np.array([0]), np.array([0]),
    ...               {"x": FixedLenFeature([], "int64", 7)}).to_pydict()
    {'x': [7]}
    """
    requested = normalize_features(features)
    specs = with_sparse_parts(requested)
    ctx = RecordContext(first_index, source, example_names)
    n = starts.size
    owner = np.arange(n)
    top = scan_messages(buf, starts, ends, owner, ctx, "tf.train.Example")
    hit = delimited_fields(top, 1, ctx, owner[top.msg], "tf.train.Example")
    table = features_table(buf, top.start[hit], top.end[hit], top.msg[hit], n, specs, ctx)
    if specs is not requested and specs != requested:
        table = sparse_columns(table, requested, ctx.where)
    if isinstance(features, pa.Schema):
        table = table.cast(features)
    return table


def parse_example(
    serialized: Sequence[bytes] | pa.Array,
    features: dict | pa.Schema,
    example_names=None,
    name=None,
) -> pa.Table:
    """Parse serialized ``tf.Example`` s into a table with one row per record (TF's
    ``tf.io.parse_example``).

    ``serialized``: a list of bytes, or an Arrow binary array. ``features``: a dict of
    feature name to :class:`FixedLenFeature` (``[]`` gives a plain column, a shape a
    fixed-size list), :class:`VarLenFeature` (a list column) or
    :class:`FixedLenSequenceFeature` (a list column of items, every record's padded with
    ``default_value`` to the batch's longest, as TF pads) or :class:`SparseFeature`; or
    the ``pyarrow.Schema``
    from ``feature_columns.make_parse_example_spec``, whose columns come back with the
    schema's types and nulls where a record lacks a nullable field (see
    ``parse_spec._spec_from_field``). Errors name the feature and the record index, and
    the record's name from ``example_names`` (TF's: one name per record, for debugging;
    no effect on the output). ``name`` (TF's op name) is accepted and unused.

    >>> from colonnade.data.example_writer import encode_examples
    >>> records = encode_examples(pa.table({"x": [[1.0, 2.0], [3.0, 4.0]]}))
    >>> parse_example(records, {"x": FixedLenFeature([2], "float32")}).column("x").to_pylist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> parse_example(records, {"y": FixedLenFeature([], "int64")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: feature 'y' is required but record 0 does not have it; give ...
    """
    if isinstance(serialized, SymbolicTensor):
        return symbolic_parse(serialized, features)
    buf, starts, ends = _as_buffer(serialized)
    if example_names is not None:
        example_names = [n.decode() if isinstance(n, bytes) else str(n) for n in example_names]
        if len(example_names) != starts.size:
            raise ValueError(
                f"example_names must be the same length as serialized: {len(example_names)} "
                f"names for {starts.size} records"
            )
    return parse_records(buf, starts, ends, features, example_names=example_names)


def parse_single_example(
    serialized: bytes, features: dict | pa.Schema, example_names=None, name=None
) -> dict:
    """Parse one serialized ``tf.Example`` into ``{name: numpy array}`` (TF's
    ``tf.io.parse_single_example``): a ``FixedLenFeature`` gives an array of its shape,
    the others a 1-D array of the values (strings as ``str`` objects). ``serialized`` is
    one record's bytes, or a binary Arrow array of records (a ``TFRecordDataset`` map's
    batch of them), parsed at once into entries with a leading row axis; ``features`` as
    :func:`parse_example` takes them; ``example_names`` (one name) names the record in
    errors. ``name`` (TF's op name) is accepted and unused.

    >>> from colonnade.data.example_writer import encode_examples
    >>> record = encode_examples(pa.table({"age": [39], "tags": [["a", "b"]]}))[0]
    >>> out = parse_single_example(record, {"age": FixedLenFeature([], "int64"),
    ...                                     "tags": VarLenFeature("string")})
    >>> out["age"].item(), out["tags"].tolist()
    (39, ['a', 'b'])
    """
    if isinstance(serialized, SymbolicTensor):
        return symbolic_parse(serialized, features)
    if isinstance(serialized, (pa.Array, pa.ChunkedArray)):
        return _parse_column(serialized, features)
    if not isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(
            "parse_single_example takes one record's bytes (or a binary column of records), "
            f"got {type(serialized).__name__}"
        )
    specs = normalize_features(features)
    names = None if example_names is None else [example_names]
    table = parse_example([bytes(serialized)], features, example_names=names)
    out = {}
    for key in table.column_names:
        values = _leaf_values(table.column(key))
        spec = specs[key]
        shape = getattr(spec, "shape", None)
        if isinstance(spec, FixedLenFeature):
            values = values.reshape(shape)
        out[key] = values
    return out


def _parse_column(records, features) -> dict:
    """``parse_single_example`` over a column of records at once (what a
    ``TFRecordDataset`` map hands it: see :mod:`.tfrecord_dataset`): one entry per
    feature with a leading row axis, a ``FixedLenFeature`` of shape ``s`` an array of
    shape ``(n, *s)``, the others an Arrow list column (one list of values per record)."""
    specs = normalize_features(features)
    table = parse_example(records, features)
    out = {}
    for key in table.column_names:
        column = table.column(key).combine_chunks()
        spec = specs[key]
        if isinstance(spec, FixedLenFeature):
            values = _leaf_values(column)
            out[key] = values.reshape((len(column), *spec.shape))
        else:
            out[key] = column
    return out


def symbolic_parse(serialized: SymbolicTensor, features) -> dict:
    """``{name: serving graph node}`` of ``parse_example`` over a serving input (a
    ``serving_input_fn``'s string placeholder of serialized records): each feature a
    node the export computes per request."""
    if serialized.dtype != "string":
        raise TypeError(f"parse_example takes a string placeholder, got {serialized.dtype}")
    specs = normalize_features(features)
    parsed = node("parse_example", serialized, features=specs)
    return {
        name: SymbolicTensor("parsed_feature", (parsed,), {"name": name}, spec.dtype)
        for name, spec in specs.items()
    }


def parse_sequence_example(
    serialized: Sequence[bytes] | pa.Array,
    context_features: dict | None = None,
    sequence_features: dict | None = None,
    example_names=None,
    name=None,
) -> tuple[pa.Table, pa.Table]:
    """Parse serialized ``tf.SequenceExample`` s into ``(context, sequences)`` tables,
    one row per record (TF's ``tf.io.parse_sequence_example``, whose lengths output is
    ``pyarrow.compute.list_value_length`` of a sequence column here).

    ``serialized``: a list of bytes, or an Arrow binary array. ``context_features`` are
    read from ``context`` as :func:`parse_example` reads features. Each of
    ``sequence_features`` is read from ``feature_lists``: a
    :class:`FixedLenSequenceFeature` gives a list of the steps' values (each step holds
    exactly ``shape`` values), a :class:`VarLenFeature` a list of per-step lists. A
    missing feature list is an error for a ``FixedLenSequenceFeature`` unless
    ``allow_missing=True``, and gives an empty list otherwise. ``example_names`` and
    ``name`` are TF's debugging names, accepted and unused (errors give record indices).

    >>> from colonnade.data.example_writer import encode_sequence_examples
    >>> records = encode_sequence_examples([{"user": [7]}], [{"clicks": [[1], [2], [3]]}])
    >>> ctx, seq = parse_sequence_example(
    ...     records, {"user": FixedLenFeature([], "int64")},
    ...     {"clicks": FixedLenSequenceFeature([], "int64")})
    >>> ctx.to_pydict(), seq.to_pydict()
    ({'user': [7]}, {'clicks': [[1, 2, 3]]})
    """
    context_specs = normalize_features(context_features or {}, "context_features")
    sequence_specs = normalize_features(sequence_features or {}, "sequence_features")
    for key, spec in sequence_specs.items():
        if not isinstance(spec, (FixedLenSequenceFeature, VarLenFeature)):
            raise ValueError(
                f"sequence feature {key!r} must be a FixedLenSequenceFeature or "
                f"VarLenFeature, got {type(spec).__name__}"
            )
    buf, starts, ends = _as_buffer(serialized)
    ctx = RecordContext()
    n = starts.size
    owner = np.arange(n)
    top = scan_messages(buf, starts, ends, owner, ctx, "tf.train.SequenceExample")
    is_ctx = delimited_fields(top, 1, ctx, top.msg, "tf.train.SequenceExample")
    is_seq = delimited_fields(top, 2, ctx, top.msg, "tf.train.SequenceExample")
    context = features_table(
        buf, top.start[is_ctx], top.end[is_ctx], top.msg[is_ctx], n, context_specs, ctx
    )
    names = list(sequence_specs)
    list_owner, index, list_s, list_e = map_entries(
        buf, top.start[is_seq], top.end[is_seq], top.msg[is_seq], names, ctx, "FeatureLists"
    )
    columns = {}
    for f, key in enumerate(names):
        spec = sequence_specs[key]
        sel = np.flatnonzero(index == f)
        lists_owner = list_owner[sel]
        keep = last_per_owner(lists_owner)
        sel, lists_owner = sel[keep], lists_owner[keep]
        if isinstance(spec, FixedLenSequenceFeature) and not spec.allow_missing:
            have = np.zeros(n, dtype=bool)
            have[lists_owner] = True
            if not have.all():
                raise ValueError(
                    f"feature list {key!r} is required but {ctx.where(np.argmin(have))} does "
                    "not have it; pass allow_missing=True to get an empty sequence"
                )
        steps = scan_messages(buf, list_s[sel], list_e[sel], lists_owner, ctx, "FeatureList")
        is_step = delimited_fields(steps, 1, ctx, lists_owner[steps.msg], "FeatureList")
        step_owner = lists_owner[steps.msg[is_step]]
        step_index = np.zeros(step_owner.size, dtype=np.int64)
        vals = FeatureValues(
            buf, steps.start[is_step], steps.end[is_step], step_owner, ctx, (step_index, [key])
        )
        kind = feature_list_kind(spec.dtype)
        check_kind(
            vals,
            np.zeros(step_owner.size, dtype=np.int64),
            np.array([kind]),
            [key],
            step_owner,
            ctx,
        )
        values, counts = feature_values(vals, np.arange(step_owner.size), kind, spec.dtype)
        if isinstance(spec, FixedLenSequenceFeature):
            size = int(np.prod(spec.shape, dtype=np.int64))
            wrong = counts != size
            if wrong.any():
                i = int(np.argmax(wrong))
                raise ValueError(
                    f"feature list {key!r} in {ctx.where(step_owner[i])} has a step with "
                    f"{int(counts[i])} values, but shape {list(spec.shape)} needs {size}"
                )
            columns[key] = list_column(buf, spec, values, counts, step_owner, n, spec.shape or ())
        else:
            step_lists = list_column(
                buf, spec, values, counts, np.arange(step_owner.size), step_owner.size
            )
            per_record = np.bincount(step_owner, minlength=n)
            offsets = np.zeros(n + 1, dtype=np.int32)
            np.cumsum(per_record, out=offsets[1:])
            columns[key] = pa.ListArray.from_arrays(pa.array(offsets), step_lists)
    sequences = pa.table(columns) if columns else pa.table({}).slice(0, 0)
    return context, sequences


def parse_single_sequence_example(
    serialized: bytes,
    context_features: dict | None = None,
    sequence_features: dict | None = None,
    example_name=None,
    name=None,
) -> tuple[dict, dict]:
    """Parse one serialized ``tf.SequenceExample`` into ``(context, sequences)`` dicts of
    numpy arrays (TF's ``tf.io.parse_single_sequence_example``): context features as
    :func:`parse_single_example` gives them; a ``FixedLenSequenceFeature`` an array of
    shape ``(T,) + shape`` for its ``T`` steps; a ``VarLenFeature`` a list of each step's
    values. ``example_name`` names the record in errors only; ``name`` (TF's op name) is
    accepted and unused.

    >>> from colonnade.data.example_writer import encode_sequence_examples
    >>> record = encode_sequence_examples([{"user": [7]}], [{"clicks": [[1], [2], [3]]}])[0]
    >>> ctx, seq = parse_single_sequence_example(
    ...     record, {"user": FixedLenFeature([], "int64")},
    ...     {"clicks": FixedLenSequenceFeature([], "int64")})
    >>> ctx["user"].item(), seq["clicks"].tolist()
    (7, [1, 2, 3])
    """
    if not isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"parse_single_sequence_example takes bytes, got {type(serialized).__name__}"
        )
    if not context_features and not sequence_features:
        raise ValueError(
            "At least one of context_features and sequence_features must be provided and non-empty"
        )
    try:
        context, sequences = parse_sequence_example(
            [bytes(serialized)], context_features, sequence_features
        )
    except ValueError as e:
        if example_name is None:
            raise
        raise ValueError(f"{e} (example {example_name!r})") from None
    context_specs = normalize_features(context_features or {}, "context_features")
    out_context = {}
    for key in context.column_names:
        values = _leaf_values(context.column(key))
        spec = context_specs[key]
        out_context[key] = (
            values.reshape(spec.shape) if isinstance(spec, FixedLenFeature) else values
        )
    out_sequences = {}
    for key, spec in normalize_features(sequence_features or {}, "sequence_features").items():
        column = sequences.column(key).combine_chunks()
        if isinstance(spec, FixedLenSequenceFeature):
            out_sequences[key] = _leaf_values(column).reshape((-1, *spec.shape))
        else:
            steps = column.flatten()
            out_sequences[key] = [_leaf_values(steps.slice(i, 1)) for i in range(len(steps))]
    return out_context, out_sequences


def _leaf_values(column) -> np.ndarray:
    """The innermost values of a (list) column as a flat numpy array."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    while pa.types.is_list(column.type) or pa.types.is_fixed_size_list(column.type):
        column = column.flatten()
    return column.to_numpy(zero_copy_only=False)
