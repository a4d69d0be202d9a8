"""The canned estimators: linear, DNN and wide&deep, for classification and regression.

Each is a ``model_fn`` (its network over feature columns gives the logits) plus a head
(see :mod:`heads`) whose ``create_estimator_spec`` makes the loss, metrics, predictions
and update, with TF's default optimizers (see ``CannedEstimator._call_model_fn``).
Constructors take ``tf.estimator``'s arguments and defaults.

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

import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .. import core
from ..feature_columns.base import FeatureColumn
from .estimator import CannedEstimator, resolve_optimizer
from .heads import RegressionHead, classification_head
from .networks import DNNPart, LinearPart, Network
from .run_config import RunConfig, WarmStartSettings

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


def _head(n_classes, label_vocabulary, loss_reduction):
    return classification_head(n_classes, label_vocabulary, loss_reduction)


class _Linear(CannedEstimator):
    def __init__(
        self,
        *,
        head,
        feature_columns,
        model_dir,
        optimizer,
        config,
        warm_start_from,
        weight_column,
        sparse_combiner,
    ):
        super().__init__(head, model_dir, config, warm_start_from, weight_column)
        columns = _columns(feature_columns, "feature_columns")
        self.feature_columns = columns
        linear = LinearPart(columns, units=head.logits_dimension, sparse_combiner=sparse_combiner)
        self._network = Network(linear=linear)
        lr = linear_learning_rate(len(columns))
        opt = resolve_optimizer(
            optimizer, lambda: core.FtrlOptimizer(lr), LINEAR_LEARNING_RATE, self._global_step
        )
        self._parts = [("optimizer", opt, linear.trainable_variables)]


class LinearClassifier(_Linear):
    """A linear model over feature columns for 2 or more classes (``tf.estimator``'s).

    Optimizer as TF 2.15: a name (``"Ftrl"``, the default) gets learning rate 0.2;
    ``optimizer=None`` gets Ftrl at ``min(0.2, 1/sqrt(len(feature_columns)))``.
    Categorical columns get weight tables trained with sparse updates.

    Args:
        feature_columns: the model's columns (TF: required): categorical ones get a weight
            per id, trained with sparse updates; dense ones a weight per value.
        model_dir: where checkpoints and TensorBoard event files go (TF's default
            ``None``): ``None`` takes ``config.model_dir``, else a new temporary directory
            (with a warning). Training resumes from the newest checkpoint found there.
        n_classes: number of label classes, at least 2 (TF's default 2). Two classes get
            a logistic head, more a softmax head.
        weight_column: a column name or ``numeric_column`` giving each example's weight in
            the loss and metrics (TF's default ``None``: every example weighs 1).
        label_vocabulary: the label's string values, in class-id order (TF's default
            ``None``: labels are integer class ids in ``[0, n_classes)``).
        optimizer: a name (``"Ftrl"``, TF's default, at learning rate 0.2), a
            ``{"name": ..., **arguments}`` dict, an optimizer instance, a callable returning
            one, or ``None`` for Ftrl at ``min(0.2, 1/sqrt(len(feature_columns)))``.
        config: a :class:`RunConfig`: seed, checkpoint and summary schedules (TF's default
            ``None``: ``RunConfig()``).
        warm_start_from: a checkpoint path, or a :class:`WarmStartSettings`, to initialize
            variables from when ``model_dir`` has no checkpoint yet (TF's default ``None``).
        loss_reduction: how per-example losses become the training loss, one of
            ``cn.core.Reduction`` or TF1's names (``"weighted_sum"``...; see
            ``Reduction.resolve``). TF 2's default ``SUM_OVER_BATCH_SIZE``: the weighted
            sum over the batch size; TF 1's canned estimators used ``"weighted_sum"``.
        sparse_combiner: how the weights of a multivalent categorical column's ids in one
            example combine: ``"sum"`` (TF's default), ``"mean"`` or ``"sqrtn"``.
    """

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
        head = _head(n_classes, label_vocabulary, loss_reduction)
        super().__init__(
            head=head,
            feature_columns=feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            warm_start_from=warm_start_from,
            weight_column=weight_column,
            sparse_combiner=sparse_combiner,
        )


class LinearRegressor(_Linear):
    """A linear model over feature columns predicting ``label_dimension`` numbers.

    Args:
        feature_columns: the model's columns (TF: required): categorical ones get a weight
            per id, trained with sparse updates; dense ones a weight per value.
        model_dir: where checkpoints and TensorBoard event files go (TF's default
            ``None``): ``None`` takes ``config.model_dir``, else a new temporary directory
            (with a warning). Training resumes from the newest checkpoint found there.
        label_dimension: numbers predicted per example (TF's default 1); the label has as
            many columns.
        weight_column: a column name or ``numeric_column`` giving each example's weight in
            the loss and metrics (TF's default ``None``: every example weighs 1).
        optimizer: a name (``"Ftrl"``, TF's default, at learning rate 0.2), a
            ``{"name": ..., **arguments}`` dict, an optimizer instance, a callable returning
            one, or ``None`` for Ftrl at ``min(0.2, 1/sqrt(len(feature_columns)))``.
        config: a :class:`RunConfig`: seed, checkpoint and summary schedules (TF's default
            ``None``: ``RunConfig()``).
        warm_start_from: a checkpoint path, or a :class:`WarmStartSettings`, to initialize
            variables from when ``model_dir`` has no checkpoint yet (TF's default ``None``).
        loss_reduction: how per-example losses become the training loss, one of
            ``cn.core.Reduction`` or TF1's names (``"weighted_sum"``...; see
            ``Reduction.resolve``). TF 2's default ``SUM_OVER_BATCH_SIZE``: the weighted
            sum over the batch size; TF 1's canned estimators used ``"weighted_sum"``.
        sparse_combiner: how the weights of a multivalent categorical column's ids in one
            example combine: ``"sum"`` (TF's default), ``"mean"`` or ``"sqrtn"``.
    """

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
        head = RegressionHead(label_dimension, loss_reduction)
        super().__init__(
            head=head,
            feature_columns=feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            warm_start_from=warm_start_from,
            weight_column=weight_column,
            sparse_combiner=sparse_combiner,
        )


class _DNN(CannedEstimator):
    def __init__(
        self,
        *,
        head,
        hidden_units,
        feature_columns,
        model_dir,
        optimizer,
        activation_fn,
        dropout,
        config,
        warm_start_from,
        weight_column,
        batch_norm,
    ):
        super().__init__(head, model_dir, config, warm_start_from, weight_column)
        columns = _columns(feature_columns, "feature_columns")
        self.feature_columns = columns
        dnn = DNNPart(
            columns,
            hidden_units=hidden_units,
            units=head.logits_dimension,
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            rng=self._init_rng,
        )
        self._network = Network(dnn=dnn)
        opt = resolve_optimizer(
            optimizer,
            lambda: core.AdagradOptimizer(DNN_LEARNING_RATE),
            dnn_learning_rate,
            self._global_step,
        )
        self._parts = [("optimizer", opt, dnn.trainable_variables)]


class DNNClassifier(_DNN):
    """A feed-forward network over dense feature columns for 2 or more classes.

    Optimizer as TF 2.15: a name (``"Adagrad"``, the default) gets Keras' default learning
    rate for it (0.001; 0.01 for SGD). ``hidden_units`` lists the layer
    sizes; ``dropout`` is the probability of dropping a unit while training.

    Args:
        hidden_units: the hidden layers' sizes, e.g. ``[64, 32]`` (TF: required).
        feature_columns: the model's dense columns (TF: required): numeric, bucketized,
            indicator and embedding columns; wrap a categorical column in
            ``indicator_column`` or ``embedding_column``.
        model_dir: where checkpoints and TensorBoard event files go (TF's default
            ``None``): ``None`` takes ``config.model_dir``, else a new temporary directory
            (with a warning). Training resumes from the newest checkpoint found there.
        n_classes: number of label classes, at least 2 (TF's default 2). Two classes get
            a logistic head, more a softmax head.
        weight_column: a column name or ``numeric_column`` giving each example's weight in
            the loss and metrics (TF's default ``None``: every example weighs 1).
        label_vocabulary: the label's string values, in class-id order (TF's default
            ``None``: labels are integer class ids in ``[0, n_classes)``).
        optimizer: a name (``"Adagrad"``, TF's default) at Keras' default learning rate
            for it (0.001; 0.01 for ``"SGD"``, ``"Momentum"``, ``"ProximalSGD"``), a
            ``{"name": ..., **arguments}`` dict, an optimizer instance, a callable
            returning one, or ``None`` for Adagrad at 0.001.
        activation_fn: the hidden layers' activation, a name (``"relu"``, TF's default;
            also ``"relu6"``, ``"elu"``, ``"selu"``, ``"leaky_relu"``, ``"sigmoid"``,
            ``"tanh"``, ``"softplus"``, ``"linear"``) or a function of a Tensor.
        dropout: the probability of dropping a hidden unit while training, in ``[0, 1)``
            (TF's default ``None``: no dropout).
        config: a :class:`RunConfig`: seed, checkpoint and summary schedules (TF's default
            ``None``: ``RunConfig()``).
        warm_start_from: a checkpoint path, or a :class:`WarmStartSettings`, to initialize
            variables from when ``model_dir`` has no checkpoint yet (TF's default ``None``).
        loss_reduction: how per-example losses become the training loss, one of
            ``cn.core.Reduction`` or TF1's names (``"weighted_sum"``...; see
            ``Reduction.resolve``). TF 2's default ``SUM_OVER_BATCH_SIZE``: the weighted
            sum over the batch size; TF 1's canned estimators used ``"weighted_sum"``.
        batch_norm: batch normalization after each hidden layer (TF's default ``False``).
    """

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
        head = _head(n_classes, label_vocabulary, loss_reduction)
        super().__init__(
            head=head,
            hidden_units=hidden_units,
            feature_columns=feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            config=config,
            warm_start_from=warm_start_from,
            weight_column=weight_column,
            batch_norm=batch_norm,
        )


class DNNRegressor(_DNN):
    """A feed-forward network over dense feature columns predicting numbers.

    Args:
        hidden_units: the hidden layers' sizes, e.g. ``[64, 32]`` (TF: required).
        feature_columns: the model's dense columns (TF: required): numeric, bucketized,
            indicator and embedding columns; wrap a categorical column in
            ``indicator_column`` or ``embedding_column``.
        model_dir: where checkpoints and TensorBoard event files go (TF's default
            ``None``): ``None`` takes ``config.model_dir``, else a new temporary directory
            (with a warning). Training resumes from the newest checkpoint found there.
        label_dimension: numbers predicted per example (TF's default 1); the label has as
            many columns.
        weight_column: a column name or ``numeric_column`` giving each example's weight in
            the loss and metrics (TF's default ``None``: every example weighs 1).
        optimizer: a name (``"Adagrad"``, TF's default) at Keras' default learning rate
            for it (0.001; 0.01 for ``"SGD"``, ``"Momentum"``, ``"ProximalSGD"``), a
            ``{"name": ..., **arguments}`` dict, an optimizer instance, a callable
            returning one, or ``None`` for Adagrad at 0.001.
        activation_fn: the hidden layers' activation, a name (``"relu"``, TF's default;
            also ``"relu6"``, ``"elu"``, ``"selu"``, ``"leaky_relu"``, ``"sigmoid"``,
            ``"tanh"``, ``"softplus"``, ``"linear"``) or a function of a Tensor.
        dropout: the probability of dropping a hidden unit while training, in ``[0, 1)``
            (TF's default ``None``: no dropout).
        config: a :class:`RunConfig`: seed, checkpoint and summary schedules (TF's default
            ``None``: ``RunConfig()``).
        warm_start_from: a checkpoint path, or a :class:`WarmStartSettings`, to initialize
            variables from when ``model_dir`` has no checkpoint yet (TF's default ``None``).
        loss_reduction: how per-example losses become the training loss, one of
            ``cn.core.Reduction`` or TF1's names (``"weighted_sum"``...; see
            ``Reduction.resolve``). TF 2's default ``SUM_OVER_BATCH_SIZE``: the weighted
            sum over the batch size; TF 1's canned estimators used ``"weighted_sum"``.
        batch_norm: batch normalization after each hidden layer (TF's default ``False``).
    """

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
        head = RegressionHead(label_dimension, loss_reduction)
        super().__init__(
            head=head,
            hidden_units=hidden_units,
            feature_columns=feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            config=config,
            warm_start_from=warm_start_from,
            weight_column=weight_column,
            batch_norm=batch_norm,
        )


class _Combined(CannedEstimator):
    def __init__(
        self,
        *,
        head,
        model_dir,
        linear_feature_columns,
        linear_optimizer,
        dnn_feature_columns,
        dnn_optimizer,
        dnn_hidden_units,
        dnn_activation_fn,
        dnn_dropout,
        config,
        warm_start_from,
        weight_column,
        batch_norm,
        linear_sparse_combiner,
    ):
        super().__init__(head, model_dir, config, warm_start_from, weight_column)
        linear_columns = list(linear_feature_columns or [])
        dnn_columns = list(dnn_feature_columns or [])
        if not linear_columns and not dnn_columns:
            raise ValueError("either linear_feature_columns or dnn_feature_columns must be given")
        if dnn_columns and not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be given when dnn_feature_columns are")
        self.linear_feature_columns, self.dnn_feature_columns = linear_columns, dnn_columns
        units = head.logits_dimension
        linear = (
            LinearPart(linear_columns, units=units, sparse_combiner=linear_sparse_combiner)
            if linear_columns
            else None
        )
        dnn = (
            DNNPart(
                dnn_columns,
                hidden_units=dnn_hidden_units,
                units=units,
                activation_fn=dnn_activation_fn,
                dropout=dnn_dropout,
                batch_norm=batch_norm,
                rng=self._init_rng,
            )
            if dnn_columns
            else None
        )
        self._network = Network(linear, dnn)
        self._parts = []
        if linear is not None:
            lr = linear_learning_rate(len(linear_columns), COMBINED_LINEAR_LEARNING_RATE)
            opt = resolve_optimizer(
                linear_optimizer,
                lambda: core.FtrlOptimizer(lr),
                lr,
                self._global_step,
            )
            self._parts.append(("linear_optimizer", opt, linear.trainable_variables))
        if dnn is not None:
            opt = resolve_optimizer(
                dnn_optimizer,
                lambda: core.AdagradOptimizer(COMBINED_DNN_LEARNING_RATE),
                COMBINED_DNN_LEARNING_RATE,
                self._global_step,
            )
            self._parts.append(("dnn_optimizer", opt, dnn.trainable_variables))


class DNNLinearCombinedClassifier(_Combined):
    """Wide & deep: a linear model and a DNN whose logits add up, for classification.

    Defaults as TF: Ftrl with ``min(0.005, 1/sqrt(n_linear_columns))`` for the linear part,
    Adagrad 0.001 for the DNN part; one global step for both.

    Args:
        model_dir: where checkpoints and TensorBoard event files go (TF's default
            ``None``): ``None`` takes ``config.model_dir``, else a new temporary directory
            (with a warning). Training resumes from the newest checkpoint found there.
        linear_feature_columns: the wide part's columns (TF's default ``None``: no linear
            part); categorical ones get sparse weights.
        linear_optimizer: the wide part's optimizer: a name (``"Ftrl"``, TF's default), a
            dict, an instance or a callable, as for ``LinearClassifier``; a name or ``None``
            gets learning rate ``min(0.005, 1/sqrt(len(linear_feature_columns)))``.
        dnn_feature_columns: the deep part's dense columns (TF's default ``None``: no DNN
            part). At least one of the two column lists must be given.
        dnn_optimizer: the deep part's optimizer (``"Adagrad"``, TF's default); a name or
            ``None`` gets learning rate 0.001.
        dnn_hidden_units: the hidden layers' sizes; required with ``dnn_feature_columns``.
        dnn_activation_fn: the hidden layers' activation, a name (``"relu"``, TF's
            default) or a function, as ``DNNClassifier``'s ``activation_fn``.
        dnn_dropout: the probability of dropping a hidden unit while training (TF's
            default ``None``: no dropout).
        n_classes: number of label classes, at least 2 (TF's default 2). Two classes get
            a logistic head, more a softmax head.
        weight_column: a column name or ``numeric_column`` giving each example's weight in
            the loss and metrics (TF's default ``None``: every example weighs 1).
        label_vocabulary: the label's string values, in class-id order (TF's default
            ``None``: labels are integer class ids in ``[0, n_classes)``).
        config: a :class:`RunConfig`: seed, checkpoint and summary schedules (TF's default
            ``None``: ``RunConfig()``).
        warm_start_from: a checkpoint path, or a :class:`WarmStartSettings`, to initialize
            variables from when ``model_dir`` has no checkpoint yet (TF's default ``None``).
        loss_reduction: how per-example losses become the training loss, one of
            ``cn.core.Reduction`` or TF1's names (``"weighted_sum"``...; see
            ``Reduction.resolve``). TF 2's default ``SUM_OVER_BATCH_SIZE``: the weighted
            sum over the batch size; TF 1's canned estimators used ``"weighted_sum"``.
        batch_norm: batch normalization after each hidden layer of the deep part (TF's
            default ``False``).
        linear_sparse_combiner: how the wide part combines a multivalent column's ids
            (``"sum"``, TF's default, ``"mean"`` or ``"sqrtn"``).
    """

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
        head = _head(n_classes, label_vocabulary, loss_reduction)
        super().__init__(
            head=head,
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            config=config,
            warm_start_from=warm_start_from,
            weight_column=weight_column,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
        )


class DNNLinearCombinedRegressor(_Combined):
    """Wide & deep for regression (see :class:`DNNLinearCombinedClassifier`).

    Args:
        model_dir: where checkpoints and TensorBoard event files go (TF's default
            ``None``): ``None`` takes ``config.model_dir``, else a new temporary directory
            (with a warning). Training resumes from the newest checkpoint found there.
        linear_feature_columns: the wide part's columns (TF's default ``None``: no linear
            part); categorical ones get sparse weights.
        linear_optimizer: the wide part's optimizer: a name (``"Ftrl"``, TF's default), a
            dict, an instance or a callable, as for ``LinearClassifier``; a name or ``None``
            gets learning rate ``min(0.005, 1/sqrt(len(linear_feature_columns)))``.
        dnn_feature_columns: the deep part's dense columns (TF's default ``None``: no DNN
            part). At least one of the two column lists must be given.
        dnn_optimizer: the deep part's optimizer (``"Adagrad"``, TF's default); a name or
            ``None`` gets learning rate 0.001.
        dnn_hidden_units: the hidden layers' sizes; required with ``dnn_feature_columns``.
        dnn_activation_fn: the hidden layers' activation, a name (``"relu"``, TF's
            default) or a function, as ``DNNClassifier``'s ``activation_fn``.
        dnn_dropout: the probability of dropping a hidden unit while training (TF's
            default ``None``: no dropout).
        label_dimension: numbers predicted per example (TF's default 1); the label has as
            many columns.
        weight_column: a column name or ``numeric_column`` giving each example's weight in
            the loss and metrics (TF's default ``None``: every example weighs 1).
        config: a :class:`RunConfig`: seed, checkpoint and summary schedules (TF's default
            ``None``: ``RunConfig()``).
        warm_start_from: a checkpoint path, or a :class:`WarmStartSettings`, to initialize
            variables from when ``model_dir`` has no checkpoint yet (TF's default ``None``).
        loss_reduction: how per-example losses become the training loss, one of
            ``cn.core.Reduction`` or TF1's names (``"weighted_sum"``...; see
            ``Reduction.resolve``). TF 2's default ``SUM_OVER_BATCH_SIZE``: the weighted
            sum over the batch size; TF 1's canned estimators used ``"weighted_sum"``.
        batch_norm: batch normalization after each hidden layer of the deep part (TF's
            default ``False``).
        linear_sparse_combiner: how the wide part combines a multivalent column's ids
            (``"sum"``, TF's default, ``"mean"`` or ``"sqrtn"``).
    """

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
        head = RegressionHead(label_dimension, loss_reduction)
        super().__init__(
            head=head,
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            config=config,
            warm_start_from=warm_start_from,
            weight_column=weight_column,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
        )
