"""Losses with TensorFlow's formulas and reductions (``tf.compat.v1.losses``).

The per-example losses are stable for logits of any size; ``compute_weighted_loss``
applies optional per-example weights and one of the reductions below.
"""

from __future__ import annotations

from . import ops
from .autodiff import Tensor, as_tensor, value_of
from .backend import get_xp
from .nn import log_softmax, softmax_cross_entropy_with_logits


class Reduction:
    """How ``compute_weighted_loss`` turns per-example losses into one number."""

    NONE = "none"  #: the weighted per-example losses, unreduced
    SUM = "sum"  #: sum of weighted losses
    MEAN = "mean"  #: sum of weighted losses / sum of weights
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"  #: sum of weighted losses / number of losses
    SUM_BY_NONZERO_WEIGHTS = "sum_by_nonzero_weights"  #: ... / number of non-zero weights

    ALL = (NONE, SUM, MEAN, SUM_OVER_BATCH_SIZE, SUM_BY_NONZERO_WEIGHTS)

    TF1_NAMES = {
        "weighted_sum": SUM,
        "weighted_mean": MEAN,
        "weighted_sum_over_batch_size": SUM_OVER_BATCH_SIZE,
        "weighted_sum_by_nonzero_weights": SUM_BY_NONZERO_WEIGHTS,
    }
    """``tf.compat.v1.losses.Reduction``'s values, which TF1 programs pass, by the
    reduction they name (TF1's ``SUM_OVER_NONZERO_WEIGHTS`` is its
    ``"weighted_sum_by_nonzero_weights"`` too)."""

    @classmethod
    def resolve(cls, reduction: str, allow_none: bool = True) -> str:
        """The reduction ``reduction`` names: one of :attr:`ALL`, or a TF1 name
        (:attr:`TF1_NAMES`); anything else is a ``ValueError`` listing the accepted names.

        >>> Reduction.resolve("weighted_mean"), Reduction.resolve("sum")
        ('mean', 'sum')
        """
        name = cls.TF1_NAMES.get(reduction, reduction) if isinstance(reduction, str) else None
        if name in cls.ALL and (allow_none or name != cls.NONE):
            return name
        accepted = [r for r in cls.ALL if allow_none or r != cls.NONE] + list(cls.TF1_NAMES)
        raise ValueError(f"loss_reduction must be one of {accepted}, got {reduction!r}")


def _as_pair(labels, predictions, predictions_name: str = "predictions"):
    """``(labels as an array of the predictions' device and dtype, predictions as a
    Tensor)``; a ValueError names both shapes when they differ."""
    predictions = as_tensor(predictions)
    xp = get_xp(predictions.value, value_of(labels))
    labels = xp.asarray(value_of(labels), dtype=predictions.value.dtype)
    if labels.shape != predictions.shape:
        raise ValueError(
            f"labels of shape {tuple(labels.shape)} do not match {predictions_name} of shape "
            f"{predictions.shape}"
        )
    return labels, predictions


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None) -> Tensor:
    """Elementwise ``-z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x))``.

    Computed as TensorFlow does, ``max(x, 0) - x z + log(1 + exp(-|x|))``, which neither
    overflows nor loses precision for large |x|.
    """
    z, logits = _as_pair(labels, logits, "logits")
    positive = logits.value >= 0
    relu_logits = ops.where(positive, logits, 0.0)
    neg_abs_logits = ops.where(positive, ops.negative(logits), logits)
    return ops.add(
        ops.subtract(relu_logits, ops.multiply(logits, z)),
        ops.log1p(ops.exp(neg_abs_logits)),
    )


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None) -> Tensor:
    """``-log(softmax(logits)[label])`` per example; labels are class ids in
    ``[0, num_classes)``, logits have shape ``(batch, num_classes)``."""
    logits = as_tensor(logits)
    labels = value_of(labels)
    xp = get_xp(logits.value, labels)
    labels = xp.asarray(labels).reshape(-1)
    if logits.ndim != 2 or labels.shape[0] != logits.shape[0]:
        raise ValueError(
            f"expected logits of shape (batch, classes) and one label per row; got logits "
            f"{logits.shape} and labels {tuple(labels.shape)}"
        )
    n_classes = logits.shape[1]
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= n_classes):
        raise ValueError(
            f"labels must be class ids in [0, {n_classes}); got values from "
            f"{int(labels.min())} to {int(labels.max())}"
        )
    one_hot = labels[:, None] == xp.arange(n_classes)[None, :]
    return ops.negative(ops.sum(ops.multiply(log_softmax(logits), one_hot), axis=1))


_V1 = Reduction.SUM_BY_NONZERO_WEIGHTS
"""TF1's default reduction of ``tf.compat.v1.losses``."""


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection="losses", reduction=_V1):
    """Scale ``losses`` by ``weights`` (broadcast to them) and reduce as ``reduction`` says
    (one of :class:`Reduction`, or a TF1 name such as ``"weighted_mean"``).

    Every loss of this module takes ``tf.compat.v1.losses``' arguments in TF1's order;
    ``scope`` and ``loss_collection`` are accepted and unused (no graph collections)."""
    reduction = Reduction.resolve(reduction)
    losses = as_tensor(losses)
    xp = get_xp(losses.value, value_of(weights))
    w = xp.asarray(value_of(weights), dtype=losses.value.dtype)
    if w.ndim > losses.ndim or any(
        ws not in (1, ls) for ws, ls in zip(w.shape[::-1], losses.shape[::-1])
    ):
        raise ValueError(
            f"weights of shape {tuple(w.shape)} cannot be broadcast to losses of shape "
            f"{losses.shape}"
        )
    weighted = ops.multiply(losses, w)
    if reduction == Reduction.NONE:
        return weighted
    total = ops.sum(weighted)
    if reduction == Reduction.SUM:
        return total
    full_w = xp.broadcast_to(w, losses.shape)
    if reduction == Reduction.MEAN:
        return ops.div_no_nan(total, xp.sum(full_w))
    if reduction == Reduction.SUM_OVER_BATCH_SIZE:
        return ops.div_no_nan(total, xp.asarray(losses.value.size, dtype=losses.value.dtype))
    nonzero = xp.sum(full_w != 0).astype(losses.value.dtype)
    return ops.div_no_nan(total, nonzero)


def sigmoid_cross_entropy(
    multi_class_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection="losses",
    reduction=_V1,
):
    """Weighted, reduced sigmoid cross-entropy (``tf.compat.v1.losses.sigmoid_cross_entropy``);
    with ``label_smoothing`` s the labels become ``labels * (1 - s) + 0.5 * s``.

    >>> import numpy as np
    >>> float(sigmoid_cross_entropy([[1.0]], np.zeros((1, 1)), label_smoothing=0.2))
    0.6931471805599453
    """
    labels, logits = _as_pair(multi_class_labels, logits, "logits")
    if label_smoothing:
        labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
    return compute_weighted_loss(
        sigmoid_cross_entropy_with_logits(labels, logits), weights, reduction=reduction
    )


def sparse_softmax_cross_entropy(
    labels, logits, weights=1.0, scope=None, loss_collection="losses", reduction=_V1
):
    """Weighted, reduced softmax cross-entropy over class ids."""
    return compute_weighted_loss(
        sparse_softmax_cross_entropy_with_logits(labels, logits), weights, reduction=reduction
    )


def _loss_of_errors(error, name: str, doc: str):
    """TF 1's ``losses.<name>``: ``error(predictions - labels)``, weighted and reduced."""

    def loss(labels, predictions, weights=1.0, scope=None, loss_collection="losses", reduction=_V1):
        labels, predictions = _as_pair(labels, predictions)
        losses = error(ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, reduction=reduction)

    loss.__name__ = loss.__qualname__ = name
    loss.__doc__ = doc
    return loss


mean_squared_error = _loss_of_errors(
    ops.square, "mean_squared_error", "Weighted, reduced ``(labels - predictions) ** 2``."
)
absolute_difference = _loss_of_errors(
    ops.abs, "absolute_difference", "Weighted, reduced ``|labels - predictions|``."
)


def softmax_cross_entropy(
    onehot_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection="losses",
    reduction=_V1,
):
    """Weighted, reduced softmax cross-entropy over one-hot (or soft) labels; with
    ``label_smoothing`` s the labels become ``labels * (1 - s) + s / num_classes``."""
    logits = as_tensor(logits)
    labels, _ = _as_pair(onehot_labels, logits)
    if label_smoothing:
        labels = labels * (1 - label_smoothing) + label_smoothing / logits.shape[-1]
    return compute_weighted_loss(
        softmax_cross_entropy_with_logits(labels, logits), weights, reduction=reduction
    )


def huber_loss(
    labels,
    predictions,
    weights=1.0,
    delta=1.0,
    scope=None,
    loss_collection="losses",
    reduction=_V1,
):
    """Weighted, reduced Huber loss: ``0.5 e**2`` for ``|e| <= delta``, else
    ``delta * (|e| - 0.5 delta)``, with ``e = predictions - labels``."""
    labels, predictions = _as_pair(labels, predictions)
    err = ops.abs(ops.subtract(predictions, labels))
    quadratic = ops.minimum(err, delta)
    linear = ops.subtract(err, quadratic)
    losses = ops.add(ops.multiply(ops.square(quadratic), 0.5), ops.multiply(linear, delta))
    return compute_weighted_loss(losses, weights, reduction=reduction)


def log_loss(
    labels,
    predictions,
    weights=1.0,
    epsilon=1e-7,
    scope=None,
    loss_collection="losses",
    reduction=_V1,
):
    """Weighted, reduced ``-y log(p + eps) - (1 - y) log(1 - p + eps)`` for probabilities
    ``predictions``."""
    labels, predictions = _as_pair(labels, predictions)
    pos = ops.multiply(ops.log(ops.add(predictions, epsilon)), labels)
    neg = ops.multiply(ops.log(ops.add(ops.subtract(1.0, predictions), epsilon)), 1.0 - labels)
    return compute_weighted_loss(ops.negative(ops.add(pos, neg)), weights, reduction=reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection="losses", reduction=_V1):
    """Weighted, reduced hinge loss ``max(0, 1 - (2 y - 1) * logits)`` for labels ``y`` in
    {0, 1} (``tf.compat.v1.losses.hinge_loss``).

    >>> import numpy as np
    >>> float(hinge_loss([[1.0], [0.0]], np.array([[0.5], [0.5]])))
    1.0
    """
    labels, logits = _as_pair(labels, logits, "logits")
    signs = labels * 2.0 - 1.0
    return compute_weighted_loss(
        ops.relu(ops.subtract(1.0, ops.multiply(logits, signs))), weights, reduction=reduction
    )


def cosine_distance(
    labels,
    predictions,
    axis=None,
    weights=1.0,
    scope=None,
    loss_collection="losses",
    reduction=_V1,
    dim=None,
):
    """Weighted, reduced ``1 - sum(labels * predictions, axis)`` for unit-normalized inputs
    (``tf.compat.v1.losses.cosine_distance``; ``dim`` is ``axis``' old name).

    >>> import numpy as np
    >>> float(cosine_distance([[1.0, 0.0]], np.array([[0.6, 0.8]]), axis=1))
    0.4
    """
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("cosine_distance needs axis (the dimension of the vectors)")
    labels, predictions = _as_pair(labels, predictions)
    products = ops.sum(ops.multiply(predictions, labels), axis=axis, keepdims=True)
    return compute_weighted_loss(ops.subtract(1.0, products), weights, reduction=reduction)
