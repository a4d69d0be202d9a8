"""TF 1's canned estimators (``cn.compat.v1.estimator``): trained with their defaults they
match what ``tf.compat.v1.estimator`` trained (golden/make_tf_v1_canned.py, TF 2.15)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import colonnade as cn
from colonnade.estimators.canned import v1 as canned_v1

fc = cn.feature_columns
GOLDEN = json.loads((Path(__file__).parent / "golden" / "tf_v1_canned.json").read_text())


def columns():
    return [
        fc.numeric_column("x"),
        fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c"]),
    ]


def batches(labels):
    frame = pd.DataFrame({**GOLDEN["rows"], "label": labels})
    return cn.data.Dataset.from_pandas(frame, label="label").batch(GOLDEN["batch"]).repeat()


@pytest.mark.parametrize(
    "name, labels",
    [("LinearClassifier", "class_labels"), ("LinearRegressor", "regression_labels")],
)
def test_v1_linear_defaults_train_as_tf1(tmp_path, name, labels):
    """Named Ftrl at 0.2 and the summed loss: after 3 steps from zeros, TF 1's weights."""
    labels = GOLDEN[labels]
    v1 = getattr(canned_v1, name)(columns(), model_dir=str(tmp_path / "v1"))
    v1.train(lambda: batches(labels), steps=GOLDEN["steps"])
    want = GOLDEN[name]["variables"]
    for var, value in want.items():
        np.testing.assert_allclose(
            v1.get_variable_value(var), value, rtol=1e-5, atol=1e-6, err_msg=var
        )
    loss = v1.evaluate(lambda: batches(labels), steps=1)["loss"]
    np.testing.assert_allclose(loss, GOLDEN[name]["loss_after"], rtol=1e-5)

    v2 = getattr(cn.estimators, name)(columns(), model_dir=str(tmp_path / "v2"))
    v2.train(lambda: batches(labels), steps=GOLDEN["steps"])  # TF 2's mean loss: other weights
    bias = "linear/linear_model/bias_weights"
    assert not np.allclose(v2.get_variable_value(bias), want[bias], rtol=1e-3)


def test_compat_v1_estimator_is_tf1s_namespace():
    est = cn.compat.v1.estimator
    assert est.DNNClassifier is canned_v1.DNNClassifier
    assert est.LinearRegressor is canned_v1.LinearRegressor
    assert est.RunConfig is cn.estimators.RunConfig and est.Estimator is cn.estimators.Estimator
    assert cn.compat.v1.feature_column is cn.feature_columns
    assert cn.compat.v1.logging.INFO == 20


def test_v1_optimizer_names_are_tf1s():
    """TF 1's name table and learning rates (canned/optimizers.py, dnn.py, linear.py)."""
    make = canned_v1.v1_optimizer("Adam", 0.05)
    adam = make()
    assert type(adam) is cn.train.AdamOptimizer and adam.learning_rate == 0.05
    assert adam.hyperparameters["epsilon"] == 1e-8  # TF 1's, not Keras' 1e-7
    sgd = canned_v1.v1_optimizer("SGD", 0.2)()
    assert type(sgd) is cn.train.GradientDescentOptimizer and sgd.learning_rate == 0.2
    with pytest.raises(ValueError, match=r"Unsupported optimizer name: Momentum\. Supported "):
        canned_v1.v1_optimizer("Momentum", 0.1)
    with pytest.raises(ValueError, match="not an Optimizer instance. Given: None"):
        canned_v1.DNNClassifier([4], [fc.numeric_column("x")], optimizer=None)
    opt = cn.train.RMSPropOptimizer(0.3)
    assert canned_v1.v1_optimizer(opt, 0.05) is opt


def test_v1_signatures_and_defaults_are_tf1s():
    """Each class takes TF 1's arguments, in TF 1's order, with TF 1's defaults (read off
    TF 2.15's tf.compat.v1.estimator classes)."""
    import inspect

    def defaults(cls):
        return {
            k: (v.default if v.default is not inspect.Parameter.empty else "required")
            for k, v in inspect.signature(cls.__init__).parameters.items()
            if k != "self"
        }

    dnn = defaults(canned_v1.DNNClassifier)
    assert list(dnn) == [
        "hidden_units", "feature_columns", "model_dir", "n_classes", "weight_column",
        "label_vocabulary", "optimizer", "activation_fn", "dropout", "input_layer_partitioner",
        "config", "warm_start_from", "loss_reduction", "batch_norm",
    ]  # fmt: skip
    assert dnn["optimizer"] == "Adagrad" and dnn["loss_reduction"] == "weighted_sum"
    linear = defaults(canned_v1.LinearRegressor)
    assert list(linear) == [
        "feature_columns", "model_dir", "label_dimension", "weight_column", "optimizer",
        "config", "partitioner", "warm_start_from", "loss_reduction", "sparse_combiner",
    ]  # fmt: skip
    combined = defaults(canned_v1.DNNLinearCombinedClassifier)
    assert list(combined) == [
        "model_dir", "linear_feature_columns", "linear_optimizer", "dnn_feature_columns",
        "dnn_optimizer", "dnn_hidden_units", "dnn_activation_fn", "dnn_dropout", "n_classes",
        "weight_column", "label_vocabulary", "input_layer_partitioner", "config",
        "warm_start_from", "loss_reduction", "batch_norm", "linear_sparse_combiner",
    ]  # fmt: skip
    assert combined["loss_reduction"] == "weighted_sum"
