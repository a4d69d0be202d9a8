"""The canned estimators: linear, DNN and wide&deep, for classification and regression.

Each is a network over feature columns plus a head (see :mod:`heads`) and TF's default
optimizers. Constructors take ``tf.estimator``'s arguments and defaults.

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

from .. import core
from .. import train as cn_train
from .estimator import CannedEstimator, resolve_optimizer
from .heads import RegressionHead, classification_head
from .networks import DNNPart, LinearPart, Network

# tf.estimator's linear estimators: Ftrl with learning rate min(0.2, 1/sqrt(n_columns))
# (canned/linear.py, _LEARNING_RATE and _compute_default_learning_rate).
LINEAR_LEARNING_RATE = 0.2
# tf.estimator's DNN estimators: Adagrad with learning rate 0.05 (canned/dnn.py).
DNN_LEARNING_RATE = 0.05
# tf.estimator's DNNLinearCombined: Ftrl min(0.005, 1/sqrt(n)) for the linear part and
# Adagrad 0.001 for the DNN part (canned/dnn_linear_combined.py).
COMBINED_LINEAR_LEARNING_RATE = 0.005
COMBINED_DNN_LEARNING_RATE = 0.001


def linear_learning_rate(num_columns: int, cap: float = LINEAR_LEARNING_RATE) -> float:
    """TF's default linear learning rate: ``min(cap, 1 / sqrt(num_columns))``."""
    return min(cap, 1.0 / math.sqrt(max(num_columns, 1)))


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
        linear = LinearPart(columns, head.logits_dimension, sparse_combiner)
        self._network = Network(linear, None)
        lr = linear_learning_rate(len(columns))
        opt = resolve_optimizer(optimizer, lambda: cn_train.FtrlOptimizer(lr), lr)
        self._parts = [("optimizer", opt, linear.trainable_variables)]


class LinearClassifier(_Linear):
    """A linear model over feature columns for 2 or more classes (``tf.estimator``'s).

    Default optimizer: Ftrl with learning rate ``min(0.2, 1/sqrt(len(feature_columns)))``.
    Categorical columns get weight tables trained with sparse updates.
    """

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=core.Reduction.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        head = _head(n_classes, label_vocabulary, loss_reduction)
        super().__init__(
            head,
            feature_columns,
            model_dir,
            _default(optimizer, "Ftrl"),
            config,
            warm_start_from,
            weight_column,
            sparse_combiner,
        )


class LinearRegressor(_Linear):
    """A linear model over feature columns predicting ``label_dimension`` numbers."""

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=core.Reduction.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        head = RegressionHead(label_dimension, loss_reduction)
        super().__init__(
            head,
            feature_columns,
            model_dir,
            _default(optimizer, "Ftrl"),
            config,
            warm_start_from,
            weight_column,
            sparse_combiner,
        )


class _DNN(CannedEstimator):
    def __init__(
        self,
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
            hidden_units,
            head.logits_dimension,
            activation_fn,
            dropout,
            batch_norm,
            self._init_rng,
        )
        self._network = Network(None, dnn)
        opt = resolve_optimizer(
            optimizer, lambda: cn_train.AdagradOptimizer(DNN_LEARNING_RATE), DNN_LEARNING_RATE
        )
        self._parts = [("optimizer", opt, dnn.trainable_variables)]


class DNNClassifier(_DNN):
    """A feed-forward network over dense feature columns for 2 or more classes.

    Default optimizer: Adagrad with learning rate 0.05. ``hidden_units`` lists the layer
    sizes; ``dropout`` is the probability of dropping a unit while training.
    """

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        activation_fn="relu",
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        head = _head(n_classes, label_vocabulary, loss_reduction)
        super().__init__(
            head,
            hidden_units,
            feature_columns,
            model_dir,
            _default(optimizer, "Adagrad"),
            activation_fn,
            dropout,
            config,
            warm_start_from,
            weight_column,
            batch_norm,
        )


class DNNRegressor(_DNN):
    """A feed-forward network over dense feature columns predicting numbers."""

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Adagrad",
        activation_fn="relu",
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        head = RegressionHead(label_dimension, loss_reduction)
        super().__init__(
            head,
            hidden_units,
            feature_columns,
            model_dir,
            _default(optimizer, "Adagrad"),
            activation_fn,
            dropout,
            config,
            warm_start_from,
            weight_column,
            batch_norm,
        )


class _Combined(CannedEstimator):
    def __init__(
        self,
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
        linear_sparse_combiner,
        batch_norm,
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
            LinearPart(linear_columns, units, linear_sparse_combiner) if linear_columns else None
        )
        dnn = (
            DNNPart(
                dnn_columns,
                dnn_hidden_units,
                units,
                dnn_activation_fn,
                dnn_dropout,
                batch_norm,
                self._init_rng,
            )
            if dnn_columns
            else None
        )
        self._network = Network(linear, dnn)
        self._parts = []
        if linear is not None:
            lr = linear_learning_rate(len(linear_columns), COMBINED_LINEAR_LEARNING_RATE)
            opt = resolve_optimizer(
                _default(linear_optimizer, "Ftrl"), lambda: cn_train.FtrlOptimizer(lr), lr
            )
            self._parts.append(("linear_optimizer", opt, linear.trainable_variables))
        if dnn is not None:
            opt = resolve_optimizer(
                _default(dnn_optimizer, "Adagrad"),
                lambda: cn_train.AdagradOptimizer(COMBINED_DNN_LEARNING_RATE),
                COMBINED_DNN_LEARNING_RATE,
            )
            self._parts.append(("dnn_optimizer", opt, dnn.trainable_variables))


class DNNLinearCombinedClassifier(_Combined):
    """Wide & deep: a linear model and a DNN whose logits add up, for classification.

    Defaults as TF: Ftrl with ``min(0.005, 1/sqrt(n_linear_columns))`` for the linear part,
    Adagrad 0.001 for the DNN part; one global step for both.
    """

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn="relu",
        dnn_dropout=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        config=None,
        warm_start_from=None,
        loss_reduction=core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = _head(n_classes, label_vocabulary, loss_reduction)
        super().__init__(
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
            linear_sparse_combiner,
            batch_norm,
        )


class DNNLinearCombinedRegressor(_Combined):
    """Wide & deep for regression (see :class:`DNNLinearCombinedClassifier`)."""

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn="relu",
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        config=None,
        warm_start_from=None,
        loss_reduction=core.Reduction.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        head = RegressionHead(label_dimension, loss_reduction)
        super().__init__(
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
            linear_sparse_combiner,
            batch_norm,
        )


def _default(optimizer, name):
    """TF's canned estimators take the optimizer's name as the default; a name means
    that optimizer at the estimator's default learning rate."""
    return None if optimizer == name else optimizer
