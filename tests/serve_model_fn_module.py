"""A custom ``model_fn`` for the ``colonnade serve --model-fn`` tests: imported by its
import string ``serve_model_fn_module:linear_model_fn`` (``tests/`` on the path)."""

import numpy as np

import colonnade as cn


def linear_model_fn(features, labels, mode, params):
    """A linear regression over ``params["columns"]``: ``y`` (n, 1), and ``scores``
    (n, 2) of ``y`` and ``-y``."""
    net = cn.feature_columns.input_layer(features, params["columns"])
    weights = cn.core.get_variable(
        "weights", [net.shape[1], 1], initializer=cn.core.initializers.zeros()
    )
    bias = cn.core.get_variable("bias", [1], initializer=cn.core.initializers.zeros())
    y = net @ weights + bias
    predictions = {"y": y, "scores": y * np.array([[1.0, -1.0]], np.float32)}
    if mode == cn.estimators.ModeKeys.PREDICT:
        return cn.estimators.EstimatorSpec(mode, predictions=predictions)
    target = np.asarray(labels, np.float32).reshape(-1, 1)
    loss = cn.losses.mean_squared_error(target, y)
    optimizer = cn.train.GradientDescentOptimizer(params.get("learning_rate", 0.1))
    train_op = optimizer.minimize(loss, global_step=cn.train.get_global_step())
    return cn.estimators.EstimatorSpec(mode, predictions, loss, train_op)


NOT_A_FUNCTION = 3
