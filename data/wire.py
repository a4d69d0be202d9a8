"""Vectorised reading of the protobuf wire format, many messages at once.

A message is a run of fields, each a varint *tag* (``field_number << 3 | wire_type``)
followed by its value: a varint (wire type 0), 8 bytes (1), a varint length and that many
bytes (2) or 4 bytes (5). Reading one field needs the end of the previous one, so a
message is read field by field; here the step "read the next field" is taken for *every*
message of a batch at once with numpy, and the loop runs as many times as the longest
message has fields (a dozen for a typical ``tf.Example``), not once per record.

All functions take ``buf``, a 1-D ``uint8`` array holding the messages and followed by at
least :data:`PADDING` zero bytes, so a varint read never runs off the end of the array;
positions are ``int64`` arrays of byte offsets into it.

>>> import numpy as np
>>> buf = pad(bytes([0x08, 0x96, 0x01, 0x12, 0x02, 0x68, 0x69]))  # 1: 150, 2: "hi"
>>> f = scan_fields(buf, np.array([0]), np.array([7]))
>>> f.number.tolist(), f.wire.tolist(), f.value.tolist(), f.start.tolist(), f.end.tolist()
([1, 2], [0, 2], [150, 2], [1, 5], [3, 7])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["PADDING", "Fields", "WireError", "decode_packed_varints", "pad", "scan_fields"]

# Zero bytes that must follow the data: the longest varint is 10 bytes.
PADDING = 16

_SHIFTS = np.arange(0, 70, 7, dtype=np.uint64)
_TEN = np.arange(10)


class WireError(ValueError):
    """Bytes that are not a valid protobuf message; ``message`` is the index (into the
    ``starts`` given to :func:`scan_fields`) of the first bad message."""

    def __init__(self, message, reason):
        super().__init__(reason)
        self.message = int(message)
        self.reason = reason


class Fields(NamedTuple):
    """The fields of a batch of messages, ordered by message and then by position.

    ``msg``: index of the message each field belongs to; ``number`` and ``wire``: the
    tag's parts; ``start``/``end``: the byte range of the value (the payload, without
    the length, for wire type 2); ``value``: the decoded varint for wire type 0 (and the
    length for wire type 2).
    """

    msg: np.ndarray
    number: np.ndarray
    wire: np.ndarray
    start: np.ndarray
    end: np.ndarray
    value: np.ndarray


def pad(data) -> np.ndarray:
    """``data`` (bytes-like) copied into a ``uint8`` array followed by :data:`PADDING`
    zeros.

    >>> pad(b"ab").tolist()[:3]
    [97, 98, 0]
    """
    view = np.frombuffer(data, dtype=np.uint8)
    out = np.zeros(view.size + PADDING, dtype=np.uint8)
    out[: view.size] = view
    return out


def read_varints(buf, pos):
    """``(values, next_positions)`` of the varints starting at ``pos`` (uint64 values;
    a length of 0 marks a varint longer than 10 bytes)."""
    first = buf[pos]
    if not (first & 0x80).any():
        return first.astype(np.uint64), pos + 1
    values = first.astype(np.uint64)
    after = pos + 1
    long = np.flatnonzero(first & 0x80)
    window = buf[pos[long, None] + _TEN].astype(np.uint64)
    more = window >= 0x80
    length = np.argmin(more, axis=1) + 1
    length[more.all(axis=1)] = 0
    used = _TEN < length[:, None]
    parts = np.where(used, (window & np.uint64(0x7F)) << _SHIFTS, np.uint64(0))
    values[long] = np.bitwise_or.reduce(parts, axis=1)
    after[long] = pos[long] + length
    return values, after


def scan_fields(buf, starts, ends) -> Fields:
    """All fields of the messages ``buf[starts[i]:ends[i]]``, as :class:`Fields`.

    Raises :class:`WireError` naming the first message that is truncated, has a bad
    varint, or uses a wire type other than 0, 1, 2 and 5 (groups are not supported).
    """
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.asarray(ends, dtype=np.int64)
    active = np.flatnonzero(ends > starts)
    pos = starts[active]
    end = ends[active]
    pieces = []
    while active.size:
        tag = buf[pos]
        if not (tag & 0x80).any() and ((tag & 7) == 2).all():
            # Fast path, the usual case in tf.Example: one-byte tags, all length-delimited.
            length, start = read_varints(buf, pos + 1)
            stop = start + length.astype(np.int64)
            bad = (stop > end) | (stop < start) | (start == pos + 1) | (tag < 8)
            if bad.any():
                _general_fields(buf, pos, end, active)  # raises, naming what is wrong
            number = (tag >> 3).astype(np.int64)
            wire = np.full(active.size, 2, dtype=np.int64)
            value = length
        else:
            number, wire, start, stop, value = _general_fields(buf, pos, end, active)
        pieces.append((active, number, wire, start, stop, value))
        more = stop < end
        if more.all():
            pos = stop
        else:
            active, pos, end = active[more], stop[more], end[more]
    return _ordered(pieces, starts.size)


_FIXED_SIZE = np.array([0, 8, 0, 0, 0, 4, 0, 0], dtype=np.int64)
_VALID_WIRE = np.array([True, True, True, False, False, True, False, False])


def _general_fields(buf, pos, end, active):
    """One field of each message at ``pos``, any wire type."""
    tag, after = read_varints(buf, pos)
    wire = (tag & np.uint64(7)).astype(np.int64)
    number = (tag >> np.uint64(3)).astype(np.int64)
    value, after_value = read_varints(buf, after)
    is_varint = wire == 0
    is_len = wire == 2
    start = np.where(is_len, after_value, after)
    stop = after + _FIXED_SIZE[wire]
    stop[is_varint] = after_value[is_varint]
    stop[is_len] = after_value[is_len] + value[is_len].astype(np.int64)
    malformed = (after == pos) | ((after_value == after) & (is_varint | is_len))
    bad = malformed | (number == 0) | ~_VALID_WIRE[wire] | (stop > end) | (stop < start)
    if bad.any():
        i = int(np.argmax(bad))
        reason = _reason(malformed[i], wire[i], number[i], start[i], stop[i], end[i])
        raise WireError(active[i], reason)
    return number, wire, start, stop, value


def _reason(malformed, wire, number, start, stop, end):
    if malformed:
        return "a malformed varint (more than 10 bytes, or cut off by the end of the data)"
    if number == 0:
        return "a field number of 0"
    if wire not in (0, 1, 2, 5):
        return f"unsupported wire type {wire} (field {number})"
    if stop < start:
        return f"field {number} declares a length of 2^63 bytes or more"
    return f"field {number} runs {stop - end} bytes past the end of its message (truncated)"


def _ordered(pieces, n_messages) -> Fields:
    """The fields found in each pass, reordered by message then position (pass ``k``
    read each message's ``k``-th field)."""
    if not pieces:
        empty = np.zeros(0, dtype=np.int64)
        return Fields(empty, empty, empty, empty, empty, np.zeros(0, dtype=np.uint64))
    if len(pieces) == 1:
        return Fields(*pieces[0])
    columns = [np.concatenate(parts) for parts in zip(*pieces)]
    # Each pass is sorted by message, so the stable sort merges a few sorted runs.
    order = np.argsort(columns[0], kind="stable")
    return Fields(*(column[order] for column in columns))


def decode_packed_varints(buf, starts, ends):
    """``(values, counts)``: the varints packed in each range ``buf[starts[i]:ends[i]]``
    (int64, two's complement as protobuf stores int64) and how many each range holds.

    Raises :class:`WireError` (naming the range) when a range ends inside a varint.
    """
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(starts.size, dtype=np.int64)
    range_of = np.repeat(np.arange(starts.size), lengths)
    first_of_range = np.cumsum(lengths) - lengths
    index = np.arange(total) - first_of_range[range_of] + starts[range_of]
    data = buf[index]
    last = data < 0x80
    ends_range = np.zeros(total, dtype=bool)
    ends_range[(first_of_range + lengths - 1)[lengths > 0]] = True
    if (ends_range & ~last).any():
        bad = range_of[np.argmax(ends_range & ~last)]
        raise WireError(bad, "a packed varint list ends inside a varint (truncated)")
    value_start = np.empty(total, dtype=bool)
    value_start[0] = True
    value_start[1:] = last[:-1]
    starts_at = np.flatnonzero(value_start)
    if (np.diff(np.append(starts_at, total)) > 10).any():
        raise WireError(range_of[0], "a varint longer than 10 bytes")
    shift = (np.arange(total) - np.repeat(starts_at, np.diff(np.append(starts_at, total)))) * 7
    parts = (data & 0x7F).astype(np.uint64) << shift.astype(np.uint64)
    values = np.bitwise_or.reduceat(parts, starts_at).view(np.int64)
    counts = np.bincount(range_of[last], minlength=starts.size)
    return values, counts
