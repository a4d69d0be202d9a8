"""The vectorised protobuf field scan (data/wire.py) on hostile bytes: every input either
scans into fields that lie inside their message or raises WireError naming the message;
none loops or reads outside the buffer."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn
from colonnade.data import wire

AGE = {"age": cn.io.FixedLenFeature([], "float32", default_value=0.0)}


def scan(message: bytes):
    buf = wire.pad(message)
    return wire.scan_fields(buf, np.array([0]), np.array([len(message)]))


def test_a_length_of_2_to_the_63_is_refused_not_looped_on():
    """Issue 29's 43-byte request: field 1, length-delimited, with a 10-byte varint length
    of 2^63 + ..., which turned negative and sent the scan backwards forever."""
    record = b"\x0a" + bytes([0xF5] + [0xFF] * 8 + [1])
    with pytest.raises(wire.WireError, match="declares a length of 2\\^63 bytes or more"):
        scan(record)
    with pytest.raises(ValueError, match="record 0 is not a valid serialized tf.train.Example"):
        cn.io.parse_example([record], AGE)


def test_an_eleven_byte_varint_is_called_malformed():
    with pytest.raises(wire.WireError, match="a malformed varint"):
        scan(b"\x0a" + b"\xff" * 10 + b"\x01")  # a length varint of 11 bytes
    with pytest.raises(wire.WireError, match="a malformed varint"):
        scan(b"\x80" * 11 + b"\x01")  # a tag varint of 12 bytes


def test_a_truncated_field_is_called_truncated():
    with pytest.raises(wire.WireError, match=r"field 1 runs 3 bytes past the end of its message"):
        scan(b"\x0a\x05ab")


@settings(max_examples=400, deadline=2000)
@given(st.lists(st.binary(min_size=0, max_size=40), min_size=1, max_size=4))
def test_any_bytes_scan_inside_their_messages_or_raise(messages):
    data = b"".join(messages)
    ends = np.cumsum([len(m) for m in messages])
    starts = ends - np.array([len(m) for m in messages])
    buf = wire.pad(data)
    try:
        fields = wire.scan_fields(buf, starts, ends)
    except wire.WireError as e:
        assert 0 <= e.message < len(messages)
        return
    for msg, start, stop in zip(fields.msg, fields.start, fields.end):
        assert starts[msg] <= start <= stop <= ends[msg]


def _seed_example() -> bytes:
    from colonnade.data.example_writer import encode_examples

    batch = {"age": [31.5], "tags": [["a", "bc"]], "n": [[1, 2]]}
    return encode_examples(pa.record_batch(batch))[0]


SPECS = {
    "age": cn.io.FixedLenFeature([], "float32", default_value=0.0),
    "tags": cn.io.VarLenFeature("string"),
    "n": cn.io.FixedLenFeature([2], "int64", default_value=[0, 0]),
}
EDITS = st.lists(
    st.tuples(
        st.integers(0, 60),
        st.sampled_from(["set", "insert", "delete", "long_varint"]),
        st.integers(0, 255),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=2000)
@given(EDITS)
def test_a_mangled_example_parses_or_raises_a_value_error(edits):
    """Every level of a tf.Example (Example, Features, Feature, the value lists) is
    scanned by the same decoder: a mangled record parses or raises ValueError naming the
    record or the feature, never another exception and never a hang."""
    record = bytearray(_seed_example())
    for at, kind, byte in edits:
        at = min(at, len(record))
        if kind == "set" and at < len(record):
            record[at] = byte
        elif kind == "insert":
            record[at:at] = bytes([byte])
        elif kind == "delete":
            del record[at : at + 1 + byte % 4]
        elif kind == "long_varint":
            record[at:at] = bytes([0xFF] * 9 + [1])
    try:
        cn.io.parse_example([bytes(record)], SPECS)
    except ValueError as e:
        assert "record 0" in str(e) or "feature '" in str(e)  # names what is wrong
