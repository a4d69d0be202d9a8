"""Evaluation and prediction: an estimator's EVAL and PREDICT specs over the batches of
an input, between the hooks, from model_dir's latest checkpoint or another one."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ... import core
from ...core.autodiff import value_of
from ..export.directory import no_predictions_frame, predictions_frame, select_keys
from ..hooks.progress import known_rows, progress_bar
from ..hooks.runner import HookRunner, StepValues, running
from ..hooks.tensorboard import write_eval_summary
from ..inputs import input_fn as inputs
from ..inputs.advice import missing_label_error
from ..inputs.pipeline import transformed_batches
from ..spec.model_fn import ModeKeys, metric_of

logger = logging.getLogger("colonnade")


def host(x):
    """A host numpy array of a Tensor, Variable or array."""
    return np.asarray(core.to_host(value_of(x)))


class TensorPredictions(dict):
    """The predictions of a batch whose PREDICT spec holds one tensor rather than a dict,
    under the key ``"predictions"`` (how DataFrames, exports and hooks name it); TF's
    ``predict`` yields that tensor's rows themselves."""


class SpecEvaluation:
    """One evaluation: the mean of the batches' EVAL-spec losses (TF's ``loss``) and
    each ``eval_metric_ops`` metric merged over all batches (a metric the ``model_fn``
    makes anew for each batch has its counts added to the first batch's)."""

    def __init__(self, estimator):
        self.estimator = estimator
        self.loss_total, self.batches = 0.0, 0
        self.metrics: dict = {}

    def update(self, features, labels, cache) -> None:
        with core.no_grad(), keeping_global_step(self.estimator):
            spec = self.estimator.call_model_fn(features, labels, ModeKeys.EVAL, cache)
        loss = float(host(spec.loss).reshape(()))
        self.loss_total += loss
        self.batches += 1
        predictions = spec.predictions
        if predictions is not None and not isinstance(predictions, Mapping):
            predictions = {"predictions": predictions}
        self.last = (loss, {k: host(v) for k, v in (predictions or {}).items()})
        for name, op in spec.eval_metric_ops.items():
            metric = metric_of(op, name)
            known = self.metrics.get(name)
            if known is None:
                self.metrics[name] = metric
            elif known is not metric:
                known.merge_state([metric])

    def results(self) -> dict:
        out = {"loss": self.loss_total / max(self.batches, 1)}
        out.update({name: float(m.result()) for name, m in self.metrics.items()})
        return out


@contextlib.contextmanager
def keeping_global_step(estimator):
    """Meanwhile a ``model_fn`` called to evaluate or predict may run its ``train_op``
    eagerly (``get_global_step().assign_add(1)``, TF's idiom); the global step is as
    before afterwards, as TF's EVAL and PREDICT graphs never run it."""
    variable = estimator.train_state.global_step_variable
    value = variable.value
    try:
        yield
    finally:
        variable.value = value


def batch_tensors(estimator, predictions):
    """The fetchable names of an evaluation or prediction batch: its predictions by key
    and the model's variables (``tensors()`` of :class:`~..hooks.runner.StepValues`)."""

    def table():
        variables = estimator.train_state.model_variables()
        out = {name: var.numpy for name, var in variables.items()}
        out.update({key: (lambda value=value: value) for key, value in predictions.items()})
        return out

    return table


def _values(estimator, loss, features, predictions) -> StepValues:
    step = estimator.global_step
    return StepValues(
        loss,
        step,
        step,
        inputs.num_rows(features),
        batch_tensors(estimator, predictions),
        estimator.train_state.global_step_variable,
    )


def evaluate(estimator, input_fn, steps, hooks, checkpoint_path, name, verbose) -> dict:
    """The body of ``Estimator.evaluate`` over a resolved input."""
    if steps is not None and steps <= 0:
        raise ValueError(f"Must specify steps > 0, given: {steps}")
    with estimator.train_state.from_checkpoint(checkpoint_path, "evaluate"), running(estimator):
        evaluation = estimator.new_evaluation()
        runner = HookRunner(list(hooks or []), estimator)
        seen = 0
        batches = transformed_batches(  # one (features, labels) batch: TF's constants repeat
            estimator.model.network, input_fn, repeat_single=steps is not None, limit=steps
        )
        bar = progress_bar(known_rows(input_fn), "evaluate", verbose=verbose)
        for features, labels, cache in batches:
            if seen == 0:
                if labels is None and estimator.head is not None:  # a head needs labels
                    raise missing_label_error(input_fn, "evaluate", estimator.input_columns())
                runner.hooks += estimator.spec_hooks(features, labels, ModeKeys.EVAL)
                runner.begin()
            bar.update(inputs.num_rows(features))
            context = runner.before_run()
            evaluation.update(features, labels, cache)
            batch_loss, predictions = evaluation.last
            runner.after_run(context, _values(estimator, batch_loss, features, predictions))
            seen += 1
            if context.stop_requested:
                break
        bar.close()
        if seen == 0:
            raise ValueError("evaluation got no batches from its input")
        runner.end()
        results = evaluation.results()
        results["global_step"] = estimator.global_step
    write_eval_summary(estimator.model_dir, name, results)
    logger.info("Saving dict for global step %d: %s", results["global_step"], dict_to_str(results))
    return results


def dict_to_str(results: dict) -> str:
    """TF's form of an evaluation's results in its log: ``k = v`` sorted by key.

    >>> dict_to_str({"loss": 0.5, "accuracy": 1.0, "global_step": 3})
    'accuracy = 1.0, global_step = 3, loss = 0.5'
    """
    return ", ".join(f"{k} = {v}" for k, v in sorted(results.items()))


def predict_batches(estimator, input_fn, predict_keys, verbose=0, hooks=None, checkpoint=None):
    """The predictions of each batch of ``input_fn``, a dict of host arrays each (a
    :class:`TensorPredictions` when the spec's are one tensor)."""
    with estimator.train_state.from_checkpoint(checkpoint), running(estimator):
        runner = HookRunner(list(hooks or []), estimator)
        bar = progress_bar(known_rows(input_fn), "predict", verbose=verbose)
        begun = False
        try:
            for features, _, cache in transformed_batches(estimator.model.network, input_fn):
                if not begun:
                    runner.hooks += estimator.spec_hooks(features, None, ModeKeys.PREDICT)
                    runner.begin()
                    begun = True
                context = runner.before_run()
                with keeping_global_step(estimator):
                    predictions = estimator.batch_predictions(features, cache)
                runner.after_run(context, _values(estimator, None, features, predictions))
                bar.update(inputs.num_rows(features))
                yield (
                    predictions if predict_keys is None else select_keys(predictions, predict_keys)
                )
                if context.stop_requested:
                    break
            if begun:
                runner.end()
        finally:
            bar.close()


def predict_dicts(
    estimator, input_fn, predict_keys, yield_single_examples, verbose, hooks, checkpoint
):
    """TF's ``predict``: one dict per example, or per batch; a spec whose predictions
    are one tensor yields its rows (or its batches) as arrays, as TF's."""
    batches = predict_batches(estimator, input_fn, None, verbose, hooks, checkpoint)
    for predictions in batches:
        if isinstance(predictions, TensorPredictions):
            if predict_keys is not None:
                raise ValueError(
                    "predict_keys argument is not valid in case of non-dict predictions "
                    f"(the model_fn's predictions are one tensor; got predict_keys={predict_keys})"
                )
            values = predictions["predictions"]
            yield from ([values] if not yield_single_examples else values)
            continue
        if predict_keys is not None:
            predictions = select_keys(predictions, predict_keys)
        if not yield_single_examples:
            yield predictions
            continue
        for i in range(batch_length(predictions)):
            yield {k: v[i] for k, v in predictions.items()}


def batch_length(predictions: dict) -> int:
    """The number of examples of a batch's predictions: every key's first dimension,
    which must agree (``ValueError`` naming the key that differs, as TF).

    >>> batch_length({"a": np.zeros((2, 1)), "b": np.zeros(2)})
    2
    """
    length = None
    for key, value in predictions.items():
        shape = np.shape(value)
        if not shape:
            raise ValueError(
                f"prediction {key!r} is a scalar; with yield_single_examples=True every "
                "prediction needs a batch dimension"
            )
        length = length or shape[0]
        if shape[0] != length:
            raise ValueError(
                f"Batch length of predictions should be same. {key} has different batch "
                f"length than others ({shape[0]} against {length})."
            )
    return length or 0


def predict_frame(estimator, dataset, predict_keys, verbose, hooks, checkpoint) -> pd.DataFrame:
    """Keras-style ``predict``: one DataFrame of every batch's predictions."""
    batches = predict_batches(estimator, dataset, predict_keys, verbose, hooks, checkpoint)
    frames = [predictions_frame(p, predict_keys) for p in batches]
    if not frames:
        frames.append(no_predictions_frame(estimator.head, predict_keys))
    return pd.concat(frames, ignore_index=True)
