"""Custom estimators: ``Estimator(model_fn)``, ``EstimatorSpec`` and ``ModeKeys``.

A ``model_fn(features, labels, mode, params, config)`` (any subset of those argument
names, as TF) is called eagerly once per batch and returns an :class:`EstimatorSpec`.
The estimator keeps one :class:`~colonnade.core.VariableStore` per model and enters it
around each call, so the variables the ``model_fn`` makes (``cn.core.get_variable``,
``cn.layers``, ``cn.feature_columns.input_layer``/``linear_model``) are created on the
first call and reused by name after, and an optimizer made anew in each call keeps its
slots. Training applies the update when the ``model_fn`` calls
``optimizer.minimize(loss, global_step=cn.train.get_global_step())``.

The life cycle is the canned estimators' (:class:`~.estimator.CannedEstimator`): one
training loop, hooks, checkpoints in ``model_dir`` under its lock, resume, the NaN check,
progress, TensorBoard, ``fit``/``evaluate``/``predict`` with DataFrames, and the same
training step, evaluation and predictions, each from one ``EstimatorSpec`` (a canned
estimator's ``model_fn`` is its network plus a head). This module supplies only what
differs: the call of the user's ``model_fn`` in its variable store.

Variables exist only once the ``model_fn`` has run, so before the first batch of a
``train``/``evaluate``/``predict`` that meets a model not built yet for its mode, the
``model_fn`` is called once with ``store.building`` set (``minimize`` then only makes
slots, batch normalization moves nothing) and the checkpoint is restored into what it
made.

>>> import colonnade as cn, numpy as np, tempfile
>>> def model_fn(features, labels, mode):
...     logits = cn.layers.dense(features["x"], 1, kernel_initializer=np.zeros((1, 1)))
...     predictions = {"y": logits}
...     if mode == cn.estimators.ModeKeys.PREDICT:
...         return cn.estimators.EstimatorSpec(mode, predictions=predictions)
...     loss = cn.losses.mean_squared_error(labels, logits)
...     train_op = cn.train.GradientDescentOptimizer(0.1).minimize(
...         loss, global_step=cn.train.get_global_step())
...     return cn.estimators.EstimatorSpec(mode, predictions, loss, train_op)
>>> x = np.array([[1.0], [2.0]], np.float32)
>>> est = cn.estimators.Estimator(model_fn, model_dir=tempfile.mkdtemp())
>>> _ = est.train(lambda: ({"x": x}, 2 * x), steps=200, verbose=0)
>>> [round(float(p["y"][0]), 1) for p in est.predict(lambda: ({"x": x}, None), verbose=0)]
[2.0, 4.0]
>>> est.get_variable_names()
['dense/bias', 'dense/kernel', 'global_step']
"""

from __future__ import annotations

import inspect
import os

import numpy as np
import pyarrow as pa

from .. import core
from ..core.autodiff import value_of
from ..core.checkpoint import SLOT_MARKER
from . import model_fn_export, receivers
from .estimator import CannedEstimator, ModeKeys
from .export import write_export
from .metrics import Metric

MODEL_FN_ARGS = ("features", "labels", "mode", "params", "config")


class EstimatorSpec:
    """What a ``model_fn`` returns, checked as TF does when it is made: TRAIN needs
    ``loss`` and ``train_op``, EVAL ``loss``, PREDICT ``predictions``; ``loss`` is a
    scalar; ``eval_metric_ops`` maps names to ``(value, update_op)`` pairs (of
    ``cn.metrics`` functions) or metric objects (``cn.metrics.AUC()``...).

    >>> EstimatorSpec(ModeKeys.TRAIN, loss=1.0)
    Traceback (most recent call last):
    ...
    ValueError: EstimatorSpec in mode 'train' needs a train_op ...
    """

    def __init__(
        self,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metric_ops=None,
        export_outputs=None,
        training_hooks=None,
        evaluation_hooks=None,
        prediction_hooks=None,
        scaffold=None,
    ):
        if mode not in ModeKeys.ALL:
            raise ValueError(f"EstimatorSpec mode must be one of {ModeKeys.ALL}, got {mode!r}")
        if loss is not None:
            shape = tuple(np.shape(value_of(loss)))
            if shape not in ((), (1,)):
                raise ValueError(
                    f"EstimatorSpec loss must be a scalar, got shape {shape}; reduce it (e.g. "
                    "cn.losses.* reduce by default, or cn.core.mean(losses))"
                )
        if mode == ModeKeys.TRAIN and train_op is None:
            raise ValueError(
                "EstimatorSpec in mode 'train' needs a train_op (the result of "
                "optimizer.minimize(loss, ...))"
            )
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL) and loss is None:
            raise ValueError(f"EstimatorSpec in mode {mode!r} needs a loss")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("EstimatorSpec in mode 'infer' (PREDICT) needs predictions")
        for name, op in (eval_metric_ops or {}).items():
            if not _is_metric_op(op):
                raise TypeError(
                    f"eval_metric_ops[{name!r}] must be a (value, update_op) pair from a "
                    "cn.metrics function or a metric object (cn.metrics.AUC(), ...); got "
                    f"{type(op).__name__}"
                )
        self.mode = mode
        self.predictions = predictions
        self.loss = loss
        self.train_op = train_op
        self.eval_metric_ops = dict(eval_metric_ops or {})
        self.export_outputs = export_outputs
        self.training_hooks = list(training_hooks or [])
        self.evaluation_hooks = list(evaluation_hooks or [])
        self.prediction_hooks = list(prediction_hooks or [])
        self.scaffold = scaffold


def _is_metric_op(op) -> bool:
    if isinstance(op, Metric):
        return True
    return isinstance(op, tuple) and len(op) == 2 and isinstance(op[0], Metric)


def _features_dict(features):
    """What a ``model_fn`` gets as ``features``: a dict of numpy arrays for an Arrow
    batch (list columns stay Arrow arrays, which the feature-column layers read)."""
    if isinstance(features, (pa.RecordBatch, pa.Table)):
        out = {}
        for name, column in zip(features.column_names, features.columns):
            if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
                out[name] = column
            else:
                out[name] = column.to_numpy(zero_copy_only=False)
        return out
    return features


def _labels_array(labels):
    if isinstance(labels, (pa.Array, pa.ChunkedArray)):
        return labels.to_numpy(zero_copy_only=False)
    if isinstance(labels, (pa.RecordBatch, pa.Table)):
        return {
            k: v.to_numpy(zero_copy_only=False) for k, v in zip(labels.column_names, labels.columns)
        }
    return labels


class _NoTransforms:
    """The transforms of a batch for a ``model_fn`` network: none ahead of the step
    (its layers transform what they read when called); cannot be cut into batches."""

    def rows(self, start, stop, features):
        return None


class _ModelFnNetwork:
    """The network seam of the life cycle for a ``model_fn``: its variables live in the
    store; the input pipeline has nothing to transform ahead."""

    def __init__(self, store):
        self.store = store
        self.linear = self.dnn = None

    @property
    def layers(self) -> list:
        return list(self.store.layers().values())

    @property
    def feature_columns(self) -> list:
        return [c for layer in self.layers for c in layer.feature_columns]

    def transform(self, features, previous=None, num_threads=None):
        return _NoTransforms()

    def prepare(self, cache, training):
        return cache

    def checkpoint_children(self):
        return self.store.checkpoint_children()


class Estimator(CannedEstimator):
    """TF's ``tf.estimator.Estimator`` over a ``model_fn`` (see the module).

    ``params`` (a dict) is passed to the ``model_fn``; ``config`` a :class:`RunConfig`;
    ``warm_start_from`` a checkpoint path or ``WarmStartSettings`` (variable names are
    the ``model_fn``'s, e.g. ``dense/kernel``). ``train``, ``evaluate``, ``predict``,
    ``fit``, hooks and checkpoints are the canned estimators'. Training advances the
    global step by one per batch: through ``minimize(..., global_step=...)``, or, when
    the ``model_fn`` does not pass it, by the estimator (TF would loop forever).
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if not callable(model_fn):
            raise TypeError(f"model_fn must be callable, got {type(model_fn).__name__}")
        super().__init__(None, model_dir, config, warm_start_from)
        self._model_fn = model_fn
        self._model_fn_args = _model_fn_args(model_fn)
        self._params = dict(params or {})
        seed = np.random.SeedSequence(self.config.tf_random_seed).spawn(2)[1]
        self._store = core.VariableStore(seed=np.random.default_rng(seed))
        self._store.global_step = self._global_step
        self._network = _ModelFnNetwork(self._store)
        self._parts = []
        self._built_modes = set()
        self._hooks_by_mode = {}  # whether the model_fn's spec brings hooks, by mode

    @property
    def params(self) -> dict:
        """A copy of the ``params`` given to the constructor."""
        return dict(self._params)

    @property
    def model_fn(self):
        """The ``model_fn`` this estimator calls."""
        return self._model_fn

    # ------------------------------------------------------------ the seam

    def _trackables(self) -> dict:
        return {
            "model": self._network,
            "global_step": self._global_step,
            "optimizer": self._store.optimizers,
        }

    def _input_columns(self):
        return None  # the model_fn may read any column

    def _call_model_fn(self, features, labels, mode, cache=None) -> EstimatorSpec:
        kwargs = {
            "features": _features_dict(features),
            "labels": _labels_array(labels),
            "mode": mode,
            "params": self.params,
            "config": self.config,
        }
        with self._store.as_default():
            spec = self._model_fn(**{k: kwargs[k] for k in self._model_fn_args})
        if not isinstance(spec, EstimatorSpec):
            raise TypeError(
                f"model_fn {_fn_name(self._model_fn)} must return an EstimatorSpec, got "
                f"{type(spec).__name__}"
            )
        if spec.mode != mode:
            raise ValueError(
                f"model_fn {_fn_name(self._model_fn)} was called in mode {mode!r} but returned "
                f"an EstimatorSpec of mode {spec.mode!r}"
            )
        return spec

    def _ensure_built(self, features, labels, mode) -> None:
        """Before the first batch of a mode: build what the model_fn makes in it, and
        restore the checkpoint (or warm start) into anything new."""
        if mode not in self._built_modes:
            self._build_call(features, labels, mode)

    def _build_call(self, features, labels, mode) -> EstimatorSpec:
        """Call the model_fn once without training (``store.building``) and restore the
        checkpoint into what it made; its spec."""
        size = len(self._store)
        self._store.building = True
        try:
            with core.no_grad():
                spec = self._call_model_fn(features, labels, mode)
        finally:
            self._store.building = False
        self._built_modes.add(mode)
        if len(self._store) != size:
            self._restore_new_variables()
        return spec

    def _spec_hooks(self, features, labels, mode) -> list:
        """The ``training_hooks``/``evaluation_hooks``/``prediction_hooks`` of the spec
        the model_fn returns for ``mode``: asked once per run, before its first batch, as
        TF builds the graph once (a model_fn whose first spec of a mode brought none is
        not called again for them)."""
        if self._hooks_by_mode.get(mode) is False:
            return []
        spec = self._build_call(features, labels, mode)
        hooks = {
            ModeKeys.TRAIN: spec.training_hooks,
            ModeKeys.EVAL: spec.evaluation_hooks,
            ModeKeys.PREDICT: spec.prediction_hooks,
        }[mode]
        self._hooks_by_mode[mode] = bool(hooks)
        return list(hooks)

    def _restore_new_variables(self) -> None:
        """Give the variables the model_fn just made their values: the checkpoint's, or
        the warm start's."""
        self._holds, self._restored = None, False
        CannedEstimator._restore_or_warm_start(self)

    def _hook_scope(self):
        return self._store.as_default()

    # ------------------------------------------------------------ names and values

    def _model_variables(self) -> dict:
        return self._store.variables()

    def get_variable_names(self) -> list:
        """The variables' names (TF's: ``dense/kernel``, ``global_step``...): of the latest
        checkpoint, else of the model built so far. Optimizer state is not listed."""
        path = self.latest_checkpoint()
        if path is not None:
            return sorted(n for n, _ in core.list_variables(path) if _is_model_variable(n))
        return sorted(list(self._store.variables()) + ["global_step"])

    def get_variable_value(self, name: str):
        """The value of variable ``name``, from the latest checkpoint if there is one."""
        path = self.latest_checkpoint()
        if path is not None:
            if not _is_model_variable(name):
                raise KeyError(
                    f"no variable named {name!r}; the model has {self.get_variable_names()}"
                )
            try:
                return core.load_variable(path, name)
            except (KeyError, ValueError) as e:
                raise KeyError(
                    f"no variable named {name!r}; the model has {self.get_variable_names()}"
                ) from e
        variables = {**self._store.variables(), "global_step": self._global_step}
        if name not in variables:
            raise KeyError(f"no variable named {name!r}; the model has {sorted(variables)}")
        return variables[name].numpy()

    def _column_parts(self) -> list:
        return []

    def __repr__(self) -> str:
        return f"Estimator(model_fn={_fn_name(self._model_fn)}, model_dir={self.model_dir!r})"

    def export_saved_model(
        self,
        export_dir_base,
        serving_input_receiver_fn=None,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
    ) -> str:
        """Write the latest checkpoint's variables (or ``checkpoint_path``'s), the
        ``params`` and the ``model_fn``'s name under ``export_dir_base/<timestamp>``;
        return the path. Load it with ``cn.load(path, model_fns={name: model_fn})``: the
        export holds no code. A ``params`` value that is neither JSON nor a feature column
        is refused, naming it.

        ``serving_input_receiver_fn`` is recorded as a canned estimator's:
        ``build_parsing_serving_input_receiver_fn(feature_spec)`` makes the loaded export
        take serialized ``tf.Example`` records (``predict_examples``); its features are
        what the model_fn is given. ``assets_extra`` and ``as_text`` as
        :meth:`CannedEstimator.export_saved_model`'s."""
        del as_text
        receiver = receivers.resolve_receiver(serving_input_receiver_fn)
        checkpoint = (
            os.fspath(checkpoint_path) if checkpoint_path is not None else self.latest_checkpoint()
        )
        if checkpoint is None:
            raise ValueError(f"Couldn't find trained model at {self.model_dir}.")
        if not core.checkpoint_exists(checkpoint):
            raise ValueError(f"checkpoint_path {checkpoint!r} is not a checkpoint")
        model_fn_export.params_to_json(self.params)  # refuses unsavable params first
        weights = {
            name: core.load_variable(checkpoint, name)
            for name, _ in core.list_variables(checkpoint)
            if _is_model_variable(name) and name != "global_step"
        }
        meta = {"global_step": self._saved_step(checkpoint)}
        if receiver is not None:
            meta["serving_input_receiver"] = receiver.to_json()
        name = _fn_name(self._model_fn)
        return write_export(
            export_dir_base,
            lambda path: model_fn_export.write_model_fn_export(
                path, name, self.params, weights, **meta
            ),
            assets_extra,
        )

    @staticmethod
    def _saved_step(checkpoint) -> int:
        return int(core.load_variable(checkpoint, "global_step"))


def _model_fn_args(model_fn) -> tuple:
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
            f"model_fn {_fn_name(model_fn)} has arguments {unknown} that an Estimator cannot "
            f"pass; it may take any of {list(MODEL_FN_ARGS)}"
        )
    if "features" not in params:
        raise ValueError(f"model_fn {_fn_name(model_fn)} must take a 'features' argument")
    return tuple(n for n in MODEL_FN_ARGS if n in params)


def _is_model_variable(name: str) -> bool:
    """Whether a checkpoint key names a model_fn's variable or the global step, rather than
    optimizer state or the checkpoint's own counter."""
    return SLOT_MARKER not in name and not name.startswith("optimizer/") and name != "save_counter"


def _fn_name(fn) -> str:
    return getattr(fn, "__name__", None) or repr(fn)


__all__ = ["Estimator", "EstimatorSpec", "ModeKeys"]
