"""TabularClassifier / TabularRegressor and `colonnade train --data --label`."""

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.cli import main
from colonnade.cli.job import load_config
from colonnade.demo import load_adult
from colonnade.estimators import tabular


@pytest.fixture
def few_epochs(monkeypatch):
    monkeypatch.setattr(tabular, "MAX_EPOCHS", 4)
    monkeypatch.setattr(tabular, "HIDDEN_UNITS", (32, 16))


def _synthetic(n=600, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.normal(size=n), "k": rng.choice(["a", "b", "c"], n)})
    df["y"] = ((df["x"] + (df["k"] == "a") + rng.normal(0, 0.5, n)) > 0.5).astype(int)
    return df


def test_adult_slice_beats_the_trivial_baseline(tmp_path, few_epochs):
    train, test = load_adult("train").head(3000), load_adult("test").head(1000)
    model = cn.estimators.TabularClassifier("income", model_dir=str(tmp_path), seed=0)
    model.fit(train)
    metrics = model.evaluate(test)
    majority = (test["income"] == "<=50K").mean()
    assert metrics["accuracy"] > majority + 0.03 and metrics["auc"] > 0.85
    assert model.columns_.task == "binary"


def test_seed_reproduces(tmp_path, few_epochs):
    df = _synthetic()
    runs = [
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / str(i)), seed=3)
        .fit(df)
        .predict(df)["logistic"]
        for i in range(2)
    ]
    np.testing.assert_array_equal(np.stack(runs[0]), np.stack(runs[1]))


def test_the_best_epoch_is_restored_and_checkpointed(tmp_path, monkeypatch):
    monkeypatch.setattr(tabular, "MAX_EPOCHS", 6)
    monkeypatch.setattr(tabular, "PATIENCE", 10)  # run all epochs past the best
    monkeypatch.setattr(tabular, "DNN_LEARNING_RATE", 0.05)  # noisy: the last is not best
    df, valid = _synthetic(400, 0), _synthetic(300, 1)
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path), seed=0)
    model.fit(df, validation_data=valid)
    losses = model.history_.history["val_loss"]
    assert model.best_epoch_ == int(np.argmin(losses)) + 1
    assert model.evaluate(valid)["loss"] == pytest.approx(min(losses), rel=1e-5)
    settings = {k: v for k, v in model.settings_.items() if k != "batch_size"}
    fresh = cn.estimators.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path),
        linear_feature_columns=list(model.columns_.linear),
        dnn_feature_columns=list(model.columns_.dnn),
        **settings,
    )
    assert fresh.evaluate(valid, label="y", verbose=0)["loss"] == pytest.approx(
        min(losses), rel=1e-5
    )


def test_export_loads_with_the_same_predictions(tmp_path, few_epochs):
    df = _synthetic()
    model = cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "m"), seed=0).fit(df)
    path = model.export_saved_model(str(tmp_path / "export"))
    rows = df.drop(columns=["y"]).head(20)
    expected = np.stack(model.predict(rows)["logistic"])
    got = cn.load(path).predict(rows)
    np.testing.assert_allclose(np.stack(got["logistic"]), expected, rtol=1e-5)


def test_regressor_and_small_data_note(tmp_path, few_epochs):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=120)})
    df["y"] = 3 * df["x"] + rng.normal(0, 0.1, 120)
    model = cn.estimators.TabularRegressor("y", model_dir=str(tmp_path), seed=0).fit(df)
    assert model.columns_.task == "regression"
    assert any("too few for a validation split" in n for n in model.columns_.notes)
    assert "average_loss" in model.evaluate(df)
    with pytest.raises(ValueError, match="use TabularRegressor"):
        cn.estimators.TabularClassifier("y", model_dir=str(tmp_path / "c")).fit(df)


def test_cli_without_config_writes_a_reusable_inferred_toml(tmp_path, few_epochs, capsys):
    data = tmp_path / "train.parquet"
    _synthetic().to_parquet(data)
    model_dir = tmp_path / "model"
    args = ["train", "--data", str(data), "--label", "y", "--model-dir", str(model_dir)]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "y: label: binary" in out and "k: categorical" in out
    config = model_dir / "inferred.toml"
    job = load_config(config)
    assert job.data.label == "y" and job.model.type == "DNNLinearCombinedClassifier"
    assert main(["train", str(config)]) == 0
    assert (model_dir / "retrained").is_dir()


def test_cli_needs_config_or_data(capsys):
    assert main(["train"]) == 2
    assert "--data PATH --label COLUMN" in capsys.readouterr().err
