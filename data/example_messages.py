"""The messages of a batch of serialized ``tf.Example`` s, decoded level by level.

Each function reads one level of nesting (a message's fields, a map's entries, a
``Feature``'s list) for every record of the batch at once, with the vectorised wire
reader of :mod:`.wire`: the arrays say, per field, which message (``owner``) it belongs
to and where its bytes lie in the shared buffer. :mod:`.example_columns` builds Arrow
columns from what they return; :mod:`.example` holds the parsing functions.

>>> from colonnade.data.wire import pad
>>> import numpy as np
>>> buf = pad(bytes([0x0A, 1]) + b"a")  # one message: field 1, the bytes "a"
>>> fields = scan_messages(buf, np.array([0]), np.array([3]), np.array([0]), RecordContext(), "x")
>>> bytes(buf[fields.start[0] : fields.end[0]])
b'a'
"""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .parse_spec import BYTES, FLOAT, INT64, KIND_NAMES
from .wire import WireError, decode_packed_varints, read_varints, scan_fields

__all__ = [
    "FeatureContext",
    "FeatureValues",
    "RecordContext",
    "delimited_fields",
    "gather_ranges",
    "map_entries",
    "scan_messages",
]


class RecordContext:
    """What an error message needs: where the records came from and the first one's index."""

    def __init__(self, first_index=0, source=None, names=None):
        self.first_index = first_index
        self.source = source
        self.names = names

    def where(self, record):
        place = f" of {self.source}" if self.source else ""
        name = f" ({self.names[int(record)]!r})" if self.names is not None else ""
        return f"record {int(record) + self.first_index}{name}{place}"


class FeatureContext:
    """The place of a ``Feature`` message for an error: its record and its feature's name.

    The decoding levels below a map entry pass this as their ``ctx`` and each entry's
    index as its ``owner``, so a value that does not decode (a wrong wire type, floats
    that are not whole) names the feature as well as the record. ``records[i]`` is
    entry ``i``'s record, ``names[index[i]]`` its feature's name; nothing is looked up
    until an error is raised."""

    def __init__(self, ctx, records, index, names):
        self.ctx, self.records, self.index, self.names = ctx, records, index, names

    def where(self, entry):
        entry = int(entry)
        name = self.names[int(self.index[entry])]
        return f"{self.ctx.where(self.records[entry])}, feature {name!r}"


def scan_messages(buf, starts, ends, owner, ctx, what):
    """The fields of the messages ``buf[starts[i]:ends[i]]`` (:func:`.wire.scan_fields`);
    a malformed one is a ``ValueError`` naming its record (``owner``) and ``what`` it is."""
    try:
        return scan_fields(buf, starts, ends)
    except WireError as err:
        raise ValueError(
            f"{ctx.where(owner[err.message])} is not a valid serialized {what}: {err.reason}"
        ) from None


def gather_ranges(buf, starts, ends):
    """The bytes of the ranges ``buf[starts[i]:ends[i]]`` one after another: slices when
    the ranges are few and long (one long list), an index per byte otherwise."""
    lengths = ends - starts
    if lengths.size == 0:
        return np.zeros(0, dtype=np.uint8)
    total = int(lengths.sum())
    if lengths.size <= _FEW_RANGES and total >= 64 * lengths.size:
        return np.concatenate([buf[s:e] for s, e in zip(starts.tolist(), ends.tolist())])
    first = np.cumsum(lengths) - lengths
    return buf[np.repeat(starts - first, lengths) + np.arange(total)]


# Ranges gathered slice by slice (a Python step per range) at most.
_FEW_RANGES = 64


def _binary_array(buf, starts, ends):
    """A ``pa.large_binary`` array of the ranges."""
    data = gather_ranges(buf, starts, ends)
    offsets = np.zeros(starts.size + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=offsets[1:])
    return pa.Array.from_buffers(
        pa.large_binary(), starts.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def delimited_fields(fields, number, ctx, owner, what):
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


def map_entries(buf, starts, ends, owner, names, ctx, what):
    """The entries of ``map<string, ...>`` messages whose key is one of ``names``:
    ``(owner, name_index, value_start, value_end)``, ordered by name then by owner."""
    f = scan_messages(buf, starts, ends, owner, ctx, what)
    hit = delimited_fields(f, 1, ctx, owner[f.msg], what)
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
    key_e = key_s + key_len.astype(np.int64)  # a length of 2^63 or more: key_e < key_s
    ok = (buf[starts] == 0x0A) & (key_s <= key_e) & (key_e < ends)
    at = np.where(ok, key_e, ends)
    ok &= buf[at] == 0x12
    val_len, val_s = read_varints(buf, at + 1)
    val_e = val_s + val_len.astype(np.int64)
    ok &= (val_s <= val_e) & (val_e == ends)
    return (key_s, key_e, val_s, val_e) if ok.all() else None


def _any_entries(buf, starts, ends, owner, ctx, what):
    """Map entries with fields in any order, repeated or missing (protobuf's rules)."""
    kv = scan_messages(buf, starts, ends, owner, ctx, what)
    n = starts.size
    key_s, key_e, val_s, val_e = (np.zeros(n, dtype=np.int64) for _ in range(4))
    is_key = delimited_fields(kv, 1, ctx, owner[kv.msg], what)
    key_s[kv.msg[is_key]] = kv.start[is_key]
    key_e[kv.msg[is_key]] = kv.end[is_key]
    bad = (kv.number == 2) & (kv.wire != 2)
    if bad.any():
        entry = kv.msg[np.argmax(bad)]
        key = bytes(buf[key_s[entry] : key_e[entry]]).decode("utf-8", "replace")
        raise ValueError(
            f"{ctx.where(owner[entry])}, feature {key!r} is not a valid serialized {what}: "
            f"its value (field 2) has wire type {kv.wire[np.argmax(bad)]}, expected 2 "
            "(length-delimited)"
        )
    is_val = kv.number == 2
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
    ok = empty | (_tag_table(tags)[tag] & (payload_s <= payload_e) & (payload_e == ends))
    if not ok.all():
        return None
    tag = np.where(empty, 0, tag)
    return tag, np.where(empty, starts, payload_s), np.where(empty, starts, payload_e)


class FeatureValues:
    """The values of many ``Feature`` messages, decoded once for all features.

    ``kind[i]`` is the list kind entry ``i`` holds (0: none set), ``count[i]`` its number
    of values and ``offset[i]`` where they start in ``values[kind[i]]`` (a float32 or int64
    array, or for bytes the ``(starts, ends)`` ranges into the buffer).
    """

    def __init__(self, buf, starts, ends, owner, ctx, features=None):
        n = starts.size
        if features is not None:  # (index, names): errors name each entry's feature
            ctx, owner = FeatureContext(ctx, owner, *features), np.arange(n)
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
    f = scan_messages(buf, starts, ends, owner, ctx, "tf.train.Feature")
    n = starts.size
    kind = np.zeros(n, dtype=np.int64)
    list_s = np.zeros(n, dtype=np.int64)
    list_e = np.zeros(n, dtype=np.int64)
    hit = np.isin(f.number, (BYTES, FLOAT, INT64))
    bad = hit & (f.wire != 2)
    if bad.any():
        raise ValueError(
            f"{ctx.where(owner[f.msg[np.argmax(bad)]])} is not a valid serialized "
            f"tf.train.Feature: its list (field {f.number[np.argmax(bad)]}) has wire type "
            f"{f.wire[np.argmax(bad)]}, expected 2 (length-delimited)"
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
        values = gather_ranges(buf, payload_s, payload_s + size).view("<f4")
        values = values.astype(np.float32, copy=False)
        return values, size // 4
    try:
        return decode_packed_varints(buf, payload_s, payload_s + size)
    except WireError as err:
        raise ValueError(f"{ctx.where(owner[err.message])}: {err.reason}") from None


def _decode_list(buf, kind, starts, ends, owner, ctx):
    """``(values, counts)`` of lists of one kind, fields in any layout."""
    lists = scan_messages(buf, starts, ends, owner, ctx, KIND_NAMES[kind])
    n = starts.size
    hit = lists.number == 1
    msg, wire, start, end = lists.msg[hit], lists.wire[hit], lists.start[hit], lists.end[hit]
    if kind == BYTES:
        if (wire != 2).any():
            i = np.argmax(wire != 2)
            raise ValueError(
                f"{ctx.where(owner[msg[i]])}: a bytes_list value has wire type {wire[i]}, "
                "expected 2 (length-delimited)"
            )
        return (start, end), np.bincount(msg, minlength=n)
    if kind == FLOAT:
        size = end - start
        wrong = ~np.isin(wire, (2, 5))
        if wrong.any():
            i = np.argmax(wrong)
            raise ValueError(
                f"{ctx.where(owner[msg[i]])}: a float_list value has wire type {wire[i]}, "
                "expected 5 (fixed32) or 2 (packed)"
            )
        bad = size % 4 != 0
        if bad.any():
            record = owner[msg[np.argmax(bad)]]
            raise ValueError(f"{ctx.where(record)}: a float_list is not a whole number of floats")
        values = gather_ranges(buf, start, end).view("<f4").astype(np.float32, copy=False)
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
        i = np.argmax(bad)
        raise ValueError(
            f"{ctx.where(owner[msg[i]])}: an int64_list value has wire type {wire[i]}, "
            "expected 0 (varint) or 2 (packed)"
        )
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
