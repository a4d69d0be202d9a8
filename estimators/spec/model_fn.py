"""The ``model_fn`` contract: :class:`ModeKeys`, :class:`EstimatorSpec` and the arguments
an estimator passes.

A ``model_fn(features, labels, mode, params, config)`` (any subset of those argument
names, as TF) is called eagerly once per batch and returns an :class:`EstimatorSpec`.
Every estimator is one: a custom ``Estimator(model_fn)`` calls the user's, a canned
estimator passes its network's logits through its head's ``create_estimator_spec``.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from ...core.autodiff import Tensor, value_of
from ...core.backend import to_host
from ...core.checkpoint import SAVE_COUNTER, SLOT_MARKER
from ...data.tensor_slices import is_whole_features, row_shape
from ...feature_columns.transform_cache import BatchFeatures
from ..hooks.runner import SessionRunHook
from .export_output import ClassificationOutput, PredictOutput, RegressionOutput
from .metrics import Metric
from .scaffold import Scaffold, ScaffoldInitHook
from .signature_constants import DEFAULT_SERVING_SIGNATURE_DEF_KEY

MODEL_FN_ARGS = ("features", "labels", "mode", "params", "config")
EXPORT_OUTPUTS = (ClassificationOutput, PredictOutput, RegressionOutput)


class ModeKeys:
    """The three modes a ``model_fn`` is called in (TF's strings)."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"

    ALL = (TRAIN, EVAL, PREDICT)


class EstimatorSpec:
    """What a ``model_fn`` returns, checked as TF does when it is made: TRAIN needs
    ``loss`` and ``train_op``, EVAL ``loss``, PREDICT ``predictions``; ``loss`` is a
    scalar value (an array or a ``cn`` tensor, not a Python number, as TF's Tensor);
    ``predictions`` one value or a dict of them; ``eval_metric_ops`` maps names to
    ``(value, update_op)`` pairs (of ``cn.metrics`` functions) or metric objects
    (``cn.metrics.AUC()``...); ``export_outputs`` maps signature keys to export outputs
    (``cn.estimators.export.PredictOutput``...), one of them ``serving_default`` when
    there are several; one alone also serves as ``serving_default``, and in PREDICT mode
    without any the default is a ``PredictOutput`` of the predictions (TF's).

    >>> EstimatorSpec(ModeKeys.TRAIN, loss=np.float32(1.0))
    Traceback (most recent call last):
    ...
    ValueError: Missing train_op: EstimatorSpec in mode 'train' needs a train_op ...
    """

    def __init__(
        self,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metric_ops=None,
        export_outputs=None,
        training_chief_hooks=None,
        training_hooks=None,
        scaffold=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        if mode not in ModeKeys.ALL:
            raise ValueError(f"EstimatorSpec mode must be one of {ModeKeys.ALL}, got {mode!r}")
        if loss is not None:
            _check_value(loss, "loss")
            shape = tuple(np.shape(value_of(loss)))
            if shape not in ((), (1,)):
                raise ValueError(
                    f"Loss must be scalar: EstimatorSpec loss must be a scalar, got shape {shape}; "
                    "reduce it (e.g. cn.losses.* reduce by default, or cn.core.mean(losses))"
                )
        if mode == ModeKeys.TRAIN and train_op is None:
            raise ValueError(
                "Missing train_op: EstimatorSpec in mode 'train' needs a train_op (the "
                "result of optimizer.minimize(loss, ...))"
            )
        if isinstance(train_op, str):  # bytes stand for TF's string tensors in ports
            raise TypeError(
                "train_op must be Operation or Tensor (the result of optimizer.minimize(...) "
                f"or of a variable's assign), given: {train_op!r:.80}"
            )
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL) and loss is None:
            raise ValueError(f"Missing loss: EstimatorSpec in mode {mode!r} needs a loss")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError(
                "Missing predictions: EstimatorSpec in mode 'infer' (PREDICT) needs predictions"
            )
        _check_predictions(predictions)
        for kind, hooks in (
            ("training_chief_hooks", training_chief_hooks),
            ("training_hooks", training_hooks),
            ("evaluation_hooks", evaluation_hooks),
            ("prediction_hooks", prediction_hooks),
        ):
            for hook in hooks or ():
                if not isinstance(hook, SessionRunHook):
                    raise TypeError(
                        f"All hooks must be SessionRunHook instances, given: {hook!r} in {kind}"
                    )
        check_metric_ops(eval_metric_ops)
        self.mode = mode
        self.predictions = predictions
        self.loss = loss
        self.train_op = train_op
        self.eval_metric_ops = dict(eval_metric_ops or {})
        self.export_outputs = _export_outputs(export_outputs, mode, predictions)
        # whether the model_fn named its signatures (else TF's default: its predictions
        # under serving_default, which an export also serves as "predict")
        self.names_signatures = export_outputs is not None
        self.training_chief_hooks = list(training_chief_hooks or [])
        self.training_hooks = list(training_hooks or [])
        self.evaluation_hooks = list(evaluation_hooks or [])
        self.prediction_hooks = list(prediction_hooks or [])
        if scaffold is not None and not isinstance(scaffold, Scaffold):
            raise TypeError(
                f"scaffold must be tf.train.Scaffold (cn.train.Scaffold). Given: {scaffold!r:.80}"
            )
        self.scaffold = scaffold if scaffold is not None else Scaffold()

    def _replace(self, **changes) -> EstimatorSpec:
        """A copy with some fields changed, checked as a new spec (TF's namedtuple
        ``_replace``); the mode cannot change."""
        if "mode" in changes and changes["mode"] != self.mode:
            raise ValueError(
                f"mode of EstimatorSpec cannot be changed: it is {self.mode!r}, given "
                f"{changes['mode']!r}"
            )
        fields = {name: getattr(self, name) for name in _SPEC_FIELDS}
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise ValueError(f"EstimatorSpec has no fields {unknown}; its fields: {_SPEC_FIELDS}")
        if not self.names_signatures and "export_outputs" not in changes:
            fields["export_outputs"] = None
        fields.update(changes)
        return EstimatorSpec(**fields)

    def hooks(self) -> list:
        """The hooks this spec brings for its own mode (in training, the chief's too: a
        process that trains alone is the chief), in training first the one that calls
        the scaffold's ``init_fn`` when the run starts from scratch."""
        if self.mode == ModeKeys.TRAIN:
            init = [ScaffoldInitHook(self.scaffold)] if self.scaffold.init_fn is not None else []
            return init + self.training_chief_hooks + self.training_hooks
        return list(
            {ModeKeys.EVAL: self.evaluation_hooks, ModeKeys.PREDICT: self.prediction_hooks}[
                self.mode
            ]
        )


_SPEC_FIELDS = (
    "mode",
    "predictions",
    "loss",
    "train_op",
    "eval_metric_ops",
    "export_outputs",
    "training_chief_hooks",
    "training_hooks",
    "scaffold",
    "evaluation_hooks",
    "prediction_hooks",
)


def _check_value(value, what: str) -> None:
    """TF's "must be Tensor": a value of a spec is an array or a tensor, not a Python
    number or string (numpy's scalars are arrays)."""
    if type(value) in (int, float, bool, str, bytes):
        raise TypeError(
            f"{what} must be Tensor (an array or a cn tensor), given: "
            f"{type(value).__name__} {value!r:.80}"
        )


def _check_predictions(predictions) -> None:
    """TF's check: predictions are one Tensor (or array) or a dict of them."""
    if predictions is None:
        return
    if isinstance(predictions, Mapping):
        if isinstance(predictions, dict):  # a lazy mapping is computed when read
            for key, value in predictions.items():
                _check_value(value, f"predictions[{key}]")
        return
    if not (hasattr(predictions, "shape") or isinstance(predictions, (pa.Array, pa.ChunkedArray))):
        raise TypeError(
            "predictions must be Tensor or dict of Tensor (an array, or a dict of arrays), "
            f"given: {type(predictions).__name__} {predictions!r:.80}"
        )


def check_metric_ops(ops, what: str = "eval_metric_ops", key=None) -> None:
    """TF's checks of ``eval_metric_ops`` (or of what ``what``, a ``metric_fn``, returned):
    a dict whose values each pass :func:`is_metric_op`; a ``TypeError`` naming the key
    (as ``key(name)`` words it; default ``what[name]``)."""
    key = key or (lambda name: f"{what}[{name!r}]")
    if ops is None:
        return
    if not isinstance(ops, Mapping):
        raise TypeError(f"{what} must be a dict, given: {type(ops).__name__} {ops!r:.80}")
    for name, op in ops.items():
        if not is_metric_op(op):
            raise TypeError(
                f"Values of {what} must be (metric_value, update_op) tuples: "
                f"{key(name)} must be a (value, update_op) pair (from a "
                "cn.metrics function, or a scalar tensor and its update) or a metric "
                f"object (cn.metrics.AUC(), ...); got {type(op).__name__}"
            )


def _export_outputs(export_outputs, mode, predictions):
    """TF's ``export_outputs`` of a spec: checked; one alone also under
    ``serving_default``; in PREDICT mode without any, a ``PredictOutput`` of the
    predictions."""
    if export_outputs is None:
        if mode != ModeKeys.PREDICT:
            return None
        export_outputs = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(predictions)}
    if not isinstance(export_outputs, Mapping):
        raise TypeError(
            f"export_outputs must be dict, given: {type(export_outputs).__name__} "
            f"{export_outputs!r:.80}"
        )
    for key, output in export_outputs.items():
        if not isinstance(output, EXPORT_OUTPUTS):
            raise TypeError(
                "Values in export_outputs must be ExportOutput objects "
                "(cn.estimators.export.PredictOutput, ClassificationOutput, "
                f"RegressionOutput), given: {type(output).__name__} for {key!r}"
            )
    export_outputs = dict(export_outputs)
    if DEFAULT_SERVING_SIGNATURE_DEF_KEY not in export_outputs:
        if len(export_outputs) != 1:
            raise ValueError(
                f"Multiple export_outputs were provided ({sorted(export_outputs)}), but none "
                "of them is specified as the default: name one "
                f"{DEFAULT_SERVING_SIGNATURE_DEF_KEY!r}"
            )
        export_outputs[DEFAULT_SERVING_SIGNATURE_DEF_KEY] = next(iter(export_outputs.values()))
    return export_outputs


def is_metric_op(op) -> bool:
    """Whether ``op`` is an ``eval_metric_ops`` value: a metric, a ``(metric, update)``
    pair, or TF's other pair ``(value_tensor, update_op)`` whose value is a tensor,
    variable, array or number (see :class:`TensorValue`)."""
    if isinstance(op, Metric):
        return True
    if not (isinstance(op, tuple) and len(op) == 2):
        return False
    return isinstance(op[0], (Metric, Tensor, np.ndarray, np.generic, int, float))


def metric_of(op, name="metric") -> Metric:
    """The metric of an ``eval_metric_ops`` value ``name``."""
    if isinstance(op, Metric):
        return op
    return op[0] if isinstance(op[0], Metric) else TensorValue(name, op[0])


class TensorValue(Metric):
    """An ``eval_metric_ops`` pair ``(value_tensor, update_op)`` of tensors, as TF programs
    write their own metrics: ``update_op`` adds a batch into local variables
    (``get_local_variable``) and ``value_tensor`` reads them. Eagerly the update has run
    by the time the ``model_fn`` returns, so the value of the evaluation's last batch is
    what TF reads once after every update; it must be a scalar."""

    def __init__(self, name, value):
        array = np.asarray(to_host(value_of(value)))
        if array.size != 1:
            raise ValueError(
                f"eval_metric_ops[{name!r}]'s value must be a scalar, got shape {array.shape}"
            )
        self.value = float(array.reshape(()))

    def update(self, *args, **kwargs) -> None:
        raise TypeError("a (value_tensor, update_op) pair's value is read, not updated")

    def merge_state(self, metrics) -> None:
        """Take the newest batch's value (its local variables hold every batch so far)."""
        for other in metrics:
            self.value = other.value

    def result(self) -> float:
        return self.value


def features_dict(features, previous=None):
    """What a ``model_fn`` gets as ``features``: a dict of numpy arrays for an Arrow
    batch. A fixed-size list column (a multi-dimensional feature) is a ``(batch, width)``
    array, or ``(batch, *row shape)`` when the column records one (a serving receiver's
    features: a ``[None, 3, 2]`` placeholder keeps its shape, as TF's tensor does); a
    variable-length list column stays an Arrow ``ListArray`` (TF gives such a feature as
    a ``SparseTensor``): the feature-column layers read it, and
    ``cn.sparse.to_dense`` pads it into an array.

    The dict is a :class:`~colonnade.feature_columns.BatchFeatures`: the feature-column
    layers the ``model_fn`` calls on it share one transform cache for the step, reading
    the batch's Arrow columns (``previous``: the cache of the batch before, see
    :class:`~colonnade.feature_columns.TransformCache`). A batch of
    ``from_tensor_slices`` given one array (not a dict) is that array alone, as TF gives a
    ``model_fn`` the one tensor
    (:func:`~colonnade.data.tensor_slices.is_whole_features`)."""
    if isinstance(features, (pa.RecordBatch, pa.Table)) and is_whole_features(features.schema):
        return feature_array(features.column(0), row_shape(features.schema.field(0)))
    if isinstance(features, (pa.RecordBatch, pa.Table)):
        arrow = {name: one_array(c) for name, c in zip(features.column_names, features.columns)}
        shapes = {field.name: row_shape(field) for field in features.schema}
        values = {name: feature_array(column, shapes[name]) for name, column in arrow.items()}
        return BatchFeatures(values, arrow, previous)
    return features


def one_array(column) -> pa.Array:
    """An Arrow column as one array (a table's chunks combined)."""
    return column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column


def feature_array(column, shape: tuple | None = None):
    """One Arrow column as a ``model_fn`` sees it (see :func:`features_dict`); a
    fixed-size list column with a recorded row ``shape`` (rank 3 or more,
    :func:`~colonnade.data.tensor_slices.row_shape`) in that shape."""
    column = one_array(column)
    kind = column.type
    if pa.types.is_fixed_size_list(kind) and column.null_count == 0:
        values = column.flatten().to_numpy(zero_copy_only=False)
        return values.reshape((len(column), *(shape or (kind.list_size,))))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return column
    return column.to_numpy(zero_copy_only=False)


def labels_array(labels):
    """What a ``model_fn`` gets as ``labels``: numpy arrays for Arrow labels."""
    if isinstance(labels, (pa.Array, pa.ChunkedArray)):
        return labels.to_numpy(zero_copy_only=False)
    if isinstance(labels, (pa.RecordBatch, pa.Table)):
        return {
            k: v.to_numpy(zero_copy_only=False) for k, v in zip(labels.column_names, labels.columns)
        }
    return labels


def model_fn_args(model_fn) -> tuple:
    """The names of ``MODEL_FN_ARGS`` that ``model_fn`` takes; others it requires are an
    error naming them."""
    params = inspect.signature(model_fn).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return MODEL_FN_ARGS
    unknown = [
        n
        for n, p in params.items()
        if n not in MODEL_FN_ARGS
        and p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if unknown:
        raise ValueError(
            f"model_fn {fn_name(model_fn)} has arguments {unknown} that an Estimator cannot "
            f"pass; it may take any of {list(MODEL_FN_ARGS)}"
        )
    if "features" not in params:
        raise ValueError(f"model_fn {fn_name(model_fn)} must take a 'features' argument")
    return tuple(n for n in MODEL_FN_ARGS if n in params)


def is_model_variable(name: str) -> bool:
    """Whether a checkpoint key names a model_fn's variable or the global step, rather than
    optimizer state or the checkpoint's own counter."""
    return SLOT_MARKER not in name and not name.startswith("optimizer/") and name != SAVE_COUNTER


def is_checkpointed_variable(name: str) -> bool:
    """Whether a checkpoint key names one of a model's variables or optimizer slots (as
    TF lists them), rather than the checkpoint's own save counter."""
    return name != SAVE_COUNTER


def fn_name(fn) -> str:
    """A function's name for messages."""
    return getattr(fn, "__name__", None) or repr(fn)


__all__ = ["EstimatorSpec", "ModeKeys", "MODEL_FN_ARGS"]
