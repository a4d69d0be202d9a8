"""Non-finite numeric features: ±inf is refused (naming the column and counting the values),
as NaN without a default already was, and so are non-finite results of a normalizer_fn."""

import numpy as np
import pyarrow as pa
import pytest

import colonnade as cn

fc = cn.feature_columns


def _layer(column, values):
    return fc.input_layer({"x": pa.array(values, pa.float64())}, [column])


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_infinite_values_are_refused_with_column_and_count(bad):
    column = fc.numeric_column("x", default_value=0.0)
    with pytest.raises(ValueError, match=r"'x'.*2 infinite values.*row 1"):
        _layer(column, [1.0, bad, 2.0, bad])


def test_infinite_values_in_a_multi_value_column_are_refused():
    column = fc.numeric_column("x", shape=2)
    arr = pa.FixedSizeListArray.from_arrays(pa.array([1.0, 2.0, 3.0, np.inf]), 2)
    with pytest.raises(ValueError, match=r"'x'.*1 infinite values.*row 1"):
        fc.input_layer({"x": arr}, [column])


def test_infinite_values_reach_no_bucketized_column_either():
    column = fc.bucketized_column(fc.numeric_column("x"), [0.0, 1.0])
    with pytest.raises(ValueError, match=r"'x'.*infinite"):
        _layer(fc.indicator_column(column), [0.5, np.inf])


def test_finite_values_and_nan_with_a_default_still_pass():
    out = _layer(fc.numeric_column("x", default_value=-1.0), [1.0, np.nan, 3.0])
    np.testing.assert_array_equal(out.numpy().ravel(), [1.0, -1.0, 3.0])


def test_normalizer_producing_non_finite_values_is_refused():
    with np.errstate(divide="ignore", invalid="ignore"):
        column = fc.numeric_column("x", normalizer_fn=np.log)
        with pytest.raises(ValueError, match=r"column 'x'.*normalizer_fn returned 2 non-finite"):
            _layer(column, [1.0, 0.0, -1.0, 2.0])


def test_a_finite_normalizer_is_untouched():
    column = fc.numeric_column("x", normalizer_fn=lambda v: v * 2)
    np.testing.assert_array_equal(_layer(column, [1.0, 2.0]).numpy().ravel(), [2.0, 4.0])
