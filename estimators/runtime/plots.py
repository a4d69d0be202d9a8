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
    "binary_figures",
    "calibration_points",
    "multiclass_figures",
    "plot_evaluation",
    "plot_history",
    "pr_points",
    "regression_figures",
    "roc_points",
]

INSTALL_HINT = 'pip install "colonnade[plot]"'


def _figure(*args, **kwargs):
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError(f"plotting needs matplotlib: {INSTALL_HINT}") from e
    return Figure(*args, layout="constrained", **kwargs)  # labels laid out, never clipped


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


# Keys of fit's History that describe the data, not the model: the same every epoch.
DATA_SUMMARY_KEYS = frozenset({"label/mean", "accuracy_baseline", "global_step"})


def plot_history(history):
    """One panel per metric of a ``fit`` :class:`History` (``loss`` with ``val_loss``, each
    metric with its ``val_`` twin), per epoch on whole-number ticks; the data's own
    summaries (``label/mean``, ``accuracy_baseline``) are left out. Returns the Figure."""
    from matplotlib.ticker import MaxNLocator

    logs = {k: v for k, v in history.history.items() if _metric_of(k) not in DATA_SUMMARY_KEYS}
    names = [k for k in logs if not k.startswith("val_")]
    names += [k[4:] for k in logs if k.startswith("val_") and k[4:] not in logs]
    columns, rows = min(len(names), 3), -(-len(names) // 3)
    fig = _figure(figsize=(5 * columns, 3.5 * rows))
    epochs = [e + 1 for e in history.epoch]
    for i, name in enumerate(names):
        ax = fig.add_subplot(rows, columns, i + 1)
        for key, label in ((name, "train"), (f"val_{name}", "validation")):
            if key in logs:
                ax.plot(epochs, logs[key], marker="o", label=label)
        ax.set(title=name, xlabel="epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend()
    return fig


def _metric_of(key: str) -> str:
    return key[4:] if key.startswith("val_") else key


def _area_under(xs, ys) -> float:
    """The trapezoid area under a curve whose ``xs`` increase (an ROC curve's)."""
    xs, ys = np.asarray(xs, np.float64), np.asarray(ys, np.float64)
    return float(np.sum(np.diff(xs) * (ys[1:] + ys[:-1]) / 2))


def _curve(title, xlabel, ylabel, *, diagonal=False, figsize=(5, 5)):
    fig = _figure(figsize=figsize)
    ax = fig.add_subplot()
    if diagonal:
        ax.plot([0, 1], [0, 1], linestyle="--", color="grey")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    return fig, ax


def binary_figures(labels, probabilities) -> dict:
    """ROC (its AUC in the legend), precision-recall and calibration curves of a binary
    classifier's ``probabilities`` of the positive class, as ``{file name: Figure}``."""
    fpr, tpr, _ = roc_points(labels, probabilities)
    precision, recall = pr_points(labels, probabilities)
    fraction, predicted = calibration_points(labels, probabilities)
    roc, ax = _curve("ROC", "false positive rate", "true positive rate", diagonal=True)
    ax.plot(fpr, tpr, label=f"AUC = {_area_under(fpr, tpr):.3f}")
    ax.legend(loc="lower right")
    pr, ax = _curve("precision-recall", "recall", "precision")
    ax.plot(recall, precision)
    calibration, ax = _curve("calibration", "mean predicted", "positives", diagonal=True)
    ax.plot(predicted, fraction, marker="o")
    for fig in (roc, pr, calibration):
        fig.axes[0].set(xlim=(0, 1), ylim=(0, 1.02))
    return {"roc.png": roc, "precision_recall.png": pr, "calibration.png": calibration}


def multiclass_figures(class_ids, probabilities) -> dict:
    """One-vs-rest ROC curves of a multi-class classifier, each class's AUC in the legend,
    as ``{"roc.png": Figure}``."""
    fig, ax = _curve("ROC, one vs rest", "false positive rate", "true positive rate", diagonal=True)
    for k in range(probabilities.shape[1]):
        fpr, tpr, _ = roc_points(class_ids == k, probabilities[:, k])
        ax.plot(fpr, tpr, label=f"class {k} vs rest (AUC = {_area_under(fpr, tpr):.3f})")
    ax.legend(loc="lower right")
    return {"roc.png": fig}


def regression_figures(labels, predictions) -> dict:
    """Predicted-vs-actual and residual plots of a regressor, as ``{file name: Figure}``."""
    labels, predictions = labels.reshape(-1), predictions.reshape(-1)
    scatter, ax = _curve("predicted vs actual", "actual", "predicted")
    ax.scatter(labels, predictions, s=4, alpha=0.5)
    low = float(min(labels.min(), predictions.min()))
    high = float(max(labels.max(), predictions.max()))
    ax.plot([low, high], [low, high], linestyle="--", color="grey")
    residuals, ax = _curve("residuals", "predicted", "actual - predicted", figsize=(5, 4))
    ax.scatter(predictions, labels - predictions, s=4, alpha=0.5)
    ax.axhline(0.0, linestyle="--", color="grey")
    return {"predicted_vs_actual.png": scatter, "residuals.png": residuals}


def plot_evaluation(estimator, data, label, out_dir, batch_size=8192) -> list:
    """Write evaluation plots of ``estimator`` on ``data`` (with its ``label`` column) to
    ``out_dir`` as PNG: ROC, precision-recall and calibration curves for a binary
    classifier, one-vs-rest ROC curves for a multi-class one, predicted-vs-actual and
    residuals for a regressor. Returns the paths written."""
    from ..heads.classification import BinaryClassHead, MultiClassHead
    from ..inputs.input_fn import as_dataset

    require_matplotlib()
    frame = estimator.predict(data, batch_size=batch_size, verbose=0)
    table = as_dataset(data, batch_size=batch_size, columns=[label]).to_table()
    labels = estimator.head.label_array(table.column(label).to_numpy(zero_copy_only=False))
    head = estimator.head
    labels = np.asarray(labels)
    if isinstance(head, BinaryClassHead):
        figures = binary_figures(labels.reshape(-1), frame["logistic"].to_numpy())
    elif isinstance(head, MultiClassHead):
        columns = [f"probabilities_{k}" for k in range(head.n_classes)]
        figures = multiclass_figures(labels.reshape(-1), frame[columns].to_numpy())
    else:
        predictions = frame[[c for c in frame.columns if c.startswith("predictions")]]
        figures = regression_figures(labels.astype(np.float64), predictions.to_numpy())
    os.makedirs(out_dir, exist_ok=True)
    paths = []
    for name, fig in figures.items():
        paths.append(os.path.join(out_dir, name))
        fig.savefig(paths[-1], format="png", dpi=100)
    return paths
