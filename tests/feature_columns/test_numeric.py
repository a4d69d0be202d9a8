"""Numeric and bucketized columns: defaults, nulls, shapes, normalizers, buckets."""

import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade.feature_columns as fc


def value(column, features):
    return fc.transform_features(features, [column])[column.name]


def test_numeric_scalar_defaults_and_dtype():
    col = fc.numeric_column("x", default_value=-1.0)
    out = value(col, {"x": pa.array([1, None, 3], pa.int64())})
    assert out.dtype == np.float32 and out.tolist() == [[1.0], [-1.0], [3.0]]


def test_numeric_nulls_without_default_name_column_and_count():
    col = fc.numeric_column("price")
    with pytest.raises(ValueError, match="column 'price': feature 'price' has 2 null values"):
        value(col, {"price": [1.0, None, None]})


def test_numeric_shape_from_lists_fixed_lists_and_2d_arrays():
    col = fc.numeric_column("v", shape=(2,), default_value=[7.0, 8.0])
    expected = [[1.0, 2.0], [7.0, 8.0], [5.0, 8.0]]
    assert value(col, {"v": [[1.0, 2.0], None, [5.0, None]]}).tolist() == expected
    fixed = pa.array([[1.0, 2.0], None, [5.0, None]], pa.list_(pa.float64(), 2))
    assert value(col, {"v": fixed}).tolist() == expected
    assert value(col, {"v": np.array([[1.0, 2.0], [3.0, 4.0]])}).tolist() == [[1, 2], [3, 4]]


def test_numeric_multidimensional_shape_and_normalizer_sees_the_shape():
    seen = []

    def norm(x):
        seen.append(x.shape)
        return x * 2

    col = fc.numeric_column("m", shape=(2, 2), normalizer_fn=norm)
    out = value(col, {"m": np.arange(8, dtype=np.float64).reshape(2, 2, 2)})
    assert seen == [(2, 2, 2)] and out.shape == (2, 4) and out[1].tolist() == [8, 10, 12, 14]


def test_numeric_row_length_and_type_errors():
    col = fc.numeric_column("v", shape=3)
    with pytest.raises(ValueError, match="needs 3 values per row of feature 'v', but row 1 has 2"):
        value(col, {"v": [[1.0, 2.0, 3.0], [1.0, 2.0]]})
    with pytest.raises(ValueError, match="is a scalar column"):
        value(col, {"v": [1.0, 2.0]})
    with pytest.raises(
        TypeError, match="expects numeric values in feature 'x', got Arrow type string"
    ):
        value(fc.numeric_column("x"), {"x": ["1.0"]})
    # as TF, an integer column's dtype is how to parse: float values are taken as they are
    assert value(fc.numeric_column("x", dtype="int64"), {"x": [1.5]}).tolist() == [[1.5]]


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"shape": 0}, ValueError, "greater than 0"),
        ({"shape": (2.0,)}, TypeError, "must be integer"),
        ({"dtype": "string"}, ValueError, "convertible to float"),
        (
            {"shape": (2,), "default_value": [1.0, 2.0, 3.0]},
            ValueError,
            "shape of default_value must be equal to given shape",
        ),
        (
            {"dtype": "int64", "default_value": 1.5},
            TypeError,
            "must be compatible with dtype int64",
        ),
        ({"normalizer_fn": 3}, TypeError, "must be a callable"),
    ],
)
def test_numeric_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        fc.numeric_column("x", **kwargs)


def test_normalizers():
    x = np.array([0.0, 1.0, 3.0])
    assert fc.log1p()(x).tolist() == np.log1p(x).tolist()
    assert fc.log_offset(1.0)(x).tolist() == np.log(x + 1).tolist()
    assert fc.standardize(1.0, 2.0)(x).tolist() == [-0.5, 0.0, 1.0]
    assert fc.clip(0.5, 2.0)(x).tolist() == [0.5, 1.0, 2.0]
    col = fc.numeric_column(
        "x", normalizer_fn=fc.chain(fc.clip(0.0, 2.0), fc.standardize(1.0, 1.0))
    )
    assert value(col, {"x": [5.0, -3.0]}).tolist() == [[1.0], [-1.0]]
    with pytest.raises(ValueError, match="stddev > 0"):
        fc.standardize(0.0, 0.0)
    with pytest.raises(ValueError, match="lo <= hi"):
        fc.clip(2.0, 1.0)


# ---------------------------------------------------------------- bucketized


def test_bucketized_seed_example():
    # boundaries [0, 10, 100]; [[-5, 10000], [150, 10], [5, 100]] -> [[0, 3], [3, 2], [1, 3]]
    col = fc.bucketized_column(fc.numeric_column("x", shape=2), [0, 10, 100])
    ids = value(col, {"x": [[-5, 10000], [150, 10], [5, 100]]})
    per_element = (ids.ids.reshape(3, 2) - np.array([0, 4])).tolist()
    assert per_element == [[0, 3], [3, 2], [1, 3]]
    assert col.num_buckets == 8 and col.name == "x_bucketized"


def test_bucketized_left_edge_and_dense_one_hot():
    col = fc.bucketized_column(fc.numeric_column("x"), [0.0, 1.0, 2.0])
    assert value(col, {"x": [-0.5, 0.0, 1.0, 1.99, 2.0]}).ids.tolist() == [0, 1, 2, 2, 3]
    out = fc.input_layer({"x": [-0.5, 2.0]}, [col]).numpy()
    assert out.tolist() == [[1, 0, 0, 0], [0, 0, 0, 1]]


def test_bucketized_compares_in_float32_as_tf():
    # 0.1 as float32 is 0.10000000149; TF bucketizes float32 values against float32 boundaries
    col = fc.bucketized_column(fc.numeric_column("x", dtype="float64"), [0.1])
    assert value(col, {"x": [0.1, 0.1000000001]}).ids.tolist() == [1, 1]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=8, unique=True),
    st.lists(st.floats(-2e6, 2e6, width=32), max_size=30),
)
def test_bucketize_matches_python_loop(boundaries, values):
    boundaries = sorted(boundaries)
    col = fc.bucketized_column(fc.numeric_column("x"), boundaries)
    expected = [sum(1 for b in boundaries if v >= b) for v in values]
    assert value(col, {"x": pa.array(values, pa.float32())}).ids.tolist() == expected


@pytest.mark.parametrize(
    "source, boundaries, match",
    [
        (
            fc.numeric_column("x"),
            [1.0, 0.0],
            "sorted list without duplicates, but 1.0 is followed by 0.0",
        ),
        (fc.numeric_column("x"), [0.0, 0.0], "without duplicates"),
        (fc.numeric_column("x"), [], "must not be empty"),
        (fc.numeric_column("x"), [0.0, math.nan], "numbers"),
        (fc.numeric_column("x"), [1.0, 1.0 + 1e-12], "float32"),
        (fc.numeric_column("x", shape=(2, 2)), [0.0], "one-dimensional"),
        (fc.categorical_column_with_identity("x", 3), [0.0], "numeric_column"),
    ],
)
def test_bucketized_errors(source, boundaries, match):
    with pytest.raises(ValueError, match=match):
        fc.bucketized_column(source, boundaries)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(allow_nan=True, allow_infinity=True, width=32), max_size=40),
    st.lists(st.floats(-1e6, 1e6, width=32), min_size=1, max_size=24, unique=True),
)
def test_bucketize_equals_a_binary_search_for_any_values(values, boundaries):
    """Reference: numpy's searchsorted (TF's upper_bound), NaN and infinities included, on
    both sides of the count where bucketize switches from comparisons to a search."""
    from colonnade.feature_columns.bucketized import bucketize

    values = np.asarray(values, np.float32)
    boundaries = np.sort(np.asarray(boundaries, np.float32))
    want = np.searchsorted(boundaries, values, side="right")
    np.testing.assert_array_equal(bucketize(values, boundaries), want)


def test_integers_read_as_floats_exactly_or_refused():
    from colonnade.feature_columns import numeric_column, transform_features

    col = numeric_column("x")
    out = transform_features({"x": pa.array([3, -(2**24), 2**24])}, [col])["x"]
    assert out.dtype == np.float32 and out[:, 0].tolist() == [3.0, -(2**24), 2**24]
    for beyond in (2**24 + 1, 2**30):  # Arrow's safe cast: only integers within 2**24
        with pytest.raises(TypeError, match="without loss"):
            transform_features({"x": pa.array([1, beyond])}, [col])
