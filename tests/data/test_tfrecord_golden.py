"""TFRecord files written by TensorFlow 2.15 parse as TF parsed them (fixtures made by
tests/data/golden/make_tfrecord_fixtures.py, which also checked that TF parses files
colonnade writes identically)."""

import json
from pathlib import Path

import pytest

import colonnade as cn

GOLDEN = Path(__file__).parent / "golden"
F, V, S = cn.io.FixedLenFeature, cn.io.VarLenFeature, cn.io.FixedLenSequenceFeature
SPEC = {
    "age": F([], "int64"),
    "fnlwgt": F([], "int64"),
    "hours": F([], "float32"),
    "education": F([], "string"),
    "workclass": F([], "string", default_value="?"),
    "nums": F([2], "int64"),
    "tags": V("string"),
}
FILES = {
    None: "adult_tf.tfrecord",
    "GZIP": "adult_tf.tfrecord.gz",
    "ZLIB": "adult_tf.tfrecord.zlib",
}


def golden():
    return json.loads((GOLDEN / "adult_tf_parsed.json").read_text())


@pytest.mark.parametrize("compression", list(FILES))
def test_tf_written_files_parse_as_tf_parsed_them(compression):
    path = GOLDEN / FILES[compression]
    records = list(cn.io.tf_record_iterator(path, compression))
    assert len(records) == 8
    assert cn.io.parse_example(records, SPEC).to_pydict() == golden()["example"]
    streamed = cn.data.Dataset.from_tfrecord(path, SPEC, compression_type=compression)
    assert streamed.to_table().to_pydict() == golden()["example"]


def test_tf_sequence_examples():
    records = list(cn.io.tf_record_iterator(GOLDEN / "adult_tf_sequence.tfrecord"))
    context, sequences = cn.io.parse_sequence_example(
        records,
        {"age": F([], "int64")},
        {"hours": S([], "float32", allow_missing=True), "words": V("string")},
    )
    assert context.to_pydict() == golden()["context"]
    assert sequences.to_pydict() == golden()["sequences"]


def test_tf_parsed_colonnade_files_identically():
    meta = json.loads((GOLDEN / "adult_tf_meta.json").read_text())
    assert meta["tensorflow"] == "2.15.1"
    assert meta["colonnade_files_parsed_by_tf"] == {
        "NONE": "identical",
        "GZIP": "identical",
        "ZLIB": "identical",
    }
