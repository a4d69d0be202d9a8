"""Long messages in the vectorised wire reader (data/wire.py, issue 41): a list of a
million values is read in a number of numpy passes that does not grow with the number of
values, with the same fields, and the same errors, as a plain field-by-field reading.

The reference here is an independent pure-Python reader of the protobuf wire format
(one field at a time, as protobuf's own parsers read).
"""

import contextlib

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.data import wire
from colonnade.data.example_writer import encode_examples


def py_varint(data: bytes, at: int, end: int):
    """``(value, next)``; raises ValueError past 10 bytes or the end."""
    value = 0
    for j in range(10):
        if at + j >= end:
            raise ValueError("truncated varint")
        byte = data[at + j]
        value |= (byte & 0x7F) << (7 * j)
        if byte < 0x80:
            return value & (2**64 - 1), at + j + 1
    raise ValueError("varint longer than 10 bytes")


def py_fields(data: bytes, start: int, end: int):
    """The ``(number, wire, start, end)`` of each field of ``data[start:end]``."""
    out, at = [], start
    while at < end:
        tag, at = py_varint(data, at, end)
        number, kind = tag >> 3, tag & 7
        if number == 0 or kind not in (0, 1, 2, 5):
            raise ValueError(f"bad tag {tag}")
        if kind == 0:
            _, stop = py_varint(data, at, end)
            out.append((number, 0, at, stop))
        elif kind == 2:
            length, begin = py_varint(data, at, end)
            stop = begin + length
            if stop > end:
                raise ValueError("truncated")
            out.append((number, 2, begin, stop))
        else:
            stop = at + (8 if kind == 1 else 4)
            if stop > end:
                raise ValueError("truncated")
            out.append((number, kind, at, stop))
        at = stop
    return out


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if not value:
            return bytes(out + bytes([byte]))
        out.append(byte | 0x80)


def delimited(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


@contextlib.contextmanager
def passes(count):
    """Read messages longer than ``count`` fields with the long-message reader."""
    saved = wire.LONG_MESSAGE_PASSES
    wire.LONG_MESSAGE_PASSES = count
    try:
        yield
    finally:
        wire.LONG_MESSAGE_PASSES = saved


def scanned(messages, count):
    """Each message's fields as scan_fields gives them, or None where it raises."""
    data = b"".join(messages)
    lengths = np.array([len(m) for m in messages], dtype=np.int64)
    ends = np.cumsum(lengths)
    with passes(count):
        try:
            f = wire.scan_fields(wire.pad(data), ends - lengths, ends)
        except wire.WireError as err:
            assert 0 <= err.message < len(messages)
            return None
    rows = list(zip(f.msg.tolist(), f.number.tolist(), f.wire.tolist(), f.start.tolist()))
    return [row + (stop,) for row, stop in zip(rows, f.end.tolist())]


def reference(messages):
    data, out, at = b"".join(messages), [], 0
    for i, m in enumerate(messages):
        try:
            out += [(i, *field) for field in py_fields(data, at, at + len(m))]
        except ValueError:
            return None
        at += len(m)
    return out


FIELD_BYTES = st.sampled_from(
    [
        b"\x0a\x00",
        b"\x0a\x01\x0a",
        b"\x0a\x02ab",
        b"\x08\x01",
        b"\x08\x96\x01",
        b"\x0d\x0a\x0a\x0a\x0a",
    ]
    + [b"\x09" + b"\x0a" * 8, b"\x12\x01\x0a", b"\x10\x0a", b"\x80\x01\x00", b"\x0a\x05ab"]
)
MESSAGE = st.one_of(
    st.lists(FIELD_BYTES, max_size=40).map(b"".join),
    st.binary(max_size=60),
    st.lists(FIELD_BYTES, max_size=40).map(b"".join).map(lambda m: m[: max(0, len(m) - 1)]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(MESSAGE, min_size=1, max_size=4))
def test_the_long_message_reader_reads_what_a_field_by_field_reader_reads(messages):
    """Read with the long-message reader from the first field (0 passes), after a few
    passes, and field by field only: the same fields as the pure-Python reader, or an
    error where it raises."""
    expected = reference(messages)
    for count in (0, 3, 10**9):
        assert scanned(messages, count) == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), max_size=30), st.binary(max_size=12))
def test_varints_read_as_python_reads_them(values, tail):
    data = b"".join(varint(v) for v in values) + tail
    buf = wire.pad(data)
    positions = np.arange(len(data), dtype=np.int64)
    got, after = wire.read_varints(buf, positions)
    for p in range(len(data)):
        try:
            value, stop = py_varint(data + bytes(wire.PADDING), p, len(data) + wire.PADDING)
        except ValueError:
            assert after[p] == p and got[p] == 0  # longer than 10 bytes
            continue
        assert (int(got[p]), int(after[p])) == (value, stop)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=20), min_size=1, max_size=5))
def test_packed_varints_decode_to_their_int64s(lists):
    runs = [b"".join(varint(v % 2**64) for v in values) for values in lists]
    lengths = np.array([len(r) for r in runs], dtype=np.int64)
    ends = np.cumsum(lengths)
    values, counts = wire.decode_packed_varints(wire.pad(b"".join(runs)), ends - lengths, ends)
    assert values.tolist() == [v for vs in lists for v in vs]
    assert counts.tolist() == [len(vs) for vs in lists]


def test_a_packed_list_cut_inside_a_varint_names_its_range():
    runs = [varint(5), varint(300)[:1], varint(7)]
    lengths = np.array([len(r) for r in runs], dtype=np.int64)
    ends = np.cumsum(lengths)
    with pytest.raises(wire.WireError, match="ends inside a varint") as err:
        wire.decode_packed_varints(wire.pad(b"".join(runs)), ends - lengths, ends)
    assert err.value.message == 1


@contextlib.contextmanager
def counted_reads():
    """Count the wire reader's varint reads (each a numpy pass over some positions; a
    field-by-field scan makes one or two per field)."""
    calls = []
    original = wire.read_varints

    def counting(*args):
        calls.append(1)
        return original(*args)

    wire.read_varints = counting
    try:
        yield calls
    finally:
        wire.read_varints = original


def one_feature_record(feature: bytes) -> bytes:
    return delimited(1, delimited(1, delimited(1, b"x") + delimited(2, feature)))


N = 200_000


def test_a_long_bytes_list_parses_in_a_few_passes_to_its_values():
    """Issue 41: 1M bytes values took 52 s, a numpy pass per value. Here 200k values take
    a few dozen passes, and the values are the ones written."""
    expected = [b"v%d" % i for i in range(N)]
    record = encode_examples(pa.table({"x": pa.array([expected], pa.list_(pa.binary()))}))
    with counted_reads() as calls:
        table = cn.io.parse_example(record, {"x": cn.io.VarLenFeature("bytes")})
    assert table.column("x").to_pylist() == [expected]
    assert len(calls) < 100


def test_unpacked_int64_and_float_lists_parse_in_a_few_passes():
    ints = [i * 1_000_003 - 2**40 for i in range(N)]
    unpacked = b"".join(b"\x08" + varint(v % 2**64) for v in ints)
    floats = np.arange(N, dtype=np.float32) / 7
    unpacked_floats = b"".join(b"\x0d" + f.tobytes() for f in floats)
    with counted_reads() as calls:
        got_ints = cn.io.parse_example(
            [one_feature_record(delimited(3, unpacked))], {"x": cn.io.VarLenFeature("int64")}
        )
        got_floats = cn.io.parse_example(
            [one_feature_record(delimited(2, unpacked_floats))],
            {"x": cn.io.VarLenFeature("float32")},
        )
    assert got_ints.column("x").to_pylist() == [ints]
    assert got_floats.column("x")[0].values.to_numpy().tobytes() == floats.tobytes()
    assert len(calls) < 200


def test_a_record_of_many_features_parses_in_a_few_passes():
    names = [f"f{i}" for i in range(50_000)]
    record = encode_examples(pa.table({name: [i] for i, name in enumerate(names)}))
    wanted = {name: cn.io.FixedLenFeature([], "int64") for name in names[::5000]}
    with counted_reads() as calls:
        table = cn.io.parse_example(record, wanted)
    assert table.to_pydict() == {name: [int(name[1:])] for name in wanted}
    assert len(calls) < 100


def test_values_that_look_like_tags_and_fields_between_values_are_read_exactly():
    """Every value is the tag byte (spurious chain candidates), and an unknown varint
    field sits between values (the first tag's candidates do not hold the chain)."""
    spurious = b"".join(delimited(1, b"\x0a" * (i % 7)) for i in range(20_000))
    mixed = b"".join(delimited(1, b"v%d" % i) + b"\x10\x01" for i in range(20_000))
    spec = {"x": cn.io.VarLenFeature("bytes")}
    got = cn.io.parse_example([one_feature_record(delimited(1, spurious))], spec)
    assert got.column("x").to_pylist() == [[b"\x0a" * (i % 7) for i in range(20_000)]]
    got = cn.io.parse_example([one_feature_record(delimited(1, mixed))], spec)
    assert got.column("x").to_pylist() == [[b"v%d" % i for i in range(20_000)]]


@pytest.mark.parametrize(
    "tail, reason",
    [
        (b"\x0a\x05ab", "field 1 runs 3 bytes past the end of its message"),
        (b"\x0a" + b"\xff" * 10 + b"\x01", "a malformed varint"),
        (b"\x0b", "unsupported wire type 3"),
        (b"\x02\x00", "a field number of 0"),
    ],
)
def test_a_bad_field_after_many_good_ones_is_named(tail, reason):
    values = b"".join(delimited(1, b"ab") for _ in range(50_000)) + tail
    with pytest.raises(ValueError, match=f"record 0(, feature .x.)?:? .*{reason}"):
        cn.io.parse_example(
            [one_feature_record(delimited(1, values))], {"x": cn.io.VarLenFeature("bytes")}
        )
    with pytest.raises(wire.WireError, match=reason):
        wire.scan_fields(wire.pad(values), np.array([0]), np.array([len(values)]))
