"""TF 1's canned estimators (``tf.compat.v1.estimator.*``), with TF 1's defaults.

A TF 1 program that builds ``tf.compat.v1.estimator.DNNClassifier`` gets, unless it asks
otherwise, what TF 1 gave it, which is not what TF 2's classes give:

- ``loss_reduction="weighted_sum"``: the training loss is the *sum* of the batch's
  weighted losses, not their mean, so its learning rates mean what they meant;
- an optimizer named by string is TF 1's ``tf.compat.v1.train`` optimizer of that name
  (``"Adagrad"``, ``"Adam"``, ``"Ftrl"``, ``"RMSProp"``, ``"SGD"``; Adam with TF 1's
  epsilon 1e-8) at the learning rate TF 1's canned module gives names: 0.05 for the DNN
  estimators, 0.2 for the linear ones, and for wide & deep 0.001 for the deep part and
  ``min(0.005, 1/sqrt(n_linear_columns))`` for the wide part;
- ``input_layer_partitioner`` and ``partitioner`` are accepted: they split variables
  across parameter servers in TF 1's graphs. Here a variable is one array (a checkpoint
  TF 1 wrote partitioned is read whole); see ``docs/tf_differences.md``.

Values from TF 2.15's ``tensorflow_estimator`` (``canned/dnn.py``, ``linear.py``,
``dnn_linear_combined.py``, ``optimizers.py``), pinned by tests against models TF trained.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

from ... import core
from ...feature_columns.base import FeatureColumn
from ..runtime.run_config import RunConfig, WarmStartSettings
from . import estimators as canned
from .estimators import DNN_COLUMNS_DOC, OptimizerSpec, documented, linear_learning_rate

__all__ = [
    "DNNClassifier",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearRegressor",
    "V1_OPTIMIZER_NAMES",
]

V1_LOSS_REDUCTION = "weighted_sum"
DNN_LEARNING_RATE = 0.05  # canned/dnn.py's _LEARNING_RATE
LINEAR_LEARNING_RATE = 0.2  # canned/linear.py's _LEARNING_RATE
COMBINED_DNN_LEARNING_RATE = 0.001  # canned/dnn_linear_combined.py's _DNN_LEARNING_RATE
COMBINED_LINEAR_LEARNING_RATE = 0.005

V1_OPTIMIZER_NAMES = {
    "Adagrad": core.AdagradOptimizer,
    "Adam": core.AdamOptimizer,
    "Ftrl": core.FtrlOptimizer,
    "RMSProp": core.RMSPropOptimizer,
    "SGD": core.GradientDescentOptimizer,
}
"""The names TF 1's canned estimators take (``optimizers._OPTIMIZER_CLS_NAMES``)."""


def v1_optimizer(optimizer: OptimizerSpec, learning_rate: float, none_ok=False) -> OptimizerSpec:
    """A name as TF 1's ``get_optimizer_instance``: a callable making that TF 1 optimizer
    at ``learning_rate`` with its own defaults; anything else unchanged. An unknown name,
    and ``None`` where TF 1 has no default for it (``none_ok``), are TF's ValueErrors."""
    if optimizer is None and not none_ok:
        raise ValueError("The given object is not an Optimizer instance. Given: None")
    if not isinstance(optimizer, str):
        return optimizer
    if optimizer not in V1_OPTIMIZER_NAMES:
        raise ValueError(
            f"Unsupported optimizer name: {optimizer}. Supported names are: "
            f"{tuple(sorted(V1_OPTIMIZER_NAMES))}"
        )
    cls = V1_OPTIMIZER_NAMES[optimizer]
    return lambda: cls(learning_rate=learning_rate)


_V1_DOCS = dict(
    loss_reduction=(
        'how per-example losses become the training loss; TF 1\'s default ``"weighted_sum"``: '
        "their weighted sum over the batch (see ``cn.core.Reduction``)."
    ),
    input_layer_partitioner=(
        "accepted for TF 1's signature and not used: variables are not partitioned here."
    ),
    partitioner="accepted for TF 1's signature and not used: variables are not partitioned.",
)
_DNN_V1_OPTIMIZER = (
    'a name (``"Adagrad"``, TF 1\'s default; ``"Adam"``, ``"Ftrl"``, ``"RMSProp"``, '
    '``"SGD"``) for TF 1\'s optimizer at learning rate 0.05, an optimizer instance or a '
    "callable returning one (``None`` is TF 1's ValueError)."
)
_LINEAR_V1_OPTIMIZER = (
    "a name (``\"Ftrl\"``, TF 1's default) for TF 1's optimizer at learning rate 0.2, an "
    "optimizer instance, a callable returning one, or ``None`` for Ftrl at "
    "``min(0.2, 1/sqrt(len(feature_columns)))``."
)
_COMBINED_V1_OPTIMIZERS = dict(
    linear_optimizer=(
        "the wide part's optimizer: a name (``\"Ftrl\"``, TF 1's default) at learning rate "
        "``min(0.005, 1/sqrt(len(linear_feature_columns)))``, an instance or a callable "
        "(``None`` is TF 1's ValueError)."
    ),
    dnn_optimizer=(
        "the deep part's optimizer: a name (``\"Adagrad\"``, TF 1's default) at learning "
        "rate 0.001, an instance or a callable (``None`` is TF 1's ValueError)."
    ),
)


@documented(optimizer=_LINEAR_V1_OPTIMIZER, **_V1_DOCS)
class LinearClassifier(canned.LinearClassifier):
    """``tf.compat.v1.estimator.LinearClassifier``: TF 1's defaults (see the module)."""

    def __init__(
        self,
        feature_columns: Iterable[FeatureColumn],
        model_dir: str | os.PathLike | None = None,
        n_classes: int = 2,
        weight_column: str | FeatureColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerSpec = "Ftrl",
        config: RunConfig | None = None,
        partitioner=None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = V1_LOSS_REDUCTION,
        sparse_combiner: str = "sum",
    ) -> None:
        super().__init__(
            feature_columns,
            model_dir,
            n_classes,
            weight_column,
            label_vocabulary,
            v1_optimizer(optimizer, LINEAR_LEARNING_RATE, none_ok=True),
            config,
            warm_start_from,
            loss_reduction,
            sparse_combiner,
        )


@documented(optimizer=_LINEAR_V1_OPTIMIZER, **_V1_DOCS)
class LinearRegressor(canned.LinearRegressor):
    """``tf.compat.v1.estimator.LinearRegressor``: TF 1's defaults (see the module)."""

    def __init__(
        self,
        feature_columns: Iterable[FeatureColumn],
        model_dir: str | os.PathLike | None = None,
        label_dimension: int = 1,
        weight_column: str | FeatureColumn | None = None,
        optimizer: OptimizerSpec = "Ftrl",
        config: RunConfig | None = None,
        partitioner=None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = V1_LOSS_REDUCTION,
        sparse_combiner: str = "sum",
    ) -> None:
        super().__init__(
            feature_columns,
            model_dir,
            label_dimension,
            weight_column,
            v1_optimizer(optimizer, LINEAR_LEARNING_RATE, none_ok=True),
            config,
            warm_start_from,
            loss_reduction,
            sparse_combiner,
        )


@documented(feature_columns=DNN_COLUMNS_DOC, optimizer=_DNN_V1_OPTIMIZER, **_V1_DOCS)
class DNNClassifier(canned.DNNClassifier):
    """``tf.compat.v1.estimator.DNNClassifier``: TF 1's defaults (see the module)."""

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
        input_layer_partitioner=None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = V1_LOSS_REDUCTION,
        batch_norm: bool = False,
    ) -> None:
        super().__init__(
            hidden_units,
            feature_columns,
            model_dir,
            n_classes,
            weight_column,
            label_vocabulary,
            v1_optimizer(optimizer, DNN_LEARNING_RATE),
            activation_fn,
            dropout,
            config,
            warm_start_from,
            loss_reduction,
            batch_norm,
        )


@documented(feature_columns=DNN_COLUMNS_DOC, optimizer=_DNN_V1_OPTIMIZER, **_V1_DOCS)
class DNNRegressor(canned.DNNRegressor):
    """``tf.compat.v1.estimator.DNNRegressor``: TF 1's defaults (see the module)."""

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
        input_layer_partitioner=None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = V1_LOSS_REDUCTION,
        batch_norm: bool = False,
    ) -> None:
        super().__init__(
            hidden_units,
            feature_columns,
            model_dir,
            label_dimension,
            weight_column,
            v1_optimizer(optimizer, DNN_LEARNING_RATE),
            activation_fn,
            dropout,
            config,
            warm_start_from,
            loss_reduction,
            batch_norm,
        )


def _combined_optimizers(linear_columns, linear_optimizer, dnn_columns, dnn_optimizer):
    """The two parts' optimizers as TF 1 resolves them, for the parts that exist."""
    if linear_columns:
        rate = linear_learning_rate(len(linear_columns), COMBINED_LINEAR_LEARNING_RATE)
        linear_optimizer = v1_optimizer(linear_optimizer, rate)
    if dnn_columns:
        dnn_optimizer = v1_optimizer(dnn_optimizer, COMBINED_DNN_LEARNING_RATE)
    return linear_optimizer, dnn_optimizer


@documented(**_COMBINED_V1_OPTIMIZERS, **_V1_DOCS)
class DNNLinearCombinedClassifier(canned.DNNLinearCombinedClassifier):
    """``tf.compat.v1.estimator.DNNLinearCombinedClassifier``: TF 1's defaults (see the
    module)."""

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
        input_layer_partitioner=None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = V1_LOSS_REDUCTION,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        linear_feature_columns = list(linear_feature_columns or [])
        dnn_feature_columns = list(dnn_feature_columns or [])
        linear_optimizer, dnn_optimizer = _combined_optimizers(
            linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer
        )
        super().__init__(
            model_dir,
            linear_feature_columns,
            linear_optimizer,
            dnn_feature_columns,
            dnn_optimizer,
            dnn_hidden_units,
            dnn_activation_fn,
            dnn_dropout,
            n_classes,
            weight_column,
            label_vocabulary,
            config,
            warm_start_from,
            loss_reduction,
            batch_norm,
            linear_sparse_combiner,
        )


@documented(**_COMBINED_V1_OPTIMIZERS, **_V1_DOCS)
class DNNLinearCombinedRegressor(canned.DNNLinearCombinedRegressor):
    """``tf.compat.v1.estimator.DNNLinearCombinedRegressor``: TF 1's defaults (see the
    module)."""

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
        input_layer_partitioner=None,
        config: RunConfig | None = None,
        warm_start_from: str | WarmStartSettings | None = None,
        loss_reduction: str = V1_LOSS_REDUCTION,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        linear_feature_columns = list(linear_feature_columns or [])
        dnn_feature_columns = list(dnn_feature_columns or [])
        linear_optimizer, dnn_optimizer = _combined_optimizers(
            linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer
        )
        super().__init__(
            model_dir,
            linear_feature_columns,
            linear_optimizer,
            dnn_feature_columns,
            dnn_optimizer,
            dnn_hidden_units,
            dnn_activation_fn,
            dnn_dropout,
            label_dimension,
            weight_column,
            config,
            warm_start_from,
            loss_reduction,
            batch_norm,
            linear_sparse_combiner,
        )
