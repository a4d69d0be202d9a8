"""Streaming evaluation metrics with TensorFlow's keys.

Each metric accumulates host (numpy) batches through ``update`` and reports with
``result``. :class:`AUC` is TF 2's ``tf.keras.metrics.AUC`` (what TF's heads report): the
area through the confusion matrices at 200 thresholds, value for value;
:class:`ThresholdedAUC` is TF 1's ``tf.compat.v1.metrics.auc``; :class:`ExactAUC` keeps
every score and ranks them once at the end, for the exact area.

>>> auc = ExactAUC()
>>> auc.update(np.array([0, 0, 1, 1]), np.array([0.1, 0.4, 0.35, 0.8]))
>>> auc.result()
0.75
"""

from __future__ import annotations

import numpy as np


def _weights(weights, like):
    if weights is None:
        return np.ones(len(like), dtype=np.float64)
    return np.broadcast_to(np.asarray(weights, dtype=np.float64).reshape(-1), (len(like),))


class Metric:
    """What every metric shares, in the Keras shape: ``update_state``, ``result``,
    ``reset_state``, and ``merge_state`` (add up the counts of metrics of the same kind:
    how an evaluation accumulates the metric a ``model_fn`` makes anew for each batch).

    >>> a, b = Mean(), Mean()
    >>> a.update_state([1.0, 2.0]); b.update_state([6.0])
    >>> a.merge_state([b]); a.result()
    3.0
    """

    def update_state(self, *args, sample_weight=None, **kwargs):
        """Keras' name for ``update`` (``sample_weight`` is its ``weights``)."""
        if sample_weight is not None:
            kwargs["weights"] = sample_weight
        self.update(*args, **kwargs)

    def reset_state(self) -> None:
        """Forget everything seen."""
        for key, value in vars(self).items():
            if isinstance(value, float):
                setattr(self, key, 0.0)
            elif isinstance(value, list):
                setattr(self, key, [])

    def merge_state(self, metrics) -> None:
        """Add the counts of ``metrics`` (the same class) to this one's."""
        for other in metrics:
            if type(other) is not type(self) or vars(other).get("curve") != vars(self).get("curve"):
                raise TypeError(
                    f"cannot merge a {type(other).__name__} into a {type(self).__name__}"
                )
            for key, value in vars(other).items():
                if isinstance(value, float):
                    setattr(self, key, getattr(self, key) + value)
                elif isinstance(value, list):
                    setattr(self, key, getattr(self, key) + value)


class Mean(Metric):
    """Weighted mean of every value seen (``tf.compat.v1.metrics.mean``)."""

    def __init__(self):
        self.total = 0.0
        self.count = 0.0

    def update(self, values, weights=None):
        """Add ``values`` (one row per example) with ``weights`` per example, or per value
        when they have one weight for each value (TF's weights of the labels' shape)."""
        values = np.asarray(values, dtype=np.float64).reshape(len(np.atleast_1d(values)), -1)
        if weights is not None and np.size(weights) == values.size:
            w = np.asarray(weights, dtype=np.float64).reshape(values.shape)
        else:
            w = np.broadcast_to(_weights(weights, values)[:, None], values.shape)
        self.total += float((values * w).sum())
        self.count += float(w.sum())

    def result(self) -> float:
        return self.total / self.count if self.count else 0.0


class Accuracy(Mean):
    """Weighted fraction of predictions equal to labels."""

    def update(self, labels, predictions, weights=None):
        labels, predictions = np.asarray(labels).reshape(-1), np.asarray(predictions).reshape(-1)
        super().update((labels == predictions).astype(np.float64), weights)


class Precision(Metric):
    """``true positives / predicted positives`` for 0/1 labels and predictions."""

    def __init__(self):
        self.true_positives = 0.0
        self.predicted_positives = 0.0

    def update(self, labels, predictions, weights=None):
        labels, predictions = np.asarray(labels).reshape(-1), np.asarray(predictions).reshape(-1)
        w = _weights(weights, labels)
        positive = predictions.astype(bool)
        self.true_positives += float(w[positive & labels.astype(bool)].sum())
        self.predicted_positives += float(w[positive].sum())

    def result(self) -> float:
        return self.true_positives / self.predicted_positives if self.predicted_positives else 0.0


class Recall(Precision):
    """``true positives / actual positives`` for 0/1 labels and predictions."""

    def update(self, labels, predictions, weights=None):
        super().update(predictions, labels, weights)  # recall is precision with roles swapped


class ExactAUC(Metric):
    """Exact, weighted area under the ROC curve (``curve="ROC"``) or the precision-recall
    curve (``curve="PR"``, as average precision: ``sum_n (R_n - R_{n-1}) P_n``); TF has no
    exact AUC: its heads and ``tf.keras.metrics.AUC`` are :class:`AUC`'s 200 thresholds.

    Tied scores form one threshold, so ties count half in ROC AUC, as the Mann-Whitney
    statistic does.
    """

    def __init__(self, curve: str = "ROC"):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"curve must be 'ROC' or 'PR', got {curve!r}")
        self.curve = curve
        self.labels, self.scores, self.weights = [], [], []

    def update(self, labels, scores, weights=None):
        labels = np.asarray(labels, dtype=np.float64).reshape(-1)
        self.labels.append(labels)
        self.scores.append(np.asarray(scores, dtype=np.float64).reshape(-1))
        self.weights.append(np.array(_weights(weights, labels)))

    def result(self) -> float:
        if not self.labels:
            return 0.0
        labels = np.concatenate(self.labels) > 0.5
        scores = np.concatenate(self.scores)
        weights = np.concatenate(self.weights)
        order = np.argsort(-scores, kind="stable")
        scores, labels, weights = scores[order], labels[order], weights[order]
        last_of_tie = np.r_[scores[1:] != scores[:-1], True]
        tp = np.cumsum(weights * labels)[last_of_tie]
        fp = np.cumsum(weights * ~labels)[last_of_tie]
        positives, negatives = tp[-1] if tp.size else 0.0, fp[-1] if fp.size else 0.0
        if self.curve == "ROC":
            if positives == 0 or negatives == 0:
                return 0.0
            tpr = np.r_[0.0, tp / positives]
            fpr = np.r_[0.0, fp / negatives]
            return float(np.sum((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2))
        if positives == 0:
            return 0.0
        precision = tp / np.maximum(tp + fp, 1e-300)
        recall = np.r_[0.0, tp / positives]
        return float(np.sum((recall[1:] - recall[:-1]) * precision))


class ThresholdedAUC(Metric):
    """TF 1's ``tf.compat.v1.metrics.auc``: the area under a curve drawn through the
    confusion matrices at ``thresholds`` (a prediction above a threshold is positive),
    with TF's edge thresholds, epsilons and ``summation_method``s (``"trapezoidal"``,
    ``"minoring"``, ``"majoring"``, and for ``curve="PR"`` ``"careful_interpolation"``).
    What a program that passes ``num_thresholds`` (or ``thresholds``) gets."""

    EDGE = 1e-7  # TF's kepsilon: the first and last thresholds sit just outside [0, 1]
    EPSILON = 1e-6  # TF's epsilon in the rates

    def __init__(self, curve="ROC", num_thresholds=200, thresholds=None, summation="trapezoidal"):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"curve must be 'ROC' or 'PR', got {curve!r}")
        methods = ("trapezoidal", "minoring", "majoring", "careful_interpolation")
        if summation not in methods:
            raise ValueError(f"Invalid summation_method: {summation!r}; one of {methods}")
        if thresholds is None:
            if int(num_thresholds) < 2:
                raise ValueError("`num_thresholds` must be > 1.")
            inner = [(i + 1) / (num_thresholds - 1) for i in range(int(num_thresholds) - 2)]
        else:
            inner = [float(t) for t in thresholds]
        self.curve, self.summation = curve, summation
        self.thresholds = np.array([-self.EDGE, *inner, 1.0 + self.EDGE])
        n = self.thresholds.size
        self.tp, self.fn, self.tn, self.fp = (np.zeros(n) for _ in range(4))

    def update(self, labels, predictions, weights=None):
        labels = np.asarray(labels).reshape(-1).astype(bool)
        predictions = np.asarray(predictions, dtype=np.float64).reshape(-1)
        w = np.asarray(_weights(weights, labels), dtype=np.float64)
        # a prediction is positive at every threshold below it: thresholds[:above]
        above = np.searchsorted(self.thresholds, predictions, side="left")
        n = self.thresholds.size
        for positive, (hit, miss) in ((True, ("tp", "fn")), (False, ("fp", "tn"))):
            per_bin = np.bincount(above[labels == positive], w[labels == positive], n + 1)
            over = np.cumsum(per_bin[::-1])[::-1][1:]  # weight above thresholds[i]
            setattr(self, hit, getattr(self, hit) + over)
            setattr(self, miss, getattr(self, miss) + per_bin.sum() - over)

    def result(self) -> float:
        tp, fn, tn, fp, eps = self.tp, self.fn, self.tn, self.fp, self.EPSILON
        if self.curve == "PR" and self.summation == "careful_interpolation":
            return self._interpolated_pr()
        recall = (tp + eps) / (tp + fn + eps)
        if self.curve == "ROC":
            x, y = fp / (fp + tn + eps), recall
        else:
            x, y = recall, (tp + eps) / (tp + fp + eps)
        return _riemann_sum(x, y, self.summation)

    def _interpolated_pr(self) -> float:
        """TF's ``interpolate_pr_auc`` (Davis & Goadrich, 2006)."""
        tp, fn, fp = self.tp, self.fn, self.fp
        positives = tp + fp
        with np.errstate(divide="ignore", invalid="ignore"):
            dtp = tp[:-1] - tp[1:]
            dp = positives[:-1] - positives[1:]
            slope = np.where(dp != 0, dtp / np.where(dp != 0, dp, 1), 0.0)
            intercept = tp[1:] - slope * positives[1:]
            both = (positives[:-1] > 0) & (positives[1:] > 0)
            ratio = np.where(both, positives[:-1] / np.where(both, positives[1:], 1), 1.0)
            area = slope * (dtp + intercept * np.log(ratio))
            denominator = tp[1:] + fn[1:]
            safe = np.where(denominator != 0, denominator, 1)
            return float(np.sum(np.where(denominator != 0, area / safe, 0.0)))

    def merge_state(self, metrics) -> None:
        for other in metrics:
            same = type(other) is type(self) and np.array_equal(other.thresholds, self.thresholds)
            if not same or (other.curve, other.summation) != (self.curve, self.summation):
                raise TypeError("cannot merge AUCs of other thresholds, curves or summations")
            for name in ("tp", "fn", "tn", "fp"):
                setattr(self, name, getattr(self, name) + getattr(other, name))

    def reset_state(self) -> None:
        for name in ("tp", "fn", "tn", "fp"):
            setattr(self, name, np.zeros(self.thresholds.size))


class AUC(ThresholdedAUC):
    """TF 2's ``tf.keras.metrics.AUC`` (TF's heads' ``auc`` and ``auc_precision_recall``):
    the area through the confusion matrices at ``num_thresholds`` thresholds (or the
    ``thresholds`` given), with rates that divide without TF 1's epsilons; ``"interpolation"``
    is the trapezoid for ROC and Davis & Goadrich's interpolation for PR. Labels are
    positive when nonzero; ``from_logits`` applies the sigmoid first.

    >>> auc = AUC(curve="PR")
    >>> auc.update([1, 0], [0.2689, 0.7311])
    >>> round(auc.result(), 5)
    0.30685
    """

    def __init__(
        self,
        num_thresholds=200,
        curve="ROC",
        summation_method="interpolation",
        name=None,
        dtype=None,
        thresholds=None,
        multi_label=False,
        num_labels=None,
        label_weights=None,
        from_logits=False,
    ):
        if multi_label or num_labels is not None or label_weights is not None:
            raise ValueError(
                "AUC(multi_label=True, num_labels=, label_weights=) is not supported: "
                "flatten the labels (multi_label=False), or make one AUC per label"
            )
        methods = ("interpolation", "minoring", "majoring")
        if summation_method not in methods:
            raise ValueError(f"Invalid summation_method: {summation_method!r}; one of {methods}")
        super().__init__(str(curve).upper(), num_thresholds, thresholds, "trapezoidal")
        self.summation, self.from_logits = summation_method, bool(from_logits)

    def update(self, labels, predictions, weights=None):
        predictions = np.asarray(predictions, dtype=np.float64)
        if self.from_logits:
            predictions = 1.0 / (1.0 + np.exp(-predictions))
        super().update(np.asarray(labels) != 0, predictions, weights)

    def result(self) -> float:
        if self.curve == "PR" and self.summation == "interpolation":
            return self._interpolated_pr()
        tp, fn, tn, fp = self.tp, self.fn, self.tn, self.fp
        recall = _divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, _divide_no_nan(tp, tp + fp)
        return _riemann_sum(x, y, self.summation)


def _riemann_sum(x, y, summation: str) -> float:
    """The area under the curve of points ``(x, y)`` ordered from the highest threshold's
    down: each step's height the lower (``"minoring"``), the higher (``"majoring"``) or
    the mean (trapezoidal, otherwise) of its two ends, as TF sums."""
    if summation == "minoring":
        heights = np.minimum(y[:-1], y[1:])
    elif summation == "majoring":
        heights = np.maximum(y[:-1], y[1:])
    else:
        heights = (y[:-1] + y[1:]) / 2
    return float(np.sum((x[:-1] - x[1:]) * heights))


def _divide_no_nan(a, b):
    return np.divide(a, b, out=np.zeros_like(a, dtype=np.float64), where=b != 0)


class RootMeanSquaredError(Mean):
    """``sqrt(weighted mean of (label - prediction) ** 2)``."""

    def update(self, labels, predictions, weights=None):
        labels = np.asarray(labels, dtype=np.float64)
        predictions = np.asarray(predictions, dtype=np.float64).reshape(labels.shape)
        super().update((labels - predictions) ** 2, weights)

    def result(self) -> float:
        return float(np.sqrt(super().result()))


class MeanSquaredError(Mean):
    """Weighted mean of ``(label - prediction) ** 2``."""

    def update(self, labels, predictions, weights=None):
        labels = np.asarray(labels, dtype=np.float64)
        predictions = np.asarray(predictions, dtype=np.float64).reshape(labels.shape)
        super().update((labels - predictions) ** 2, weights)


class MeanAbsoluteError(Mean):
    """Weighted mean of ``|label - prediction|``."""

    def update(self, labels, predictions, weights=None):
        labels = np.asarray(labels, dtype=np.float64)
        predictions = np.asarray(predictions, dtype=np.float64).reshape(labels.shape)
        super().update(np.abs(labels - predictions), weights)
