"""Regression heads (TF's ``RegressionHead``, ``PoissonRegressionHead`` and
``LogisticRegressionHead``): numbers per example, an optional inverse link from logits
to predicted values, squared error or a link-specific loss."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...core import Reduction, ops
from ...core import losses as core_losses
from ...core.autodiff import as_tensor, value_of
from ..spec import metrics as m
from .base import SERVING_KEY, Head, sigmoid
from .checks import LabelTypeError, host, refuse_non_finite
from .outputs import PredictOutput, RegressionOutput


@dataclass(frozen=True)
class RegressionHead(Head):
    """Squared error on ``label_dimension`` outputs (TF's ``RegressionHead``);
    ``inverse_link_fn``, a function of an array, maps logits to the predictions. Its
    metrics are TF's (``average_loss``, ``label/mean``, ``prediction/mean``) plus, with
    ``report_rmse`` (the canned regressors'; not TF's ``regression_head``), ``rmse``."""

    label_dimension: int = 1
    loss_reduction: str = Reduction.SUM_OVER_BATCH_SIZE
    weight_column: str | None = None
    loss_fn: object = None
    inverse_link_fn: object = None
    name: str | None = None
    report_rmse: bool = True

    def __post_init__(self):
        super().__post_init__()
        if not isinstance(self.label_dimension, int) or self.label_dimension < 1:
            raise ValueError(
                f"Invalid label_dimension {self.label_dimension!r}: it must be an integer >= 1"
            )

    per_value_weights = True

    @property
    def label_width(self) -> int:
        return self.label_dimension

    @property
    def logits_dimension(self) -> int:
        return self.label_dimension

    @property
    def expected_loss_dim(self) -> int:
        return self.label_dimension

    @property
    def prediction_keys(self) -> tuple:
        return ("predictions", "logits") if self.inverse_link_fn is not None else ("predictions",)

    def label_array(self, labels):
        labels = np.asarray(labels)
        if labels.dtype.kind not in "iufb":
            raise LabelTypeError(f"regression labels must be numbers, got dtype {labels.dtype}")
        if labels.ndim > 2:
            raise ValueError(
                f"labels shape must be [D0, D1, ... DN, {self.label_dimension}] for logits of "
                f"shape [D0, D1, ... DN, {self.label_dimension}]; got labels of shape "
                f"{labels.shape} for (batch, {self.label_dimension}) logits"
            )
        labels = labels.astype(np.float32).reshape(len(labels), -1)
        refuse_non_finite(labels, "regression labels", "missing label")
        if labels.shape[1] != self.label_dimension:
            raise ValueError(
                f"labels have {labels.shape[1]} values per example but label_dimension is "
                f"{self.label_dimension}"
            )
        return labels

    def _unreduced_loss(self, labels, logits):
        return ops.square(ops.subtract(logits, labels))

    def _predicted(self, logits):
        if self.inverse_link_fn is None:
            return logits
        return host(self.inverse_link_fn(logits)).astype(logits.dtype, copy=False)

    def _predictions(self, logits) -> dict:
        out = {"predictions": self._predicted(logits)}
        if self.inverse_link_fn is not None:
            out["logits"] = logits
        return out

    def _new_metrics(self) -> dict:
        out = {"label/mean": m.Mean(), "prediction/mean": m.Mean()}
        if self.report_rmse:
            out["rmse"] = m.RootMeanSquaredError()
        return out

    def _update_head_metrics(self, metrics, labels, predictions, w):
        metrics["label/mean"].update(labels, w)
        metrics["prediction/mean"].update(predictions["predictions"], w)
        if self.report_rmse:
            metrics["rmse"].update(labels, predictions["predictions"], w)

    def _export_outputs(self, predictions) -> dict:
        value = RegressionOutput(predictions["predictions"])
        return {SERVING_KEY: value, "regression": value, "predict": PredictOutput(predictions)}

    def export_fields(self) -> dict:
        if self.inverse_link_fn is not None or self.loss_fn is not None:
            raise ValueError(
                "a regression head with a loss_fn or inverse_link_fn cannot be exported"
            )
        return {"label_dimension": self.label_dimension, "loss_reduction": self.loss_reduction}


def log_poisson_loss(labels, log_rates, compute_full_loss=True):
    """``tf.nn.log_poisson_loss``: ``exp(c) - z c`` for log-rate ``c`` and count ``z``,
    plus, with ``compute_full_loss``, Stirling's ``z log z - z + log(2 pi z) / 2`` where
    ``z > 1`` (a constant in the weights: it changes the loss, not its gradient)."""
    log_rates = as_tensor(log_rates)
    z = np.asarray(value_of(labels), dtype=np.float32)
    loss = ops.subtract(ops.exp(log_rates), ops.multiply(log_rates, z))
    if compute_full_loss:
        safe = np.where(z > 1, z, 1.0)
        stirling = safe * np.log(safe) - safe + 0.5 * np.log(2 * math.pi * safe)
        loss = ops.add(loss, np.where(z > 1, stirling, 0.0).astype(np.float32))
    return loss


@dataclass(frozen=True)
class PoissonRegressionHead(RegressionHead):
    """Poisson regression (TF's ``PoissonRegressionHead``): logits are log-rates, the
    predictions ``exp(logits)``, the loss :func:`log_poisson_loss`; labels are counts."""

    compute_full_loss: bool = True

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "inverse_link_fn", np.exp)

    def label_array(self, labels):
        labels = super().label_array(labels)
        if (labels < 0).any():
            raise ValueError(
                f"PoissonRegressionHead labels are counts, >= 0; got a minimum of {labels.min()}"
            )
        return labels

    def _unreduced_loss(self, labels, logits):
        return log_poisson_loss(labels, logits, self.compute_full_loss)


@dataclass(frozen=True)
class LogisticRegressionHead(RegressionHead):
    """Logistic regression on probabilities (TF's ``LogisticRegressionHead``): labels in
    [0, 1], predictions ``sigmoid(logits)``, the loss sigmoid cross-entropy."""

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "inverse_link_fn", sigmoid)
        if self.label_dimension != 1:
            raise ValueError(f"a logistic regression head has 1 output, got {self.label_dimension}")

    def label_array(self, labels):
        labels = super().label_array(labels)
        if ((labels < 0) | (labels > 1)).any():
            raise ValueError(
                "Labels must be in range [0, 1]: LogisticRegressionHead labels are "
                f"probabilities; got values from "
                f"{labels.min()} to {labels.max()}"
            )
        return labels

    def _unreduced_loss(self, labels, logits):
        return core_losses.sigmoid_cross_entropy_with_logits(labels, logits)
