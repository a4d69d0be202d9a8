"""Heads: how logits become a loss, predictions, metrics and an ``EstimatorSpec``
(TF 2.15's ``tf.estimator`` heads, with TF's arguments, keys and defaults).

The factories have TF's names and arguments: :func:`binary_classification_head`,
:func:`multi_class_head`, :func:`multi_label_head`, :func:`regression_head`,
:func:`poisson_regression_head`, :func:`logistic_regression_head`. A head's
``create_estimator_spec(features, mode, logits, labels, optimizer=...)`` is what a
``model_fn`` returns; the canned estimators are their network plus one of these heads.
The shared machinery is in :mod:`.base`, the checks of arguments and batches in
:mod:`.checks`, the export outputs in :mod:`.outputs`.

>>> import colonnade as cn, numpy as np
>>> head = cn.estimators.binary_classification_head()
>>> logits = np.array([[-1.0], [2.0]], np.float32)
>>> spec = head.create_estimator_spec({}, "eval", logits, labels=np.array([0, 1]))
>>> round(float(spec.loss), 4), spec.eval_metric_ops["accuracy"].result()
(0.2201, 1.0)
"""

from __future__ import annotations

import collections
from dataclasses import dataclass

import numpy as np

from ...core import Reduction, ops
from ...core import losses as core_losses
from ..spec import metrics as m
from .base import (
    SERVING_KEY,
    AccuracyBaseline,
    ClassNames,
    Head,
    sigmoid,
    threshold_metrics,
    update_threshold_metrics,
)
from .checks import (
    LabelTypeError,
    as_column,
    check_n_classes,
    check_thresholds,
    refuse_non_finite,
    vocabulary_ids,
)
from .multi_label import MultiLabelHead
from .outputs import ClassificationOutput, PredictOutput, RegressionOutput
from .regression import LogisticRegressionHead, PoissonRegressionHead, RegressionHead


def _check_label_range(labels, n_classes, bound="n_classes - 1"):
    """TF's label-range check of class-id (or, for a binary head, probability) labels;
    ``bound`` is how TF's message names the largest label."""
    if not labels.size:
        return
    low, high = labels.min(), labels.max()
    broken = "Labels must be >= 0" if low < 0 else f"Labels must be <= {bound}"
    if low < 0 or high > n_classes - 1:
        raise ValueError(
            f"{broken}: labels must be class ids in [0, {n_classes - 1}]; got values from "
            f"{low} to {high}"
        )


def _binary_labels(labels, label_vocabulary):
    """A binary head's labels as float32 (batch, 1): class ids 0/1 or, as TF accepts,
    probabilities in [0, 1] (soft labels) when they are floats without a vocabulary."""
    raw = as_column(labels)
    if label_vocabulary is None and raw.dtype.kind == "f":
        refuse_non_finite(raw, "labels", "missing label")
        _check_label_range(raw, 2, "2 - 1")
        return raw.astype(np.float32)
    return _label_ids(raw, 2, label_vocabulary).astype(np.float32)


def _label_ids(labels, n_classes, label_vocabulary):
    """Class ids of shape (batch, 1) from raw labels, validated."""
    labels = as_column(labels)
    if label_vocabulary is not None:
        return vocabulary_ids(labels, label_vocabulary)
    if labels.dtype.kind in "USO":
        raise LabelTypeError(
            f"Labels dtype should be integer. Instead got {labels.dtype}: labels are strings; "
            f"pass label_vocabulary=[...] to map them to class ids"
        )
    if labels.dtype.kind == "f":
        refuse_non_finite(labels, "labels", "missing label")
        if not np.all(labels == np.round(labels)):
            raise ValueError("classification labels must be whole numbers (class ids)")
    ids = labels.astype(np.int64)
    _check_label_range(ids, n_classes)
    return ids


def _check_vocabulary(label_vocabulary, n_classes):
    if label_vocabulary is None:
        return None
    if not isinstance(label_vocabulary, (list, tuple, np.ndarray)):
        raise ValueError(
            f"label_vocabulary must be a list or tuple. Given type: {type(label_vocabulary)}"
        )
    vocab = tuple(label_vocabulary)
    if len(set(vocab)) != len(vocab):
        dups = sorted(str(v) for v, k in collections.Counter(vocab).items() if k > 1)
        raise ValueError(
            f"label_vocabulary has duplicate entries {dups}: each label must map to one class"
        )
    if len(vocab) != n_classes:
        raise ValueError(
            f"Length of label_vocabulary must be n_classes ({n_classes}). Given: {len(vocab)}"
        )
    return vocab


# The entries every classifier's prediction dict has besides its logits and probabilities.
CLASS_PREDICTION_KEYS = ("class_ids", "classes", "all_class_ids", "all_classes")


def _class_predictions(names, class_ids, batch: int) -> dict:
    """The class-name entries of a classifier's prediction dict
    (:data:`CLASS_PREDICTION_KEYS`)."""
    names = np.array(names, dtype=object)
    return {
        "class_ids": class_ids,
        "classes": names[class_ids],
        "all_class_ids": np.tile(np.arange(len(names)), (batch, 1)),
        "all_classes": np.tile(names, (batch, 1)),
    }


def _classification_outputs(predictions) -> dict:
    classify = ClassificationOutput(predictions["probabilities"], predictions["all_classes"])
    return {SERVING_KEY: classify, "classification": classify}


@dataclass(frozen=True)
class BinaryClassHead(Head):
    """Logistic regression on one logit (TF's ``BinaryClassHead``): sigmoid
    cross-entropy; class 1 when the logistic exceeds 0.5. ``thresholds`` add TF's
    ``accuracy/positive_threshold_<t>``, ``precision/...`` and ``recall/...`` metrics."""

    label_vocabulary: tuple | None = None
    loss_reduction: str = Reduction.SUM_OVER_BATCH_SIZE
    logits_dimension: int = 1
    weight_column: str | None = None
    thresholds: tuple = ()
    loss_fn: object = None
    name: str | None = None

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "thresholds", check_thresholds(self.thresholds))
        if self.label_vocabulary is not None and len(self.label_vocabulary) != 2:
            raise ValueError(
                f"a binary head needs 2 labels in label_vocabulary, got {self.label_vocabulary}"
            )
        if self.logits_dimension != 1:
            raise ValueError(f"a binary head has 1 logit, got {self.logits_dimension}")

    @property
    def class_names(self):
        return tuple(self.label_vocabulary or ("0", "1"))

    @property
    def prediction_keys(self) -> tuple:
        """TF's binary-classifier predictions: the multi-class ones plus ``logistic``.

        >>> BinaryClassHead().prediction_keys[:4]
        ('logits', 'logistic', 'probabilities', 'class_ids')
        """
        return ("logits", "logistic", "probabilities", *CLASS_PREDICTION_KEYS)

    def label_array(self, labels):
        return _binary_labels(labels, self.label_vocabulary)

    def _unreduced_loss(self, labels, logits):
        return core_losses.sigmoid_cross_entropy_with_logits(labels, logits)

    def _predictions(self, logits) -> dict:
        logistic = sigmoid(logits)
        class_ids = (logistic > 0.5).astype(np.int64)
        return {
            "logits": logits,
            "logistic": logistic,
            "probabilities": np.concatenate([1 - logistic, logistic], axis=1),
            **_class_predictions(self.class_names, class_ids, logits.shape[0]),
        }

    def _new_metrics(self) -> dict:
        return {
            "accuracy": m.Accuracy(),
            "auc": m.AUC(curve="ROC"),
            "auc_precision_recall": m.AUC(curve="PR"),
            "label/mean": m.Mean(),
            "prediction/mean": m.Mean(),
            "precision": m.Precision(),
            "recall": m.Recall(),
            "accuracy_baseline": AccuracyBaseline(),
            **threshold_metrics(self.thresholds),
        }

    def _update_head_metrics(self, metrics, labels, predictions, w):
        logistic = predictions["logistic"]
        metrics["accuracy"].update(labels, predictions["class_ids"], w)
        metrics["auc"].update(labels, logistic, w)
        metrics["auc_precision_recall"].update(labels, logistic, w)
        metrics["label/mean"].update(labels, w)
        metrics["prediction/mean"].update(logistic, w)
        metrics["precision"].update(labels, predictions["class_ids"], w)
        metrics["recall"].update(labels, predictions["class_ids"], w)
        metrics["accuracy_baseline"].update(labels, w)
        update_threshold_metrics(metrics, self.thresholds, labels, logistic, w)

    def _export_outputs(self, predictions) -> dict:
        return {
            **_classification_outputs(predictions),
            "regression": RegressionOutput(predictions["logistic"]),
            "predict": PredictOutput(predictions),
        }

    def export_fields(self) -> dict:
        fields = (
            {} if self.label_vocabulary is None else {"label_vocabulary": self.label_vocabulary}
        )
        return {**fields, "loss_reduction": self.loss_reduction, "logits_dimension": 1}


@dataclass(frozen=True)
class MultiClassHead(ClassNames, Head):
    """Softmax over ``n_classes`` logits (TF's ``MultiClassHead``): sparse softmax
    cross-entropy; the predicted class is the largest logit's."""

    n_classes: int
    label_vocabulary: tuple | None = None
    loss_reduction: str = Reduction.SUM_OVER_BATCH_SIZE
    weight_column: str | None = None
    loss_fn: object = None
    name: str | None = None

    def __post_init__(self):
        super().__post_init__()
        if check_n_classes(self.n_classes) < 3:
            raise ValueError(f"MultiClassHead needs n_classes >= 3, got {self.n_classes}")
        if self.label_vocabulary is not None and len(self.label_vocabulary) != self.n_classes:
            raise ValueError(
                f"label_vocabulary has {len(self.label_vocabulary)} entries but n_classes is "
                f"{self.n_classes}"
            )

    @property
    def prediction_keys(self) -> tuple:
        return ("logits", "probabilities", *CLASS_PREDICTION_KEYS)

    def label_array(self, labels):
        return _label_ids(labels, self.n_classes, self.label_vocabulary)

    def _unreduced_loss(self, labels, logits):
        per_example = core_losses.sparse_softmax_cross_entropy_with_logits(labels, logits)
        return ops.reshape(per_example, (-1, 1))

    def _predictions(self, logits) -> dict:
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        class_ids = logits.argmax(axis=1)[:, None].astype(np.int64)
        return {
            "logits": logits,
            "probabilities": shifted / shifted.sum(axis=1, keepdims=True),
            **_class_predictions(self.class_names, class_ids, logits.shape[0]),
        }

    def _new_metrics(self) -> dict:
        return {"accuracy": m.Accuracy()}

    def _update_head_metrics(self, metrics, labels, predictions, w):
        metrics["accuracy"].update(labels, predictions["class_ids"], w)

    def _export_outputs(self, predictions) -> dict:
        return {**_classification_outputs(predictions), "predict": PredictOutput(predictions)}

    def export_fields(self) -> dict:
        fields = {"n_classes": self.n_classes}
        if self.label_vocabulary is not None:
            fields["label_vocabulary"] = self.label_vocabulary
        return {**fields, "loss_reduction": self.loss_reduction}


def binary_classification_head(
    weight_column=None,
    thresholds=None,
    label_vocabulary=None,
    loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    name=None,
) -> BinaryClassHead:
    """TF's ``binary_classification_head`` / ``BinaryClassHead``: logistic loss on one
    logit. ``weight_column``: a feature name (or ``numeric_column``) of example weights;
    ``thresholds``: extra accuracy/precision/recall thresholds in (0, 1);
    ``label_vocabulary``: the 2 string labels; ``loss_reduction``: a
    ``cn.core.Reduction`` or a TF1 name (``"weighted_sum"``...); ``loss_fn(labels,
    logits[, features])``: a per-example loss of shape ``(batch, 1)`` in place of the
    sigmoid cross-entropy; ``name``: a suffix for the metric keys."""
    return BinaryClassHead(
        _check_vocabulary(label_vocabulary, 2),
        loss_reduction,
        weight_column=weight_column,
        thresholds=thresholds or (),
        loss_fn=loss_fn,
        name=name,
    )


def multi_class_head(
    n_classes,
    weight_column=None,
    label_vocabulary=None,
    loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    name=None,
) -> MultiClassHead:
    """TF's ``multi_class_head`` / ``MultiClassHead``: softmax over ``n_classes`` (at
    least 3) logits; arguments as :func:`binary_classification_head`."""
    if n_classes is None:
        raise ValueError("n_classes cannot be None: give the number of classes, at least 3")
    if n_classes < 3:
        raise ValueError(f"n_classes must be > 2, got {n_classes}")
    return MultiClassHead(
        n_classes,
        _check_vocabulary(label_vocabulary, n_classes),
        loss_reduction,
        weight_column=weight_column,
        loss_fn=loss_fn,
        name=name,
    )


def multi_label_head(
    n_classes,
    weight_column=None,
    thresholds=None,
    label_vocabulary=None,
    loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    classes_for_class_based_metrics=None,
    name=None,
) -> MultiLabelHead:
    """TF's ``multi_label_head`` / ``MultiLabelHead``: a sigmoid per class, each example
    in any number of classes. Labels are multi-hot ``(batch, n_classes)`` arrays, or
    per-example lists of class ids (or of names from ``label_vocabulary``).
    ``classes_for_class_based_metrics``: class ids or names that get their own
    ``probability_mean``, ``auc`` and ``auc_precision_recall`` metrics."""
    return MultiLabelHead(
        n_classes,
        weight_column=weight_column,
        thresholds=check_thresholds(thresholds),
        label_vocabulary=_check_vocabulary(label_vocabulary, n_classes),
        loss_reduction=loss_reduction,
        loss_fn=loss_fn,
        classes_for_class_based_metrics=classes_for_class_based_metrics,
        name=name,
    )


def _tf_regression(cls, weight_column, label_dimension, loss_reduction, name, own: dict):
    """A head of the regression family (``cls``) as TF's factories make it, with its
    ``own`` arguments: without the ``rmse`` metric the canned regressors add."""
    return cls(
        label_dimension,
        loss_reduction,
        weight_column=weight_column,
        name=name,
        report_rmse=False,
        **own,
    )


def regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
    loss_fn=None,
    inverse_link_fn=None,
    name=None,
) -> RegressionHead:
    """TF's ``regression_head`` / ``RegressionHead``: squared error on
    ``label_dimension`` outputs; ``inverse_link_fn`` maps logits to the predicted values
    (the ``predictions`` key; ``logits`` are predicted too then)."""
    own = {"loss_fn": loss_fn, "inverse_link_fn": inverse_link_fn}
    return _tf_regression(RegressionHead, weight_column, label_dimension, loss_reduction, name, own)


def poisson_regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
    compute_full_loss=True,
    name=None,
) -> PoissonRegressionHead:
    """TF's ``poisson_regression_head``: logits are log-rates, predictions
    ``exp(logits)``, the loss ``tf.nn.log_poisson_loss`` (with the Stirling term when
    ``compute_full_loss``, TF's default)."""
    own = {"compute_full_loss": compute_full_loss}
    return _tf_regression(
        PoissonRegressionHead, weight_column, label_dimension, loss_reduction, name, own
    )


def logistic_regression_head(
    weight_column=None,
    loss_reduction=Reduction.SUM_OVER_BATCH_SIZE,
    name=None,
) -> LogisticRegressionHead:
    """TF's ``logistic_regression_head``: labels are probabilities in [0, 1],
    predictions ``sigmoid(logits)``, the loss sigmoid cross-entropy."""
    return _tf_regression(LogisticRegressionHead, weight_column, 1, loss_reduction, name, {})


def classification_head(
    n_classes: int, label_vocabulary=None, loss_reduction=None, weight_column=None
):
    """The canned classifiers' head: binary for ``n_classes == 2``, else multi-class."""
    if check_n_classes(n_classes) < 2:
        raise ValueError(f"n_classes must be >= 2, got {n_classes}")
    if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple, np.ndarray)):
        _check_vocabulary(label_vocabulary, n_classes)  # refuses a string or a set by type
    vocab = None if label_vocabulary is None else tuple(label_vocabulary)
    if vocab is not None and len(set(vocab)) != len(vocab):
        _check_vocabulary(vocab, len(vocab))
    reduction = loss_reduction or Reduction.SUM_OVER_BATCH_SIZE
    if n_classes == 2:
        return BinaryClassHead(vocab, reduction, weight_column=weight_column)
    return MultiClassHead(n_classes, vocab, reduction, weight_column=weight_column)


__all__ = [
    "BinaryClassHead",
    "ClassificationOutput",
    "Head",
    "LogisticRegressionHead",
    "MultiClassHead",
    "MultiLabelHead",
    "PoissonRegressionHead",
    "PredictOutput",
    "RegressionHead",
    "RegressionOutput",
    "binary_classification_head",
    "classification_head",
    "logistic_regression_head",
    "multi_class_head",
    "multi_label_head",
    "poisson_regression_head",
    "regression_head",
]
