"""``cn.layers``: ``tf.compat.v1.layers`` over named, reused variables (see
:mod:`colonnade.core.layers`)."""

from colonnade.core.layers import batch_normalization, dense, dropout

__all__ = ["dense", "dropout", "batch_normalization"]
