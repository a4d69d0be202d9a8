"""The babyweight program (GoogleCloudPlatform/training-data-analyst, a TF 1 wide&deep
``DNNLinearCombinedRegressor`` with vocabulary, bucketized, crossed and embedding
columns, ``add_metrics``, ``forward_features``, a ``LatestExporter`` and
``train_and_evaluate``) ported to colonnade (``tests/porting/babyweight/port.py``) takes
over the model_dir TF 2.15 trained (``make_fixture.py`` wrote ``fixture/``): same
predictions and metrics, the key forwarded, training goes on from TF's step, and its
export, served as ``colonnade serve`` serves it, answers what TF's export answered."""

import json
import os

import numpy as np
import pandas as pd
import pytest
from programs import copy_of_model_dir, load_port, serving

import colonnade as cn

HERE = os.path.join(os.path.dirname(__file__), "babyweight")
FIXTURE = os.path.join(HERE, "fixture")
TF = json.load(open(os.path.join(FIXTURE, "tf_results.json")))
EVAL = cn.compat.v1.estimator.ModeKeys.EVAL
TRAIN = cn.compat.v1.estimator.ModeKeys.TRAIN

port = load_port("babyweight")


@pytest.fixture(autouse=True)
def program_settings(monkeypatch):
    """The original's task.py sets these module globals from its flags: the fixture's."""
    monkeypatch.setattr(port, "BUCKET", FIXTURE)
    for name, value in TF["sizes"].items():
        monkeypatch.setattr(port, name, value)


@pytest.fixture
def tf_model_dir(tmp_path):
    return copy_of_model_dir(FIXTURE, tmp_path)


def regressor(model_dir):
    """The program's estimator, as its ``train_and_evaluate`` wraps it."""
    wide, deep = port.get_wide_deep()
    estimator = cn.compat.v1.estimator.DNNLinearCombinedRegressor(
        model_dir=model_dir,
        linear_feature_columns=wide,
        dnn_feature_columns=deep,
        dnn_hidden_units=port.NNSIZE,
    )
    estimator = cn.compat.v1.contrib.estimator.add_metrics(estimator, port.my_rmse)
    return cn.compat.v1.contrib.estimator.forward_features(estimator, port.KEY_COLUMN)


def first_eval_predictions(estimator):
    return list(estimator.predict(port.read_dataset("eval", EVAL, 8)))[:8]


def eval_rows(n=8):
    """The first ``n`` evaluation rows as the raw inputs of the export's receiver."""
    path = os.path.join(FIXTURE, "babyweight", "preproc", "eval.csv-00000-of-00001")
    strings = {"is_male": str, "plurality": str, "key": str}  # not pandas' booleans
    frame = pd.read_csv(path, header=None, names=port.CSV_COLUMNS, nrows=n, dtype=strings)
    frame = frame.drop(columns=port.LABEL_COLUMN)
    return frame.astype({"mother_age": "float32", "gestation_weeks": "float32"})


def test_port_predicts_forwards_the_key_and_evaluates_as_tf_on_tfs_model_dir(tf_model_dir):
    estimator = regressor(tf_model_dir)
    predicted = first_eval_predictions(estimator)
    np.testing.assert_allclose(
        [float(p["predictions"][0]) for p in predicted],
        TF["predictions_first_8_eval_rows"],
        atol=1e-5,
    )
    assert [p["key"] for p in predicted] == TF["keys_first_8_eval_rows"]
    metrics = estimator.evaluate(port.read_dataset("eval", EVAL, 2**15))
    assert metrics["global_step"] == TF["global_step"]
    for key in ("average_loss", "loss", "label/mean", "prediction/mean", "rmse"):
        assert metrics[key] == pytest.approx(TF["metrics"][key], rel=1e-5), key


def test_port_trains_on_from_tfs_step_and_its_export_predicts_the_same(tf_model_dir, tmp_path):
    estimator = regressor(tf_model_dir)
    estimator.train(port.read_dataset("train", TRAIN, port.BATCH_SIZE), steps=10)
    assert estimator.get_variable_value("global_step") == TF["global_step"] + 10
    path = estimator.export_saved_model(str(tmp_path / "export"), port.serving_input_fn)
    got = cn.load(path).predict(eval_rows())
    expected = first_eval_predictions(estimator)
    np.testing.assert_allclose(
        got["predictions"], [float(p["predictions"][0]) for p in expected], atol=1e-5
    )
    assert list(got["key"]) == TF["keys_first_8_eval_rows"]


def test_served_export_answers_as_load_and_as_tfs_export(tf_model_dir, tmp_path):
    """TF's export has one signature, ``predict`` (TF drops ``serving_default`` and
    ``regression``: a regression signature takes one string input); a TF Serving request
    names it, and the served port answers the predictions and the forwarded key, one
    value a row in a list as TF's (the original's ``serving_input_fn`` expands its dims)."""
    assert list(TF["export_signatures_first_8_eval_rows"]) == ["predict"]
    tf_answer = TF["export_signatures_first_8_eval_rows"]["predict"]
    base = tmp_path / "export"
    path = regressor(tf_model_dir).export_saved_model(str(base), port.serving_input_fn)
    rows = eval_rows()
    loaded = cn.load(path).predict(rows)
    instances = json.loads(rows.to_json(orient="records"))
    with serving(base) as predict:
        status, body = predict({"signature_name": "predict", "instances": instances})
    assert status == 200, body
    served = [p["predictions"][0] for p in body["predictions"]]
    np.testing.assert_allclose(served, loaded["predictions"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(served, np.ravel(tf_answer["predictions"]), atol=1e-5)
    assert [p["key"] for p in body["predictions"]] == tf_answer["key"]  # [["key-1-0"], ...]


def test_ported_train_and_evaluate_runs_the_program_and_exports(tmp_path):
    """The program's own ``train_and_evaluate`` at the fixture's sizes: trains to
    ``TRAIN_STEPS``, evaluates with the added ``rmse``, and the ``LatestExporter``
    writes an export that loads and forwards the key."""
    output_dir = str(tmp_path / "out")
    metrics, exports = port.train_and_evaluate(output_dir)
    assert metrics["global_step"] == TF["sizes"]["TRAIN_STEPS"]
    assert metrics["rmse"] == pytest.approx(np.sqrt(metrics["average_loss"]), rel=1e-5)
    assert len(exports) == 1 and exports[0].startswith(os.path.join(output_dir, "export"))
    got = cn.load(exports[0]).predict(eval_rows())
    assert list(got["key"]) == TF["keys_first_8_eval_rows"]
