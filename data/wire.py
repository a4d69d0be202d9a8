"""Vectorised reading of the protobuf wire format, many messages at once.

A message is a run of fields, each a varint *tag* (``field_number << 3 | wire_type``)
followed by its value: a varint (wire type 0), 8 bytes (1), a varint length and that many
bytes (2) or 4 bytes (5). Reading one field needs the end of the previous one, so a
message is read field by field; here the step "read the next field" is taken for *every*
message of a batch at once with numpy, and the loop runs as many times as the longest
message has fields (a dozen for a typical ``tf.Example``), not once per record. Messages
still unread after :data:`LONG_MESSAGE_PASSES` fields (a list of a million values, a
record of many features) are read by following their chains of fields with pointer
doubling (:func:`_long_fields`): a few dozen numpy passes, whatever the number of fields.

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
    a length of 0, and a value of 0, mark a varint longer than 10 bytes). Byte ``j`` is
    read only for the varints longer than ``j``."""
    first = buf[pos]
    values = (first & 0x7F).astype(np.uint64)
    after = pos + 1
    going = np.flatnonzero(first & 0x80)
    for j in range(1, 10):
        if not going.size:
            return values, after
        byte = buf[pos[going] + j]
        values[going] |= (byte & 0x7F).astype(np.uint64) << np.uint64(7 * j)
        after[going] += 1
        going = going[byte >= 0x80]
    values[going] = 0
    after[going] = pos[going]
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
    passes = 0
    while active.size:
        if passes >= LONG_MESSAGE_PASSES and _many_fields_left(starts, active, pos, end, passes):
            pieces.extend(_long_fields(buf, active, pos, end))
            break
        passes += 1
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


LONG_MESSAGE_PASSES = 32
"""Passes of the field-by-field scan after which the messages still unread (a bytes list
of many values, a record of many features) are read by :func:`_long_fields`, whose cost
does not grow with the number of fields a message has, when they have more than as many
fields again left (:func:`_many_fields_left`); a pass over a whole batch of messages
costs little more than one over a single message, so a batch of records with a few
dozen features each is read faster field by field."""


def _many_fields_left(starts, active, pos, end, passes) -> bool:
    """Whether some message has more than :data:`LONG_MESSAGE_PASSES` fields left, by its
    fields' mean size so far (each active message has read ``passes`` fields); checked
    every 8 passes."""
    if passes == 0:
        return True  # LONG_MESSAGE_PASSES is 0: every message by the long reader
    if passes != LONG_MESSAGE_PASSES and passes % 8:
        return False
    read = pos - starts[active]
    return bool(((end - pos) * passes > LONG_MESSAGE_PASSES * read).any())


_FIXED_SIZE = np.array([0, 8, 0, 0, 0, 4, 0, 0], dtype=np.int64)
_VALID_WIRE = np.array([True, True, True, False, False, True, False, False])


def _read_fields(buf, pos, end):
    """One field at each ``pos`` (any wire type), read without raising:
    ``(number, wire, start, stop, value, bad, malformed)``."""
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
    return number, wire, start, stop, value, bad, malformed


def _general_fields(buf, pos, end, active):
    """One field of each message at ``pos``, any wire type; a bad one raises
    :class:`WireError` naming its message (``active``)."""
    number, wire, start, stop, value, bad, malformed = _read_fields(buf, pos, end)
    if bad.any():
        i = int(np.argmax(bad))
        reason = _reason(malformed[i], wire[i], number[i], start[i], stop[i], end[i])
        raise WireError(active[i], reason)
    return number, wire, start, stop, value


# Candidates read per numpy pass in _chain_fields: bounds the varint windows' memory.
_CHUNK = 1 << 18


def _long_fields(buf, msgs, pos, end):
    """The fields of the messages ``buf[pos[i]:end[i]]`` (``msgs[i]`` their index), as
    pieces for :func:`_ordered`, in a number of numpy passes that grows with the log of
    the fields a message has, not with their number.

    Reading a field needs the end of the one before: the fields form a chain through the
    message. Here every *candidate* position is read as if a field started there, its
    successor is where that field would end, and the chain from each message's first
    byte is found by pointer doubling. The candidates are first the positions holding the
    first field's tag byte (a list's values and a map's entries all share one tag, and
    few other bytes equal it); a message whose chain steps off them is read again with
    every byte a candidate. Work is O(bytes x log(fields)) for any bytes.
    """
    piece, retry = _chain_fields(buf, msgs, pos, end, same_tag=True)
    pieces = [piece]
    if retry.size:
        piece, _ = _chain_fields(buf, msgs[retry], pos[retry], end[retry], same_tag=False)
        pieces.append(piece)
    return pieces


def _chain_fields(buf, msgs, pos, end, same_tag):
    """``(piece, retry)``: the fields of the messages found by :func:`_long_fields`'s
    chains over one kind of candidates, and the positions (into ``msgs``) of the messages
    whose chain stepped off them (never with every byte a candidate).

    Node ``i`` is the ``i``-th candidate, or with every byte a candidate the ``i``-th byte
    of the ranges laid end to end (its *slot*); only a node's successor is kept for all
    nodes, the fields themselves are read again for the chains' members.
    """
    lengths = end - pos
    base = np.cumsum(lengths) - lengths
    total = int(lengths.sum())
    if same_tag:
        found = _tag_candidates(buf, pos, end, lengths, base, total)
        if found is None:  # about as many as bytes: leaner with every byte a candidate
            return _no_fields(), np.arange(msgs.size)
        at, owner = found
        n = at.size
    else:
        n = total
    index = np.int32 if total + 3 < 2**31 else np.int64
    if same_tag:  # the candidates' slots, ascending, then one past the last
        slots = np.append(base[owner] + (at - pos[owner]), total)
    successor = np.empty(n + 3, dtype=index)  # n: the message ends, n + 1: a bad field
    for i in range(0, n, _CHUNK):
        if same_tag:
            at_i, owner_i = at[i : i + _CHUNK], owner[i : i + _CHUNK]
        else:
            at_i, owner_i = _slot_positions(np.arange(i, min(n, i + _CHUNK)), pos, base)
        stop, bad = _read_fields(buf, at_i, end[owner_i])[3::2]
        inside = ~bad & (stop < end[owner_i])
        slot = np.where(inside, base[owner_i] + (stop - pos[owner_i]), 0)
        following = _candidate_at(slots, slot, i, n) if same_tag else slot
        successor[i : i + at_i.size] = np.where(bad, n + 1, np.where(inside, following, n))
    successor[n:] = (n, n + 1, n + 2)
    firsts = (np.searchsorted(slots, base) if same_tag else base).astype(index)
    keep = np.flatnonzero(_chain_members(successor, firsts, n))
    if same_tag:
        at, owner = at[keep], owner[keep]
    else:
        at, owner = _slot_positions(keep, pos, base)
    ending = successor[keep]
    broken = np.flatnonzero(ending == n + 1)[:1]
    if broken.size:  # raises, naming the message and why
        _general_fields(buf, at[broken], end[owner[broken]], msgs[owner[broken]])
    retry = np.unique(owner[ending == n + 2])
    if retry.size:
        on = ~np.isin(owner, retry)
        at, owner = at[on], owner[on]
    fields = [np.empty(at.size, dtype=np.int64) for _ in range(4)]
    fields.append(np.empty(at.size, dtype=np.uint64))
    for i in range(0, at.size, _CHUNK):
        read = _read_fields(buf, at[i : i + _CHUNK], end[owner[i : i + _CHUNK]])
        for field, part in zip(fields, read):
            field[i : i + _CHUNK] = part
    return (msgs[owner], *fields), retry


def _no_fields():
    empty = np.zeros(0, dtype=np.int64)
    return empty, empty, empty, empty, empty, np.zeros(0, dtype=np.uint64)


def _candidate_at(slots, slot, first, n):
    """The candidate at each ``slot`` (node ``first + k`` steps to ``slot[k]``), or
    ``n + 2`` where no candidate is; the next candidate is tried first, as it
    usually is the one."""
    guess = np.arange(first + 1, first + 1 + slot.size)
    found = np.where(slots[guess] == slot, guess, n + 2)
    other = np.flatnonzero(found == n + 2)
    if other.size:
        at = np.searchsorted(slots, slot[other])
        found[other] = np.where(slots[at] == slot[other], at, n + 2)
    return found


def _slot_positions(slots, pos, base):
    """``(positions, owner)`` of slots (offsets into the ranges laid end to end)."""
    owner = np.searchsorted(base, slots, side="right") - 1
    return pos[owner] + (slots - base[owner]), owner


def _tag_candidates(buf, pos, end, lengths, base, total):
    """``(positions, owner)`` of the bytes of each range ``buf[pos[i]:end[i]]`` equal to
    its first byte, in range order (``owner``: the range each is in); None when more
    than a quarter of the bytes are."""
    tags = buf[pos]
    if pos.size == 1 or ((pos[1:] >= end[:-1]).all() and (tags == tags[0]).all()):
        # Ranges in order, not overlapping, one tag: one comparison over the span.
        lo = int(pos[0])
        same = buf[lo : int(end[-1])] == tags[0]
        if np.count_nonzero(same) > total // 4:
            return None
        at = np.flatnonzero(same) + lo
        owner = np.searchsorted(pos, at, side="right") - 1
        inside = at < end[owner]
        return at[inside], owner[inside]
    offset = np.repeat(pos - base, lengths)
    same = buf[offset + np.arange(total)] == np.repeat(tags, lengths)
    del offset
    if np.count_nonzero(same) > total // 4:
        return None
    slots = np.flatnonzero(same)
    owner = np.searchsorted(base, slots, side="right") - 1
    return pos[owner] + (slots - base[owner]), owner


def _chain_members(successor, firsts, n):
    """Mask of the ``n`` nodes on the chains that start at ``firsts`` and step to
    ``successor[i]`` (always a later node, or one of the absorbing ends ``n`` to
    ``n + 2``): pointer doubling, so the chain's first ``2^k`` nodes are known after ``k``
    passes."""
    if _consecutive(successor, firsts, n):
        return np.ones(n, dtype=bool)
    member = np.zeros(n + 3, dtype=bool)
    member[n:] = True
    member[firsts] = True
    reached, jump = firsts, successor
    while True:
        new = jump[reached]
        new = new[~member[new]]
        if not new.size:
            return member[:n]
        member[new] = True
        reached = np.concatenate([reached, new])
        jump = jump[jump]


def _consecutive(successor, firsts, n):
    """Whether every node is on a chain and the chains are runs of consecutive nodes (no
    candidate is a byte inside a field): the usual case, checked in one pass."""
    block_last = np.append(firsts[1:] - 1, n - 1)
    step = successor[:n] == np.arange(1, n + 1)
    ends = successor[block_last] >= n
    step[block_last] = ends
    return bool(firsts.size) and firsts[0] == 0 and bool(step.all())


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
        return Fields(*_no_fields())
    if len(pieces) == 1:
        return Fields(*pieces[0])
    columns = [np.concatenate(parts) for parts in zip(*pieces)]
    # Each pass is sorted by message, so the stable sort merges a few sorted runs.
    order = np.argsort(columns[0], kind="stable")
    return Fields(*(column[order] for column in columns))


def _range_bytes(buf, starts, lengths, total):
    """The bytes of the ranges ``buf[starts[i]:starts[i] + lengths[i]]`` one after another."""
    if starts.size == 1:
        return buf[int(starts[0]) : int(starts[0]) + total]
    first = np.cumsum(lengths) - lengths
    return buf[np.repeat(starts - first, lengths) + np.arange(total)]


def decode_packed_varints(buf, starts, ends):
    """``(values, counts)``: the varints packed in each range ``buf[starts[i]:ends[i]]``
    (int64, two's complement as protobuf stores int64) and how many each range holds.

    The work is a pass over the bytes and one over the values per byte position in the
    longest varint (at most 10), never a step per value.
    Raises :class:`WireError` (naming the range) when a range ends inside a varint.
    """
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(starts.size, dtype=np.int64)
    data = _range_bytes(buf, starts, lengths, total)
    last = data < 0x80
    range_end = np.cumsum(lengths)
    tail = (range_end - 1)[lengths > 0]
    if not last[tail].all():
        bad = np.flatnonzero(lengths > 0)[np.argmin(last[tail])]
        raise WireError(bad, "a packed varint list ends inside a varint (truncated)")
    value_end = np.flatnonzero(last)
    value_start = np.empty_like(value_end)
    value_start[0] = 0
    value_start[1:] = value_end[:-1] + 1
    size = value_end - value_start + 1
    longest = int(size.max())
    if longest > 10:
        at = value_start[np.argmax(size > 10)]
        raise WireError(
            np.searchsorted(range_end, at, side="right"), "a varint longer than 10 bytes"
        )
    values = (data[value_start] & 0x7F).astype(np.uint64)
    for j in range(1, longest):
        part = (np.take(data, value_start + j, mode="clip") & 0x7F).astype(np.uint64)
        part[size <= j] = 0
        values |= part << np.uint64(7 * j)
    counts = np.diff(np.searchsorted(value_end, range_end), prepend=0)
    return values.view(np.int64), counts
