"""The user's side of the estimators: labels given as values, TF RunConfig arguments that
mean nothing here, a Predictor fed row dicts, summary() and repr()."""

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import colonnade as cn
from colonnade.estimators.runtime import run_config

fc = cn.feature_columns
E = cn.estimators


def frame(n=80, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    city = rng.choice(["paris", "rome"], n)
    return pd.DataFrame({"x": x, "city": city}), np.where(x > 0, ">50K", "<=50K")


def linear(tmp_path, **kw):
    return E.LinearClassifier(
        [fc.numeric_column("x")],
        label_vocabulary=["<=50K", ">50K"],
        config=E.RunConfig(model_dir=str(tmp_path / "m"), tf_random_seed=1, log_step_count_steps=0),
        **kw,
    )


# ---------------------------------------------------------------- labels as values


@pytest.mark.parametrize("as_label", [np.asarray, pd.Series, list, pa.array])
def test_fit_and_evaluate_take_label_values(tmp_path, as_label):
    X, y = frame()
    X.index = X.index + 1000  # a Series' index is ignored: labels match rows by position
    est = linear(tmp_path)
    est.fit(X, as_label(y), epochs=20)
    assert est.evaluate(X, label=as_label(y))["accuracy"] > 0.9
    assert "label" not in X.columns  # the caller's frame is left alone


def test_label_values_on_an_arrow_table_and_a_clashing_column_name(tmp_path):
    X, y = frame()
    table = pa.Table.from_pandas(X.assign(label=0.0), preserve_index=False)
    est = linear(tmp_path)
    est.fit(table, y, epochs=20)
    assert est.evaluate(table, label=y)["accuracy"] > 0.9


def test_two_dimensional_label_values_for_label_dimension(tmp_path):
    X, _ = frame()
    y = np.stack([X["x"] * 2, -X["x"]], axis=1)
    est = E.LinearRegressor(
        [fc.numeric_column("x")], label_dimension=2, model_dir=str(tmp_path / "m")
    )
    est.fit(X, y, epochs=2)
    assert est.predict(X).shape == (len(X), 2)


def test_label_values_errors(tmp_path):
    X, y = frame()
    est = linear(tmp_path)
    with pytest.raises(ValueError, match="label has 79 values but the data has 80 rows"):
        est.fit(X, y[:-1])
    X.to_parquet(tmp_path / "x.parquet")
    with pytest.raises(TypeError, match="label='<column name>'"):
        est.fit(str(tmp_path / "x.parquet"), y)
    with pytest.raises(KeyError, match="label column 'income' not found"):  # still a name
        est.fit(X, "income")


# ---------------------------------------------------------------- RunConfig


def test_run_config_accepts_tf_session_arguments_with_one_warning_each(monkeypatch):
    monkeypatch.setattr(run_config, "_warned", set())
    with pytest.warns(UserWarning, match=r"RunConfig\(session_config=\.\.\.\).*ignored"):
        config = E.RunConfig(session_config=cn.compat.v1.ConfigProto(), tf_random_seed=3)
    assert config.tf_random_seed == 3 and config == E.RunConfig(tf_random_seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config.replace(keep_checkpoint_max=2)  # warned once already
        E.RunConfig(session_config=cn.compat.v1.ConfigProto())
    valid = {"device_fn": lambda op: "/cpu:0", "protocol": "grpc"}  # TF's checks
    for name in run_config.IGNORED_TF_ARGUMENTS[1:]:
        with pytest.warns(UserWarning, match=name):
            E.RunConfig(**{name: valid.get(name, 1)})


# ---------------------------------------------------------------- Predictor


def test_predictor_takes_a_list_of_row_dicts_and_a_dict_of_columns(tmp_path):
    X, y = frame()
    est = linear(tmp_path)
    est.fit(X, y, epochs=5)
    predictor = cn.load(est.export_saved_model(str(tmp_path / "export")))
    expected = predictor.predict(X.head(3))
    rows = X.head(3).to_dict(orient="records")
    pd.testing.assert_frame_equal(predictor.predict(rows), expected)
    pd.testing.assert_frame_equal(predictor.predict(X.head(3).to_dict(orient="list")), expected)


# ---------------------------------------------------------------- summary and repr


def test_summary_lists_columns_by_part_variables_and_the_total(tmp_path):
    city = fc.categorical_column_with_vocabulary_list("city", ["paris", "rome"])
    est = E.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path / "m"),
        linear_feature_columns=[city],
        dnn_feature_columns=[fc.numeric_column("x"), fc.indicator_column(city)],
        dnn_hidden_units=[5],
        n_classes=3,
    )
    lines = []
    assert est.summary(print_fn=lines.append) is None
    text = "\n".join(lines)
    assert lines[0] == f"DNNLinearCombinedClassifier (model_dir {tmp_path / 'm'})"
    assert "linear columns: city" in text and "dnn columns: city_indicator, x" in text
    assert "dnn/hiddenlayer_0/kernel" in text and "(3, 5)" in text
    total = sum(v.size for v in est.get_weights().values())
    assert (
        lines[-1] == f"total parameters: {total:,}" and total == 3 * 5 + 5 + 5 * 3 + 3 + 2 * 3 + 3
    )
    assert repr(est) == (
        f"DNNLinearCombinedClassifier(model_dir={str(tmp_path / 'm')!r}, "
        "linear_columns=['city'], dnn_columns=['city_indicator', 'x'], hidden_units=[5], "
        "n_classes=3)"
    )
    reg = E.LinearRegressor([fc.numeric_column("x")], label_dimension=2, model_dir=str(tmp_path))
    assert repr(reg).endswith("linear_columns=['x'], label_dimension=2)")


def test_summary_prints_by_default(tmp_path, capsys):
    E.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path)).summary()
    assert "total parameters: 2" in capsys.readouterr().out
