"""The canned estimators: linear, DNN and wide&deep, for classification and regression.

Each is a ``model_fn`` (its network over feature columns gives the logits) plus a head
(see :mod:`..heads`) whose ``create_estimator_spec`` makes the loss, metrics, predictions
and update, with TF's default optimizers (see :mod:`.model`). Each class is an
``Estimator`` that passes its model (TF's ``DNNClassifierV2(EstimatorV2)`` shape).
Constructors take ``tf.estimator``'s arguments and defaults; TF 1's classes (:mod:`.v1`)
are built from these and the table of TF 1's defaults (:mod:`.defaults`).

>>> import colonnade as cn
>>> import pandas as pd
>>> fc = cn.feature_columns
>>> est = cn.estimators.LinearClassifier([fc.numeric_column("x")])
>>> _ = est.fit(pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [0, 0, 1, 1]}), label="y",
...             epochs=20)
>>> est.predict(pd.DataFrame({"x": [0.0, 3.0]}))["class_ids"].tolist()
[0, 1]
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ... import core
from ...feature_columns.base import FeatureColumn
from ..heads.classification import RegressionHead, classification_head
from ..networks.network import DNNPart, LinearPart, Network
from ..runtime.estimator import Estimator
from ..runtime.run_config import RunConfig, WarmStartSettings
from .arguments import DEEP_BATCH_NORM, DNN_COLUMNS, DNN_OPTIMIZER, documented
from .model import CannedModelFn, resolve_optimizer
from .sizes import check_model_size

OptimizerSpec = str | dict | core.Optimizer | Callable[[], Any] | None
"""What an optimizer argument takes: a name, a ``{"name": ...}`` dict, an optimizer, a
callable returning one, or ``None`` for the estimator's default (see ``resolve_optimizer``)."""

# The defaults of TF 2.15's canned estimators (tensorflow_estimator's canned/*.py, the V2
# classes that tf.estimator names in TF 2), pinned by tests/estimators/test_canned.py:
# - linear.py: an optimizer named by string ("Ftrl", the default) gets learning rate 0.2
#   (_LEARNING_RATE); only optimizer=None gets Ftrl at min(0.2, 1/sqrt(n_columns)).
LINEAR_LEARNING_RATE = 0.2
# - dnn.py: a name gets its Keras optimizer's own default learning rate
#   (get_optimizer_instance_v2 without one): 0.01 for SGD, 0.001 for the others.
DNN_LEARNING_RATE = 0.001
DNN_SGD_LEARNING_RATE = 0.01
# - dnn_linear_combined.py: names or not, Ftrl at min(0.005, 1/sqrt(n_linear_columns)) for
#   the linear part and 0.001 for the DNN part.
COMBINED_LINEAR_LEARNING_RATE = 0.005
COMBINED_DNN_LEARNING_RATE = 0.001
_SGD_FAMILY = (
    core.GradientDescentOptimizer,
    core.MomentumOptimizer,
    core.ProximalGradientDescentOptimizer,
)


def linear_learning_rate(num_columns: int, cap: float = LINEAR_LEARNING_RATE) -> float:
    """TF's default linear learning rate: ``min(cap, 1 / sqrt(num_columns))``."""
    return min(cap, 1.0 / math.sqrt(max(num_columns, 1)))


def dnn_learning_rate(optimizer_class) -> float:
    """The learning rate a DNN estimator gives an optimizer named by string: Keras'
    default for it, as TF 2.15's ``get_optimizer_instance_v2``."""
    return DNN_SGD_LEARNING_RATE if issubclass(optimizer_class, _SGD_FAMILY) else DNN_LEARNING_RATE


def _columns(feature_columns, what):
    columns = list(feature_columns or [])
    if not columns:
        raise ValueError(f"{what} must be a non-empty list of feature columns")
    return columns


def with_weight_column(head, weight_column):
    """``head`` weighing examples by ``weight_column`` (a name or ``numeric_column``)."""
    if weight_column is None:
        return head
    key = weight_column if isinstance(weight_column, str) else getattr(weight_column, "key", None)
    if key is None:
        raise TypeError(
            f"weight_column must be a column name or a numeric_column, got {weight_column!r}"
        )
    return (
        head
        if head.weight_column is not None
        else dataclasses.replace(head, weight_column=weight_column)
    )


def _linear_part(name, columns, head, combiner, optimizer, default_rate, named_rate, step):
    """A linear part and its ``(name, optimizer, variables)``: Ftrl at ``default_rate``
    by default, ``named_rate`` for an optimizer named by string."""
    linear = LinearPart(columns, units=head.logits_dimension, sparse_combiner=combiner)
    opt = resolve_optimizer(optimizer, lambda: core.FtrlOptimizer(default_rate), named_rate, step)
    return linear, (name, opt, linear.trainable_variables)


def _dnn_part(name, columns, head, tower, optimizer, default_rate, named_rate, step, rng):
    """A DNN part (``tower``: its ``DNNPart`` arguments) and its ``(name, optimizer,
    variables)``: Adagrad at ``default_rate`` by default."""
    dnn = DNNPart(columns, units=head.logits_dimension, rng=rng, **tower)
    opt = resolve_optimizer(
        optimizer, lambda: core.AdagradOptimizer(default_rate), named_rate, step
    )
    return dnn, (name, opt, dnn.trainable_variables)


def _tower(hidden_units, activation_fn, dropout, batch_norm) -> dict:
    """A DNN part's tower arguments."""
    return dict(
        hidden_units=hidden_units,
        activation_fn=activation_fn,
        dropout=dropout,
        batch_norm=batch_norm,
    )


def linear_model_fn(head, feature_columns, optimizer, sparse_combiner) -> CannedModelFn:
    """The linear estimators' model: one linear part, Ftrl by default (see the module)."""
    check_model_size(head, feature_columns, None)

    def build(global_step, init_rng):
        rate = linear_learning_rate(len(feature_columns))
        linear, part = _linear_part(
            "optimizer", feature_columns, head, sparse_combiner, optimizer, rate,
            LINEAR_LEARNING_RATE, global_step,
        )  # fmt: skip
        return Network(linear=linear), [part]

    return CannedModelFn(head, build)


def dnn_model_fn(head, feature_columns, optimizer, tower) -> CannedModelFn:
    """The DNN estimators' model: one DNN part (``tower``: hidden units, activation,
    dropout, batch norm), Adagrad by default."""
    check_model_size(head, None, feature_columns, tower)

    def build(global_step, init_rng):
        dnn, part = _dnn_part(
            "optimizer", feature_columns, head, tower, optimizer, DNN_LEARNING_RATE,
            dnn_learning_rate, global_step, init_rng,
        )  # fmt: skip
        return Network(dnn=dnn), [part]

    return CannedModelFn(head, build)


def combined_model_fn(head, linear, dnn_columns, dnn_optimizer, tower) -> CannedModelFn:
    """Wide & deep's model: a linear part, a DNN part or both, each with its optimizer.
    ``linear`` is ``(columns, optimizer, sparse_combiner)``; ``tower`` the DNN part's
    hidden units, activation, dropout and batch norm."""
    linear_columns, linear_optimizer, linear_sparse_combiner = linear
    linear_columns, dnn_columns = list(linear_columns or []), list(dnn_columns or [])
    if not linear_columns and not dnn_columns:
        raise ValueError("either linear_feature_columns or dnn_feature_columns must be given")
    if dnn_columns and not tower["hidden_units"]:
        raise ValueError("dnn_hidden_units must be given when dnn_feature_columns are")
    check_model_size(head, linear_columns, dnn_columns, tower)

    def build(global_step, init_rng):
        linear = dnn = None
        parts = []
        if linear_columns:
            rate = linear_learning_rate(len(linear_columns), COMBINED_LINEAR_LEARNING_RATE)
            linear, part = _linear_part(
                "linear_optimizer", linear_columns, head, linear_sparse_combiner,
                linear_optimizer, rate, rate, global_step,
            )  # fmt: skip
            parts.append(part)
        if dnn_columns:
            dnn, part = _dnn_part(
                "dnn_optimizer", dnn_columns, head, tower, dnn_optimizer,
                COMBINED_DNN_LEARNING_RATE, COMBINED_DNN_LEARNING_RATE, global_step, init_rng,
            )  # fmt: skip
            parts.append(part)
        return Network(linear, dnn), parts

    return CannedModelFn(head, build)


# ---------------------------------------------------------------- the estimators


@documented()
class LinearClassifier(Estimator):
    """A linear model over feature columns for 2 or more classes (``tf.estimator``'s).

    Optimizer as TF 2.15: a name (``"Ftrl"``, the default) gets learning rate 0.2;
    ``optimizer=None`` gets Ftrl at ``min(0.2, 1/sqrt(len(feature_columns)))``.
    Categorical columns get weight tables trained with sparse updates."""

    def __init__(
        self,
        feature_columns: Iterable[FeatureColumn],
        model_dir: str | os.PathLike | None = None,
        n_classes: int = 2,
        weight_column: str | FeatureColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerSpec = "Ftrl",
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
        sparse_combiner: str = "sum",
    ) -> None:
        head = classification_head(n_classes, label_vocabulary, loss_reduction)
        head = with_weight_column(head, weight_column)
        self.feature_columns = _columns(feature_columns, "feature_columns")
        model_fn = linear_model_fn(head, self.feature_columns, optimizer, sparse_combiner)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


@documented()
class LinearRegressor(Estimator):
    """A linear model over feature columns predicting ``label_dimension`` numbers."""

    def __init__(
        self,
        feature_columns: Iterable[FeatureColumn],
        model_dir: str | os.PathLike | None = None,
        label_dimension: int = 1,
        weight_column: str | FeatureColumn | None = None,
        optimizer: OptimizerSpec = "Ftrl",
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
        sparse_combiner: str = "sum",
    ) -> None:
        head = with_weight_column(RegressionHead(label_dimension, loss_reduction), weight_column)
        self.feature_columns = _columns(feature_columns, "feature_columns")
        model_fn = linear_model_fn(head, self.feature_columns, optimizer, sparse_combiner)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


@documented(feature_columns=DNN_COLUMNS, optimizer=DNN_OPTIMIZER)
class DNNClassifier(Estimator):
    """A feed-forward network over dense feature columns for 2 or more classes.

    Optimizer as TF 2.15: a name (``"Adagrad"``, the default) gets Keras' default learning
    rate for it (0.001; 0.01 for SGD). ``hidden_units`` lists the layer
    sizes; ``dropout`` is the probability of dropping a unit while training."""

    def __init__(
        self,
        hidden_units: Sequence[int],
        feature_columns: Iterable[FeatureColumn],
        model_dir: str | os.PathLike | None = None,
        n_classes: int = 2,
        weight_column: str | FeatureColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerSpec = "Adagrad",
        activation_fn: str | Callable = "relu",
        dropout: float | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
    ) -> None:
        head = classification_head(n_classes, label_vocabulary, loss_reduction)
        head = with_weight_column(head, weight_column)
        self.feature_columns = _columns(feature_columns, "feature_columns")
        tower = _tower(hidden_units, activation_fn, dropout, batch_norm)
        model_fn = dnn_model_fn(head, self.feature_columns, optimizer, tower)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


@documented(feature_columns=DNN_COLUMNS, optimizer=DNN_OPTIMIZER)
class DNNRegressor(Estimator):
    """A feed-forward network over dense feature columns predicting numbers."""

    def __init__(
        self,
        hidden_units: Sequence[int],
        feature_columns: Iterable[FeatureColumn],
        model_dir: str | os.PathLike | None = None,
        label_dimension: int = 1,
        weight_column: str | FeatureColumn | None = None,
        optimizer: OptimizerSpec = "Adagrad",
        activation_fn: str | Callable = "relu",
        dropout: float | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
    ) -> None:
        head = with_weight_column(RegressionHead(label_dimension, loss_reduction), weight_column)
        self.feature_columns = _columns(feature_columns, "feature_columns")
        tower = _tower(hidden_units, activation_fn, dropout, batch_norm)
        model_fn = dnn_model_fn(head, self.feature_columns, optimizer, tower)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


@documented(batch_norm=DEEP_BATCH_NORM)
class DNNLinearCombinedClassifier(Estimator):
    """Wide & deep: a linear model and a DNN whose logits add up, for classification.

    Defaults as TF: Ftrl with ``min(0.005, 1/sqrt(n_linear_columns))`` for the linear part,
    Adagrad 0.001 for the DNN part; one global step for both."""

    def __init__(
        self,
        model_dir: str | os.PathLike | None = None,
        linear_feature_columns: Iterable[FeatureColumn] | None = None,
        linear_optimizer: OptimizerSpec = "Ftrl",
        dnn_feature_columns: Iterable[FeatureColumn] | None = None,
        dnn_optimizer: OptimizerSpec = "Adagrad",
        dnn_hidden_units: Sequence[int] | None = None,
        dnn_activation_fn: str | Callable = "relu",
        dnn_dropout: float | None = None,
        n_classes: int = 2,
        weight_column: str | FeatureColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = classification_head(n_classes, label_vocabulary, loss_reduction)
        head = with_weight_column(head, weight_column)
        tower = _tower(dnn_hidden_units, dnn_activation_fn, dnn_dropout, batch_norm)
        linear = (linear_feature_columns, linear_optimizer, linear_sparse_combiner)
        model_fn = combined_model_fn(head, linear, dnn_feature_columns, dnn_optimizer, tower)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


@documented(batch_norm=DEEP_BATCH_NORM)
class DNNLinearCombinedRegressor(Estimator):
    """Wide & deep for regression (see :class:`DNNLinearCombinedClassifier`)."""

    def __init__(
        self,
        model_dir: str | os.PathLike | None = None,
        linear_feature_columns: Iterable[FeatureColumn] | None = None,
        linear_optimizer: OptimizerSpec = "Ftrl",
        dnn_feature_columns: Iterable[FeatureColumn] | None = None,
        dnn_optimizer: OptimizerSpec = "Adagrad",
        dnn_hidden_units: Sequence[int] | None = None,
        dnn_activation_fn: str | Callable = "relu",
        dnn_dropout: float | None = None,
        label_dimension: int = 1,
        weight_column: str | FeatureColumn | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = with_weight_column(RegressionHead(label_dimension, loss_reduction), weight_column)
        tower = _tower(dnn_hidden_units, dnn_activation_fn, dnn_dropout, batch_norm)
        linear = (linear_feature_columns, linear_optimizer, linear_sparse_combiner)
        model_fn = combined_model_fn(head, linear, dnn_feature_columns, dnn_optimizer, tower)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


CANNED_ESTIMATORS = (
    LinearClassifier,
    LinearRegressor,
    DNNClassifier,
    DNNRegressor,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
)
"""The six canned estimators, in TF's order."""
