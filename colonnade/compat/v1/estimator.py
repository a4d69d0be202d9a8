"""``cn.compat.v1.estimator``: ``tf.compat.v1.estimator``. Everything in
:mod:`colonnade.estimators`, with the canned estimators (the six and the three Baseline
ones) replaced by TF 1's (:mod:`colonnade.estimators.canned.v1`: TF 1's loss reduction
and optimizer defaults)."""

from colonnade.estimators import *  # noqa: F403
from colonnade.estimators import __all__ as _estimator_names
from colonnade.estimators import experimental, export, inputs  # noqa: F401 - TF's namespaces
from colonnade.estimators.canned.v1 import (  # noqa: F401 (replace the V2 classes)
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
    DNNClassifier,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearRegressor,
)

__all__ = [*_estimator_names, "experimental", "export", "inputs"]
