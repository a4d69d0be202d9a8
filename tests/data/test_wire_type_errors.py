"""A tf.Example whose feature value has the wrong protobuf wire type (issue 40): one
``ValueError`` naming the record, the feature, the wire type found and the one expected.

The records are written byte by byte here from protobuf's encoding rules (a field's tag
is ``number << 3 | wire type``; 0 varint, 2 length-delimited, 5 fixed32), independent of
colonnade's writer. TF's own parser refuses each of them too ("Could not parse example
input"), without naming the feature.
"""

import os
import struct
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "fuzz"))
from fuzzhelpers import varint  # noqa: E402

import colonnade as cn  # noqa: E402

SPECS = {
    "s": cn.io.VarLenFeature("string"),
    "f": cn.io.FixedLenFeature([], "float32", default_value=0.0),
    "i": cn.io.VarLenFeature("int64"),
}


def field(number: int, body: bytes) -> bytes:
    """A length-delimited field (wire type 2) holding ``body``."""
    return varint(number << 3 | 2) + varint(len(body)) + body


def scalar(number: int, wire_type: int, body: bytes) -> bytes:
    """A field of ``wire_type`` whose encoded value is ``body``."""
    return varint(number << 3 | wire_type) + body


def entry(key: str, value: bytes) -> bytes:
    """Example{features: Features{feature: {key: <value bytes>}}}, the value as written."""
    return field(1, field(1, field(1, key.encode()) + value))


GOOD = field(1, field(1, field(1, b"f") + field(2, field(2, field(1, struct.pack("<f", 1.5))))))

# Feature: bytes_list = 1, float_list = 2, int64_list = 3, each a length-delimited message;
# their `value` (field 1): bytes (2), float (5, or 2 packed), int64 (0, or 2 packed).
WRONG = {
    "float_list as a varint": (
        entry("f", field(2, scalar(2, 0, varint(5)))),
        "f",
        r"is not a valid serialized tf.train.Feature: its list \(field 2\) has wire type 0, "
        r"expected 2 \(length-delimited\)",
    ),
    "a float value as a varint": (
        entry("f", field(2, field(2, scalar(1, 0, varint(7))))),
        "f",
        r": a float_list value has wire type 0, expected 5 \(fixed32\) or 2 \(packed\)",
    ),
    "an int64 value as fixed32": (
        entry("i", field(2, field(3, scalar(1, 5, b"\0\0\0\0")))),
        "i",
        r": an int64_list value has wire type 5, expected 0 \(varint\) or 2 \(packed\)",
    ),
    "a bytes value as a varint": (
        entry("s", field(2, field(1, scalar(1, 0, varint(3))))),
        "s",
        r": a bytes_list value has wire type 0, expected 2 \(length-delimited\)",
    ),
    "the Feature itself as a varint": (
        entry("s", scalar(2, 0, varint(1))),
        "s",
        r"is not a valid serialized tf.train.Features: its value \(field 2\) has wire type 0, "
        r"expected 2 \(length-delimited\)",
    ),
}


@pytest.mark.parametrize("case", list(WRONG))
def test_a_wrong_wire_type_names_the_record_and_the_feature(case):
    record, feature, message = WRONG[case]
    with pytest.raises(ValueError, match=rf"^record 1, feature '{feature}' ?{message}$"):
        cn.io.parse_example([GOOD, record], SPECS)


def test_the_record_before_parses_to_the_hand_encoded_value():
    assert cn.io.parse_example([GOOD], SPECS)["f"].to_pylist() == [1.5]


def test_a_wrong_wire_type_in_a_tfrecord_file_names_the_file_record_and_feature(tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    record, _, _ = WRONG["an int64 value as fixed32"]
    with cn.io.TFRecordWriter(path) as writer:
        for serialized in (GOOD, GOOD, record):
            writer.write(serialized)
    dataset = cn.data.Dataset.from_tfrecord(path, SPECS)
    with pytest.raises(ValueError, match=r"record 2 .*bad\.tfrecord.*feature 'i': an int64_list"):
        list(dataset)


def test_a_wrong_wire_type_in_a_feature_list_names_it():
    step = field(1, field(3, scalar(1, 5, b"\0\0\0\0")))  # FeatureList{feature: int64 fixed32}
    lists = field(2, field(1, field(1, b"seq") + field(2, step)))  # feature_lists: {"seq": ...}
    with pytest.raises(
        ValueError, match=r"^record 0, feature 'seq': an int64_list value has wire type 5"
    ):
        cn.io.parse_sequence_example(
            [lists], sequence_features={"seq": cn.io.FixedLenSequenceFeature([], "int64")}
        )
