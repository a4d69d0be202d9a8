"""All-missing categorical features and malformed pandas values."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn

fc = cn.feature_columns

CATEGORICAL = {
    "vocabulary": (fc.categorical_column_with_vocabulary_list("c", ["a", "b"]), pa.string()),
    "vocabulary_oov": (
        fc.categorical_column_with_vocabulary_list("c", ["a", "b"], num_oov_buckets=2),
        pa.string(),
    ),
    "int_vocabulary": (fc.categorical_column_with_vocabulary_list("c", [1, 2]), pa.int64()),
    "hash": (fc.categorical_column_with_hash_bucket("c", 5), pa.string()),
    "int_hash": (fc.categorical_column_with_hash_bucket("c", 5, dtype="int64"), pa.int64()),
    "cross": (fc.crossed_column(["c", "d"], 7), pa.string()),
}


@pytest.mark.parametrize("name", sorted(CATEGORICAL))
def test_all_null_typed_categorical_column_gives_no_ids(name):
    # TF: a missing value yields no id, so an all-missing column is an all-zero indicator.
    column, arrow_type = CATEGORICAL[name]
    features = {"c": pa.array([None, None, None], arrow_type), "d": pa.array(["x", "y", "z"])}
    out = fc.input_layer(features, [fc.indicator_column(column)]).numpy()
    assert out.shape[0] == 3
    np.testing.assert_array_equal(out, 0.0)


def test_untyped_all_null_column_is_refused_naming_it():
    column = fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"]))
    frame = pd.DataFrame({"c": pd.Series([None, None], dtype=object)})
    with pytest.raises(ValueError, match=r"feature 'c'.*only missing values.*astype"):
        fc.input_layer(frame, [column])


def test_non_numeric_string_in_numeric_pandas_column_names_column_and_row():
    frame = pd.DataFrame({"x": pd.Series([1.0, 2.5, "abc", 4.0], dtype=object)})
    with pytest.raises(TypeError, match=r"column 'x'.*row 2 \(index 2\).*'abc'"):
        fc.input_layer(frame, [fc.numeric_column("x")])


def test_fit_on_frame_with_bad_value_names_column_and_row():
    frame = pd.DataFrame(
        {
            "x": pd.Series([1.0, "abc", 2.0], dtype=object, index=[10, 11, 12]),
            "y": [0, 1, 0],
        }
    )
    est = cn.estimators.LinearClassifier([fc.numeric_column("x")])
    with pytest.raises(TypeError, match=r"column 'x'.*row 1 \(index 11\).*'abc'"):
        est.fit(frame, label="y")
