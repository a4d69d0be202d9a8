"""TF's export outputs as the heads name them; they live with ``EstimatorSpec``
(:mod:`..spec.export_output`), which checks a spec's ``export_outputs`` and makes its
default as TF's does."""

from ..spec.export_output import ClassificationOutput, PredictOutput, RegressionOutput

__all__ = ["ClassificationOutput", "PredictOutput", "RegressionOutput"]
