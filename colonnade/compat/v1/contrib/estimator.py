"""``cn.compat.v1.contrib.estimator``: TF 1's ``tf.contrib.estimator.add_metrics`` and
``forward_features`` (:func:`colonnade.estimators.add_metrics`,
:func:`colonnade.estimators.forward_features`).

>>> import colonnade as cn
>>> cn.compat.v1.contrib.estimator.forward_features is cn.estimators.forward_features
True
"""

from colonnade.estimators import add_metrics, forward_features

__all__ = ["add_metrics", "forward_features"]
