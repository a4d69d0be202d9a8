"""feature_columns/base.py: what every column is (input keys, frozen hashable values)."""

import pytest

import colonnade.feature_columns as fc


def test_input_keys():
    w = fc.weighted_categorical_column(fc.categorical_column_with_identity("i", 3), "w")
    cross = fc.crossed_column(["a", fc.bucketized_column(fc.numeric_column("n"), [0.0]), "a"], 9)
    assert fc.embedding_column(w, 2).input_keys == ("i", "w")
    assert cross.input_keys == ("a", "n")
    assert cross.name == "a_X_a_X_n_bucketized"


def test_columns_are_frozen_hashable_values():
    a = fc.crossed_column(["x", fc.categorical_column_with_identity("i", 3)], 10)
    b = fc.crossed_column(["x", fc.categorical_column_with_identity("i", 3)], 10)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    with pytest.raises(AttributeError):
        a.hash_bucket_size = 3
