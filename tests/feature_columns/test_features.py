"""feature_columns/features.py: every input form (Arrow, pandas, dicts) reads the same."""

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
    with pytest.raises(TypeError, match="features should be a dict of arrays, a pyarrow.Table"):
        fc.transform_features([1, 2], COLUMNS)
    with pytest.raises(KeyError, match="feature 's' not found .*\\['x'\\]"):
        fc.transform_features({"x": [1.0]}, COLUMNS)
