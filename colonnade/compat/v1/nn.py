"""``cn.compat.v1.nn``: ``tf.compat.v1.nn``: ``cn.nn``, but ``dropout``'s second
positional argument is TF 1's ``keep_prob`` (TF 2's, in ``cn.nn``, is ``rate``: the same
call would drop the other share of the units).

>>> import numpy as np
>>> kept = dropout(np.ones((1000, 1)), 0.9, seed=0).numpy()
>>> 0.85 < float((kept != 0).mean()) < 0.95
True
"""

from colonnade import nn as _nn
from colonnade.nn import *  # noqa: F403

__all__ = list(_nn.__all__)


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """TF 1's ``tf.compat.v1.nn.dropout(x, keep_prob, noise_shape, seed, name, rate)``:
    keep each element with probability ``keep_prob`` (or drop it with ``rate``)."""
    return _nn.dropout(x, keep_prob=keep_prob, noise_shape=noise_shape, seed=seed, rate=rate)
