"""Polars input (issue 40), with the real Polars: wherever a pandas DataFrame is taken, a
Polars one is too, through its Arrow memory, and gives the same predictions; a LazyFrame
is refused naming ``.collect()``. The reference for each result is the same call on the
pandas frame of the same values."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.data.polars_frames import as_arrow
from colonnade.estimators.tabular import defaults as tabular_defaults

pl = pytest.importorskip("polars")


def frames(n=160, seed=0):
    """``(pandas, polars)`` frames of the same values: a number, a category, a label."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    k = rng.choice(list("abc"), n)
    y = ((x + (k == "a") + rng.normal(0, 0.5, n)) > 0.5).astype(np.int64)
    values = {"x": x, "k": k, "y": y}
    return pd.DataFrame(values), pl.DataFrame({name: list(v) for name, v in values.items()})


COLUMNS = [
    cn.feature_columns.numeric_column("x"),
    cn.feature_columns.indicator_column(
        cn.feature_columns.categorical_column_with_vocabulary_list("k", ["a", "b", "c"])
    ),
]


def linear(model_dir):
    config = cn.estimators.RunConfig(model_dir=str(model_dir), tf_random_seed=0)
    return cn.estimators.LinearClassifier(feature_columns=COLUMNS, config=config)


@pytest.fixture(autouse=True)
def small_tabular(monkeypatch):
    for name, value in {"MAX_EPOCHS": 2, "MIN_EPOCHS_NOISY": 1, "HIDDEN_UNITS": (8,)}.items():
        monkeypatch.setattr(tabular_defaults, name, value)


def test_a_polars_frame_is_its_arrow_memory_without_a_copy():
    _, frame = frames(50)
    table = as_arrow(frame)
    assert isinstance(table, pa.Table) and table.num_rows == 50
    view = frame["x"].to_numpy(allow_copy=False)  # polars' own buffer, or an error
    assert table.column("x").chunk(0).buffers()[1].address == view.ctypes.data
    assert table.column("k").to_pylist() == frame["k"].to_list()


def test_a_canned_estimator_trains_evaluates_and_predicts_from_polars(tmp_path):
    pandas_df, polars_df = frames()
    from_pandas, from_polars = linear(tmp_path / "pd"), linear(tmp_path / "pl")
    from_pandas.fit(pandas_df, label="y", epochs=2, shuffle=False, verbose=0)
    from_polars.fit(polars_df, label="y", epochs=2, shuffle=False, verbose=0)
    for name, value in from_pandas.get_weights().items():
        np.testing.assert_array_equal(from_polars.get_weights()[name], value)
    rows_pd, rows_pl = pandas_df.drop(columns="y"), polars_df.drop("y")
    pd.testing.assert_frame_equal(
        from_pandas.predict(rows_pl, verbose=0), from_pandas.predict(rows_pd, verbose=0)
    )
    assert from_pandas.evaluate(polars_df, label="y", verbose=0) == from_pandas.evaluate(
        pandas_df, label="y", verbose=0
    )
    # labels as a polars Series, attached by position
    labelled = from_pandas.evaluate(rows_pl, label=polars_df["y"], verbose=0)
    assert labelled == from_pandas.evaluate(rows_pd, label=pandas_df["y"], verbose=0)
    export = from_pandas.export_saved_model(str(tmp_path / "export"))
    loaded = cn.load(export)
    pd.testing.assert_frame_equal(loaded.predict(rows_pl), loaded.predict(rows_pd))


def test_tabular_models_take_polars_for_every_method(tmp_path):
    pandas_df, polars_df = frames()
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "a"), seed=0)
    model.fit(pandas_df)
    twin = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "b"), seed=0)
    twin.fit(polars_df)
    rows_pd, rows_pl = pandas_df.drop(columns="y"), polars_df.drop("y")
    pd.testing.assert_frame_equal(twin.predict(rows_pl), model.predict(rows_pd))
    pd.testing.assert_frame_equal(model.predict(rows_pl), model.predict(rows_pd))
    np.testing.assert_array_equal(model.predict_proba(rows_pl), model.predict_proba(rows_pd))
    assert model.score(polars_df) == model.score(pandas_df)
    assert model.score(rows_pl, polars_df["y"]) == model.score(rows_pd, pandas_df["y"])
    assert model.evaluate(polars_df) == model.evaluate(pandas_df)
    pd.testing.assert_frame_equal(
        model.feature_importances(polars_df, n_repeats=2),
        model.feature_importances(pandas_df, n_repeats=2),
    )
    regression = pandas_df.assign(y=pandas_df["x"] * 3.0 + 1.0)
    regressor = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path / "r"), seed=0)
    regressor.fit(pl.from_pandas(regression))
    pd.testing.assert_frame_equal(regressor.predict(rows_pl), regressor.predict(rows_pd))
    assert regressor.evaluate(pl.from_pandas(regression)) == regressor.evaluate(regression)


def test_inference_and_datasets_take_polars():
    pandas_df, polars_df = frames(40)
    assert cn.feature_columns.infer(polars_df, "y").describe() == (
        cn.feature_columns.infer(pandas_df, "y").describe()
    )
    for make in (cn.data.Dataset.from_pandas, cn.data.Dataset.from_arrow):
        got = make(polars_df, label="y").to_table()
        assert got.column("x").to_pylist() == pandas_df["x"].tolist()
        assert got.column("k").to_pylist() == pandas_df["k"].tolist()
    fn = cn.estimators.inputs.pandas_input_fn(
        polars_df.drop("y"), polars_df["y"], batch_size=40, shuffle=False
    )
    expected = cn.estimators.inputs.pandas_input_fn(
        pandas_df.drop(columns="y"), pandas_df["y"], batch_size=40, shuffle=False
    )
    (features, labels), (want_features, want_labels) = next(iter(fn())), next(iter(expected()))
    assert labels.tolist() == want_labels.tolist()
    assert features.column("x").to_pylist() == want_features.column("x").to_pylist()


def test_write_tfrecord_takes_polars(tmp_path):
    pandas_df, polars_df = frames(20)
    spec = {
        "x": cn.io.FixedLenFeature([], "float32"),
        "k": cn.io.FixedLenFeature([], "string"),
        "y": cn.io.FixedLenFeature([], "int64"),
    }
    paths = []
    for name, frame in (("pd", pandas_df), ("pl", polars_df)):
        paths.append(str(tmp_path / f"{name}.tfrecord"))
        cn.io.write_tfrecord(frame, paths[-1])
    records = [list(cn.io.tf_record_iterator(path)) for path in paths]
    assert records[0] == records[1]
    assert cn.io.parse_example(records[1], spec)["k"].to_pylist() == pandas_df["k"].tolist()


def test_the_sklearn_adapters_take_polars():
    sk = pytest.importorskip("colonnade.sklearn")
    pandas_df, polars_df = frames(120)
    X_pd, X_pl = pandas_df[["x"]], polars_df.select("x")
    quick = dict(epochs=3, learning_rate=0.05, random_state=0)
    a = sk.LinearClassifier(**quick).fit(X_pd, pandas_df["y"])
    b = sk.LinearClassifier(**quick).fit(X_pl, polars_df["y"])
    assert list(b.feature_names_in_) == ["x"]
    np.testing.assert_array_equal(b.predict_proba(X_pl), a.predict_proba(X_pd))
    np.testing.assert_array_equal(a.predict(X_pl), a.predict(X_pd))


def test_a_lazy_frame_is_refused_naming_collect(tmp_path):
    pandas_df, polars_df = frames(40)
    lazy = polars_df.lazy()
    estimator = linear(tmp_path / "m")
    estimator.fit(pandas_df, label="y", epochs=1, verbose=0)
    calls = {
        "fit": lambda: estimator.fit(lazy, label="y", verbose=0),
        "predict": lambda: estimator.predict(lazy, verbose=0),
        "evaluate": lambda: estimator.evaluate(lazy, label="y", verbose=0),
        "tabular": lambda: cn.estimators.TabularClassifier("y").fit(lazy),
        "infer": lambda: cn.feature_columns.infer(lazy, "y"),
        "from_arrow": lambda: cn.data.Dataset.from_arrow(lazy),
        "label": lambda: estimator.evaluate(pandas_df, label=polars_df.lazy(), verbose=0),
    }
    for call in calls.values():
        with pytest.raises(TypeError, match=r"is a polars LazyFrame, .*lazy_frame\.collect\(\)"):
            call()


def test_import_colonnade_does_not_import_polars():
    code = "import sys, colonnade; print('polars' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
