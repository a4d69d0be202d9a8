"""Input forms (Arrow, pandas, dicts), make_parse_example_spec and the transform cache."""

import threading

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade.feature_columns as fc

COLUMNS = [
    fc.numeric_column("x", default_value=0.0),
    fc.categorical_column_with_hash_bucket("s", 100),
    fc.crossed_column(
        ["s", fc.bucketized_column(fc.numeric_column("x", default_value=0.0), [1.0])], 50
    ),
]


def transformed(features):
    out = fc.transform_features(features, COLUMNS)
    return {
        k: (v.to_lists() if isinstance(v, fc.CategoricalIds) else v.tolist())
        for k, v in out.items()
    }


def test_every_input_form_gives_the_same_result():
    data = {"x": [0.5, None, 2.0], "s": ["a", "b", None]}
    expected = transformed(data)
    table = pa.table(data)
    assert transformed(table) == expected
    assert transformed(table.to_batches()[0]) == expected
    chunked = pa.concat_tables([table.slice(0, 1), table.slice(1)])
    assert chunked.column("s").num_chunks == 2
    assert transformed(chunked) == expected
    assert transformed(pd.DataFrame(data)) == expected
    # a NaN in a numpy array counts as missing too: it takes the default_value
    assert transformed({"x": np.array([0.5, np.nan, 2.0]), "s": ["a", "b", None]}) == expected
    assert transformed(fc.as_features(data)) == expected


def test_input_errors():
    with pytest.raises(ValueError, match="different numbers of rows"):
        fc.transform_features({"x": [1.0], "s": ["a", "b"]}, COLUMNS)
    with pytest.raises(TypeError, match="features must be a pyarrow.Table"):
        fc.transform_features([1, 2], COLUMNS)
    with pytest.raises(KeyError, match="feature 's' not found .*\\['x'\\]"):
        fc.transform_features({"x": [1.0]}, COLUMNS)
    with pytest.raises(ValueError, match="duplicate feature column names \\['x'\\]"):
        fc.transform_features({"x": [1.0]}, [fc.numeric_column("x"), fc.numeric_column("x", 2)])


def test_input_keys():
    w = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    cross = fc.crossed_column(["a", fc.bucketized_column(fc.numeric_column("n"), [0.0]), "a"], 9)
    assert fc.embedding_column(w, 2).input_keys == ("i", "w")
    assert cross.input_keys == ("a", "n")
    assert cross.name == "a_X_a_X_n_bucketized"


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


def test_columns_are_frozen_hashable_values():
    a = fc.crossed_column(["x", fc.categorical_column_with_identity("i", 3)], 10)
    b = fc.crossed_column(["x", fc.categorical_column_with_identity("i", 3)], 10)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.hash_bucket_size = 3


def test_cache_is_thread_safe_and_computes_once():
    calls = []
    lock = threading.Lock()

    def norm(x):
        with lock:
            calls.append(1)
        return x

    base = fc.numeric_column("x", normalizer_fn=norm)
    cols = [fc.bucketized_column(base, [float(i)]) for i in range(8)] + [base]
    cache = fc.TransformCache({"x": np.arange(1000.0)})
    results = cache.compute(cols, num_threads=2)
    assert len(calls) == 1 and len(results) == 9
    assert results[3].ids.tolist() == (np.arange(1000) >= 3).astype(int).tolist()


def test_cache_reraises_errors_to_every_waiter():
    col = fc.numeric_column("x")
    cache = fc.TransformCache({"x": [None, 1.0]})
    for _ in range(2):
        with pytest.raises(ValueError, match="1 null values"):
            cache.get(col)
