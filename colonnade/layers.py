"""``cn.layers``: ``tf.compat.v1.layers`` over named, reused variables (see
:mod:`colonnade.core.layers`)."""

from colonnade.core.layers import (
    BatchNormalization,
    Dense,
    average_pooling1d,
    average_pooling2d,
    batch_normalization,
    conv1d,
    conv2d,
    dense,
    dropout,
    flatten,
    max_pooling1d,
    max_pooling2d,
)

__all__ = [
    "BatchNormalization",
    "Dense",
    "average_pooling1d",
    "average_pooling2d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
]
