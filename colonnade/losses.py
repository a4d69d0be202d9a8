"""``cn.losses``: ``tf.compat.v1.losses`` (per-example ``weights``, TF1's reductions; the
default, as TF1's, is ``Reduction.SUM_BY_NONZERO_WEIGHTS``), from :mod:`colonnade.core`.

>>> import numpy as np
>>> import colonnade as cn
>>> predictions = np.array([[2.0], [3.0]], np.float32)
>>> float(cn.losses.mean_squared_error([[1.0], [3.0]], predictions, weights=[[1.0], [0.0]]))
1.0
"""

from colonnade.core.losses import (
    Reduction,
    absolute_difference,
    compute_weighted_loss,
    cosine_distance,
    hinge_loss,
    huber_loss,
    log_loss,
    mean_squared_error,
    sigmoid_cross_entropy,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from colonnade.core.regularizers import get_regularization_loss, get_regularization_losses

__all__ = [
    "Reduction",
    "absolute_difference",
    "compute_weighted_loss",
    "cosine_distance",
    "get_regularization_loss",
    "get_regularization_losses",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]
