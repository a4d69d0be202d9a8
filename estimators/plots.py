"""Plots of training and evaluation (matplotlib: ``pip install "colonnade[plot]"``).

The curve points are pure numpy functions (:func:`roc_points`, :func:`pr_points`,
:func:`calibration_points`), tested against scikit-learn; the drawing uses matplotlib's
object API (``Figure``, no pyplot), so it needs no display and leaves pyplot's state alone.

>>> fpr, tpr, thresholds = roc_points([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
>>> fpr.tolist(), tpr.tolist()
([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
"""

from __future__ import annotations

import os

import numpy as np

__all__ = [
    "calibration_points",
    "plot_evaluation",
    "plot_history",
    "pr_points",
    "roc_points",
]

INSTALL_HINT = 'pip install "colonnade[plot]"'


def _figure(*args, **kwargs):
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError(f"plotting needs matplotlib: {INSTALL_HINT}") from e
    return Figure(*args, **kwargs)


def require_matplotlib() -> None:
    """Raise the ImportError naming the ``plot`` extra when matplotlib is missing."""
    _figure()


def _cumulative_counts(labels, scores, weights=None):
    """True and false positives above each distinct score, highest score first."""
    labels = np.asarray(labels, dtype=np.float64).reshape(-1)
    scores = np.asarray(scores, dtype=np.float64).reshape(-1)
    w = np.ones_like(labels) if weights is None else np.asarray(weights, np.float64).reshape(-1)
    order = np.argsort(-scores, kind="mergesort")
    labels, scores, w = labels[order], scores[order], w[order]
    last_of_each = np.r_[np.flatnonzero(np.diff(scores)), labels.size - 1]
    tps = np.cumsum(labels * w)[last_of_each]
    fps = np.cumsum((1 - labels) * w)[last_of_each]
    return tps, fps, scores[last_of_each]


def roc_points(labels, scores, weights=None):
    """``(fpr, tpr, thresholds)`` of the ROC curve: one point per distinct score (highest
    first) after a first point ``(0, 0)`` at threshold ``inf``; as
    ``sklearn.metrics.roc_curve(..., drop_intermediate=False)``."""
    tps, fps, thresholds = _cumulative_counts(labels, scores, weights)
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    with np.errstate(invalid="ignore", divide="ignore"):
        return fps / fps[-1], tps / tps[-1], np.r_[np.inf, thresholds]


def pr_points(labels, scores, weights=None):
    """``(precision, recall)`` at each distinct score threshold, recall increasing,
    ending at ``(1, 0)`` reversed as scikit-learn's ``precision_recall_curve``."""
    tps, fps, _ = _cumulative_counts(labels, scores, weights)
    precision = tps / np.maximum(tps + fps, 1e-300)
    recall = tps / tps[-1] if tps[-1] else np.zeros_like(tps)
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0]


def calibration_points(labels, probabilities, n_bins=10):
    """``(fraction_of_positives, mean_predicted)`` over the non-empty ones of ``n_bins``
    equal-width bins of [0, 1] (``sklearn.calibration.calibration_curve``'s uniform
    strategy)."""
    labels = np.asarray(labels, dtype=np.float64).reshape(-1)
    p = np.asarray(probabilities, dtype=np.float64).reshape(-1)
    bins = np.searchsorted(np.linspace(0.0, 1.0, n_bins + 1)[1:-1], p)
    counts = np.bincount(bins, minlength=n_bins)
    keep = counts > 0
    positives = np.bincount(bins, weights=labels, minlength=n_bins)[keep] / counts[keep]
    predicted = np.bincount(bins, weights=p, minlength=n_bins)[keep] / counts[keep]
    return positives, predicted


def plot_history(history):
    """One panel per metric of a ``fit`` :class:`History` (``loss`` with ``val_loss``, each
    metric with its ``val_`` twin), per epoch; returns the matplotlib Figure."""
    logs = history.history
    names = [k for k in logs if not k.startswith("val_")]
    names += [k[4:] for k in logs if k.startswith("val_") and k[4:] not in logs]
    fig = _figure(figsize=(5 * min(len(names), 3), 3.5 * -(-len(names) // 3)))
    epochs = [e + 1 for e in history.epoch]
    for i, name in enumerate(names):
        ax = fig.add_subplot(-(-len(names) // 3), min(len(names), 3), i + 1)
        for key, label in ((name, "train"), (f"val_{name}", "validation")):
            if key in logs:
                ax.plot(epochs, logs[key], marker="o", label=label)
        ax.set(title=name, xlabel="epoch")
        ax.legend()
    fig.tight_layout()
    return fig


def _save(fig, out_dir, name) -> str:
    path = os.path.join(out_dir, name)
    fig.savefig(path, format="png", dpi=100)
    return path


def _binary(labels, probabilities, out_dir) -> list:
    fpr, tpr, _ = roc_points(labels, probabilities)
    precision, recall = pr_points(labels, probabilities)
    fraction, predicted = calibration_points(labels, probabilities)
    paths = []
    for name, title, xs, ys, xlabel, ylabel, diagonal in (
        ("roc.png", "ROC", fpr, tpr, "false positive rate", "true positive rate", True),
        ("precision_recall.png", "precision-recall", recall, precision, "recall", "precision", 0),
        ("calibration.png", "calibration", predicted, fraction, "mean predicted", "positives", 1),
    ):
        fig = _figure(figsize=(5, 5))
        ax = fig.add_subplot()
        ax.plot(xs, ys, marker="o" if name == "calibration.png" else None)
        if diagonal:
            ax.plot([0, 1], [0, 1], linestyle="--", color="grey")
        ax.set(title=title, xlabel=xlabel, ylabel=ylabel, xlim=(0, 1), ylim=(0, 1.02))
        paths.append(_save(fig, out_dir, name))
    return paths


def _multiclass(class_ids, probabilities, out_dir) -> list:
    fig = _figure(figsize=(5, 5))
    ax = fig.add_subplot()
    for k in range(probabilities.shape[1]):
        fpr, tpr, _ = roc_points(class_ids == k, probabilities[:, k])
        ax.plot(fpr, tpr, label=f"class {k} vs rest")
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey")
    ax.set(title="ROC, one vs rest", xlabel="false positive rate", ylabel="true positive rate")
    ax.legend()
    return [_save(fig, out_dir, "roc.png")]


def _regression(labels, predictions, out_dir) -> list:
    labels, predictions = labels.reshape(-1), predictions.reshape(-1)
    fig = _figure(figsize=(5, 5))
    ax = fig.add_subplot()
    ax.scatter(labels, predictions, s=4, alpha=0.5)
    low, high = (
        float(min(labels.min(), predictions.min())),
        float(max(labels.max(), predictions.max())),
    )
    ax.plot([low, high], [low, high], linestyle="--", color="grey")
    ax.set(title="predicted vs actual", xlabel="actual", ylabel="predicted")
    paths = [_save(fig, out_dir, "predicted_vs_actual.png")]
    fig = _figure(figsize=(5, 4))
    ax = fig.add_subplot()
    ax.scatter(predictions, labels - predictions, s=4, alpha=0.5)
    ax.axhline(0.0, linestyle="--", color="grey")
    ax.set(title="residuals", xlabel="predicted", ylabel="actual - predicted")
    return paths + [_save(fig, out_dir, "residuals.png")]


def plot_evaluation(estimator, data, label, out_dir, batch_size=8192) -> list:
    """Write evaluation plots of ``estimator`` on ``data`` (with its ``label`` column) to
    ``out_dir`` as PNG: ROC, precision-recall and calibration curves for a binary
    classifier, one-vs-rest ROC curves for a multi-class one, predicted-vs-actual and
    residuals for a regressor. Returns the paths written."""
    from .heads import BinaryClassHead, MultiClassHead
    from .input_fn import as_dataset

    require_matplotlib()
    frame = estimator.predict(data, batch_size=batch_size, verbose=0)
    table = as_dataset(data, batch_size=batch_size, columns=[label]).to_table()
    labels = estimator.head.label_array(table.column(label).to_numpy(zero_copy_only=False))
    os.makedirs(out_dir, exist_ok=True)
    head = estimator.head
    if isinstance(head, BinaryClassHead):
        return _binary(np.asarray(labels).reshape(-1), frame["logistic"].to_numpy(), out_dir)
    if isinstance(head, MultiClassHead):
        columns = [f"probabilities_{k}" for k in range(head.n_classes)]
        return _multiclass(np.asarray(labels).reshape(-1), frame[columns].to_numpy(), out_dir)
    predictions = frame[[c for c in frame.columns if c.startswith("predictions")]].to_numpy()
    return _regression(np.asarray(labels, np.float64), predictions, out_dir)
