"""colonnade.estimators: the ``tf.estimator`` canned models, with Keras-style ``fit`` too.

Linear, DNN, wide&deep and Baseline classifiers and regressors over feature columns; TF-style
``train(input_fn) / evaluate / predict`` and Keras-style ``fit(data, label=...)``;
checkpoints in ``model_dir``, warm start, hooks (TF's signatures) and callbacks;
``train_and_evaluate`` with exporters. Custom models:
``Estimator(model_fn)`` with ``EstimatorSpec`` and TF's heads (``binary_classification_head``,
``multi_class_head``, ``multi_label_head``, ``regression_head``, ``poisson_regression_head``,
``logistic_regression_head``), which the canned estimators are built on too.
"""

from ..core.warm_start import VocabInfo
from . import experimental, export, inputs  # TF's namespaces tf.estimator.experimental, ...
from .canned.baseline import BaselineClassifier, BaselineEstimator, BaselineRegressor
from .canned.estimators import (
    DNNClassifier,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearRegressor,
)
from .export.checks import ExportError
from .export.directory import Predictor
from .export.exporters import BestExporter, Exporter, FinalExporter, LatestExporter
from .export.extenders import forward_features
from .export.receivers import (
    ParsingServingInputReceiver,
    RawServingInputReceiver,
    ServingInputReceiver,
    TensorServingInputReceiver,
    build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn,
)
from .heads.classification import (
    BinaryClassHead,
    ClassificationOutput,
    LogisticRegressionHead,
    MultiClassHead,
    MultiLabelHead,
    PoissonRegressionHead,
    PredictOutput,
    RegressionHead,
    RegressionOutput,
    binary_classification_head,
    logistic_regression_head,
    multi_class_head,
    multi_label_head,
    poisson_regression_head,
    regression_head,
)
from .hooks.basic import (
    CheckpointSaverHook,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    NonFiniteStateError,
    ProfilerHook,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from .hooks.runner import (
    CheckpointSaverListener,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from .loading import load
from .runtime.callbacks import Callback, CSVLogger, EarlyStopping, ModelCheckpoint
from .runtime.estimator import Estimator
from .runtime.keras_fit import History
from .runtime.run_config import RunConfig, WarmStartSettings
from .runtime.training import EvalSpec, TrainSpec, add_metrics, train_and_evaluate
from .spec.model_fn import EstimatorSpec, ModeKeys
from .tabular.models import TabularClassifier, TabularRegressor

__all__ = [
    "add_metrics",
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BestExporter",
    "binary_classification_head",
    "BinaryClassHead",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
    "Callback",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "ClassificationOutput",
    "CSVLogger",
    "DNNClassifier",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "EarlyStopping",
    "Estimator",
    "EstimatorSpec",
    "EvalSpec",
    "Exporter",
    "ExportError",
    "FeedFnHook",
    "FinalExporter",
    "FinalOpsHook",
    "forward_features",
    "GlobalStepWaiterHook",
    "History",
    "LatestExporter",
    "LinearClassifier",
    "LinearRegressor",
    "load",
    "LoggingTensorHook",
    "logistic_regression_head",
    "LogisticRegressionHead",
    "ModeKeys",
    "ModelCheckpoint",
    "multi_class_head",
    "multi_label_head",
    "MultiClassHead",
    "MultiLabelHead",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "NonFiniteStateError",
    "ParsingServingInputReceiver",
    "poisson_regression_head",
    "PoissonRegressionHead",
    "Predictor",
    "PredictOutput",
    "RawServingInputReceiver",
    "regression_head",
    "RegressionHead",
    "RegressionOutput",
    "ProfilerHook",
    "RunConfig",
    "SecondOrStepTimer",
    "ServingInputReceiver",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "TabularClassifier",
    "TabularRegressor",
    "TensorServingInputReceiver",
    "train_and_evaluate",
    "TrainSpec",
    "VocabInfo",
    "WarmStartSettings",
]
