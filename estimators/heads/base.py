"""What every head shares (TF's ``base_head.Head``), computed eagerly.

A head turns a batch's logits into everything an :class:`EstimatorSpec` holds: the
predictions, the weighted and reduced training loss, the evaluation metrics with TF's
keys, the training update (``optimizer.minimize`` on the recorded loss, or
``train_op_fn(loss)``) and the export outputs. A head is configuration only (a frozen
dataclass); all state lives in the metric objects it makes. Subclasses (see
:mod:`.classification`, :mod:`.multi_label`, :mod:`.regression`) supply the label
processing, the per-example loss, the prediction dict and their metrics. What a head
checks of its arguments and of a batch is in :mod:`.checks`; the export outputs it names
are TF's (:mod:`.outputs`).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

import numpy as np

from ... import core
from ...core import losses as core_losses
from ...core.autodiff import as_tensor
from ..inputs.input_fn import feature_column_of
from ..spec import metrics as m
from ..spec.model_fn import EstimatorSpec
from ..spec.signature_constants import DEFAULT_SERVING_SIGNATURE_DEF_KEY
from .checks import (
    check_loss_fn,
    check_reduction,
    check_weight_values,
    example_weights,
    fixed_width_labels,
    host,
    logits_array,
    rows_of,
    weight_key,
)

TRAIN, EVAL, PREDICT = "train", "eval", "infer"  # ModeKeys' values
SERVING_KEY = DEFAULT_SERVING_SIGNATURE_DEF_KEY


def sigmoid(logits):
    """The logistic of ``logits`` (clipped to +-80 so that ``exp`` does not overflow)."""
    return 1 / (1 + np.exp(-np.clip(logits, -80, 80)))


def threshold_metrics(thresholds) -> dict:
    """TF's metrics at each of a head's ``thresholds``: ``accuracy``, ``precision`` and
    ``recall`` keyed ``.../positive_threshold_<t>``."""
    kinds = (("accuracy", m.Accuracy), ("precision", m.Precision), ("recall", m.Recall))
    return {f"{kind}/positive_threshold_{t:g}": new() for t in thresholds for kind, new in kinds}


def update_threshold_metrics(metrics, thresholds, labels, scores, weights) -> None:
    """Feed one batch to the :func:`threshold_metrics` in ``metrics``: a score above a
    threshold predicts class 1."""
    for t in thresholds:
        above = (scores > t).astype(np.float32)
        for kind in ("accuracy", "precision", "recall"):
            metrics[f"{kind}/positive_threshold_{t:g}"].update(labels, above, weights)


class AccuracyBaseline(m.Mean):
    """TF's ``accuracy_baseline``: the accuracy of always predicting the majority class,
    ``max(mean label, 1 - mean label)`` over the weighted labels seen."""

    def result(self) -> float:
        mean = super().result()
        return max(mean, 1.0 - mean)


class LazyPredictions(Mapping):
    """A prediction dict computed on first read: a TRAIN spec's predictions, which a
    training step itself never needs (TF computes a graph's predictions only if
    fetched)."""

    def __init__(self, compute):
        self._compute, self._values = compute, None

    def _dict(self) -> dict:
        if self._values is None:
            self._values = self._compute()
        return self._values

    def __getitem__(self, key):
        return self._dict()[key]

    def __iter__(self):
        return iter(self._dict())

    def __len__(self) -> int:
        return len(self._dict())


class ClassNames:
    """What a head over ``n_classes`` classes says of them: one logit each, named by
    ``label_vocabulary`` or by their ids."""

    @property
    def logits_dimension(self) -> int:
        return self.n_classes

    @property
    def class_names(self):
        return tuple(self.label_vocabulary or [str(i) for i in range(self.n_classes)])


class Head:
    """TF's ``Head`` interface. Subclasses are frozen dataclasses with the fields
    ``weight_column``, ``loss_reduction``, ``loss_fn`` and ``name``, and supply
    ``logits_dimension``, ``prediction_keys``, ``label_array``, ``_unreduced_loss``,
    ``_predictions``, ``_new_metrics``, ``_update_head_metrics`` and ``_export_outputs``.
    """

    prediction_keys: tuple = ()
    """The keys of the dict ``predictions`` returns, in its order: what ``predict_keys``
    may select (TF's ``PredictionKeys`` for this head)."""

    expected_loss_dim = 1
    """The width of the per-example loss a ``loss_fn`` must return (TF's)."""

    per_value_weights = False
    """Whether weights may also have one value per logit (TF's regression heads)."""

    label_width = 1
    """The number of values per example labels have (``None``: the head checks)."""

    def __post_init__(self):
        """Resolve ``loss_reduction`` (TF1's strings accepted, ``none`` refused) and
        ``weight_column`` (a name or a ``numeric_column``, whose ``normalizer_fn`` the
        weights go through, as TF's) to what every head keeps; check ``loss_fn``."""
        object.__setattr__(self, "loss_reduction", check_reduction(self.loss_reduction))
        column = self.weight_column
        object.__setattr__(self, "weight_column", weight_key(column))
        object.__setattr__(self, "weight_normalizer", getattr(column, "normalizer_fn", None))
        check_loss_fn(self.loss_fn)

    def _key(self, key: str) -> str:
        """A metric key with the head's ``name`` as suffix (TF's ``auc/name``)."""
        return key if not self.name else f"{key}/{self.name}"

    # ------------------------------------------------------------------ predictions

    def predictions(self, logits, keys=None) -> dict:
        """The prediction dict of a batch of logits: the :attr:`prediction_keys`
        entries (or those of ``keys``), in that order, as host arrays."""
        logits = self._checked_logits(host(logits_array(logits)))
        if logits.dtype.kind != "f":
            logits = logits.astype(np.float32)  # TF casts integer logits to float32
        wanted = self.prediction_keys if keys is None else tuple(keys)
        unknown = [k for k in wanted if k not in self.prediction_keys]
        if unknown:
            raise ValueError(
                f"Prediction key must be in PredictionKeys, given: {unknown[0]}; this head's "
                f"keys are {list(self.prediction_keys)}"
            )
        values = self._predictions(logits)
        return {k: values[k] for k in self.prediction_keys if k in wanted}

    def _checked_logits(self, logits):
        shape = tuple(np.shape(logits))
        if len(shape) != 2 or shape[1] != self.logits_dimension:
            raise ValueError(
                f"logits shape must be (batch, {self.logits_dimension}) for "
                f"{type(self).__name__}, got {shape}"
            )
        return logits

    def _batch(self, logits, labels, features):
        """``(logits, processed labels, weights)`` of one batch, checked, as rows: TF's
        ``[D0, ..., DN, dim]`` logits (and their labels and weights) become
        ``D0 * ... * DN`` rows."""
        if labels is None:
            raise ValueError(
                f"You must provide a labels Tensor. Given: None. {type(self).__name__} needs "
                "labels: have the input_fn yield (features, labels)"
            )
        logits = as_tensor(logits_array(logits))
        shape = tuple(logits.shape)
        weights = self.weights(features)
        labels = fixed_width_labels(labels)
        if len(shape) > 2 and shape[-1] == self.logits_dimension:
            labels = rows_of(shape, labels, "labels")
            weights = None if weights is None else rows_of(shape, weights, "weights")
            logits = core.reshape(logits, (-1, shape[-1]))
        self._checked_logits(logits.value)
        self._check_label_width(labels)
        label_array = self.label_array(labels)
        if label_array.shape[0] != logits.shape[0]:
            raise ValueError(
                f"labels shape {tuple(np.shape(labels))} does not match logits shape {shape}: "
                "one row of labels per row of logits"
            )
        width = self.logits_dimension if self.per_value_weights else 1
        return logits, label_array, example_weights(weights, logits.shape[0], width)

    def _check_label_width(self, labels):
        try:
            shape = np.shape(labels)
        except ValueError:  # ragged lists: the head's label_array checks them
            return
        if self.label_width is not None and len(shape) == 2 and shape[1] != self.label_width:
            raise ValueError(
                f"Mismatched label shape. Expected labels dimension={self.label_width}. "
                f"Received {shape[1]}. {type(self).__name__} labels have shape "
                f"(batch, {self.label_width}); got {tuple(shape)}"
            )

    # ------------------------------------------------------------------ loss

    def weights(self, features, batch: int | None = None):
        """The batch's example weights, ``features[weight_column]`` (through the
        ``numeric_column``'s ``normalizer_fn``, if it has one) as float32, or ``None``
        without a ``weight_column``; a missing column is a ``KeyError`` naming it and the
        columns there are."""
        key = self.weight_column
        if key is None:
            return None
        if features is None:
            raise ValueError(f"weight_column {key!r} needs the features, got None")
        weights = feature_column_of(features, key).astype(np.float32)
        if self.weight_normalizer is not None:
            weights = host(self.weight_normalizer(weights)).astype(np.float32)
        check_weight_values(weights, key)
        return weights

    def unreduced_loss(self, labels, logits):
        """The per-example loss, ``(batch, expected_loss_dim)``, of processed labels
        (``label_array``): the head's own, or ``loss_fn``'s."""
        if self.loss_fn is None:
            return self._unreduced_loss(labels, logits)
        return self._call_loss_fn(labels, logits, None)

    def _call_loss_fn(self, labels, logits, features):
        params = inspect.signature(self.loss_fn).parameters
        kwargs = {"labels": labels, "logits": logits}
        if "features" in params:
            kwargs["features"] = features
        loss = as_tensor(self.loss_fn(**kwargs))
        expected = (logits.shape[0], self.expected_loss_dim)
        if loss.shape != expected:
            raise ValueError(
                f"loss_fn {getattr(self.loss_fn, '__name__', self.loss_fn)!r} must return the "
                f"per-example loss of shape {expected}; logits_shape: {tuple(logits.shape)}, "
                f"loss_shape: {tuple(loss.shape)}"
            )
        return loss

    def training_loss(self, labels, logits, weights=None, features=None):
        """``(training loss, unreduced loss)`` of a batch: the per-example loss of
        processed ``labels``, weighted by ``weights`` and reduced by ``loss_reduction``."""
        if self.loss_fn is None:
            unreduced = self._unreduced_loss(labels, logits)
        else:
            unreduced = self._call_loss_fn(labels, as_tensor(logits), features)
        w = example_weights(weights, logits.shape[0], unreduced.shape[1])
        reduced = core_losses.compute_weighted_loss(unreduced, w, reduction=self.loss_reduction)
        return reduced, unreduced

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """TF's ``Head.loss``: the scalar training loss of raw ``labels`` (weights from
        ``features[weight_column]``), plus the sum of ``regularization_losses``."""
        logits, label_array, weights = self._batch(logits, labels, features)
        loss = self.training_loss(label_array, logits, weights, features)[0]
        return _regularized(loss, regularization_losses)

    # ------------------------------------------------------------------ metrics

    def metrics(self, regularization_losses=None) -> dict:
        """Fresh metric objects by TF's key (suffixed ``/name`` for a named head):
        ``average_loss`` and the head's own, ``regularization_loss`` when there are
        regularization losses."""
        out = {self._key("average_loss"): m.Mean()}
        out.update({self._key(k): v for k, v in self._new_metrics().items()})
        if regularization_losses is not None:
            out[self._key("regularization_loss")] = m.Mean()
        return out

    def update_metrics(
        self, eval_metrics, features, logits, labels, regularization_losses=None
    ) -> dict:
        """Feed one batch to ``eval_metrics`` (from :meth:`metrics`); returns them."""
        logits, label_array, weights = self._batch(logits, labels, features)
        unreduced = self.training_loss(label_array, logits, weights, features)[1]
        self._update_metrics(
            eval_metrics,
            label_array,
            self.predictions(logits),
            host(unreduced),
            weights,
            regularization_losses,
        )
        return eval_metrics

    def _update_metrics(self, metrics, labels, predictions, unreduced, weights, reg_losses):
        w = None if weights is None else np.asarray(weights)
        if w is not None and w.ndim == 2 and w.shape[1] == 1:
            w = w.reshape(-1)
        metrics[self._key("average_loss")].update(unreduced, w)
        if reg_losses is not None:
            total = sum(float(host(r).reshape(())) for r in reg_losses)
            metrics[self._key("regularization_loss")].update(np.array([total]))
        own = {k: metrics[self._key(k)] for k in self._new_metrics()}
        self._update_head_metrics(own, labels, predictions, w)

    # ------------------------------------------------------------------ spec

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        trainable_variables=None,
        train_op_fn=None,
        update_ops=None,
        regularization_losses=None,
    ):
        """TF's ``Head.create_estimator_spec``: the :class:`EstimatorSpec` of one batch.

        PREDICT: the predictions and ``export_outputs``. EVAL: also the loss and
        ``eval_metric_ops`` (this head's metrics of the batch, which an evaluation
        merges). TRAIN: the loss and the update: ``optimizer.minimize(loss,
        var_list=trainable_variables, global_step=cn.train.get_global_step())`` (the
        variables default to the model_fn's trainable ones), or ``train_op_fn(loss)``;
        callables in ``update_ops`` are called after it (eagerly, other update ops have
        already run). ``regularization_losses`` are added to the training loss.
        """
        logits = as_tensor(logits_array(logits))
        if mode == PREDICT:
            self._checked_logits(logits.value)
            predictions = self.predictions(logits)
            return EstimatorSpec(
                mode, predictions=predictions, export_outputs=self._export_outputs(predictions)
            )
        if mode not in (TRAIN, EVAL):
            raise ValueError(f"mode must be one of {(TRAIN, EVAL, PREDICT)}, got {mode!r}")
        logits, label_array, weights = self._batch(logits, labels, features)
        loss, unreduced = self.training_loss(label_array, logits, weights, features)
        loss = _regularized(loss, regularization_losses)
        if mode == EVAL:
            predictions = self.predictions(logits)
            metrics = self.metrics(regularization_losses)
            self._update_metrics(
                metrics, label_array, predictions, host(unreduced), weights, regularization_losses
            )
            return EstimatorSpec(mode, predictions, loss, eval_metric_ops=metrics)
        self._record_training_summaries(loss, regularization_losses)
        train_op = self._train_op(loss, optimizer, trainable_variables, train_op_fn, update_ops)
        predictions = LazyPredictions(lambda: self.predictions(logits))
        return EstimatorSpec(mode, predictions, loss, train_op)

    def _record_training_summaries(self, loss, regularization_losses) -> None:
        """TF's ``create_estimator_spec_summary``, while a ``model_fn`` call records: the
        regularized loss as ``loss/<head name>`` (an unnamed head's is the estimator's own
        ``loss``) and the summed ``regularization_losses`` as ``regularization_loss`` (with
        the name as suffix)."""
        if self.name:
            core.summaries.scalar(self._key("loss"), loss)
        if regularization_losses is not None:
            total = _regularized(0.0, regularization_losses)
            core.summaries.scalar(self._key("regularization_loss"), total)

    @staticmethod
    def _train_op(loss, optimizer, trainable_variables, train_op_fn, update_ops):
        if optimizer is not None and train_op_fn is not None:
            raise ValueError("create_estimator_spec takes optimizer or train_op_fn, not both")
        if optimizer is not None:
            if not hasattr(optimizer, "minimize"):
                raise TypeError(
                    "optimizer must be an optimizer (with minimize), got "
                    f"{type(optimizer).__name__}"
                )
            train_op = optimizer.minimize(
                loss, var_list=trainable_variables, global_step=core.get_global_step()
            )
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError(
                "create_estimator_spec in mode 'train' needs an optimizer or a train_op_fn"
            )
        for op in update_ops or ():
            if callable(op):
                op()
        return loss if train_op is None else train_op

    # ------------------------------------------------------------------ export

    def export_fields(self) -> dict:
        """The fields a canned estimator's export records for this head."""
        raise ValueError(f"a {type(self).__name__} cannot be recorded in a canned export")


def _regularized(loss, regularization_losses):
    """``loss`` plus the sum of ``regularization_losses`` (each a scalar)."""
    for reg in regularization_losses or ():
        loss = core.add(loss, reg)
    return loss
