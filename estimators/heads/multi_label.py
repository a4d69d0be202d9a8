"""The multi-label head (TF's ``MultiLabelHead``): one sigmoid per class, each example in
any number of classes.

Labels are a multi-hot ``(batch, n_classes)`` array, or one list of class ids per
example (a list of lists, an object array of lists, or an Arrow list array; names from
``label_vocabulary`` in place of ids), turned into the multi-hot form without a loop over
rows. The per-example loss is the sigmoid cross-entropy averaged over the classes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ...core import Reduction, ops
from ...core import losses as core_losses
from ..spec import metrics as m
from .base import (
    SERVING_KEY,
    ClassNames,
    Head,
    sigmoid,
    threshold_metrics,
    update_threshold_metrics,
)
from .checks import check_n_classes, check_thresholds, vocabulary_ids
from .outputs import ClassificationOutput, PredictOutput


def _class_lists(labels, n_classes):
    """``(row of each id, ids, batch)`` of per-example class lists, or ``None`` when
    ``labels`` are multi-hot: a numeric numpy array (as TF's dense labels), or nested
    lists forming a ``(batch, n_classes)`` array of 0s and 1s."""
    if isinstance(labels, pa.ChunkedArray):
        labels = labels.combine_chunks()
    if isinstance(labels, np.ndarray) and labels.dtype != object:
        return None
    if not isinstance(labels, pa.Array):
        try:
            dense = np.asarray(labels)
        except ValueError:  # ragged lists
            dense = None
        if (
            dense is not None
            and dense.dtype.kind in "iufb"
            and dense.shape[1:] == (n_classes,)
            and np.isin(dense, (0, 1)).all()
        ):
            return None
        try:
            labels = pa.array(list(labels))
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise ValueError(
                f"multi-label labels must be lists of class ids or names: {e}"
            ) from None
    if not (pa.types.is_list(labels.type) or pa.types.is_large_list(labels.type)):
        raise ValueError(
            f"multi-label labels must be multi-hot (batch, {n_classes}) or lists of class ids, "
            f"got a {labels.type} array"
        )
    rows = labels.value_parent_indices().to_numpy(zero_copy_only=False)
    return rows, labels.flatten().to_numpy(zero_copy_only=False), len(labels)


@dataclass(frozen=True)
class MultiLabelHead(ClassNames, Head):
    """Sigmoid cross-entropy per class, averaged over the classes (TF's
    ``MultiLabelHead``). Metrics: ``average_loss``, ``auc`` and ``auc_precision_recall``
    over every (example, class) pair, TF's threshold metrics for ``thresholds``, and
    ``probability_mean``/``auc``/``auc_precision_recall`` per class of
    ``classes_for_class_based_metrics``."""

    n_classes: int
    weight_column: str | None = None
    thresholds: tuple = ()
    label_vocabulary: tuple | None = None
    loss_reduction: str = Reduction.SUM_OVER_BATCH_SIZE
    loss_fn: object = None
    classes_for_class_based_metrics: tuple = ()
    name: str | None = None

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "thresholds", check_thresholds(self.thresholds))
        if self.n_classes is None or check_n_classes(self.n_classes) < 2:
            raise ValueError(
                f"n_classes must be > 1 for multi-label classification. Given: {self.n_classes}"
            )
        ids = []
        for c in self.classes_for_class_based_metrics or ():
            if isinstance(c, str):
                if self.label_vocabulary is None or c not in self.label_vocabulary:
                    raise ValueError(
                        f"{c!r} is not in list: classes_for_class_based_metrics names {c!r}, "
                        f"which is not in label_vocabulary {self.label_vocabulary}"
                    )
                c = self.label_vocabulary.index(c)
            if not 0 <= int(c) < self.n_classes:
                raise ValueError(
                    "All classes_for_class_based_metrics must be in range "
                    f"[0, {self.n_classes - 1}]. Given: {c}"
                )
            ids.append(int(c))
        object.__setattr__(self, "classes_for_class_based_metrics", tuple(ids))

    prediction_keys = ("logits", "probabilities", "classes")
    label_width = None  # multi-hot rows or lists of class ids: label_array checks them

    def label_array(self, labels):
        lists = _class_lists(labels, self.n_classes)
        if lists is None:
            return self._multi_hot(np.asarray(labels))
        rows, ids, batch = lists
        if self.label_vocabulary is not None:
            ids = vocabulary_ids(ids, self.label_vocabulary)
        elif ids.dtype.kind not in "iu":
            raise ValueError(
                f"multi-label class lists must hold integer ids (or pass label_vocabulary), "
                f"got {ids.dtype}"
            )
        if ids.size and (ids.min() < 0 or ids.max() >= self.n_classes):
            raise ValueError(
                f"labels must be an integer SparseTensor with values in [0, {self.n_classes}): "
                f"multi-label class ids go from {ids.min()} to {ids.max()}"
            )
        out = np.zeros((batch, self.n_classes), np.float32)
        out[rows, ids] = 1.0
        return out

    def _multi_hot(self, labels):
        if labels.ndim != 2 or labels.shape[1] != self.n_classes:
            raise ValueError(
                f"Expected labels dimension={self.n_classes}: multi-hot labels must have "
                f"shape (batch, {self.n_classes}), got {labels.shape}"
            )
        if labels.dtype.kind not in "iufb" or not np.isin(labels, (0, 1)).all():
            raise ValueError(
                "labels must be an integer indicator Tensor with values in [0, 1]: multi-hot "
                "labels must be 0 or 1, an indicator per class"
            )
        return labels.astype(np.float32)

    def _unreduced_loss(self, labels, logits):
        per_class = core_losses.sigmoid_cross_entropy_with_logits(labels, logits)
        return ops.mean(per_class, axis=1, keepdims=True)

    def _predictions(self, logits) -> dict:
        probabilities = sigmoid(logits)
        classes = np.tile(np.array(self.class_names, dtype=object), (logits.shape[0], 1))
        return {"logits": logits, "probabilities": probabilities, "classes": classes}

    def _class_key(self, pattern: str, class_id: int) -> str:
        if self.label_vocabulary is not None:
            return f"{pattern}/{self.label_vocabulary[class_id]}"
        return f"{pattern}/class{class_id}"

    def _new_metrics(self) -> dict:
        out = {
            "auc": m.AUC(curve="ROC"),
            "auc_precision_recall": m.AUC(curve="PR"),
            **threshold_metrics(self.thresholds),
        }
        for c in self.classes_for_class_based_metrics:
            out[self._class_key("probability_mean", c)] = m.Mean()
            out[self._class_key("auc", c)] = m.AUC(curve="ROC")
            out[self._class_key("auc_precision_recall", c)] = m.AUC(curve="PR")
        return out

    def _update_head_metrics(self, metrics, labels, predictions, w):
        probabilities = predictions["probabilities"]
        ones = np.ones(len(labels), np.float64) if w is None else w
        every = np.repeat(ones, self.n_classes)  # the example's weight for each class
        metrics["auc"].update(labels, probabilities, every)
        metrics["auc_precision_recall"].update(labels, probabilities, every)
        update_threshold_metrics(metrics, self.thresholds, labels, probabilities, every)
        for c in self.classes_for_class_based_metrics:
            metrics[self._class_key("probability_mean", c)].update(probabilities[:, c], w)
            metrics[self._class_key("auc", c)].update(labels[:, c], probabilities[:, c], w)
            metrics[self._class_key("auc_precision_recall", c)].update(
                labels[:, c], probabilities[:, c], w
            )

    def _export_outputs(self, predictions) -> dict:
        classify = ClassificationOutput(predictions["probabilities"], predictions["classes"])
        return {
            SERVING_KEY: classify,
            "classification": classify,
            "predict": PredictOutput(predictions),
        }
