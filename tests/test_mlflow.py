"""The MLflow flavor (issue 40), with the real MLflow: a canned estimator, a
TabularClassifier and a custom ``Estimator(model_fn)`` logged to a local tracking store,
loaded back with ``colonnade.mlflow.load_model`` and ``mlflow.pyfunc.load_model``; the
predictions equal the model's own, and nothing in the logged model is a pickle."""

import os

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.estimators.tabular import defaults as tabular_defaults

pytest.importorskip("mlflow")
import mlflow  # noqa: E402
import mlflow.pyfunc  # noqa: E402

import colonnade.mlflow as cn_mlflow  # noqa: E402


def frame(n=200, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(list("abc"), n)})
    df["y"] = ((df["x"] + (df["k"] == "a") + rng.normal(0, 0.5, n)) > 0.5).astype(int)
    return df


@pytest.fixture
def tracking(tmp_path, monkeypatch):
    """A local tracking store in ``tmp_path`` (one SQLite file, MLflow 3's default kind;
    its artifacts in ``tmp_path/mlartifacts``); the run ended after the test."""
    monkeypatch.chdir(tmp_path)
    mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
    yield tmp_path
    while mlflow.active_run() is not None:
        mlflow.end_run()


def canned(tmp_path):
    columns = [
        cn.feature_columns.numeric_column("x"),
        cn.feature_columns.indicator_column(
            cn.feature_columns.categorical_column_with_vocabulary_list("k", ["a", "b", "c"])
        ),
    ]
    model = cn.estimators.DNNClassifier(
        hidden_units=[4], feature_columns=columns, model_dir=str(tmp_path / "dnn")
    )
    model.fit(frame(), label="y", epochs=2, verbose=0)
    return model


def assert_same_frame(got: pd.DataFrame, expected: pd.DataFrame):
    assert list(got.columns) == list(expected.columns)
    assert len(got) == len(expected) > 0
    pd.testing.assert_frame_equal(got, expected)


def no_pickles(root):
    for folder, _, files in os.walk(root):
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                head = f.read(2)
            assert not name.endswith((".pkl", ".pickle")), name
            assert head[:1] != b"\x80", f"{name} starts as a pickle does"


def test_a_canned_estimator_round_trips_through_both_flavors(tracking):
    model = canned(tracking)
    rows = frame(20, seed=1).drop(columns="y")
    expected = model.predict(rows, verbose=0)
    with mlflow.start_run():
        info = cn_mlflow.log_model(model, "model")
    got = cn_mlflow.load_model(info.model_uri)
    assert isinstance(got, cn.estimators.Predictor)
    assert_same_frame(got.predict(rows), expected)
    pyfunc = mlflow.pyfunc.load_model(info.model_uri)
    assert_same_frame(pyfunc.predict(rows), expected)
    probabilities = got.predict(rows, predict_keys=["probabilities"])
    assert list(probabilities.columns) == ["probabilities_0", "probabilities_1"]
    # the logistic is the sigmoid of the logit, recomputed in numpy
    logits = expected["logits"].to_numpy(np.float64)
    np.testing.assert_allclose(
        pyfunc.predict(rows)["logistic"].to_numpy(np.float64),
        1 / (1 + np.exp(-logits)),
        rtol=1e-5,
    )
    local = mlflow.artifacts.download_artifacts(info.model_uri, dst_path=str(tracking / "dl"))
    no_pickles(local)
    conf = mlflow.models.Model.load(os.path.join(local, "MLmodel")).flavors
    assert conf["python_function"]["loader_module"] == "colonnade.mlflow"
    assert conf["colonnade"]["colonnade_version"] == cn.__version__
    with open(os.path.join(local, "requirements.txt")) as f:
        assert f.read().split() == [f"colonnade=={cn.__version__}"]


def test_a_tabular_classifier_round_trips(tracking, monkeypatch):
    for name, value in {"MAX_EPOCHS": 2, "MIN_EPOCHS_NOISY": 1, "HIDDEN_UNITS": (8,)}.items():
        monkeypatch.setattr(tabular_defaults, name, value)
    model = cn.estimators.TabularClassifier("y", model_dir=str(tracking / "tab"), seed=0)
    model.fit(frame(), validation_data=frame(60, seed=2))
    rows = frame(30, seed=3).drop(columns="y")
    expected = model.predict(rows)
    with mlflow.start_run():
        info = cn_mlflow.log_model(model, "tabular")
    assert_same_frame(cn_mlflow.load_model(info.model_uri).predict(rows), expected)
    pyfunc = mlflow.pyfunc.load_model(info.model_uri)
    assert_same_frame(pyfunc.predict(rows), expected)
    # the served probabilities are the classifier's predict_proba
    np.testing.assert_allclose(
        pyfunc.predict(rows)[["probabilities_0", "probabilities_1"]].to_numpy(),
        model.predict_proba(rows),
        rtol=1e-6,
    )


def test_save_model_of_an_export_path_and_a_custom_model_fn(tracking, monkeypatch):
    """A custom Estimator's export holds no code: the import string recorded at save is
    what mlflow.pyfunc imports its model_fn from (tests/ on the path, as for serve)."""
    monkeypatch.syspath_prepend(os.path.dirname(__file__))
    import serve_model_fn_module as module

    columns = [cn.feature_columns.numeric_column("x")]
    estimator = cn.estimators.Estimator(
        module.linear_model_fn,
        model_dir=str(tracking / "custom"),
        params={"columns": columns, "learning_rate": 0.1},
    )
    df = frame()
    estimator.train(cn.data.Dataset.from_pandas(df[["x", "y"]], label="y").batch(32), steps=20)
    rows = df[["x"]].head(10)
    expected = estimator.predict(rows, verbose=0)["y"].to_numpy()
    export = estimator.export_saved_model(str(tracking / "exports"))
    target = "serve_model_fn_module:linear_model_fn"
    cn_mlflow.save_model(export, str(tracking / "saved"), model_fns={"linear_model_fn": target})
    uri = str(tracking / "saved")
    fn = {"linear_model_fn": module.linear_model_fn}
    got = cn_mlflow.load_model(uri, model_fns=fn).predict(rows)
    np.testing.assert_allclose(got["y"].to_numpy(), expected, rtol=1e-6)
    pyfunc = mlflow.pyfunc.load_model(uri)
    np.testing.assert_allclose(pyfunc.predict(rows)["y"].to_numpy(), expected, rtol=1e-6)


def test_bad_arguments_are_named(tracking):
    with pytest.raises(TypeError, match="logs a fitted colonnade estimator .* got int"):
        cn_mlflow.save_model(3, str(tracking / "a"))
    assert not (tracking / "a").exists()
    (tracking / "full").mkdir()
    (tracking / "full" / "f").write_text("x")
    with pytest.raises(FileExistsError, match="it is not an empty folder"):
        cn_mlflow.save_model(str(tracking / "nowhere"), str(tracking / "full"))
    with pytest.raises(TypeError, match="model_fns must be a dict of model_fn name"):
        cn_mlflow.save_model(str(tracking), str(tracking / "b"), model_fns={"f": len})
    with pytest.raises(ValueError, match=r"model_fns\[.f.\] = .no_such_module:f. does not import"):
        cn_mlflow.save_model(
            str(tracking), str(tracking / "b"), model_fns={"f": "no_such_module:f"}
        )
    with pytest.raises(TypeError, match="needs a name to log the model under"):
        cn_mlflow.log_model(3)


def test_an_mlflow_model_of_another_flavor_is_refused_naming_its_flavors(tracking):
    folder = tracking / "other"
    mlflow.pyfunc.save_model(str(folder), python_model=Echo())
    with pytest.raises(
        ValueError, match=r"has no 'colonnade' flavor; it has \['python_function'\]"
    ):
        cn_mlflow.load_model(str(folder))


class Echo(mlflow.pyfunc.PythonModel):
    def predict(self, context, model_input, params=None):
        return model_input
