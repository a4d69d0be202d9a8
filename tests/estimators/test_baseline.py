"""The Baseline estimators beyond TF's ported tests (tests/tf/test_tf_canned_baseline*.py):
what they learn (the labels' mean, the classes' frequencies, worked out here with numpy),
one step of TF 2's and TF 1's named optimizers (by hand), DataFrames, exports, and the
inputs and arguments they refuse."""

import json
import os

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.estimators.networks.network import BaselinePart

E = cn.estimators
V1 = cn.compat.v1.estimator
fc = cn.feature_columns


def batch(labels):
    """An input_fn of one batch: a feature the baseline ignores, and ``labels``."""
    labels = np.asarray(labels)
    return lambda: ({"x": np.arange(len(labels), dtype=np.float32)[:, None]}, labels)


def test_one_sgd_step_as_tf2_and_tf1(tmp_path):
    # labels [1, 3], bias 0: squared errors 1 and 9, gradient -2 * (1 + 3) = -8 summed.
    # TF 2 averages over the batch (-4), TF 1 sums ("weighted_sum"); SGD at 0.3.
    tf2 = E.BaselineRegressor(str(tmp_path / "tf2"), optimizer="SGD")
    tf2.train(batch([[1.0], [3.0]]), steps=1)
    np.testing.assert_allclose(tf2.get_variable_value("baseline/bias"), [1.2], rtol=1e-6)
    tf1 = V1.BaselineRegressor(str(tmp_path / "tf1"), optimizer="SGD")
    assert tf1.head.loss_reduction == cn.core.Reduction.SUM
    tf1.train(batch([[1.0], [3.0]]), steps=1)
    np.testing.assert_allclose(tf1.get_variable_value("baseline/bias"), [2.4], rtol=1e-6)


def test_the_regressor_learns_the_labels_mean(tmp_path):
    labels = np.array([[1.0, -2.0], [2.0, 0.0], [6.0, 5.0]], np.float32)
    est = E.BaselineRegressor(str(tmp_path), label_dimension=2, optimizer="SGD")
    est.train(batch(labels), steps=60)
    np.testing.assert_allclose(est.get_variable_value("baseline/bias"), labels.mean(0), atol=1e-4)
    (first, *_) = est.predict(lambda: {"anything": [[7.0], [8.0]]})
    np.testing.assert_allclose(first["predictions"], labels.mean(0), atol=1e-4)


@pytest.mark.parametrize("n_classes,labels", [(2, [1, 1, 1, 0]), (3, [0, 1, 1, 2])])
def test_the_classifier_learns_the_classes_frequencies(tmp_path, n_classes, labels):
    est = E.BaselineClassifier(str(tmp_path), n_classes=n_classes, optimizer="SGD")
    est.train(batch(np.array(labels)[:, None]), steps=800)
    frequencies = np.bincount(labels, minlength=n_classes) / len(labels)
    (p, *_) = est.predict(lambda: {"x": [[0.0]]})
    np.testing.assert_allclose(p["probabilities"], frequencies, atol=1e-3)
    assert np.asarray(est.get_variable_value("baseline/bias")).shape == (
        (1,) if n_classes == 2 else (n_classes,)
    )


def test_the_estimator_learns_each_labels_share_through_a_multi_label_head(tmp_path):
    labels = np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1], [1, 0, 1]])
    est = E.BaselineEstimator(E.multi_label_head(3), str(tmp_path), optimizer="SGD")
    est.train(batch(labels), steps=1500)
    (p, *_) = est.predict(lambda: {"x": [[0.0]]})
    np.testing.assert_allclose(p["probabilities"], labels.mean(0), atol=2e-3)


def test_fit_on_a_dataframe_reads_no_feature_but_counts_the_rows(tmp_path):
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "w": [1.0, 1.0, 2.0], "y": [1.0, 2.0, 6.0]})
    est = E.BaselineRegressor(str(tmp_path), weight_column="w", optimizer="SGD")
    est.fit(df, label="y", epochs=60)
    # the weighted mean: (1 + 2 + 2 * 6) / 4
    np.testing.assert_allclose(est.get_variable_value("baseline/bias"), [3.75], atol=1e-4)
    assert est.predict(df[["x"]])["predictions"].tolist() == pytest.approx([3.75] * 3, abs=1e-4)


def test_an_export_rebuilds_the_baseline(tmp_path):
    est = E.BaselineClassifier(str(tmp_path / "m"), n_classes=3, optimizer="SGD")
    est.train(batch([[0], [1], [1], [2]]), steps=5)
    spec = fc.make_parse_example_spec([fc.numeric_column("x")])
    path = est.export_saved_model(
        str(tmp_path / "e"), E.build_parsing_serving_input_receiver_fn(spec)
    )
    with open(os.path.join(path, "model.json")) as f:
        assert json.load(f)["network"] == {"baseline": {"units": 3}}
    predictor = cn.load(path)
    out = predictor.predict(pd.DataFrame({"x": [0.0, 5.0]}))
    (p, *_) = est.predict(lambda: {"x": [[0.0]]})
    for row in range(2):
        np.testing.assert_allclose(
            out[[f"probabilities_{i}" for i in range(3)]].to_numpy()[row],
            p["probabilities"],
            rtol=1e-6,
        )


@pytest.mark.parametrize(
    "units,message",
    [
        (0, r"network.baseline.units: expected an integer >= 1"),
        (2, r"makes shape \(2,\), the weights hold \(3,\)"),
    ],
)
def test_an_export_with_a_wrong_baseline_is_refused(tmp_path, units, message):
    est = E.BaselineClassifier(str(tmp_path / "m"), n_classes=3)
    est.train(batch([[0], [1]]), steps=1)
    path = est.export_saved_model(str(tmp_path / "e"), None)
    meta_path = os.path.join(path, "model.json")
    with open(meta_path) as f:
        meta = json.load(f)
    meta["network"]["baseline"]["units"] = units
    with open(meta_path, "w") as f:
        json.dump(meta, f)
    with pytest.raises(E.ExportError, match=message):
        cn.load(path)


def test_a_batch_without_features_is_refused(tmp_path):
    est = E.BaselineRegressor(str(tmp_path))
    with pytest.raises(ValueError, match="reads the batch size from the features"):
        est.train(lambda: ({}, [[1.0]]), steps=1)


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="head must be a head .* got str"):
        E.BaselineEstimator("regression")
    with pytest.raises(ValueError, match="n_classes must be >= 2"):
        E.BaselineClassifier(n_classes=1)
    with pytest.raises(ValueError, match="not an Optimizer instance. Given: None"):
        V1.BaselineClassifier(optimizer=None)
    with pytest.raises(ValueError, match="number of logits >= 1, got 0"):
        BaselinePart(0)


def test_tf2_refuses_no_optimizer_when_it_trains(tmp_path):
    with pytest.raises(ValueError, match="Optimizer instance. Given: None"):
        E.BaselineRegressor(str(tmp_path), optimizer=None).train(batch([[1.0]]), steps=1)


def test_the_public_names():
    assert {"BaselineClassifier", "BaselineRegressor", "BaselineEstimator"} <= set(E.__all__)
    assert issubclass(V1.BaselineEstimator, E.BaselineEstimator)
    assert V1.BaselineEstimator is not E.BaselineEstimator
