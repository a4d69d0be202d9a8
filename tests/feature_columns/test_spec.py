"""feature_columns/spec.py: make_parse_example_spec."""

import pyarrow as pa
import pytest

import colonnade.feature_columns as fc


def test_make_parse_example_spec_seed_example(tmp_path):
    vocab = tmp_path / "v.txt"
    vocab.write_text("p\nq\n", encoding="utf-8")
    feature_a = fc.categorical_column_with_vocabulary_file("feature_a", str(vocab))
    feature_b = fc.numeric_column("feature_b")
    feature_c_bucketized = fc.bucketized_column(fc.numeric_column("feature_c"), [0.0, 1.0])
    cross = fc.crossed_column([feature_a, feature_c_bucketized], 100)
    schema = fc.make_parse_example_spec({feature_b, feature_c_bucketized, cross})
    # TF: {feature_a: VarLenFeature(string), feature_b/c: FixedLenFeature([1], float32)}
    assert schema == pa.schema(
        [
            ("feature_a", pa.list_(pa.string())),
            ("feature_b", pa.float32()),
            ("feature_c", pa.float32()),
        ]
    )


def test_make_parse_example_spec_other_columns():
    cols = [
        fc.numeric_column("v", shape=(3,), dtype="float64"),
        fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 4), "w"),
        fc.embedding_column(fc.categorical_column_with_hash_bucket("h", 4, dtype="int32"), 2),
        fc.sequence_numeric_column("seq"),
        fc.crossed_column(["s", "t"], 10),
    ]
    assert dict(
        zip(fc.make_parse_example_spec(cols).names, fc.make_parse_example_spec(cols).types)
    ) == {
        "h": pa.list_(pa.int32()),
        "i": pa.list_(pa.int64()),
        "s": pa.list_(pa.string()),
        "seq": pa.list_(pa.float32()),
        "t": pa.list_(pa.string()),
        "v": pa.list_(pa.float64(), 3),
        "w": pa.list_(pa.float32()),
    }
    with pytest.raises(ValueError, match="feature 's' is read as list<item: string> by column "):
        fc.make_parse_example_spec([fc.crossed_column(["s", "t"], 10), fc.numeric_column("s")])
    with pytest.raises(ValueError, match="takes feature columns"):
        fc.make_parse_example_spec(["s"])
