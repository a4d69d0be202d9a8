"""Regularizers: Keras' and TF 1 contrib's formulas (hand-computed), and the per-call
collection a model_fn adds to its loss (TF 1's get_regularization_loss)."""

import numpy as np
import pandas as pd
import pytest

import colonnade as cn

W = np.array([[1.0, -2.0], [0.5, 3.0]])


def test_formulas():
    """Keras: l * sum(w^2), l * sum(|w|); contrib: scale * sum(w^2) / 2 (tf.nn.l2_loss)."""
    r = cn.regularizers
    assert r.l2(0.1)(W).numpy() == pytest.approx(0.1 * 14.25)
    assert r.l1(0.1)(W).numpy() == pytest.approx(0.1 * 6.5)
    assert r.l1_l2(0.1, 0.2)(W).numpy() == pytest.approx(0.65 + 0.2 * 14.25)
    assert r.l2_regularizer(0.1)(W).numpy() == pytest.approx(0.1 * 14.25 / 2)
    assert r.l1_regularizer(0.1)(W).numpy() == pytest.approx(0.65)
    assert r.l1_l2_regularizer(0.1, 0.2)(W).numpy() == pytest.approx(0.65 + 0.1 * 14.25)
    with pytest.raises(ValueError, match="scale less than 0"):
        r.l2_regularizer(-1.0)


def test_a_model_fn_adds_its_layers_penalties_to_the_loss(tmp_path):
    """dense(kernel_regularizer=) and get_variable(regularizer=) penalties, summed by
    cn.losses.get_regularization_loss() in the same call; once per variable per call;
    filtered by scope; the gradient pulls the kernel toward zero."""
    seen = {}

    def model_fn(features, labels, mode):
        x = features["x"].reshape(-1, 1).astype(np.float32)
        hidden = cn.layers.dense(x, 2, kernel_regularizer=cn.regularizers.l2(0.5), name="hidden")
        scale = cn.core.get_variable(
            "scale", (1,), initializer=cn.core.initializers.ones(),
            regularizer=cn.regularizers.l1(0.25),
        )  # fmt: skip
        cn.core.get_variable("scale", (1,), regularizer=cn.regularizers.l1(0.25))  # reused
        logits = cn.core.reduce_sum(hidden, axis=1) * scale
        kernel = cn.core.get_variable("hidden/kernel")
        seen["kernel"] = kernel.numpy().copy()
        seen["losses"] = len(cn.losses.get_regularization_losses())
        seen["hidden_only"] = float(cn.losses.get_regularization_loss(scope="hidden").numpy())
        total = cn.losses.get_regularization_loss()
        seen["total"] = float(total.numpy())
        loss = cn.core.reduce_mean(cn.core.square(logits - labels)) + total
        train_op = cn.train.GradientDescentOptimizer(0.0).minimize(
            loss, global_step=cn.train.get_global_step()
        )
        return cn.estimators.EstimatorSpec(mode, loss=loss, train_op=train_op)

    data = cn.data.Dataset.from_pandas(pd.DataFrame({"x": [1.0, 2.0], "y": [0.0, 1.0]}), label="y")
    cn.estimators.Estimator(model_fn, model_dir=str(tmp_path)).train(lambda: data.batch(2), steps=1)
    kernel = seen["kernel"]
    assert seen["losses"] == 2
    assert seen["hidden_only"] == pytest.approx(0.5 * float((kernel**2).sum()), rel=1e-6)
    assert seen["total"] == pytest.approx(0.5 * float((kernel**2).sum()) + 0.25, rel=1e-6)
    assert cn.losses.get_regularization_loss() == 0.0  # outside a model_fn call: none


def test_dense_takes_tfs_arguments_in_tfs_order_and_refuses_constraints():
    import inspect

    args = list(inspect.signature(cn.layers.dense).parameters)
    assert args == [
        "inputs", "units", "activation", "use_bias", "kernel_initializer", "bias_initializer",
        "kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint",
        "bias_constraint", "trainable", "name", "reuse",
    ]  # fmt: skip
    with cn.core.VariableStore().as_default():
        with pytest.raises(ValueError, match="kernel_constraint and bias_constraint"):
            cn.layers.dense(np.ones((2, 3)), 2, kernel_constraint=lambda w: w)
