"""TF arguments and error types the feature columns accept and raise as TF does (issue 24):
Keras-style initializers, ``use_safe_embedding_lookup``, ``weight_collections``,
``file_format`` of vocabulary files, ``numeric_column(shape=())``, and ValueErrors (not
pyarrow's or KeyError) for nested or missing features."""

import gzip

import numpy as np
import pytest

import colonnade as cn
from colonnade.data.tfrecord import TFRecordWriter

fc = cn.feature_columns


class KerasStyleInitializer:
    """TF 2's initializer objects: ``__call__(shape, dtype=None, **kwargs)``."""

    def __call__(self, shape, dtype=None, **kwargs):
        return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


def keras_style_function(shape, dtype=None, **kwargs):
    return np.full(shape, 2.0, np.float32)


@pytest.mark.parametrize(
    "initializer, row_2",
    [(KerasStyleInitializer(), [4.0, 5.0]), (keras_style_function, [2.0, 2.0])],
)
def test_embedding_column_takes_keras_style_initializers(initializer, row_2):
    column = fc.embedding_column(
        fc.categorical_column_with_identity("k", 3), 2, initializer=initializer
    )
    out = fc.input_layer({"k": [[2]]}, [column]).numpy()
    assert out.tolist() == [row_2]  # row 2 of arange(6).reshape(3, 2) / of a table of 2s


@pytest.mark.parametrize("safe", [True, False])
def test_use_safe_embedding_lookup_is_accepted_and_lookups_agree(safe):
    ids = fc.categorical_column_with_identity("k", 3)
    table = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    init = lambda shape, dtype=None: np.array(table, np.float32)  # noqa: E731
    column = fc.embedding_column(ids, 2, initializer=init, use_safe_embedding_lookup=safe)
    shared = fc.shared_embedding_columns([ids], 2, initializer=init, use_safe_embedding_lookup=safe)
    for c in (column, shared[0]):
        out = fc.input_layer({"k": [[0, 2], [1]]}, [c]).numpy()
        assert out.tolist() == [[3.0, 4.0], [3.0, 4.0]]  # mean of rows 0 and 2; row 1
    with pytest.raises(ValueError, match="use_safe_embedding_lookup must be True or False"):
        fc.embedding_column(ids, 2, use_safe_embedding_lookup="yes")


def test_weight_collections_is_accepted():
    price = fc.numeric_column("price")
    out = fc.linear_model({"price": [[1.0]]}, [price], weight_collections=["my-vars"])
    assert out.numpy().tolist() == [[0.0]]
    out = fc.input_layer({"price": [[3.0]]}, [price], weight_collections=["my-vars"])
    assert out.numpy().tolist() == [[3.0]]


def test_vocabulary_file_in_tfrecord_gzip_format(tmp_path):
    path = str(tmp_path / "vocab.tfrecord.gz")
    with TFRecordWriter(path, "GZIP") as w:
        for word in (b"omar", b"stringer", b"marlo"):
            w.write(word)
    with gzip.open(path) as f:  # a real gzip file, as TF writes them
        assert f.read(1)
    for fmt in (None, "tfrecord_gzip"):  # None: from the name's tfrecord.gz ending
        column = fc.categorical_column_with_vocabulary_file("w", path, file_format=fmt)
        ids = fc.transform_features({"w": [["marlo", "omar"]]}, [column])["w"]
        assert column.vocabulary_size == 3 and ids.to_lists() == [[2, 0]]
    assert fc.from_config(fc.to_config([column]))[0] == column
    with pytest.raises(ValueError, match="Unsupported file_format 'csv'"):
        fc.categorical_column_with_vocabulary_file("w", path, file_format="csv")


def test_numeric_column_with_empty_shape_is_a_scalar():
    column = fc.numeric_column("x", shape=())
    assert column.shape == () and column.variable_shape == ()
    out = fc.input_layer({"x": [1.5, -2.0]}, [column]).numpy()
    assert out.tolist() == [[1.5], [-2.0]]


@pytest.mark.parametrize(
    "value", [[[["a"], ["b"]], [["c"]]], [{"a": 1}]], ids=["list of lists", "records"]
)
def test_nested_categorical_features_are_a_value_error(value):
    column = fc.categorical_column_with_hash_bucket("s", 10)
    with pytest.raises(ValueError, match="column 's' reads strings or integers.*feature 's' holds"):
        fc.transform_features({"s": value}, [column])


def test_a_missing_feature_is_tfs_value_error_and_still_a_key_error():
    column = fc.numeric_column("bbb")
    with pytest.raises(ValueError, match="bbb is not in features dictionary"):
        fc.transform_features({"a": [1.0]}, [column])
    with pytest.raises(KeyError):
        fc.transform_features({"a": [1.0]}, [column])


@pytest.mark.parametrize(
    "features, column",
    [
        ({"x": [["a", "b"]]}, fc.numeric_column("x", shape=2)),
        ({"s": [[1.5, 2.0]]}, fc.categorical_column_with_identity("s", 5)),
        ({"x": [[1.0, "a"]]}, fc.numeric_column("x", shape=2)),
    ],
    ids=["strings for numbers", "fractions for ids", "mixed types"],
)
def test_wrong_kinds_of_values_are_tfs_value_error(features, column):
    with pytest.raises(ValueError, match="'x'|'s'"):
        fc.transform_features(features, [column])


def test_dense_ignore_values_are_dropped_and_sparse_ones_kept():
    """TF's _to_sparse_input_and_drop_ignore_values: a dense (rectangular) feature drops
    '' / -1 / weight 0; a ragged (TF: SparseTensor) one keeps them."""
    identity = fc.categorical_column_with_identity("i", 4, default_value=0)
    dense = fc.transform_features({"i": [[1, -1], [-1, 3]]}, [identity])["i"]
    assert dense.to_lists() == [[1], [3]]
    ragged = fc.transform_features({"i": [[1, -1], [3]]}, [identity])["i"]
    assert ragged.to_lists() == [[1, 0], [3]]  # -1 is out of range: default_value
    weighted = fc.weighted_categorical_column(identity, "w")
    out = fc.transform_features({"i": [[1, 2], [3, 0]], "w": [[0.5, 0.0], [2.0, 1.0]]}, [weighted])
    assert out[weighted.name].to_lists() == [[1], [3, 0]]
    assert out[weighted.name].weights.tolist() == [0.5, 2.0, 1.0]
    vocab = fc.categorical_column_with_vocabulary_list("s", ["a", "b"], num_oov_buckets=2)
    assert fc.transform_features({"s": [["a", ""], ["", "b"]]}, [vocab])["s"].to_lists() == [
        [0],
        [1],
    ]
    cross = fc.crossed_column(["s", "t"], 10)
    out = fc.transform_features({"s": ["a", ""], "t": ["x", "y"]}, [cross])[cross.name]
    assert [len(r) for r in out.to_lists()] == [1, 0]  # no value of 's' in row 1: no cross
