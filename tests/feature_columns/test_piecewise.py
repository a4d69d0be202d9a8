"""piecewise_linear_column: the encoding against a hand replay of Gorishniy et al.'s
formula, nulls, bad edges, its config, and what infer does with it."""

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.feature_columns import (
    from_config,
    numeric_column,
    piecewise_linear_column,
    to_config,
    transform_features,
)


def _replay(x, edges):
    """The paper's definition, one value and one bin at a time."""
    rows = []
    for v in x:
        row = []
        for t in range(1, len(edges)):
            lo, hi = edges[t - 1], edges[t]
            if v < lo and t > 1:
                row.append(0.0)
            elif v >= hi and t < len(edges) - 1:
                row.append(1.0)
            else:
                row.append((v - lo) / (hi - lo))
        rows.append(row)
    return np.array(rows)


def test_a_hand_computed_example():
    col = piecewise_linear_column(numeric_column("x"), [0.0, 2.0, 3.0, 7.0])
    got = transform_features({"x": [1.0, 2.5, 6.0]}, [col])["x_piecewise_linear"]
    # 1.0 is halfway into bin 1; 2.5 fills bin 1 and half of bin 2; 6.0 fills bins 1-2
    # and 3/4 of bin 3
    np.testing.assert_allclose(got, [[0.5, 0, 0], [1, 0.5, 0], [1, 1, 0.75]])
    assert got.dtype == np.float32


def test_matches_the_formula_inside_outside_and_on_the_edges():
    edges = [-1.0, 0.0, 0.5, 4.0, 10.0]
    x = np.array([-3.0, -1.0, -0.25, 0.0, 0.5, 0.7, 4.0, 9.99, 10.0, 25.0])
    col = piecewise_linear_column(numeric_column("x"), edges)
    got = transform_features({"x": x}, [col])["x_piecewise_linear"]
    np.testing.assert_allclose(got, _replay(x, edges), rtol=1e-6)
    # below the first edge the first number goes negative, above the last the last > 1
    assert got[0, 0] == pytest.approx(-2.0) and got[-1, -1] == pytest.approx(3.5)


def test_nulls_read_as_the_source_default():
    col = piecewise_linear_column(numeric_column("x", default_value=1.5), [0.0, 1.0, 2.0])
    got = transform_features({"x": [None, np.nan, 0.5]}, [col])["x_piecewise_linear"]
    np.testing.assert_allclose(got, [[1, 0.5], [1, 0.5], [0.5, 0]])
    no_default = piecewise_linear_column(numeric_column("x"), [0.0, 1.0])
    with pytest.raises(ValueError, match="'x'"):
        transform_features({"x": [None, 0.5]}, [no_default])


def test_all_equal_values_give_one_point_of_the_line():
    col = piecewise_linear_column(numeric_column("x"), [0.0, 1.0, 2.0])
    got = transform_features({"x": [1.25] * 4}, [col])["x_piecewise_linear"]
    np.testing.assert_allclose(got, [[1.0, 0.25]] * 4)


def test_a_column_of_equal_values_gets_no_encoding_from_infer():
    df = pd.DataFrame({"c": 2.0, "x": np.arange(200.0), "y": [0, 1] * 100})
    plan = cn.feature_columns.infer(df, "y")
    names = [c.name for c in plan.dnn]
    assert "c_piecewise_linear" not in names and "x_piecewise_linear" in names
    assert [d.reason for d in plan.decisions if d.name == "c"] == ["constant"]


def test_infer_uses_the_minimum_boundaries_and_maximum_as_edges():
    x = np.arange(1.0, 201.0)
    plan = cn.feature_columns.infer(pd.DataFrame({"x": x, "y": [0, 1] * 100}), "y")
    ple = next(c for c in plan.dnn if c.name == "x_piecewise_linear")
    bucketized = next(c for c in plan.linear if c.name == "x_bucketized")
    assert ple.edges == (1.0, *bucketized.boundaries, 200.0)
    assert "piecewise-linear encoding over 20 bins" in plan.describe()


def test_config_round_trip_keeps_the_edges_as_numbers():
    col = piecewise_linear_column(numeric_column("x", default_value=0.5), [0, 1.5, 4])
    config = to_config([col])
    assert config["feature_columns"][0] == {
        "type": "piecewise_linear_column",
        "source_column": {
            "type": "numeric_column",
            "key": "x",
            "shape": [1],
            "default_value": [0.5],
            "dtype": "float32",
        },
        "edges": [0.0, 1.5, 4.0],
    }
    assert from_config(config) == [col]


@pytest.mark.parametrize(
    "edges, match",
    [
        ([1.0], "at least two"),
        ([], "at least two"),
        ([0.0, 0.0, 1.0], "strictly increasing.*0.0 is followed by 0.0"),
        ([0.0, float("nan")], "finite numbers, got nan"),
        ([0.0, "1"], "finite numbers, got '1'"),
        (np.array([0.0, 1.0]), "a list of at least two"),
    ],
)
def test_bad_edges_are_named(edges, match):
    with pytest.raises(ValueError, match=match) as err:
        piecewise_linear_column(numeric_column("x"), edges)
    assert "x_piecewise_linear" in str(err.value)


def test_the_source_must_be_one_number():
    with pytest.raises(ValueError, match="numeric_column of one value a row"):
        piecewise_linear_column(numeric_column("x", shape=2), [0.0, 1.0])
    with pytest.raises(ValueError, match="numeric_column of one value a row"):
        piecewise_linear_column("x", [0.0, 1.0])


def test_a_model_trains_on_it_and_its_export_predicts_the_same(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.uniform(-2, 2, 300)})
    df.loc[::9, "x"] = np.nan
    y = np.where(np.isnan(df["x"]), 0.0, np.abs(df["x"]))
    col = piecewise_linear_column(numeric_column("x", default_value=0.0), [-2, -1, 0, 1, 2])
    model = cn.estimators.DNNRegressor(
        hidden_units=[8], feature_columns=[col], model_dir=str(tmp_path / "m")
    )
    model.fit(df.assign(y=y), label="y", epochs=2, batch_size=32, verbose=0)
    path = model.export_saved_model(str(tmp_path / "export"))
    expected = np.stack(model.predict(df, verbose=0)["predictions"])
    got = np.stack(cn.load(path).predict(df)["predictions"])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
