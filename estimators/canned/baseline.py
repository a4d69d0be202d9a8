"""The Baseline estimators: a bias per logit, learnt from the labels alone.

A baseline ignores the features' values (it reads only the batch's size) and learns
one bias per logit, TF's ``baseline/bias`` (zeros at first), so that a TF ``model_dir``
and a colonnade one hold the same variables. Trained through its head, it predicts the
labels' mean for a regression, the classes' frequencies for a classification: the score
every real model should beat. Optimizers as TF 2.15's ``canned/baseline.py``: a name
(``"Ftrl"``, the default) gets learning rate 0.3 (its ``_LEARNING_RATE``); TF 1's classes
(:mod:`.v1`) make TF 1's optimizer of the name at 0.3.

>>> import colonnade as cn
>>> est = cn.estimators.BaselineRegressor(optimizer="SGD")
>>> _ = est.train(lambda: ({"x": [[0.0], [1.0]]}, [[1.0], [3.0]]), steps=30)
>>> [round(float(p["predictions"][0]), 3) for p in est.predict(lambda: {"x": [[5.0]]})]
[2.0]
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ... import core
from ...feature_columns.base import FeatureColumn
from ..heads.base import Head
from ..heads.classification import RegressionHead, classification_head
from ..networks.network import BaselinePart, Network
from ..runtime.estimator import Estimator
from ..runtime.run_config import RunConfig
from .arguments import documented
from .estimators import OptimizerSpec, with_weight_column
from .model import CannedModelFn, resolve_optimizer

BASELINE_LEARNING_RATE = 0.3
"""The learning rate an optimizer named by string gets (TF's baseline ``_LEARNING_RATE``)."""

BASELINE_OPTIMIZER = (
    'a name (``"Ftrl"``, TF\'s default, at learning rate 0.3), a ``{"name": ..., '
    "**arguments}`` dict, an optimizer instance or a callable returning one (``None`` is "
    "TF's ValueError)."
)
BASELINE_HEAD = (
    "the head that makes the loss, metrics and predictions of the bias: "
    "``regression_head``, ``multi_label_head``, ... (TF: required)."
)


def _no_default_optimizer():
    raise ValueError(
        "The given object is not a tf.keras.optimizers.Optimizer instance. Given: None "
        "(a Baseline estimator's optimizer: give a name, an optimizer or a callable)"
    )


def baseline_model_fn(head, optimizer) -> CannedModelFn:
    """The Baseline estimators' model: a :class:`BaselinePart` of the head's logits
    dimension, updated by ``optimizer`` (see the module)."""
    if not hasattr(head, "create_estimator_spec") or not hasattr(head, "logits_dimension"):
        raise TypeError(
            "head must be a head (regression_head, multi_class_head, ...: it has "
            f"create_estimator_spec and logits_dimension), got {type(head).__name__}"
        )

    def build(global_step, init_rng):
        baseline = BaselinePart(head.logits_dimension)
        opt = resolve_optimizer(
            optimizer, _no_default_optimizer, BASELINE_LEARNING_RATE, global_step
        )
        return Network(baseline=baseline), [("optimizer", opt, baseline.trainable_variables)]

    return CannedModelFn(head, build)


@documented(optimizer=BASELINE_OPTIMIZER)
class BaselineClassifier(Estimator):
    """A classifier predicting the classes' frequencies in the labels, whatever the
    features (``tf.estimator``'s): a bias per logit (TF's ``baseline/bias``)."""

    def __init__(
        self,
        model_dir: str | os.PathLike | None = None,
        n_classes: int = 2,
        weight_column: str | FeatureColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerSpec = "Ftrl",
        config: RunConfig | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
    ) -> None:
        head = classification_head(n_classes, label_vocabulary, loss_reduction)
        head = with_weight_column(head, weight_column)
        super().__init__(baseline_model_fn(head, optimizer), model_dir, config)


@documented(optimizer=BASELINE_OPTIMIZER)
class BaselineRegressor(Estimator):
    """A regressor predicting the labels' mean, whatever the features
    (``tf.estimator``'s): a bias per label dimension (TF's ``baseline/bias``)."""

    def __init__(
        self,
        model_dir: str | os.PathLike | None = None,
        label_dimension: int = 1,
        weight_column: str | FeatureColumn | None = None,
        optimizer: OptimizerSpec = "Ftrl",
        config: RunConfig | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
    ) -> None:
        head = with_weight_column(RegressionHead(label_dimension, loss_reduction), weight_column)
        super().__init__(baseline_model_fn(head, optimizer), model_dir, config)


@documented(head=BASELINE_HEAD, optimizer=BASELINE_OPTIMIZER)
class BaselineEstimator(Estimator):
    """A baseline through any head (``tf.estimator``'s): a bias per logit, e.g. each
    class's share of the examples under ``multi_label_head``."""

    def __init__(
        self,
        head: Head,
        model_dir: str | os.PathLike | None = None,
        optimizer: OptimizerSpec = "Ftrl",
        config: RunConfig | None = None,
    ) -> None:
        super().__init__(baseline_model_fn(head, optimizer), model_dir, config)


BASELINE_ESTIMATORS = (BaselineClassifier, BaselineRegressor, BaselineEstimator)
"""The three Baseline estimators, in TF's order."""
