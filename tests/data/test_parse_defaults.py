"""A ``FixedLenFeature``'s ``default_value`` for a missing feature, as TF 2.15 gives it
(issue 38: colonnade gave None where TF gives ``[11.0, 11.0]``).

The expected values and the cases TF refuses come from TF itself:
golden/parse_defaults.json, written by golden/make_parse_defaults.py on TF 2.15.
"""

import json
import pathlib

import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.data.example_writer import encode_examples

fc = cn.feature_columns
GOLDEN = json.loads((pathlib.Path(__file__).parent / "golden" / "parse_defaults.json").read_text())
CASES = [case for case in GOLDEN["cases"] if "shape" in case]
MISSING = encode_examples(pa.table({"other": [1]}))[0]


def case_id(case):
    return f"{case['shape']}-{case['dtype']}-{case['default_value']}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_a_missing_feature_gets_its_default_as_tf_gives_it(case):
    def feature():
        return {"x": cn.io.FixedLenFeature(case["shape"], case["dtype"], case["default_value"])}

    if "raises" in case["parse_example"]:
        assert "Input to reshape is a tensor with" in case["parse_example"]["message"]
        with pytest.raises(ValueError, match="default_value has .* values but shape"):
            cn.io.parse_example([MISSING, MISSING], feature())
        return
    table = cn.io.parse_example([MISSING, MISSING], feature())
    assert table.column("x").to_pylist() == case["parse_example"]["value"]
    single = cn.io.parse_single_example(MISSING, feature())
    assert single["x"].tolist() == case["parse_single_example"]["value"]


def test_a_scalar_default_for_a_shape_names_the_values_to_write():
    with pytest.raises(
        ValueError, match=r"shape \[2\] needs 2 .*write it out, e\.g\. \[11\.0, 11\.0\]"
    ):
        cn.io.FixedLenFeature([2], "float32", default_value=11.0)


def test_make_parse_example_spec_carries_numeric_defaults_as_tf_does():
    """TF's feature_column_v2_test test_parse_example_with_default_value: the missing
    price parses as [11.0, 11.0] (TF's values, golden), a bucketized column's source too."""
    expected = [case for case in GOLDEN["cases"] if "numeric_column" in case][0]["numeric_column"]
    price = fc.numeric_column("price", shape=[2], default_value=11.0)
    age = fc.bucketized_column(fc.numeric_column("age", default_value=30.0), [18.0, 65.0])
    data = encode_examples(pa.table({"price": [[20.0, 110.0]]}))[0]
    no_data = encode_examples(pa.table({"something_else": [[20.0, 110.0]]}))[0]
    table = cn.io.parse_example([data, no_data], fc.make_parse_example_spec([price, age]))
    assert table.column("price").to_pylist() == expected["price"]
    # a shape-(1,) numeric column is a plain column here (docs/tf_differences.md)
    assert table.column("age").to_pylist() == [row[0] for row in expected["age"]]


def test_two_columns_with_different_defaults_for_one_feature_are_refused():
    a = fc.numeric_column("x", default_value=1.0)
    b = fc.bucketized_column(fc.numeric_column("x", default_value=2.0), [0.0])
    with pytest.raises(ValueError, match="different parse_spec for key x"):
        fc.make_parse_example_spec([a, b])


def test_a_schema_without_defaults_still_parses_a_missing_feature_as_null():
    schema = fc.make_parse_example_spec([fc.numeric_column("price", shape=[2])])
    table = cn.io.parse_example([MISSING], schema)
    assert table.column("price").to_pylist() == [None]
