"""``train_and_evaluate``: TF's training with evaluation on new checkpoints, one process.

As TF's local (non-distributed) mode: ``estimator.train`` runs once over
``TrainSpec.input_fn``, and each checkpoint it saves (``RunConfig.save_checkpoints_steps``
or ``save_checkpoints_secs``) is evaluated with ``EvalSpec.input_fn`` from a
checkpoint-saver listener, between two training steps, when

* ``EvalSpec.start_delay_secs`` have passed since training started (TF's evaluator
  waits them; its local mode does not: set ``start_delay_secs=0`` for that), and
* ``EvalSpec.throttle_secs`` have passed since the previous evaluation started;

the last checkpoint is always evaluated. After each evaluation the ``EvalSpec``'s
exporters run (:mod:`..export.exporters`), under ``model_dir/export/<exporter name>``. The
evaluations write to ``model_dir/eval`` (``eval_<name>`` for a named ``EvalSpec``).

It returns TF 2.15's ``(eval_result, export_results)``: the last evaluation's metrics
and the list of what each exporter returned then (``(None, None)`` when nothing was
trained: ``max_steps`` was already reached).

``add_metrics(estimator, metric_fn)`` returns the estimator with ``metric_fn``'s metrics
added to its evaluations (TF's ``tf.estimator.add_metrics``).
"""

from __future__ import annotations

import collections
import copy
import inspect
import logging
import os
import time
from collections.abc import Mapping

from ... import data as cn_data
from ..export.exporters import Exporter
from ..hooks.runner import CheckpointSaverListener, SessionRunHook
from ..spec.model_fn import ModeKeys, check_metric_ops, features_dict, labels_array
from .inference import host

logger = logging.getLogger("colonnade")

__all__ = ["EvalSpec", "TrainSpec", "add_metrics", "train_and_evaluate"]


def _now() -> float:
    """The clock of the evaluation throttle (seconds, monotonic); tests replace it."""
    return time.monotonic()


def _check_input_fn(input_fn, spec: str):
    if not (callable(input_fn) or isinstance(input_fn, cn_data.Dataset)):
        raise TypeError(
            f"{spec}: input_fn must be callable (or a cn.data.Dataset), given: {input_fn!r:.100}"
        )


def _check_hooks(hooks, spec: str) -> tuple:
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"{spec}: all hooks must be SessionRunHook instances, given: {hook!r}")
    return hooks


def _check_exporters(exporters) -> tuple:
    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = (exporters,)
    try:
        exporters = tuple(exporters)
    except TypeError:
        raise TypeError(
            f"EvalSpec: exporters must be an Exporter, an iterable of Exporter, or None; "
            f"found {exporters!r:.100}"
        ) from None
    names = []
    for exporter in exporters:
        if not isinstance(exporter, Exporter):
            raise TypeError(
                f"EvalSpec: exporters must be an Exporter, an iterable of Exporter, or None; "
                f"found {exporter!r:.100}"
            )
        names.append(exporter.name)
    if len(set(names)) != len(names):
        raise ValueError(f"EvalSpec: exporters must have unique names; all exporter names: {names}")
    return exporters


class TrainSpec(
    collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"])
):
    """The training part of :func:`train_and_evaluate` (TF's): ``input_fn``, ``max_steps``
    (``None``: until the input ends), ``hooks`` and ``saving_listeners``
    (:class:`~..hooks.basic.CheckpointSaverListener` objects).

    >>> TrainSpec(lambda: None, max_steps=0)
    Traceback (most recent call last):
    ...
    ValueError: TrainSpec: must specify max_steps > 0, given: 0
    """

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _check_input_fn(input_fn, "TrainSpec")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"TrainSpec: must specify max_steps > 0, given: {max_steps}")
        listeners = tuple(saving_listeners or ())
        for listener in listeners:
            if not isinstance(listener, CheckpointSaverListener):
                raise TypeError(
                    "TrainSpec: all saving_listeners must be CheckpointSaverListener "
                    f"instances, given: {listener!r}"
                )
        return super().__new__(
            cls, input_fn, max_steps, _check_hooks(hooks, "TrainSpec"), listeners
        )


class EvalSpec(
    collections.namedtuple(
        "EvalSpec",
        ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"],
    )
):
    """The evaluation part of :func:`train_and_evaluate` (TF's): ``input_fn``, ``steps``
    (batches per evaluation, ``None``: all), ``name`` (events in ``model_dir/eval_<name>``),
    ``hooks``, ``exporters``, ``start_delay_secs`` and ``throttle_secs`` (see the module).

    >>> EvalSpec(lambda: None, throttle_secs=-1)
    Traceback (most recent call last):
    ...
    ValueError: EvalSpec: must specify throttle_secs >= 0, given: -1
    """

    def __new__(
        cls,
        input_fn,
        steps=100,
        name=None,
        hooks=None,
        exporters=None,
        start_delay_secs=120,
        throttle_secs=600,
    ):
        _check_input_fn(input_fn, "EvalSpec")
        if steps is not None and steps <= 0:
            raise ValueError(f"EvalSpec: must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"EvalSpec: name must be a string, given: {name!r}")
        for what, value in (
            ("start_delay_secs", start_delay_secs),
            ("throttle_secs", throttle_secs),
        ):
            if value < 0:
                raise ValueError(f"EvalSpec: must specify {what} >= 0, given: {value}")
        return super().__new__(
            cls,
            input_fn,
            steps,
            name,
            _check_hooks(hooks, "EvalSpec"),
            _check_exporters(exporters),
            start_delay_secs,
            throttle_secs,
        )


class _EvaluateOnSave(CheckpointSaverListener):
    """Evaluate (and export) the checkpoints training saves, throttled (see the module)."""

    def __init__(self, estimator, eval_spec, max_steps):
        self.estimator, self.spec, self.max_steps = estimator, eval_spec, max_steps
        self.eval_result, self.export_results = None, None
        self._last_path = None

    def begin(self) -> None:
        self._started, self._last_eval = _now(), None
        self._first = True

    def _due(self) -> bool:
        now = _now()
        if now - self._started < self.spec.start_delay_secs:
            return False
        return self._last_eval is None or now - self._last_eval >= self.spec.throttle_secs

    def after_save(self, session, global_step_value):
        if self._first:  # the state training starts from, not trained yet (as TF)
            self._first = False
            return
        if self._due():
            self._evaluate()
        else:
            logger.info(
                "skipping the evaluation of step %d (start_delay_secs=%s, throttle_secs=%s)",
                global_step_value,
                self.spec.start_delay_secs,
                self.spec.throttle_secs,
            )

    def end(self, session, global_step_value) -> None:
        if self.estimator.latest_checkpoint() != self._last_path:
            self._evaluate()

    def _evaluate(self) -> None:
        path = self.estimator.latest_checkpoint()
        if path is None or path == self._last_path:
            return
        self._last_eval = _now()
        metrics = self.estimator.evaluate(
            self.spec.input_fn,
            steps=self.spec.steps,
            hooks=list(self.spec.hooks),
            checkpoint_path=path,
            name=self.spec.name,
            verbose=0,
        )
        self._last_path = path
        final = self.max_steps is not None and metrics["global_step"] >= self.max_steps
        base = os.path.join(self.estimator.model_dir, "export")
        self.eval_result = metrics
        self.export_results = [
            exporter.export(
                estimator=self.estimator,
                export_path=os.path.join(base, exporter.name),
                checkpoint_path=path,
                eval_result=metrics,
                is_the_final_export=final,
            )
            for exporter in self.spec.exporters
        ]
        logger.info("evaluation at step %d: %s", metrics["global_step"], metrics)


def train_and_evaluate(estimator, train_spec: TrainSpec, eval_spec: EvalSpec):
    """Train ``estimator`` with ``train_spec``, evaluating (and exporting) its new
    checkpoints with ``eval_spec`` (see the module); ``(eval_result, export_results)``.

    Args:
        estimator: a canned estimator or a custom ``Estimator``.
        train_spec: a :class:`TrainSpec`.
        eval_spec: an :class:`EvalSpec`."""
    if not hasattr(estimator, "train") or not hasattr(estimator, "evaluate"):
        raise TypeError(f"estimator must be a colonnade estimator, got {type(estimator).__name__}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"train_spec must be a TrainSpec, got {type(train_spec).__name__}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"eval_spec must be an EvalSpec, got {type(eval_spec).__name__}")
    listener = _EvaluateOnSave(estimator, eval_spec, train_spec.max_steps)
    estimator.train(
        train_spec.input_fn,
        max_steps=train_spec.max_steps,
        hooks=list(train_spec.hooks),
        saving_listeners=[listener, *train_spec.saving_listeners],
        verbose=0,
    )
    return listener.eval_result, listener.export_results


# ---------------------------------------------------------------- add_metrics

_METRIC_FN_ARGS = ("labels", "predictions", "features", "config")


def add_metrics(estimator, metric_fn):
    """``estimator`` with ``metric_fn``'s metrics added to what ``evaluate`` returns, as
    TF's ``tf.estimator.add_metrics``: ``metric_fn`` takes any of ``labels``,
    ``predictions`` (the batch's prediction dict), ``features`` and ``config`` and
    returns ``{name: metric}`` (``cn.metrics.auc(...)`` pairs or metric objects, as in
    ``eval_metric_ops``), accumulated over the evaluation; a name the estimator already
    reports is replaced. As in TF, the estimator returned calls a ``model_fn`` that adds
    them to the EVAL spec; it shares the original's ``model_dir`` and variables; the
    original is unchanged."""
    if not callable(metric_fn):
        raise TypeError(f"metric_fn must be callable, got {type(metric_fn).__name__}")
    names = list(inspect.signature(metric_fn).parameters)
    unknown = [n for n in names if n not in _METRIC_FN_ARGS]
    if unknown:
        raise ValueError(
            f"metric_fn {getattr(metric_fn, '__name__', metric_fn)} has arguments {unknown}; "
            f"it may take any of {list(_METRIC_FN_ARGS)}"
        )
    added = copy.copy(estimator)
    added.model = WithMetrics(estimator.model, metric_fn, names, estimator.config)
    return added


class WithMetrics:
    """A model whose EVAL spec has a ``metric_fn``'s metrics added (see
    :func:`add_metrics`); everything else is the wrapped model's."""

    def __init__(self, model, metric_fn, arg_names, config):
        self.model, self.metric_fn, self.arg_names = model, metric_fn, arg_names
        self.config = config

    def __getattr__(self, name):
        return getattr(self.model, name)

    def spec(self, features, labels, mode, cache=None, rng=None):
        """The wrapped model's spec; in EVAL, with the ``metric_fn``'s metrics added."""
        spec = self.model.spec(features, labels, mode, cache, rng)
        if mode != ModeKeys.EVAL:
            return spec
        predictions = spec.predictions
        if predictions is not None and not isinstance(predictions, Mapping):
            predictions = {"predictions": predictions}
        given = {
            "labels": labels_array(labels),
            "predictions": {k: host(v) for k, v in (predictions or {}).items()},
            "features": features_dict(features),
            "config": self.config,
        }
        fn = self.metric_fn
        ops = fn(**{k: given[k] for k in self.arg_names})
        what = f"the result of metric_fn {getattr(fn, '__name__', fn)}"
        check_metric_ops(ops, what, key=lambda name: f"metric_fn's metric {name!r}")
        if ops is None:
            raise TypeError(f"metric_fn {getattr(fn, '__name__', fn)} returned None, not a dict")
        spec.eval_metric_ops.update(ops)
        return spec
