"""``cn.compat.v1.contrib``: the two ``tf.contrib.estimator`` functions TF 1 estimator
programs call, so that such a program ports by swapping its ``tf.`` prefix
(``tf.contrib.estimator.add_metrics`` becomes ``cn.compat.v1.contrib.estimator.add_metrics``).
TF 2 has no ``tf.contrib``: it moved ``add_metrics`` to ``tf.estimator`` and dropped
``forward_features``; colonnade has both in :mod:`colonnade.estimators`. ``lookup`` is
``tf.contrib.lookup``'s tables (:mod:`colonnade.compat.v1.lookup`)."""

from .. import lookup
from . import estimator

__all__ = ["estimator", "lookup"]
