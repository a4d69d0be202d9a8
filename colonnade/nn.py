"""``cn.nn``: the ``tf.nn`` names, from :mod:`colonnade.core`.

>>> import numpy as np
>>> import colonnade as cn
>>> logits = np.zeros(1, np.float32)
>>> cn.nn.sigmoid_cross_entropy_with_logits(labels=[1.0], logits=logits).numpy().round(4)
array([0.6931], dtype=float32)
"""

from colonnade.core.conv import (
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    max_pool1d,
    max_pool2d,
)
from colonnade.core.losses import (
    sigmoid_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from colonnade.core.nn import (
    batch_normalization,
    dropout,
    elu,
    embedding_lookup,
    embedding_lookup_sparse,
    l2_loss,
    leaky_relu,
    log_softmax,
    relu6,
    selu,
    softmax,
    softmax_cross_entropy_with_logits,
    zero_fraction,
)
from colonnade.core.ops import relu, sigmoid, softplus, tanh

max_pool, avg_pool = max_pool2d, avg_pool2d  # TF 1's names for the 2-D pools

__all__ = [
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "dropout",
    "elu",
    "embedding_lookup",
    "embedding_lookup_sparse",
    "l2_loss",
    "leaky_relu",
    "log_softmax",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softplus",
    "sparse_softmax_cross_entropy_with_logits",
    "tanh",
    "zero_fraction",
]
