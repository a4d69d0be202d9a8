"""``cn.estimators.export``: TF's ``tf.estimator.export`` names, and colonnade's exports.

The serving input receivers and export outputs of TF's namespace; the export directory
itself (written by ``export_saved_model``, read back by ``cn.load``), its checks, the
serving graph a receiver records, and the exporters of ``train_and_evaluate`` live in
this room's modules.
"""

from ..heads.outputs import ClassificationOutput, PredictOutput, RegressionOutput
from .checks import ExportError
from .directory import Predictor
from .receivers import (
    ServingInputReceiver,
    TensorServingInputReceiver,
    build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn,
)

__all__ = [
    "ClassificationOutput",
    "ExportError",
    "PredictOutput",
    "Predictor",
    "RegressionOutput",
    "ServingInputReceiver",
    "TensorServingInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
]
