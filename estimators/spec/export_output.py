"""TF's export outputs (``tf.estimator.export.ClassificationOutput``,
``RegressionOutput``, ``PredictOutput``): what a head's ``export_outputs`` name under each
signature key, and what an export's signatures serve. ``EstimatorSpec`` checks that a
spec's ``export_outputs`` are these, and in PREDICT mode without them makes TF's default
(a :class:`PredictOutput` of the predictions under ``serving_default``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClassificationOutput:
    """TF's ``tf.estimator.export.ClassificationOutput``: ``scores`` (the class
    probabilities) and ``classes`` (the class names, as strings)."""

    scores: object = None
    classes: object = None

    @property
    def outputs(self) -> dict:
        return {
            k: v for k, v in (("scores", self.scores), ("classes", self.classes)) if v is not None
        }


@dataclass(frozen=True)
class RegressionOutput:
    """TF's ``tf.estimator.export.RegressionOutput``: one predicted ``value`` per example."""

    value: object

    @property
    def outputs(self) -> dict:
        return {"value": self.value}


@dataclass(frozen=True)
class PredictOutput:
    """TF's ``tf.estimator.export.PredictOutput``: a dict of named outputs."""

    outputs: dict
