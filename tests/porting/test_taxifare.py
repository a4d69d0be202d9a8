"""The taxifare program (GoogleCloudPlatform/training-data-analyst, a TF 1
``DNNRegressor`` + ``train_and_evaluate`` + ``LatestExporter`` script) ported to colonnade
(``tests/porting/taxifare/port.py``) takes over the model_dir TF 2.15 trained
(``make_fixture.py`` wrote ``fixture/``): same predictions and metrics, training goes on
from TF's step, and the export loads and predicts the same."""

import json
import os

import numpy as np
import pandas as pd
import pytest
from programs import copy_of_model_dir, load_port, serving

import colonnade as cn

HERE = os.path.join(os.path.dirname(__file__), "taxifare")
FIXTURE = os.path.join(HERE, "fixture")
TF = json.load(open(os.path.join(FIXTURE, "tf_results.json")))
EVAL_CSV = os.path.join(FIXTURE, "taxi-valid.csv")
TRAIN_CSV = os.path.join(FIXTURE, "taxi-train.csv")
TF_EXPORT = json.load(open(os.path.join(FIXTURE, "tf_export_answers.json")))


port = load_port("taxifare")


@pytest.fixture
def tf_model_dir(tmp_path):
    return copy_of_model_dir(FIXTURE, tmp_path)


def regressor(model_dir):
    return cn.compat.v1.estimator.DNNRegressor(
        model_dir=model_dir,
        feature_columns=port.feature_cols,
        hidden_units=TF["args"]["hidden_units"],
    )


def first_eval_predictions(predict):
    rows = port.read_dataset(EVAL_CSV, batch_size=8, mode=cn.compat.v1.estimator.ModeKeys.EVAL)
    return np.array([float(p["predictions"][0]) for p in predict(rows)][:8])


def test_port_predicts_and_evaluates_as_tf_on_tfs_model_dir(tf_model_dir):
    estimator = regressor(tf_model_dir)
    np.testing.assert_allclose(
        first_eval_predictions(estimator.predict), TF["predictions_first_8_eval_rows"], atol=1e-5
    )
    metrics = estimator.evaluate(
        port.read_dataset(EVAL_CSV, batch_size=10000, mode=cn.compat.v1.estimator.ModeKeys.EVAL)
    )
    assert metrics["global_step"] == TF["global_step"]
    for key in ("average_loss", "loss", "label/mean", "prediction/mean"):
        assert metrics[key] == pytest.approx(TF["metrics"][key], rel=1e-5), key


def test_port_trains_on_from_tfs_step_and_its_export_predicts_the_same(tf_model_dir, tmp_path):
    estimator = regressor(tf_model_dir)
    train = port.read_dataset(TRAIN_CSV, batch_size=32, mode=cn.compat.v1.estimator.ModeKeys.TRAIN)
    estimator.train(train, steps=10)
    assert estimator.get_variable_value("global_step") == TF["global_step"] + 10
    path = estimator.export_saved_model(str(tmp_path / "export"), port.serving_input_fn)
    loaded = cn.load(path)
    expected = first_eval_predictions(estimator.predict)
    frame = loaded_rows()
    got = np.asarray(loaded.predict(frame)["predictions"].tolist(), dtype=float).ravel()[:8]
    np.testing.assert_allclose(got, expected, atol=1e-5)


def loaded_rows():
    """The first eight evaluation rows as the raw columns the export's receiver names."""
    frame = pd.read_csv(EVAL_CSV, header=None, names=port.CSV_COLUMNS, nrows=8)
    return frame[[column.name for column in port.INPUT_COLUMNS]].astype("float32")


def test_served_export_answers_as_load_and_as_tfs_export(tf_model_dir, tmp_path):
    """TF's export of its checkpoint (``make_tf_export_answers.py``) has one signature,
    ``predict`` (a regression signature takes one string input, so TF drops
    ``serving_default``); a TF Serving request names it, and the port's export, served as
    ``colonnade serve`` serves it, answers what ``cn.load`` and TF's export answer."""
    assert list(TF_EXPORT["signatures"]) == ["predict"]
    base = tmp_path / "export"
    path = regressor(tf_model_dir).export_saved_model(str(base), port.serving_input_fn)
    rows = loaded_rows()
    loaded = np.asarray(cn.load(path).predict(rows)["predictions"].tolist(), dtype=float).ravel()
    with serving(base) as predict:
        status, body = predict(
            {"signature_name": "predict", "instances": json.loads(rows.to_json(orient="records"))}
        )
    assert status == 200, body
    served = np.ravel(body["predictions"])  # one output: TF Serving answers its values alone
    np.testing.assert_allclose(served, loaded, rtol=1e-6, atol=1e-6)
    tf_served = np.ravel(TF_EXPORT["signatures"]["predict"]["predictions"])
    np.testing.assert_allclose(served, tf_served, atol=1e-5)


def test_ported_train_and_evaluate_runs_the_program_and_exports(tmp_path):
    """The program's own ``train_and_evaluate`` at the fixture's sizes: trains to
    ``train_steps``, evaluates, and the ``LatestExporter`` writes an export that loads."""
    args = dict(
        TF["args"],
        output_dir=str(tmp_path / "out"),
        train_data_paths=os.path.join(FIXTURE, "taxi-train*.csv"),
        eval_data_paths=EVAL_CSV,
    )
    metrics, exports = port.train_and_evaluate(args)
    assert metrics["global_step"] == TF["args"]["train_steps"]
    assert np.isfinite(metrics["average_loss"])
    assert len(exports) == 1 and exports[0].startswith(os.path.join(args["output_dir"], "export"))
    assert cn.load(exports[0]).predict(loaded_rows())["predictions"].shape[0] == 8
