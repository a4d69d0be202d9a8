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

import functools
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .parse_spec import (
    BYTES,
    FLOAT,
    INT64,
    KIND_NAMES,
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
    _default,
    _NullableFixed,
    arrow_type,
    kind_of,
    normalize_features,
)
from .wire import WireError, decode_packed_varints, pad, read_varints, scan_fields

__all__ = ["parse_example", "parse_sequence_example", "parse_single_example", "parse_records"]


class _Context:
    """What an error message needs: where the records came from and the first one's index."""

    def __init__(self, first_index=0, source=None):
        self.first_index = first_index
        self.source = source

    def where(self, record):
        place = f" of {self.source}" if self.source else ""
        return f"record {int(record) + self.first_index}{place}"


def _scan(buf, starts, ends, owner, ctx, what):
    try:
        return scan_fields(buf, starts, ends)
    except WireError as err:
        raise ValueError(
            f"{ctx.where(owner[err.message])} is not a valid serialized {what}: {err.reason}"
        ) from None


def _gather(buf, starts, ends):
    """The bytes of the ranges ``buf[starts[i]:ends[i]]`` one after another."""
    lengths = ends - starts
    if lengths.size == 0:
        return np.zeros(0, dtype=np.uint8)
    first = np.cumsum(lengths) - lengths
    return buf[np.repeat(starts - first, lengths) + np.arange(int(lengths.sum()))]


def _binary_array(buf, starts, ends):
    """A ``pa.large_binary`` array of the ranges."""
    data = _gather(buf, starts, ends)
    offsets = np.zeros(starts.size + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=offsets[1:])
    return pa.Array.from_buffers(
        pa.large_binary(), starts.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def _fields(fields, number, ctx, owner, what):
    """Mask of the length-delimited fields numbered ``number``; another wire type for
    them is an error."""
    hit = fields.number == number
    bad = hit & (fields.wire != 2)
    if bad.any():
        msg = fields.msg[np.argmax(bad)]
        raise ValueError(
            f"{ctx.where(owner[msg])} is not a valid serialized {what}: field {number} has "
            f"wire type {fields.wire[np.argmax(bad)]}, expected 2 (length-delimited)"
        )
    return hit


def _map_entries(buf, starts, ends, owner, names, ctx, what):
    """The entries of ``map<string, ...>`` messages whose key is one of ``names``:
    ``(owner, name_index, value_start, value_end)``, ordered by name then by owner."""
    f = _scan(buf, starts, ends, owner, ctx, what)
    hit = _fields(f, 1, ctx, owner[f.msg], what)
    e_owner = owner[f.msg[hit]]
    entry_s, entry_e = f.start[hit], f.end[hit]
    found = _canonical_entries(buf, entry_s, entry_e)
    if found is None:
        found = _any_entries(buf, entry_s, entry_e, e_owner, ctx, what)
    key_s, key_e, val_s, val_e = found
    keys = _binary_array(buf, key_s, key_e)
    wanted = pa.array([name.encode() for name in names], pa.large_binary())
    index = pc.index_in(keys, value_set=wanted).fill_null(-1).to_numpy().astype(np.int64)
    keep = np.flatnonzero(index >= 0)
    # int16 keys make numpy's stable sort a radix sort (linear time)
    order = keep[np.argsort(index[keep].astype(np.int16), kind="stable")]
    return e_owner[order], index[order], val_s[order], val_e[order]


def _canonical_entries(buf, starts, ends):
    """``(key_s, key_e, val_s, val_e)`` when every map entry is laid out as every
    serializer writes it (key field, then value field, nothing else), else None."""
    if starts.size == 0:
        return None
    key_len, key_s = read_varints(buf, starts + 1)
    key_e = key_s + key_len.astype(np.int64)
    ok = (buf[starts] == 0x0A) & (key_e < ends)
    at = np.minimum(key_e, ends)
    ok &= buf[at] == 0x12
    val_len, val_s = read_varints(buf, at + 1)
    val_e = val_s + val_len.astype(np.int64)
    ok &= val_e == ends
    return (key_s, key_e, val_s, val_e) if ok.all() else None


def _any_entries(buf, starts, ends, owner, ctx, what):
    """Map entries with fields in any order, repeated or missing (protobuf's rules)."""
    kv = _scan(buf, starts, ends, owner, ctx, what)
    n = starts.size
    key_s, key_e, val_s, val_e = (np.zeros(n, dtype=np.int64) for _ in range(4))
    is_key = _fields(kv, 1, ctx, owner[kv.msg], what)
    key_s[kv.msg[is_key]] = kv.start[is_key]
    key_e[kv.msg[is_key]] = kv.end[is_key]
    is_val = _fields(kv, 2, ctx, owner[kv.msg], what)
    val_s[kv.msg[is_val]] = kv.start[is_val]
    val_e[kv.msg[is_val]] = kv.end[is_val]
    return key_s, key_e, val_s, val_e


@functools.cache
def _tag_table(tags):
    """A 256-entry mask of the one-byte tags in ``tags`` (a lookup is cheaper than isin)."""
    table = np.zeros(256, dtype=bool)
    table[list(tags)] = True
    return table


def _canonical_single(buf, starts, ends, tags):
    """``(tag, payload_s, payload_e)`` when each message is empty or one length-delimited
    field with a tag in ``tags`` (a Feature's kind, a packed list), else None."""
    tag = buf[starts]
    length, payload_s = read_varints(buf, starts + 1)
    payload_e = payload_s + length.astype(np.int64)
    empty = starts == ends
    ok = empty | (_tag_table(tags)[tag] & (payload_e == ends))
    if not ok.all():
        return None
    tag = np.where(empty, 0, tag)
    return tag, np.where(empty, starts, payload_s), np.where(empty, starts, payload_e)


class _Values:
    """The values of many ``Feature`` messages, decoded once for all features.

    ``kind[i]`` is the list kind entry ``i`` holds (0: none set), ``count[i]`` its number
    of values and ``offset[i]`` where they start in ``values[kind[i]]`` (a float32 or int64
    array, or for bytes the ``(starts, ends)`` ranges into the buffer).
    """

    def __init__(self, buf, starts, ends, owner, ctx):
        n = starts.size
        single = _canonical_single(buf, starts, ends, (0x0A, 0x12, 0x1A))
        if single is not None:
            tag, list_s, list_e = single
            self.kind = (tag >> 3).astype(np.int64)
        else:
            self.kind, list_s, list_e = _any_kind(buf, starts, ends, owner, ctx)
        self.count = np.zeros(n, dtype=np.int64)
        self.offset = np.zeros(n, dtype=np.int64)
        self.values = {}
        # Every serializer writes a list as one field: one packed run, or one bytes value.
        inner = _canonical_single(buf, list_s, list_e, (0x0A,))
        for kind in (BYTES, FLOAT, INT64):
            group = np.flatnonzero(self.kind == kind)
            if group.size:
                values = counts = None
                if inner is not None:
                    one = inner[0][group] != 0, inner[1][group], inner[2][group]
                    values, counts = _one_field_list(buf, kind, *one, owner[group], ctx)
                if values is None:
                    args = buf, kind, list_s[group], list_e[group], owner[group], ctx
                    values, counts = _decode_list(*args)
                self.values[kind] = values
                self.count[group] = counts
                self.offset[group] = np.cumsum(counts) - counts


def _any_kind(buf, starts, ends, owner, ctx):
    """``(kind, list_s, list_e)`` of Feature messages in any layout (last kind wins)."""
    f = _scan(buf, starts, ends, owner, ctx, "tf.train.Feature")
    n = starts.size
    kind = np.zeros(n, dtype=np.int64)
    list_s = np.zeros(n, dtype=np.int64)
    list_e = np.zeros(n, dtype=np.int64)
    hit = np.isin(f.number, (BYTES, FLOAT, INT64))
    bad = hit & (f.wire != 2)
    if bad.any():
        raise ValueError(
            f"{ctx.where(owner[f.msg[np.argmax(bad)]])} is not a valid serialized "
            "tf.train.Feature: its list has the wrong wire type"
        )
    kind[f.msg[hit]] = f.number[hit]
    list_s[f.msg[hit]] = f.start[hit]
    list_e[f.msg[hit]] = f.end[hit]
    return kind, list_s, list_e


def _one_field_list(buf, kind, nonempty, payload_s, payload_e, owner, ctx):
    """``(values, counts)`` of lists that are each empty or one field (``nonempty``
    says which): a bytes value, or a packed run of floats or int64s; ``(None, None)``
    when the floats are not whole."""
    if kind == BYTES:
        return (payload_s[nonempty], payload_e[nonempty]), nonempty.astype(np.int64)
    size = np.where(nonempty, payload_e - payload_s, 0)
    if kind == FLOAT:
        if (size % 4).any():
            return None, None
        values = _gather(buf, payload_s, payload_s + size).view("<f4")
        values = values.astype(np.float32, copy=False)
        return values, size // 4
    try:
        return decode_packed_varints(buf, payload_s, payload_s + size)
    except WireError as err:
        raise ValueError(f"{ctx.where(owner[err.message])}: {err.reason}") from None


def _decode_list(buf, kind, starts, ends, owner, ctx):
    """``(values, counts)`` of lists of one kind, fields in any layout."""
    lists = _scan(buf, starts, ends, owner, ctx, KIND_NAMES[kind])
    n = starts.size
    hit = lists.number == 1
    msg, wire, start, end = lists.msg[hit], lists.wire[hit], lists.start[hit], lists.end[hit]
    if kind == BYTES:
        if (wire != 2).any():
            record = owner[msg[np.argmax(wire != 2)]]
            raise ValueError(f"{ctx.where(record)}: a bytes_list value is not length-delimited")
        return (start, end), np.bincount(msg, minlength=n)
    if kind == FLOAT:
        size = end - start
        bad = ~np.isin(wire, (2, 5)) | (size % 4 != 0)
        if bad.any():
            record = owner[msg[np.argmax(bad)]]
            raise ValueError(f"{ctx.where(record)}: a float_list is not a whole number of floats")
        values = _gather(buf, start, end).view("<f4").astype(np.float32, copy=False)
        return values, np.bincount(msg, weights=size // 4, minlength=n).astype(np.int64)
    packed = wire == 2
    if packed.all():
        try:
            values, seg_counts = decode_packed_varints(buf, start, end)
        except WireError as err:
            raise ValueError(f"{ctx.where(owner[msg[err.message]])}: {err.reason}") from None
        return values, np.bincount(msg, weights=seg_counts, minlength=n).astype(np.int64)
    bad = (wire != 0) & ~packed
    if bad.any():
        record = owner[msg[np.argmax(bad)]]
        raise ValueError(f"{ctx.where(record)}: an int64_list value has the wrong wire type")
    # Unpacked (or mixed) lists: every unpacked field is one value, in order.
    packed_values, packed_counts = decode_packed_varints(buf, start[packed], end[packed])
    seg_counts = np.ones(msg.size, dtype=np.int64)
    seg_counts[packed] = packed_counts
    values = np.empty(int(seg_counts.sum()), dtype=np.int64)
    seg_first = np.cumsum(seg_counts) - seg_counts
    values[seg_first[~packed]] = lists.value[hit][~packed].view(np.int64)
    slots = np.repeat(seg_first[packed], packed_counts) + (
        np.arange(packed_values.size)
        - np.repeat(np.cumsum(packed_counts) - packed_counts, packed_counts)
    )
    values[slots] = packed_values
    return values, np.bincount(msg, weights=seg_counts, minlength=n).astype(np.int64)


def _leaf_array(buf, dtype, values):
    """An Arrow array of the values (``values`` as stored by :class:`_Values`); strings
    are checked to be UTF-8."""
    if dtype in ("string", "binary"):
        starts, ends = values
        data = _gather(buf, starts, ends)
        offsets = np.zeros(starts.size + 1, dtype=np.int64)
        np.cumsum(ends - starts, out=offsets[1:])
        wide = offsets[-1] >= 2**31
        kind = {"string": pa.string(), "binary": pa.binary()}[dtype]
        if wide:
            kind = pa.large_string() if dtype == "string" else pa.large_binary()
        else:
            offsets = offsets.astype(np.int32)
        array = pa.Array.from_buffers(
            kind, starts.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )
        if dtype == "string":
            array.validate(full=True)
        return array
    return pa.array(values, type=arrow_type(dtype))


def _empty_values(dtype):
    if dtype in ("string", "binary"):
        z = np.zeros(0, dtype=np.int64)
        return (z, z)
    return np.zeros(0, dtype=np.float32 if dtype == "float32" else np.int64)


def _slice_values(vals, kind, first, total):
    values = vals.values.get(kind)
    if values is None:
        return None
    if kind == BYTES:
        return values[0][first : first + total], values[1][first : first + total]
    return values[first : first + total]


def _feature_values(vals, entries, kind, dtype):
    """``(values, counts)`` of the entries ``entries`` (all of one feature)."""
    counts = vals.count[entries]
    present = np.flatnonzero(vals.kind[entries] == kind)
    if present.size == 0:
        return _empty_values(dtype), counts * 0
    first = vals.offset[entries][present[0]]
    values = _slice_values(vals, kind, first, int(counts.sum()))
    return values, counts


def _check_kind(vals, index, expected, names, owner, ctx):
    wrong = (vals.kind != 0) & (vals.kind != expected[index])
    if wrong.any():
        i = int(np.flatnonzero(wrong)[np.argmin(owner[wrong])])
        name = names[index[i]]
        raise ValueError(
            f"feature {name!r} in {ctx.where(owner[i])} is a {KIND_NAMES[int(vals.kind[i])]}, "
            f"but it was declared as {KIND_NAMES[int(expected[index[i]])]}; declare its dtype "
            f"as {_DTYPE_OF_KIND[int(vals.kind[i])]!r} or fix the data"
        )


_DTYPE_OF_KIND = {BYTES: "string", FLOAT: "float32", INT64: "int64"}


_ALL = slice(None)  # "keep every entry"


def _last_per_owner(owner):
    """Mask keeping the last of each run of equal owners (a map key seen twice)."""
    if owner.size < 2 or (owner[1:] != owner[:-1]).all():
        return _ALL
    keep = np.ones(owner.size, dtype=bool)
    keep[:-1] = owner[1:] != owner[:-1]
    return keep


def _mask_values(values, counts, keep):
    mask = np.repeat(keep, counts)
    if isinstance(values, tuple):
        return values[0][mask], values[1][mask]
    return values[mask]


def _nest(array, shape):
    """``array`` (flat) as nested fixed-size lists of ``shape``."""
    for size in reversed(shape):
        array = pa.FixedSizeListArray.from_arrays(array, size)
    return array


def _take(values_array, index):
    return values_array.take(pa.array(index, pa.int64()))


def _fixed_column(buf, name, spec, values, counts, owner, n, ctx):
    """A FixedLenFeature's column: every record has exactly ``prod(shape)`` values."""
    size = int(np.prod(spec.shape, dtype=np.int64))
    if counts.size == n and size and (counts == size).all():
        # Every record has the feature once (owners are distinct and sorted).
        leaf = _leaf_array(buf, spec.dtype, values)
        return _nest(leaf, spec.shape) if spec.shape else leaf
    present = counts > 0 if size else np.ones(counts.size, dtype=bool)
    wrong = present & (counts != size)
    if wrong.any():
        i = int(np.argmax(wrong))
        raise ValueError(
            f"feature {name!r} in {ctx.where(owner[i])} has {int(counts[i])} values, but "
            f"{type(spec).__name__.lstrip('_')} shape {list(spec.shape)} needs {size}; use "
            "VarLenFeature for a varying number of values"
        )
    have = np.zeros(n, dtype=bool)
    have[owner[present]] = True
    leaf = _leaf_array(buf, spec.dtype, values)
    if have.all():
        return _nest(leaf, spec.shape) if spec.shape else leaf
    missing = np.flatnonzero(~have)
    nullable = isinstance(spec, _NullableFixed)
    default = None if nullable else _default(spec.default_value, spec.shape, spec.dtype, name)
    if default is None and not nullable:
        raise ValueError(
            f"feature {name!r} is required but {ctx.where(missing[0])} does not have it; give "
            "the FixedLenFeature a default_value, or use VarLenFeature"
        )
    if nullable:
        default = _default(_filler(spec.dtype), spec.shape, spec.dtype, name)
    extended = pa.concat_arrays([leaf, pa.array(default.tolist(), leaf.type)])
    index = np.empty(n * size, dtype=np.int64)
    if size:
        slots = np.arange(n * size).reshape(n, size)
        index[slots[owner[present]].reshape(-1)] = np.arange(len(leaf))
        index[slots[missing].reshape(-1)] = np.tile(np.arange(size) + len(leaf), missing.size)
    flat = _take(extended, index)
    if not spec.shape:
        return pc.if_else(pa.array(have), flat, pa.scalar(None, flat.type)) if nullable else flat
    for dim in reversed(spec.shape[1:]):
        flat = pa.FixedSizeListArray.from_arrays(flat, dim)
    mask = pa.array(~have) if nullable else None
    return pa.FixedSizeListArray.from_arrays(flat, spec.shape[0], mask=mask)


def _filler(dtype):
    return "" if dtype in ("string", "binary") else 0


def _list_column(buf, spec, values, counts, owner, n, item_shape=()):
    """A list column: record ``r``'s values (cut into items of ``item_shape``)."""
    per_record = np.zeros(n, dtype=np.int64)
    np.add.at(per_record, owner, counts)
    size = int(np.prod(item_shape, dtype=np.int64)) if item_shape else 1
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(per_record // size, out=offsets[1:])
    leaf = _nest(_leaf_array(buf, spec.dtype, values), item_shape)
    return pa.ListArray.from_arrays(pa.array(offsets), leaf)


def _check_items(name, spec, counts, owner, ctx):
    size = int(np.prod(spec.shape, dtype=np.int64))
    if size == 0:
        return
    bad = counts % size != 0
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"feature {name!r} in {ctx.where(owner[i])} has {int(counts[i])} values, not a "
            f"multiple of FixedLenSequenceFeature shape {list(spec.shape)} ({size} values)"
        )


def _features_table(buf, starts, ends, owner, n, specs, ctx):
    """The parsed columns of ``Features`` messages (several may belong to one record)."""
    names = list(specs)
    index_owner, index, val_s, val_e = _map_entries(
        buf, starts, ends, owner, names, ctx, "tf.train.Features"
    )
    vals = _Values(buf, val_s, val_e, index_owner, ctx)
    expected = np.array([kind_of(specs[k].dtype) for k in names], dtype=np.int64)
    _check_kind(vals, index, expected, names, index_owner, ctx)
    bounds = np.searchsorted(index, np.arange(len(names) + 1))
    scalar = _scalar_columns(buf, specs, vals, bounds, index_owner, n)
    columns = {}
    for f, name in enumerate(names):
        spec = specs[name]
        if name in scalar:
            columns[name] = scalar[name]
            continue
        entries = slice(bounds[f], bounds[f + 1])
        entry_owner = index_owner[entries]
        values, counts = _feature_values(vals, entries, expected[f], spec.dtype)
        keep = _last_per_owner(entry_owner)
        if keep is not _ALL:
            values = _mask_values(values, counts, keep)
            counts, entry_owner = counts[keep], entry_owner[keep]
        try:
            columns[name] = _column(buf, name, spec, values, counts, entry_owner, n, ctx)
        except pa.ArrowInvalid as err:
            raise ValueError(
                f"feature {name!r} holds bytes that are not UTF-8 text ({err}); declare its "
                "dtype as 'bytes' (pa.binary()) to read them as raw bytes"
            ) from None
    return pa.table(columns) if columns else pa.table({}).slice(0, 0)


def _scalar_columns(buf, specs, vals, bounds, entry_owner, n):
    """The columns of the scalar ``FixedLenFeature`` s, built together, when every record
    has every feature once with one value (the usual batch); ``{}`` otherwise, and the
    general per-feature path builds them (and names any error)."""
    k = len(specs)
    if not n or entry_owner.size != k * n or (vals.count != 1).any():
        return {}
    if (bounds != np.arange(k + 1) * n).any() or (entry_owner.reshape(k, n) != np.arange(n)).any():
        return {}
    # Each kind's values are then its features' columns one after another, n apiece.
    dtypes = {}
    for spec in specs.values():
        dtypes.setdefault(kind_of(spec.dtype), set()).add(spec.dtype)
    leaves = {}
    for kind, values in vals.values.items():
        if len(dtypes[kind]) == 1:
            try:
                leaves[kind] = _leaf_array(buf, dtypes[kind].pop(), values)
            except pa.ArrowInvalid:
                return {}
            if pa.types.is_large_string(leaves[kind].type) or pa.types.is_large_binary(
                leaves[kind].type
            ):
                return {}
    columns = {}
    for f, (name, spec) in enumerate(specs.items()):
        kind = kind_of(spec.dtype)
        scalar = isinstance(spec, (FixedLenFeature, _NullableFixed)) and not spec.shape
        if scalar and kind in leaves:
            columns[name] = leaves[kind].slice(int(vals.offset[bounds[f]]), n)
    return columns


def _column(buf, name, spec, values, counts, entry_owner, n, ctx):
    """One feature's parsed column."""
    if isinstance(spec, (FixedLenFeature, _NullableFixed)):
        return _fixed_column(buf, name, spec, values, counts, entry_owner, n, ctx)
    if isinstance(spec, VarLenFeature):
        return _list_column(buf, spec, values, counts, entry_owner, n)
    if not spec.allow_missing:
        raise ValueError(
            f"feature {name!r}: a FixedLenSequenceFeature in parse_example needs "
            "allow_missing=True (as in TF)"
        )
    _check_items(name, spec, counts, entry_owner, ctx)
    return _list_column(buf, spec, values, counts, entry_owner, n, spec.shape or ())


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


def parse_records(buf, starts, ends, features, first_index=0, source=None) -> pa.Table:
    """:func:`parse_example` on records already in a padded buffer (see
    :func:`.wire.pad`): record ``i`` is ``buf[starts[i]:ends[i]]``. ``first_index`` and
    ``source`` (a file name) only make error messages point at the right record.

    >>> from colonnade.data.wire import pad
    >>> import numpy as np
    >>> parse_records(pad(b""), np.array([0]), np.array([0]),
    ...               {"x": FixedLenFeature([], "int64", 7)}).to_pydict()
    {'x': [7]}
    """
    specs = normalize_features(features)
    ctx = _Context(first_index, source)
    n = starts.size
    owner = np.arange(n)
    top = _scan(buf, starts, ends, owner, ctx, "tf.train.Example")
    hit = _fields(top, 1, ctx, owner[top.msg], "tf.train.Example")
    table = _features_table(buf, top.start[hit], top.end[hit], top.msg[hit], n, specs, ctx)
    if isinstance(features, pa.Schema):
        table = table.cast(features)
    return table


def parse_example(serialized: Sequence[bytes] | pa.Array, features: dict | pa.Schema) -> pa.Table:
    """Parse serialized ``tf.Example`` s into a table with one row per record (TF's
    ``tf.io.parse_example``).

    ``serialized``: a list of bytes, or an Arrow binary array. ``features``: a dict of
    feature name to :class:`FixedLenFeature` (``[]`` gives a plain column, a shape a
    fixed-size list), :class:`VarLenFeature` (a list column) or
    :class:`FixedLenSequenceFeature` (a list column of items); or the ``pyarrow.Schema``
    from ``feature_columns.make_parse_example_spec``, whose columns come back with the
    schema's types and nulls where a record lacks a nullable field (see
    ``parse_spec._spec_from_field``). Errors name the feature and the record index.

    >>> from colonnade.data.example_writer import encode_examples
    >>> records = encode_examples(pa.table({"x": [[1.0, 2.0], [3.0, 4.0]]}))
    >>> parse_example(records, {"x": FixedLenFeature([2], "float32")}).column("x").to_pylist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> parse_example(records, {"y": FixedLenFeature([], "int64")})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: feature 'y' is required but record 0 does not have it; give ...
    """
    buf, starts, ends = _as_buffer(serialized)
    return parse_records(buf, starts, ends, features)


def parse_single_example(serialized: bytes, features: dict | pa.Schema) -> dict:
    """Parse one serialized ``tf.Example`` into ``{name: numpy array}`` (TF's
    ``tf.io.parse_single_example``): a ``FixedLenFeature`` gives an array of its shape,
    the others a 1-D array of the values (strings as ``str`` objects). ``serialized`` is
    one record's bytes; ``features`` as :func:`parse_example` takes them.

    >>> from colonnade.data.example_writer import encode_examples
    >>> record = encode_examples(pa.table({"age": [39], "tags": [["a", "b"]]}))[0]
    >>> out = parse_single_example(record, {"age": FixedLenFeature([], "int64"),
    ...                                     "tags": VarLenFeature("string")})
    >>> out["age"].item(), out["tags"].tolist()
    (39, ['a', 'b'])
    """
    if not isinstance(serialized, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse_single_example takes bytes, got {type(serialized).__name__}")
    specs = normalize_features(features)
    table = parse_example([bytes(serialized)], features)
    out = {}
    for name in table.column_names:
        column = table.column(name).combine_chunks()
        while pa.types.is_list(column.type) or pa.types.is_fixed_size_list(column.type):
            column = column.flatten()
        values = column.to_numpy(zero_copy_only=False)
        spec = specs[name]
        shape = getattr(spec, "shape", None)
        if isinstance(spec, FixedLenFeature):
            values = values.reshape(shape)
        out[name] = values
    return out


def parse_sequence_example(
    serialized: Sequence[bytes] | pa.Array,
    context_features: dict | None = None,
    sequence_features: dict | None = None,
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
    ``allow_missing=True``, and gives an empty list otherwise.

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
    for name, spec in sequence_specs.items():
        if not isinstance(spec, (FixedLenSequenceFeature, VarLenFeature)):
            raise ValueError(
                f"sequence feature {name!r} must be a FixedLenSequenceFeature or "
                f"VarLenFeature, got {type(spec).__name__}"
            )
    buf, starts, ends = _as_buffer(serialized)
    ctx = _Context()
    n = starts.size
    owner = np.arange(n)
    top = _scan(buf, starts, ends, owner, ctx, "tf.train.SequenceExample")
    is_ctx = _fields(top, 1, ctx, top.msg, "tf.train.SequenceExample")
    is_seq = _fields(top, 2, ctx, top.msg, "tf.train.SequenceExample")
    context = _features_table(
        buf, top.start[is_ctx], top.end[is_ctx], top.msg[is_ctx], n, context_specs, ctx
    )
    names = list(sequence_specs)
    list_owner, index, list_s, list_e = _map_entries(
        buf, top.start[is_seq], top.end[is_seq], top.msg[is_seq], names, ctx, "FeatureLists"
    )
    columns = {}
    for f, name in enumerate(names):
        spec = sequence_specs[name]
        sel = np.flatnonzero(index == f)
        lists_owner = list_owner[sel]
        keep = _last_per_owner(lists_owner)
        sel, lists_owner = sel[keep], lists_owner[keep]
        if isinstance(spec, FixedLenSequenceFeature) and not spec.allow_missing:
            have = np.zeros(n, dtype=bool)
            have[lists_owner] = True
            if not have.all():
                raise ValueError(
                    f"feature list {name!r} is required but {ctx.where(np.argmin(have))} does "
                    "not have it; pass allow_missing=True to get an empty sequence"
                )
        steps = _scan(buf, list_s[sel], list_e[sel], lists_owner, ctx, "FeatureList")
        is_step = _fields(steps, 1, ctx, lists_owner[steps.msg], "FeatureList")
        step_owner = lists_owner[steps.msg[is_step]]
        vals = _Values(buf, steps.start[is_step], steps.end[is_step], step_owner, ctx)
        kind = kind_of(spec.dtype)
        _check_kind(
            vals,
            np.zeros(step_owner.size, dtype=np.int64),
            np.array([kind]),
            [name],
            step_owner,
            ctx,
        )
        values, counts = _feature_values(vals, np.arange(step_owner.size), kind, spec.dtype)
        if isinstance(spec, FixedLenSequenceFeature):
            size = int(np.prod(spec.shape, dtype=np.int64))
            wrong = counts != size
            if wrong.any():
                i = int(np.argmax(wrong))
                raise ValueError(
                    f"feature list {name!r} in {ctx.where(step_owner[i])} has a step with "
                    f"{int(counts[i])} values, but shape {list(spec.shape)} needs {size}"
                )
            columns[name] = _list_column(buf, spec, values, counts, step_owner, n, spec.shape or ())
        else:
            step_lists = _list_column(
                buf, spec, values, counts, np.arange(step_owner.size), step_owner.size
            )
            per_record = np.bincount(step_owner, minlength=n)
            offsets = np.zeros(n + 1, dtype=np.int32)
            np.cumsum(per_record, out=offsets[1:])
            columns[name] = pa.ListArray.from_arrays(pa.array(offsets), step_lists)
    sequences = pa.table(columns) if columns else pa.table({}).slice(0, 0)
    return context, sequences
