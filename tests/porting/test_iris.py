"""The iris program (tensorflow/models samples/core/get_started: ``premade_estimator.py``
+ ``iris_data.py``, a TF 1 ``DNNClassifier`` fed by ``Dataset.from_tensor_slices`` and
``make_one_shot_iterator``) ported to colonnade (``tests/porting/iris/port.py``) takes
over the model_dir TF 2.15 trained (``make_fixture.py`` wrote ``fixture/``): same
probabilities and metrics, training goes on from TF's step, and the export loads and
predicts the same."""

import json
import os

import numpy as np
import pytest
from programs import copy_of_model_dir, load_port, serving

import colonnade as cn

FIXTURE = os.path.join(os.path.dirname(__file__), "iris", "fixture")
TF = json.load(open(os.path.join(FIXTURE, "tf_results.json")))
TF_EXPORT = json.load(open(os.path.join(FIXTURE, "tf_export_answers.json")))
BATCH = 32

port = load_port("iris")
port.DATA_DIR = FIXTURE
(TRAIN_X, TRAIN_Y), (TEST_X, TEST_Y) = port.load_data()


@pytest.fixture
def tf_model_dir(tmp_path):
    return copy_of_model_dir(FIXTURE, tmp_path)


def classifier(model_dir):
    """The program's estimator, on a given model_dir (the program passes none)."""
    return cn.compat.v1.estimator.DNNClassifier(
        feature_columns=[cn.compat.v1.feature_column.numeric_column(key=k) for k in TRAIN_X.keys()],
        hidden_units=[10, 10],
        n_classes=3,
        model_dir=model_dir,
    )


def first_test_probabilities(estimator):
    rows = list(estimator.predict(input_fn=lambda: port.eval_input_fn(TEST_X, None, BATCH)))[:8]
    return np.array([row["probabilities"] for row in rows], dtype=float)


def test_port_predicts_and_evaluates_as_tf_on_tfs_model_dir(tf_model_dir):
    estimator = classifier(tf_model_dir)
    model_variables = {name for name in TF["variable_names"] if "Adagrad" not in name}
    assert model_variables <= set(estimator.get_variable_names())
    rows = list(estimator.predict(input_fn=lambda: port.eval_input_fn(TEST_X, None, BATCH)))[:8]
    np.testing.assert_allclose(
        [row["logits"] for row in rows], TF["logits_first_8_test_rows"], atol=1e-5
    )
    np.testing.assert_allclose(
        first_test_probabilities(estimator), TF["probabilities_first_8_test_rows"], atol=1e-5
    )
    assert [int(row["class_ids"][0]) for row in rows] == TF["class_ids_first_8_test_rows"]
    metrics = estimator.evaluate(input_fn=lambda: port.eval_input_fn(TEST_X, TEST_Y, BATCH))
    assert metrics["global_step"] == TF["global_step"]
    for key in ("accuracy", "average_loss", "loss"):
        assert metrics[key] == pytest.approx(TF["metrics"][key], rel=1e-5), key


def test_port_trains_on_from_tfs_step_and_its_export_predicts_the_same(tf_model_dir, tmp_path):
    estimator = classifier(tf_model_dir)
    estimator.train(input_fn=lambda: port.train_input_fn(TRAIN_X, TRAIN_Y, BATCH), steps=10)
    assert estimator.get_variable_value("global_step") == TF["global_step"] + 10
    loaded = cn.load(estimator.export_saved_model(str(tmp_path / "export"), raw_receiver()))
    got = loaded.predict_arrays(TEST_X.iloc[:8].astype("float32"))["probabilities"]
    np.testing.assert_allclose(got, first_test_probabilities(estimator), atol=1e-5)


def raw_receiver():
    """The program exports nothing; this receiver takes its four float columns."""
    return cn.compat.v1.estimator.export.build_raw_serving_input_receiver_fn(
        {key: "float32" for key in TRAIN_X.keys()}
    )


def test_served_export_answers_as_load_and_as_tfs_export(tf_model_dir, tmp_path):
    """TF's export of its checkpoint with a raw receiver of the four columns
    (``make_tf_export_answers.py``) has one signature, ``predict`` (a classification
    signature takes one string input); the port's export, served as ``colonnade serve``
    serves it, answers what ``cn.load`` and TF's export answer."""
    assert list(TF_EXPORT["signatures"]) == ["predict"]
    tf_answer = TF_EXPORT["signatures"]["predict"]
    base = tmp_path / "export"
    path = classifier(tf_model_dir).export_saved_model(str(base), raw_receiver())
    rows = TEST_X.iloc[:8].astype("float32")
    loaded = cn.load(path).predict_arrays(rows)
    with serving(base) as predict:
        status, body = predict(
            {"signature_name": "predict", "instances": json.loads(rows.to_json(orient="records"))}
        )
    assert status == 200, body
    for key in ("probabilities", "logits"):
        served = [p[key] for p in body["predictions"]]
        np.testing.assert_allclose(served, loaded[key], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(served, tf_answer[key], atol=1e-5)
    served_ids = [p["class_ids"] for p in body["predictions"]]
    assert served_ids == np.asarray(loaded["class_ids"]).tolist() == tf_answer["class_ids"]


def test_ported_main_runs_the_program(capsys):
    """The program's own ``main`` at the fixture's flags: trains, evaluates and prints
    its three predictions."""
    port.main(TF["argv"])
    assert port.CLASSIFIERS[-1].get_variable_value("global_step") == 40
    out = capsys.readouterr().out
    assert "Test set accuracy:" in out and out.count("Prediction is") == 3
