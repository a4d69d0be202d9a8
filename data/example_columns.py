"""Arrow columns from decoded ``Feature`` values: one column per parsed feature.

:func:`features_table` turns the ``Features`` messages of a batch (decoded by
:mod:`.example_messages`) into a table, column by column: fixed-length features as
plain or fixed-size-list columns (with defaults or nulls for missing records),
variable-length and sequence features as list columns. Errors name the feature and the
record.

>>> import numpy as np
>>> list_column(None, VarLenFeature("int64"), np.array([1, 2, 3]), np.array([2, 1]),
...             np.array([0, 1]), 2).to_pylist()
[[1, 2], [3]]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .example_messages import FeatureValues, gather_ranges, map_entries
from .parse_spec import (
    BYTES,
    FLOAT,
    INT64,
    KIND_NAMES,
    FixedLenFeature,
    NullableFixed,
    VarLenFeature,
    arrow_type,
    feature_list_kind,
    flat_default,
)

__all__ = [
    "check_kind",
    "feature_values",
    "features_table",
    "last_per_owner",
    "list_column",
]


def _leaf_array(buf, dtype, values):
    """An Arrow array of the values (``values`` as stored by :class:`FeatureValues`); strings
    are checked to be UTF-8."""
    if dtype in ("string", "binary"):
        starts, ends = values
        data = gather_ranges(buf, starts, ends)
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


def feature_values(vals, entries, kind, dtype):
    """``(values, counts)`` of the entries ``entries`` (all of one feature)."""
    counts = vals.count[entries]
    present = np.flatnonzero(vals.kind[entries] == kind)
    if present.size == 0:
        return _empty_values(dtype), counts * 0
    first = vals.offset[entries][present[0]]
    values = _slice_values(vals, kind, first, int(counts.sum()))
    return values, counts


def check_kind(vals, index, expected, names, owner, ctx):
    """A ``ValueError`` naming the feature and record when an entry holds another list
    kind than its feature (``names[index[i]]``) was declared with (``expected``)."""
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


def last_per_owner(owner):
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
    nullable = isinstance(spec, NullableFixed)
    default = None if nullable else flat_default(spec.default_value, spec.shape, spec.dtype, name)
    if default is None and not nullable:
        raise ValueError(
            f"feature {name!r} is required but {ctx.where(missing[0])} does not have it; give "
            "the FixedLenFeature a default_value, or use VarLenFeature"
        )
    if nullable:
        default = flat_default(_filler(spec.dtype), spec.shape, spec.dtype, name, repeat=True)
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


def list_column(buf, spec, values, counts, owner, n, item_shape=()):
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


def features_table(buf, starts, ends, owner, n, specs, ctx):
    """The parsed columns of ``Features`` messages (several may belong to one record)."""
    names = list(specs)
    index_owner, index, val_s, val_e = map_entries(
        buf, starts, ends, owner, names, ctx, "tf.train.Features"
    )
    vals = FeatureValues(buf, val_s, val_e, index_owner, ctx, (index, names))
    expected = np.array([feature_list_kind(specs[k].dtype) for k in names], dtype=np.int64)
    check_kind(vals, index, expected, names, index_owner, ctx)
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
        values, counts = feature_values(vals, entries, expected[f], spec.dtype)
        keep = last_per_owner(entry_owner)
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
        dtypes.setdefault(feature_list_kind(spec.dtype), set()).add(spec.dtype)
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
        kind = feature_list_kind(spec.dtype)
        scalar = isinstance(spec, (FixedLenFeature, NullableFixed)) and not spec.shape
        if scalar and kind in leaves:
            columns[name] = leaves[kind].slice(int(vals.offset[bounds[f]]), n)
    return columns


def _column(buf, name, spec, values, counts, entry_owner, n, ctx):
    """One feature's parsed column."""
    if isinstance(spec, (FixedLenFeature, NullableFixed)):
        return _fixed_column(buf, name, spec, values, counts, entry_owner, n, ctx)
    if isinstance(spec, VarLenFeature):
        return list_column(buf, spec, values, counts, entry_owner, n)
    if not spec.allow_missing:
        raise ValueError(
            f"feature {name!r}: a FixedLenSequenceFeature in parse_example needs "
            "allow_missing=True (as in TF)"
        )
    _check_items(name, spec, counts, entry_owner, ctx)
    column = list_column(buf, spec, values, counts, entry_owner, n, spec.shape or ())
    return padded_items(column, spec, n)


def padded_items(column: pa.ListArray, spec, n: int) -> pa.ListArray:
    """TF's batch of a ``FixedLenSequenceFeature``: every record's items padded with
    ``default_value`` (``""`` or 0 when ``None``) to as many as the longest record has."""
    lengths = np.diff(np.asarray(column.offsets, dtype=np.int64))
    longest = int(lengths.max()) if n else 0
    if (lengths == longest).all():
        return column
    size = int(np.prod(spec.shape, dtype=np.int64)) if spec.shape else 1
    leaf = column.flatten()
    while pa.types.is_fixed_size_list(leaf.type):
        leaf = leaf.flatten()
    fill = _filler(spec.dtype) if spec.default_value is None else spec.default_value
    values = leaf.to_numpy(zero_copy_only=False)
    out = np.full(n * longest * size, fill, dtype=values.dtype if values.size else object)
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    item = np.arange(rows.size, dtype=np.int64) - np.repeat(column.offsets.to_numpy()[:-1], lengths)
    slots = ((rows * longest + item)[:, None] * size + np.arange(size)).reshape(-1)
    out[slots] = values
    padded = _nest(pa.array(out, type=leaf.type), spec.shape or ())
    offsets = pa.array(np.arange(n + 1, dtype=np.int32) * longest)
    return pa.ListArray.from_arrays(offsets, padded)
