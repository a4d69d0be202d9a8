"""``cn.metrics``: ``tf.compat.v1.metrics`` functions for ``eval_metric_ops`` (each
returns ``(value, update_op)``; an evaluation accumulates them over all its batches) and
Keras-style metric objects (``update_state``, ``result``, ``reset_state``).

>>> import colonnade as cn
>>> acc = cn.metrics.Accuracy()
>>> acc.update_state([1, 0, 1], [1, 1, 1])
>>> round(acc.result(), 4)
0.6667
"""

from colonnade.estimators.spec.metric_ops import (
    accuracy,
    auc,
    mean,
    mean_absolute_error,
    mean_squared_error,
    precision,
    recall,
    root_mean_squared_error,
)
from colonnade.estimators.spec.metrics import (
    AUC,
    Accuracy,
    ExactAUC,
    Mean,
    MeanAbsoluteError,
    MeanSquaredError,
    Metric,
    Precision,
    Recall,
    RootMeanSquaredError,
)

__all__ = [
    "AUC",
    "Accuracy",
    "ExactAUC",
    "Mean",
    "MeanAbsoluteError",
    "MeanSquaredError",
    "Metric",
    "Precision",
    "Recall",
    "RootMeanSquaredError",
    "accuracy",
    "auc",
    "mean",
    "mean_absolute_error",
    "mean_squared_error",
    "precision",
    "recall",
    "root_mean_squared_error",
]
