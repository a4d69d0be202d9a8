"""The DeepFM custom ``model_fn`` program (lambdaji/tf_repos, ``tf.estimator.Estimator``
with hand-made FM variables, an MLP and ``tf.metrics.auc``) on colonnade
(``tests/porting/deepfm/port.py``) takes over the model_dir TF 2.15 trained
(``make_fixture.py`` wrote ``fixture/``): TF's variable names, predictions and loss, ten
more steps from TF's step, and the export reloads with ``cn.load(path, model_fns=...)``."""

import json
import os
import re
import shutil

import numpy as np
import pytest
from programs import load_port, serving

import colonnade as cn

HERE = os.path.join(os.path.dirname(__file__), "deepfm")
FIXTURE = os.path.join(HERE, "fixture")
TF = json.load(open(os.path.join(FIXTURE, "tf_results.json")))
TRAIN = [os.path.join(FIXTURE, "tr.libsvm")]
VALID = [os.path.join(FIXTURE, "va.libsvm")]
TF_EXPORT = json.load(open(os.path.join(FIXTURE, "tf_export_answers.json")))


port = load_port("deepfm")


@pytest.fixture
def deepfm(tmp_path):
    model_dir = str(tmp_path / "model_dir")
    shutil.copytree(os.path.join(FIXTURE, "model_dir"), model_dir)
    return cn.compat.v1.estimator.Estimator(
        model_fn=port.model_fn, model_dir=model_dir, params=port.PARAMS
    )


def first_probs(predict):
    rows = predict(lambda: port.input_fn(VALID, batch_size=8), predict_keys="prob")
    return np.array([float(p["prob"]) for p in rows][:8])


def test_port_reads_tfs_model_dir_and_predicts_as_tf(deepfm):
    assert port.PARAMS == TF["params"]
    assert sorted(deepfm.get_variable_names()) == TF["variables"]
    np.testing.assert_allclose(
        first_probs(deepfm.predict), TF["prob_first_8_valid_rows"], atol=1e-5
    )
    metrics = deepfm.evaluate(lambda: port.input_fn(VALID, batch_size=1000))
    assert metrics["global_step"] == TF["global_step"]
    assert metrics["loss"] == pytest.approx(TF["metrics"]["loss"], rel=1e-5)
    tf_checkpoint = os.path.join(deepfm.model_dir, f"model.ckpt-{TF['global_step']}")
    again = deepfm.evaluate(lambda: port.input_fn(VALID, 1000), checkpoint_path=tf_checkpoint)
    assert again["loss"] == metrics["loss"]
    # colonnade's auc is exact, TF's counts 200 thresholds (docs/porting.md)
    assert metrics["auc"] == pytest.approx(TF["metrics"]["auc"], abs=2e-3)


def test_takeover_reports_only_the_values_it_does_not_restore(deepfm, caplog):
    # Predicting restores every model variable; TF's PREDICT graph leaves out Adam's
    # slots and powers, and so does colonnade: they, and only they, are "not used".
    with caplog.at_level("INFO", logger="colonnade"):
        first_probs(deepfm.predict)
    reports = [r.getMessage() for r in caplog.records if "not used" in r.getMessage()]
    assert len(reports) == 1
    assert "20 saved values not used" in reports[0]  # 9 variables' 2 Adam slots, 2 powers
    listed = set(re.findall(r"'([^']+)'", reports[0].partition("them): ")[2]))
    assert len(listed) == 20
    powers = {"beta1_power", "beta2_power"}
    assert all(n.endswith(("/Adam", "/Adam_1")) or n in powers for n in listed)


def test_port_trains_on_from_tfs_step_and_export_reloads(deepfm, tmp_path):
    deepfm.train(lambda: port.input_fn(TRAIN, 32, num_epochs=None, perform_shuffle=True), steps=10)
    assert deepfm.get_variable_value("global_step") == TF["global_step"] + 10
    # Adam went on from TF's slots: TF saved beta1_power = 0.9 ** 41 at step 40; ten more
    assert deepfm.get_variable_value("beta1_power") == pytest.approx(0.9**51, rel=1e-5)
    path = deepfm.export_saved_model(
        str(tmp_path / "export"), port.serving_input_receiver_fn(port.PARAMS["field_size"])
    )
    loaded = cn.load(path, model_fns={"model_fn": port.model_fn})
    got = np.asarray(loaded.predict(valid_rows())["prob"], dtype=float).ravel()
    np.testing.assert_allclose(got, first_probs(deepfm.predict), atol=1e-5)


def valid_rows():
    """The first 8 validation rows as the export's raw ``feat_ids``/``feat_vals`` lists."""
    lines = [line.split() for line in open(VALID[0])][:8]
    return {
        "feat_ids": [[int(p.split(":")[0]) for p in line[1:]] for line in lines],
        "feat_vals": [[float(p.split(":")[1]) for p in line[1:]] for line in lines],
    }


def test_served_export_answers_as_load_and_as_tfs_export(deepfm, tmp_path):
    """The export of TF's checkpoint, served as ``colonnade serve --model-fn
    model_fn=deepfm_port:model_fn`` serves it, answers a TF Serving ``:predict`` of the
    default signature as ``cn.load`` does, and as TF's export of the same checkpoint
    (``make_tf_export_answers.py``: its ``serving_default`` is the program's
    ``PredictOutput``)."""
    assert list(TF_EXPORT["signatures"]) == ["serving_default"]
    base = tmp_path / "export"
    receiver = port.serving_input_receiver_fn(port.PARAMS["field_size"])
    path = deepfm.export_saved_model(str(base), receiver)
    rows = valid_rows()
    loaded = cn.load(path, model_fns={"model_fn": port.model_fn}).predict_arrays(rows)
    instances = [dict(zip(rows, values)) for values in zip(*rows.values())]
    with serving(base, model_fns=["model_fn=deepfm_port:model_fn"]) as predict:
        status, body = predict({"instances": instances})
    assert status == 200, body
    served = np.ravel(body["predictions"])  # one output: TF Serving answers its values alone
    np.testing.assert_allclose(served, np.ravel(loaded["prob"]), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        served, TF_EXPORT["signatures"]["serving_default"]["prob"], atol=1e-5
    )


def test_port_trains_from_scratch_like_tf():
    """The program's own training at the fixture's sizes (40 steps of 32) from a fresh
    model_dir: the loss falls from log(2) as TF's did (TF: see tf_results.json)."""
    estimator = cn.compat.v1.estimator.Estimator(
        model_fn=port.model_fn, params=port.PARAMS, config=cn.estimators.RunConfig(tf_random_seed=1)
    )
    estimator.train(
        lambda: port.input_fn(TRAIN, 32, num_epochs=None, perform_shuffle=True), steps=40
    )
    metrics = estimator.evaluate(lambda: port.input_fn(VALID, batch_size=1000))
    assert metrics["global_step"] == 40
    assert metrics["loss"] < np.log(2)
