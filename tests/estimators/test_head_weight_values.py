"""Issue 41 (WEAK, Other): negative example weights trained silently (TF 2.15's heads
check only the weights' shape), and a batch whose weights are all 0 trained on with a
loss of 0. A negative weight is now a ValueError naming the weight column, the count and
the first bad row; an all-zero batch is a RuntimeWarning naming the column (its loss is
TF's, 0). docs/tf_differences.md has the row."""

import warnings

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

E = cn.estimators
X = np.linspace(-1.0, 1.0, 8, dtype=np.float32)


def _frame(weights):
    return pd.DataFrame({"x": X, "w": np.asarray(weights, np.float32), "y": (X > 0) * 1.0})


@pytest.mark.parametrize(
    "head",
    [
        E.regression_head(weight_column="w"),
        E.binary_classification_head(weight_column="w"),
        E.multi_class_head(3, weight_column="w"),
    ],
    ids=["regression", "binary", "multi_class"],
)
def test_a_negative_weight_is_refused_naming_the_column_and_row(head):
    logits = np.zeros((4, head.logits_dimension), np.float32)
    labels = np.array([[0], [1], [0], [1]])
    features = {"w": np.array([1.0, 0.5, -2.0, -1.0], np.float32)}
    with pytest.raises(
        ValueError,
        match=r"weight_column 'w': example weights must be >= 0; 2 of the batch's 4 are "
        r"negative \(row 2 of the batch has -2\.0\)",
    ):
        head.loss(labels, logits, features=features)


def test_an_all_zero_batch_warns_and_its_loss_is_tfs_zero():
    head = E.regression_head(weight_column="w")
    logits = np.array([[1.0], [2.0]], np.float32)
    labels = np.zeros((2, 1), np.float32)
    with pytest.warns(RuntimeWarning, match=r"weight_column 'w': every example weight of this"):
        loss = head.loss(labels, logits, features={"w": np.zeros(2, np.float32)})
    assert float(cn.core.to_host(getattr(loss, "value", loss))) == 0.0  # TF 2.15: 0.0


def test_positive_and_some_zero_weights_train_without_a_warning():
    head = E.regression_head(weight_column="w")
    logits = np.array([[1.0], [2.0]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = head.loss(np.zeros((2, 1)), logits, features={"w": np.array([0.0, 2.0])})
    assert float(cn.core.to_host(getattr(loss, "value", loss))) == pytest.approx(4.0)  # 2*2^2/2


def test_a_canned_estimator_refuses_negative_weights_in_train_and_evaluate(tmp_path):
    est = E.LinearRegressor([cn.feature_columns.numeric_column("x")], tmp_path, weight_column="w")
    bad = _frame([1.0] * 7 + [-0.5])
    with pytest.raises(ValueError, match=r"weight_column 'w': example weights must be >= 0"):
        est.train(cn.data.Dataset.from_pandas(bad, label="y").batch(8), verbose=0)
    est.train(cn.data.Dataset.from_pandas(_frame([1.0] * 8), label="y").batch(8), verbose=0)
    with pytest.raises(ValueError, match=r"1 of the batch's 8 are negative \(row 7 "):
        est.evaluate(bad, label="y")
