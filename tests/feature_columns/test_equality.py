"""``equality_column`` (feature_columns/equality.py): 1.0 where two numeric features are
equal, 0.0 where they differ or either is missing; in both parts of a model, and through
the config."""

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.feature_columns import transform_features

fc = cn.feature_columns


def _equal(features, column):
    return transform_features(features, [column])[column.name]


def test_hand_computed_values_with_nulls_nan_and_mixed_types():
    column = fc.equality_column("price", "pcharter")
    features = {
        "price": pa.array([182.93, 34.534, None, 7.0, float("nan"), 0.0, -2.5, None]),
        "pcharter": pa.array([182.93, 15.114, 3.0, 7.0, float("nan"), -0.0, -2.5, None]),
    }
    # equal, differ, null left, equal, NaN both (not equal), 0 == -0, equal, null both
    want = [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    got = _equal(features, column)
    assert got.dtype == np.float32 and got.shape == (8, 1)
    assert got[:, 0].tolist() == want


def test_integers_compare_with_floats_and_booleans_read_as_0_and_1():
    column = fc.equality_column("a", "b")
    got = _equal({"a": pa.array([1, 2, 3, 1], pa.int64()), "b": [1.0, 2.5, 3.0, 0.0]}, column)
    assert got[:, 0].tolist() == [1.0, 0.0, 1.0, 0.0]
    flags = {"a": pa.array([True, False, None]), "b": pa.array([1, 1, 0], pa.int8())}
    assert _equal(flags, column)[:, 0].tolist() == [1.0, 0.0, 0.0]
    dictionary = pa.array([2.0, 5.0]).dictionary_encode()
    assert _equal({"a": dictionary, "b": [2.0, 4.0]}, column)[:, 0].tolist() == [1.0, 0.0]


def test_values_are_compared_in_the_columns_dtype():
    # 1 + 2**-30 and 1 differ in float64 but not in float32: the float32 column reads
    # both as a float32 request would be parsed, the float64 one keeps them apart
    a, b = [1.0 + 2.0**-30, 16_777_217], [1.0, 16_777_216]
    f32 = fc.equality_column("a", "b")
    f64 = fc.equality_column("a", "b", dtype="float64")
    features = {"a": pa.array(a[:1] * 2), "b": pa.array(b[:1] * 2)}
    assert _equal(features, f32)[:, 0].tolist() == [1.0, 1.0]
    assert _equal(features, f64)[:, 0].tolist() == [0.0, 0.0]
    big = {"a": pa.array([a[1]], pa.int64()), "b": pa.array([b[1]], pa.int64())}
    assert _equal(big, f32)[:, 0].tolist() == [1.0]  # 2**24 + 1 rounds to 2**24
    assert _equal(big, f64)[:, 0].tolist() == [0.0]
    assert f64.parse_spec() == {"a": pa.float64(), "b": pa.float64()}


def test_bad_features_name_the_column_and_the_feature():
    column = fc.equality_column("a", "b")
    with pytest.raises(TypeError, match=r"'a_equals_b' expects numeric values in feature 'b'"):
        _equal({"a": [1.0], "b": ["x"]}, column)
    with pytest.raises(ValueError, match=r"'a_equals_b' compares one number a row.*'a'"):
        _equal({"a": [[1.0]], "b": [1.0]}, column)
    with pytest.raises(KeyError, match=r"feature 'b' not found \(needed by .*'a_equals_b'"):
        _equal({"a": [1.0]}, column)


def test_factory_checks():
    assert fc.equality_column("a", "b") == fc.EqualityColumn("a", "b", "float32")
    with pytest.raises(ValueError, match="compares two features, got 'a' twice"):
        fc.equality_column("a", "a")
    with pytest.raises(TypeError, match="other_key must be a string"):
        fc.equality_column("a", 5)
    with pytest.raises(ValueError, match="dtype must be a float type.*'int64'"):
        fc.equality_column("a", "b", dtype="int64")
    with pytest.raises(ValueError, match="dtype must be convertible to float"):
        fc.equality_column("a", "b", dtype="string")


def test_config_round_trip():
    columns = [fc.equality_column("price", "pcharter"), fc.equality_column("x", "y", "float64")]
    config = fc.to_config(columns)
    assert config["feature_columns"][0] == {
        "type": "equality_column", "key": "price", "other_key": "pcharter", "dtype": "float32"
    }  # fmt: skip
    assert fc.from_config(config) == columns
    assert fc.from_config([{"type": "equality_column", "key": "a", "other_key": "b"}]) == [
        fc.equality_column("a", "b")
    ]


@pytest.mark.parametrize(
    "entry, field, message",
    [
        ({"key": "a"}, "cols[0].other_key", "missing"),
        ({"other_key": "a"}, "cols[0].key", "missing"),
        ({"key": "a", "other_key": 5}, "cols[0]", "other_key must be a string"),
        ({"key": "", "other_key": "b"}, "cols[0]", "key must be a string"),
        ({"key": "a", "other_key": "a"}, "cols[0]", "'a_equals_a': compares two features"),
        ({"key": "a", "other_key": "b", "dtype": "int8"}, "cols[0]", "float type"),
        ({"key": "a", "other_key": "b", "keys": ["c"]}, "cols[0].keys", "keys"),
    ],
)
def test_bad_configs_name_the_field(entry, field, message):
    with pytest.raises(fc.ConfigError, match=message) as caught:
        fc.from_config([{"type": "equality_column", **entry}], where="cols")
    assert caught.value.field == field


def test_a_weight_in_the_linear_model_and_an_input_of_the_dense_features():
    column = fc.equality_column("a", "b")
    features = {"a": [1.0, 2.0, 3.0], "b": [1.0, 0.0, 3.0]}
    linear = fc.LinearModel([column])
    assert linear.column_weights(column).shape == (1, 1)
    linear.column_weights(column).assign(np.array([[2.0]], np.float32))
    linear.bias.assign(np.array([0.5], np.float32))
    np.testing.assert_allclose(np.asarray(linear(features).numpy())[:, 0], [2.5, 0.5, 2.5])
    dense = fc.DenseFeatures([column, fc.numeric_column("a")])  # in name order: a first
    np.testing.assert_array_equal(
        np.asarray(dense(features).numpy()), [[1.0, 1.0], [2.0, 0.0], [3.0, 1.0]]
    )
    assert fc.make_parse_example_spec([column, fc.numeric_column("a")]).names == ["a", "b"]
