"""``cn.compat``: ``tf.compat``'s names, so a TF 1 program ports by swapping its prefix.

``tf.compat.v1.estimator.DNNClassifier`` becomes ``cn.compat.v1.estimator.DNNClassifier``
(TF 1's defaults), ``tf.compat.v1.train.AdamOptimizer`` ``cn.compat.v1.train.AdamOptimizer``,
and so on (see :mod:`colonnade.compat.v1`).
"""

from . import v1

__all__ = ["v1"]
