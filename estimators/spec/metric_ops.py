"""``tf.compat.v1.metrics`` functions for ``eval_metric_ops``: each returns
``(value, update_op)``.

Eagerly there is no metric variable to update in place: ``value`` is a metric (see
:mod:`metrics`) holding this batch's counts, and ``update_op`` this batch's value. An
estimator's evaluation merges the metric of each batch under its key
(``Metric.merge_state``), so the reported value is the whole evaluation's, exactly.

>>> value, update_op = auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
>>> value.result() == update_op, round(update_op, 6)  # TF 1's 200 thresholds, epsilons
(True, 0.75)
"""

from __future__ import annotations

import numpy as np

from ...core import to_host
from ...core.autodiff import value_of
from . import metrics as m


def _host(x):
    return None if x is None else np.asarray(to_host(value_of(x)))


def _pair(metric, *args, weights=None):
    metric.update(*(_host(a) for a in args), weights=_host(weights))
    return metric, metric.result()


def mean(values, weights=None, name=None):
    """Weighted mean of ``values``."""
    return _pair(m.Mean(), values, weights=weights)


def accuracy(labels, predictions, weights=None, name=None):
    """Weighted fraction of ``predictions`` equal to ``labels``."""
    return _pair(m.Accuracy(), labels, predictions, weights=weights)


def precision(labels, predictions, weights=None, name=None):
    """``true positives / predicted positives`` (0/1 or boolean values)."""
    return _pair(m.Precision(), labels, predictions, weights=weights)


def recall(labels, predictions, weights=None, name=None):
    """``true positives / actual positives`` (0/1 or boolean values)."""
    return _pair(m.Recall(), labels, predictions, weights=weights)


def auc(
    labels,
    predictions,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    curve="ROC",
    name=None,
    summation_method="trapezoidal",
    thresholds=None,
):
    """TF 1's ``tf.compat.v1.metrics.auc``: the area under the ROC (or ``curve="PR"``)
    curve through the confusion matrices at ``num_thresholds`` thresholds (or
    ``thresholds``), with TF's epsilons and ``summation_method``, value for value. The
    exact area is :class:`~.metrics.ExactAUC`."""
    metric = m.ThresholdedAUC(curve, num_thresholds, thresholds, summation_method)
    return _pair(metric, labels, predictions, weights=weights)


def mean_squared_error(labels, predictions, weights=None, name=None):
    """Weighted mean of ``(labels - predictions) ** 2``."""
    return _pair(m.MeanSquaredError(), labels, predictions, weights=weights)


def root_mean_squared_error(labels, predictions, weights=None, name=None):
    """Square root of the weighted mean squared error."""
    return _pair(m.RootMeanSquaredError(), labels, predictions, weights=weights)


def mean_absolute_error(labels, predictions, weights=None, name=None):
    """Weighted mean of ``|labels - predictions|``."""
    return _pair(m.MeanAbsoluteError(), labels, predictions, weights=weights)
