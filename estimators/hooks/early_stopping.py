"""TF's early-stopping hooks (``tf.estimator.experimental.stop_if_no_decrease_hook`` and its
kin): during training, every ``run_every_secs`` seconds or ``run_every_steps`` steps, read
the metrics that evaluations wrote to ``estimator.eval_dir()`` and stop when they say so.

TF's rules, kept: a threshold hook stops once any evaluation at a step ``>= min_steps`` is
strictly better than ``threshold``; a no-improvement hook stops once an evaluation comes
``max_steps_without_...`` or more steps after the best one. Evaluations are read from
their event files as TF writes them (one value a tag, merged by step).
"""

from __future__ import annotations

import collections
import glob
import logging
import operator
import os

from .basic import SecondOrStepTimer
from .runner import SessionRunArgs, SessionRunHook

logger = logging.getLogger("colonnade")

__all__ = [
    "make_early_stopping_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]

_EVENT_FILES = "events.out.tfevents.*"


def scalar_events(path) -> dict:
    """``{step: {tag: value}}`` of the scalar summaries in the event file ``path``. A
    corrupt or truncated record ends the file with a warning and keeps every event before
    it, as TF's ``summary_iterator`` does: the file is read again one record at a time
    (the fast reader checks a whole chunk at once)."""
    from google.protobuf.message import DecodeError

    from ...data.tfrecord import CHUNK_BYTES

    by_step: dict = collections.defaultdict(dict)
    try:
        _read_scalars(path, CHUNK_BYTES, by_step)
    except (OSError, ValueError, DecodeError):
        by_step.clear()
        try:
            _read_scalars(path, 1, by_step)  # a record per chunk: stops at the bad one
        except (OSError, ValueError, DecodeError) as e:
            logger.warning("skipping the rest of the event file %s: %s", path, e)
    return {step: values for step, values in by_step.items() if values}


def _read_scalars(path, chunk_bytes: int, by_step: dict) -> None:
    from tensorboardX.proto import event_pb2

    from ...data.tfrecord import read_record_chunks

    for chunk in read_record_chunks(path, chunk_bytes=chunk_bytes):
        data = chunk.buf.tobytes()
        for start, end in zip(chunk.starts.tolist(), chunk.ends.tolist()):
            event = event_pb2.Event.FromString(data[start:end])
            if event.HasField("summary"):
                for value in event.summary.value:
                    if value.HasField("simple_value"):
                        by_step[event.step][value.tag] = value.simple_value


def read_eval_metrics(eval_dir) -> collections.OrderedDict:
    """TF's ``read_eval_metrics``: the metrics of every evaluation in ``eval_dir``'s event
    files, ``{step: {metric: value}}`` in step order; ``{}`` when there are none or the
    folder does not exist."""
    merged: dict = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(str(eval_dir), _EVENT_FILES))):
        for step, values in scalar_events(path).items():
            merged[step].update(values)
    return collections.OrderedDict(sorted(merged.items()))


class StopOnPredicateHook(SessionRunHook):
    """Request a stop when ``should_stop_fn()`` says so, asked every ``run_every_secs``
    seconds or ``run_every_steps`` steps (TF's ``_StopOnPredicateHook``)."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self.should_stop_fn = should_stop_fn
        self._timer = SecondOrStepTimer(every_secs=run_every_secs, every_steps=run_every_steps)

    def before_run(self, run_context):
        return SessionRunArgs("global_step")

    def after_run(self, run_context, run_values) -> None:
        step = int(run_values.results)
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self.should_stop_fn():
                logger.info("Requesting early stopping at global step %d", step)
                run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60, run_every_steps=None):
    """TF's ``make_early_stopping_hook``: a hook that stops training when
    ``should_stop_fn()`` returns True (give ``run_every_secs`` or ``run_every_steps``)."""
    if not callable(getattr(estimator, "eval_dir", None)):
        raise TypeError(
            f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}"
        )
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` can be set.")
    return StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)


def _threshold_hook(higher, estimator, metric_name, threshold, eval_dir, min_steps, *every):
    eval_dir = estimator.eval_dir() if eval_dir is None else eval_dir
    better = operator.gt if higher else operator.lt

    def crossed() -> bool:
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step >= min_steps and better(_metric(metrics, metric_name, step), threshold):
                logger.info(
                    'At step %s, metric "%s" has value %s which is %s the configured '
                    "threshold (%s) for early stopping.",
                    step,
                    metric_name,
                    metrics[metric_name],
                    "greater than" if higher else "less than",
                    threshold,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, crossed, *every)


def _no_improvement_hook(higher, estimator, metric_name, max_steps, eval_dir, min_steps, *every):
    eval_dir = estimator.eval_dir() if eval_dir is None else eval_dir
    better = operator.gt if higher else operator.lt

    def stalled() -> bool:
        best = best_step = None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = _metric(metrics, metric_name, step)
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                logger.info(
                    'No %s in metric "%s" for %s steps, which is greater than or equal to '
                    "max steps (%s) configured for early stopping.",
                    "increase" if higher else "decrease",
                    metric_name,
                    step - best_step,
                    max_steps,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, stalled, *every)


def _metric(metrics: dict, name: str, step: int) -> float:
    if name not in metrics:
        raise KeyError(
            f"early stopping watches {name!r}, but the evaluation at step {step} wrote only "
            f"{sorted(metrics)}"
        )
    return metrics[name]


def stop_if_higher_hook(
    estimator,
    metric_name,
    threshold,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stop once ``metric_name`` is above ``threshold`` in an evaluation at a step
    ``>= min_steps`` (TF's ``tf.estimator.experimental.stop_if_higher_hook``)."""
    every = run_every_secs, run_every_steps
    return _threshold_hook(True, estimator, metric_name, threshold, eval_dir, min_steps, *every)


def stop_if_lower_hook(
    estimator,
    metric_name,
    threshold,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stop once ``metric_name`` is below ``threshold`` (see :func:`stop_if_higher_hook`)."""
    every = run_every_secs, run_every_steps
    return _threshold_hook(False, estimator, metric_name, threshold, eval_dir, min_steps, *every)


def stop_if_no_increase_hook(
    estimator,
    metric_name,
    max_steps_without_increase,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stop once an evaluation comes ``max_steps_without_increase`` or more steps after the
    one with the highest ``metric_name`` (TF's ``stop_if_no_increase_hook``)."""
    every = run_every_secs, run_every_steps
    return _no_improvement_hook(
        True, estimator, metric_name, max_steps_without_increase, eval_dir, min_steps, *every
    )


def stop_if_no_decrease_hook(
    estimator,
    metric_name,
    max_steps_without_decrease,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stop once an evaluation comes ``max_steps_without_decrease`` or more steps after the
    one with the lowest ``metric_name`` (TF's ``stop_if_no_decrease_hook``)."""
    every = run_every_secs, run_every_steps
    return _no_improvement_hook(
        False, estimator, metric_name, max_steps_without_decrease, eval_dir, min_steps, *every
    )
