"""Heads: how logits become a loss, predictions and metrics (TF's canned heads).

A head turns raw labels into arrays (with ``label_vocabulary`` for string labels),
computes the training loss with ``loss_reduction`` (TF's default: sum over batch size),
maps logits to the prediction dict TF's estimators return, and feeds the metrics with
TF's keys. Heads hold configuration only; all state lives in the metric objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import Reduction, ops, to_host
from ..core import losses as core_losses
from . import metrics as m


def _as_column(values, name="labels"):
    values = np.asarray(values)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2:
        raise ValueError(f"{name} must have shape (batch,) or (batch, 1); got {values.shape}")
    return values


def _label_ids(labels, n_classes, label_vocabulary):
    """Class ids of shape (batch, 1) from raw labels, validated."""
    labels = _as_column(labels)
    if label_vocabulary is not None:
        vocab = {v: i for i, v in enumerate(label_vocabulary)}
        flat = labels.reshape(-1)
        uniques, inverse = np.unique(flat.astype(str), return_inverse=True)
        unknown = [str(u) for u in uniques if u not in vocab]
        if unknown:
            raise ValueError(
                f"labels {unknown[:5]} are not in label_vocabulary {list(label_vocabulary)}"
            )
        ids = np.array([vocab[u] for u in uniques], dtype=np.int64)[inverse]
        return ids.reshape(labels.shape)
    if labels.dtype.kind in "USO":
        raise TypeError(
            f"labels are strings ({labels.dtype}); pass label_vocabulary=[...] to map them "
            f"to class ids"
        )
    if labels.dtype.kind == "f":
        _refuse_non_finite(labels, "labels", "missing label")
        if not np.all(labels == np.round(labels)):
            raise ValueError("classification labels must be whole numbers (class ids)")
    ids = labels.astype(np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= n_classes):
        raise ValueError(
            f"labels must be class ids in [0, {n_classes - 1}]; got values from {ids.min()} "
            f"to {ids.max()}"
        )
    return ids


def _refuse_non_finite(values, what, meaning):
    """NaN or inf would train silently to NaN weights: refuse them, saying how many."""
    bad = ~np.isfinite(values)
    if bad.any():
        raise ValueError(
            f"{what} have {int(bad.sum())} NaN or infinite values (a NaN is a {meaning}); "
            "drop or fill those rows"
        )


def _check_reduction(loss_reduction):
    if loss_reduction not in Reduction.ALL or loss_reduction == Reduction.NONE:
        raise ValueError(
            f"loss_reduction must be one of {[r for r in Reduction.ALL if r != 'none']}, "
            f"got {loss_reduction!r}"
        )


def _example_weights(weights, batch):
    if weights is None:
        return np.ones((batch, 1), np.float32)
    w = _as_column(np.asarray(weights, dtype=np.float32), "weights")
    _refuse_non_finite(w, "example weights (weight_column)", "missing weight")
    if w.shape[0] != batch:
        raise ValueError(f"weight column has {w.shape[0]} rows but the batch has {batch}")
    return w


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


class Head:
    """What every head shares: the weighted, reduced training loss, the ``loss`` and
    ``average_loss`` metrics, and reporting. A head adds ``prediction_keys``,
    ``unreduced_loss``, ``label_array``, ``_predictions``, ``new_metrics`` and
    ``_update_head_metrics``."""

    prediction_keys: tuple = ()
    """The keys of the dict ``predictions`` returns, in its order: what ``predict_keys``
    may select (TF's ``PredictionKeys`` for this head)."""

    def predictions(self, logits) -> dict:
        """The prediction dict for a batch of logits: the :attr:`prediction_keys` entries,
        in that order."""
        values = self._predictions(to_host(logits))
        return {k: values[k] for k in self.prediction_keys}

    def loss(self, labels, logits, weights=None):
        """``(training_loss, unreduced_loss)`` for a batch; labels from ``label_array``."""
        unreduced = self.unreduced_loss(labels, logits)
        w = _example_weights(weights, logits.shape[0])
        return core_losses.compute_weighted_loss(unreduced, w, self.loss_reduction), unreduced

    def update_metrics(self, metrics, labels, predictions, unreduced, weights, loss):
        """Feed one evaluated batch to ``metrics`` (from ``new_metrics``)."""
        w = None if weights is None else np.asarray(weights).reshape(-1)
        metrics["average_loss"].update(unreduced, w)
        metrics["loss"].update(np.array([loss]))
        self._update_head_metrics(metrics, labels, predictions, w)

    def results(self, metrics) -> dict:
        return {k: float(v.result()) for k, v in metrics.items()}


@dataclass(frozen=True)
class BinaryClassHead(Head):
    """Logistic regression on one logit: sigmoid cross-entropy, threshold 0.5."""

    label_vocabulary: tuple | None = None
    loss_reduction: str = Reduction.SUM_OVER_BATCH_SIZE
    logits_dimension: int = 1

    def __post_init__(self):
        _check_reduction(self.loss_reduction)
        if self.label_vocabulary is not None and len(self.label_vocabulary) != 2:
            raise ValueError(
                f"a binary head needs 2 labels in label_vocabulary, got {self.label_vocabulary}"
            )

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
        return _label_ids(labels, 2, self.label_vocabulary).astype(np.float32)

    def unreduced_loss(self, labels, logits):
        return core_losses.sigmoid_cross_entropy_with_logits(labels, logits)

    def _predictions(self, logits) -> dict:
        logistic = 1 / (1 + np.exp(-np.clip(logits, -80, 80)))
        class_ids = (logistic > 0.5).astype(np.int64)
        return {
            "logits": logits,
            "logistic": logistic,
            "probabilities": np.concatenate([1 - logistic, logistic], axis=1),
            **_class_predictions(self.class_names, class_ids, logits.shape[0]),
        }

    def new_metrics(self) -> dict:
        return {
            "accuracy": m.Accuracy(),
            "auc": m.AUC("ROC"),
            "auc_precision_recall": m.AUC("PR"),
            "average_loss": m.Mean(),
            "label/mean": m.Mean(),
            "prediction/mean": m.Mean(),
            "precision": m.Precision(),
            "recall": m.Recall(),
            "loss": m.Mean(),
        }

    def _update_head_metrics(self, metrics, labels, predictions, w):
        metrics["accuracy"].update(labels, predictions["class_ids"], w)
        metrics["auc"].update(labels, predictions["logistic"], w)
        metrics["auc_precision_recall"].update(labels, predictions["logistic"], w)
        metrics["label/mean"].update(labels, w)
        metrics["prediction/mean"].update(predictions["logistic"], w)
        metrics["precision"].update(labels, predictions["class_ids"], w)
        metrics["recall"].update(labels, predictions["class_ids"], w)

    def results(self, metrics) -> dict:
        out = super().results(metrics)
        out["accuracy_baseline"] = max(out["label/mean"], 1 - out["label/mean"])
        return out


@dataclass(frozen=True)
class MultiClassHead(Head):
    """Softmax over ``n_classes`` logits: sparse softmax cross-entropy."""

    n_classes: int
    label_vocabulary: tuple | None = None
    loss_reduction: str = Reduction.SUM_OVER_BATCH_SIZE

    def __post_init__(self):
        _check_reduction(self.loss_reduction)
        if self.n_classes < 3:
            raise ValueError(f"MultiClassHead needs n_classes >= 3, got {self.n_classes}")
        if self.label_vocabulary is not None and len(self.label_vocabulary) != self.n_classes:
            raise ValueError(
                f"label_vocabulary has {len(self.label_vocabulary)} entries but n_classes is "
                f"{self.n_classes}"
            )

    @property
    def logits_dimension(self) -> int:
        return self.n_classes

    @property
    def class_names(self):
        return tuple(self.label_vocabulary or [str(i) for i in range(self.n_classes)])

    @property
    def prediction_keys(self) -> tuple:
        return ("logits", "probabilities", *CLASS_PREDICTION_KEYS)

    def label_array(self, labels):
        return _label_ids(labels, self.n_classes, self.label_vocabulary)

    def unreduced_loss(self, labels, logits):
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

    def new_metrics(self) -> dict:
        return {"accuracy": m.Accuracy(), "average_loss": m.Mean(), "loss": m.Mean()}

    def _update_head_metrics(self, metrics, labels, predictions, w):
        metrics["accuracy"].update(labels, predictions["class_ids"], w)


@dataclass(frozen=True)
class RegressionHead(Head):
    """Squared error on ``label_dimension`` outputs."""

    label_dimension: int = 1
    loss_reduction: str = Reduction.SUM_OVER_BATCH_SIZE

    def __post_init__(self):
        _check_reduction(self.loss_reduction)
        if self.label_dimension < 1:
            raise ValueError(f"label_dimension must be >= 1, got {self.label_dimension}")

    @property
    def logits_dimension(self) -> int:
        return self.label_dimension

    def label_array(self, labels):
        labels = np.asarray(labels)
        if labels.dtype.kind not in "iufb":
            raise TypeError(f"regression labels must be numbers, got dtype {labels.dtype}")
        labels = labels.astype(np.float32).reshape(len(labels), -1)
        _refuse_non_finite(labels, "regression labels", "missing label")
        if labels.shape[1] != self.label_dimension:
            raise ValueError(
                f"labels have {labels.shape[1]} values per example but label_dimension is "
                f"{self.label_dimension}"
            )
        return labels

    def unreduced_loss(self, labels, logits):
        return ops.square(ops.subtract(logits, labels))

    prediction_keys = ("predictions",)

    def _predictions(self, logits) -> dict:
        return {"predictions": logits}

    def new_metrics(self) -> dict:
        return {
            "average_loss": m.Mean(),
            "label/mean": m.Mean(),
            "prediction/mean": m.Mean(),
            "rmse": m.RootMeanSquaredError(),
            "loss": m.Mean(),
        }

    def _update_head_metrics(self, metrics, labels, predictions, w):
        metrics["label/mean"].update(labels, w)
        metrics["prediction/mean"].update(predictions["predictions"], w)
        metrics["rmse"].update(labels, predictions["predictions"], w)


def classification_head(n_classes: int, label_vocabulary=None, loss_reduction=None):
    """The binary head for ``n_classes == 2``, else the multi-class head."""
    vocab = tuple(label_vocabulary) if label_vocabulary is not None else None
    if vocab is not None and len(set(vocab)) != len(vocab):
        dups = sorted({str(v) for v in vocab if vocab.count(v) > 1})
        raise ValueError(
            f"label_vocabulary has duplicate entries {dups}: each label must map to one class"
        )
    reduction = loss_reduction or Reduction.SUM_OVER_BATCH_SIZE
    if n_classes == 2:
        return BinaryClassHead(vocab, reduction)
    if n_classes < 2:
        raise ValueError(f"n_classes must be >= 2, got {n_classes}")
    return MultiClassHead(n_classes, vocab, reduction)
