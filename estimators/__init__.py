"""colonnade.estimators: the ``tf.estimator`` canned models, with Keras-style ``fit`` too.

Linear, DNN and wide&deep classifiers and regressors over feature columns; TF-style
``train(input_fn) / evaluate / predict`` and Keras-style ``fit(data, label=...)``;
checkpoints in ``model_dir``, warm start, hooks (TF's signatures) and callbacks;
``train_and_evaluate`` with exporters. Custom models:
``Estimator(model_fn)`` with ``EstimatorSpec`` and TF's heads (``binary_classification_head``,
``multi_class_head``, ``multi_label_head``, ``regression_head``, ``poisson_regression_head``,
``logistic_regression_head``), which the canned estimators are built on too.
"""

from ..core.warm_start import VocabInfo
from . import export, inputs
from .callbacks import Callback, CSVLogger, EarlyStopping, ModelCheckpoint
from .canned import (
    DNNClassifier,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearRegressor,
)
from .estimator import Estimator
from .export import Predictor
from .export_checks import ExportError
from .exporters import BestExporter, Exporter, FinalExporter, LatestExporter
from .extenders import forward_features
from .heads import (
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
from .hook_runner import (
    CheckpointSaverListener,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)
from .hooks import (
    CheckpointSaverHook,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    NonFiniteStateError,
    SecondOrStepTimer,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from .keras_fit import History
from .loading import load
from .model_fn import EstimatorSpec, ModeKeys
from .receivers import (
    ParsingServingInputReceiver,
    RawServingInputReceiver,
    ServingInputReceiver,
    TensorServingInputReceiver,
    build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn,
)
from .run_config import RunConfig, WarmStartSettings
from .tabular import TabularClassifier, TabularRegressor
from .training import EvalSpec, TrainSpec, add_metrics, train_and_evaluate

__all__ = [name for name in dir() if not name.startswith("_")]
