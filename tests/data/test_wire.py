"""The vectorised protobuf field scan (data/wire.py) on hostile bytes: every input either
scans into fields that lie inside their message or raises WireError naming the message;
none loops or reads outside the buffer."""

import numpy as np
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
    with pytest.raises(wire.WireError, match="runs past the end|truncated"):
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
