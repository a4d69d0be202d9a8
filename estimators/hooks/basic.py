"""Training hooks with ``tf.train``'s signatures, eagerly: the SessionRunHook family
without sessions (the protocol and its types are in :mod:`.runner`, the savers of
checkpoints and summaries in :mod:`.savers`, the timers in :mod:`.timers`; all are
named here).

Porting a TF hook class needs only renames (``tf.train.SessionRunHook`` ->
``cn.estimators.SessionRunHook``, ``tf.train.SessionRunArgs`` ->
``cn.estimators.SessionRunArgs``, ``tf.train.get_global_step`` ->
``cn.train.get_global_step``)::

    class ExamplesLogger(cn.estimators.SessionRunHook):
        def begin(self):
            self._step = cn.train.get_global_step()
        def before_run(self, run_context):
            return cn.estimators.SessionRunArgs({"step": self._step, "loss": "loss"})
        def after_run(self, run_context, run_values):
            print(run_values.results["step"] + 1, run_values.results["loss"])
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ... import core
from . import timers
from .profiler import ProfilerHook
from .runner import (
    CheckpointSaverListener,
    RunMetadata,
    RunOptions,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
    global_step_variable,
    running_estimator,
)
from .savers import CheckpointSaverHook, SummarySaverHook
from .tensorboard import event_writer
from .timers import SecondOrStepTimer

logger = logging.getLogger("colonnade")


class NanLossDuringTrainingError(RuntimeError):
    """Raised by :class:`NanTensorHook` when the training loss is NaN or infinite.

    ``train()`` and ``fit()`` add a ``NanTensorHook`` unless one is passed, as
    ``tf.estimator`` does, so a diverging model stops with this error; no checkpoint is
    written at the end of a run that fails.
    """


class NonFiniteStateError(NanLossDuringTrainingError):
    """Raised by :class:`NanTensorHook` when training ends with NaN or inf in a variable or
    an optimizer slot while the loss stayed finite: the state cannot be saved, so the run
    fails instead of returning as if it had trained."""


# ---------------------------------------------------------------- the hooks


class StopAtStepHook(SessionRunHook):
    """Stop after ``num_steps`` more steps, or once the global step reaches ``last_step``."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("StopAtStepHook needs exactly one of num_steps and last_step")
        if num_steps is not None and num_steps < 0:
            raise ValueError(f"num_steps must be >= 0, got {num_steps}")
        self.num_steps, self.last_step = num_steps, last_step

    def begin(self) -> None:
        self._step = global_step_variable("StopAtStepHook")

    def after_create_session(self, session, coord) -> None:
        if self.num_steps is not None:
            self._stop_at = int(self._step.numpy()) + self.num_steps
        else:
            self._stop_at = self.last_step

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values) -> None:
        if run_values.results + 1 >= self._stop_at:
            run_context.request_stop()


class NanTensorHook(SessionRunHook):
    """Fail (or, with ``fail_on_nan_loss=False``, stop) when the loss is NaN or infinite.
    ``loss_tensor`` is a fetchable name (default ``"loss"``)."""

    def __init__(self, loss_tensor="loss", fail_on_nan_loss: bool = True):
        self.key = loss_tensor if isinstance(loss_tensor, str) else "loss"
        self.fail_on_nan_loss = fail_on_nan_loss

    def begin(self) -> None:
        self._args = SessionRunArgs(self.key)
        self._estimator = running_estimator("NanTensorHook")

    def before_run(self, run_context):
        return self._args

    def after_run(self, run_context, run_values) -> None:
        value = run_values.results
        if isinstance(value, np.floating):
            finite = math.isfinite(value)
        else:
            finite = bool(np.isfinite(value).all())
        if not finite:
            step = self._estimator.global_step
            message = f"model diverged with loss = {value} at step {step}"
            if self.fail_on_nan_loss:
                raise NanLossDuringTrainingError(message)
            logger.warning("%s; stopping training", message)
            run_context.request_stop()

    def end(self, session) -> None:
        """A run can end with NaN or inf in its state while its loss stayed finite (an
        optimizer's accumulator overflowed, a weight the loss barely depends on blew up):
        the saver will not save that state, so the run fails rather than return as if
        it had trained (unless ``fail_on_nan_loss=False``)."""
        if not self.fail_on_nan_loss:
            return
        bad = self._estimator.nonfinite_variables()
        if bad:
            latest = self._estimator.latest_checkpoint()
            raise NonFiniteStateError(
                f"training ended at step {self._estimator.global_step} with NaN or inf in "
                f"{bad[:10]} although the loss stayed finite; this state is not saved (the "
                f"latest checkpoint is {latest}). Lower the learning rate, or scale or clip "
                "the features"
            )


class LoggingTensorHook(SessionRunHook):
    """Log fetched values every ``every_n_iter`` steps or ``every_n_secs`` seconds (and,
    with ``at_end``, the last ones when training ends), as TF: ``tensors`` is a list of
    names or a dict ``{tag: name}``; ``formatter(dict of tag -> value)`` makes the line
    (default ``"tag = value, ..."``)."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        if isinstance(tensors, dict):
            self.tags, self.names = list(tensors), list(tensors.values())
        elif isinstance(tensors, (list, tuple)):
            self.tags, self.names = list(tensors), list(tensors)
        else:
            raise TypeError(
                f"LoggingTensorHook tensors must be a list of names or a dict {{tag: name}}, "
                f"got {type(tensors).__name__}"
            )
        if every_n_iter is None and every_n_secs is None and not at_end:
            raise ValueError(
                "LoggingTensorHook: either at_end and/or exactly one of every_n_iter and "
                "every_n_secs must be provided"
            )
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"LoggingTensorHook: invalid every_n_iter={every_n_iter}.")
        self.timer = (
            timers.Every(every_n_iter, every_n_secs, "LoggingTensorHook")
            if every_n_iter is not None or every_n_secs is not None
            else None
        )
        self.at_end = at_end
        self.formatter = formatter
        self.last_values = None

    def begin(self) -> None:
        self._iteration = 0
        self._due = False

    def before_run(self, run_context):
        self._due = self.timer is not None and self.timer.due(self._iteration)
        if self._due or self.at_end:
            return SessionRunArgs(dict(zip(self.tags, self.names)))
        return None

    def _log(self, values: dict) -> None:
        if self.formatter:
            logger.info(self.formatter(values))
        else:
            logger.info(", ".join(f"{tag} = {values[tag]}" for tag in self.tags))

    def after_run(self, run_context, run_values) -> None:
        if run_values.results is not None:
            self.last_values = run_values.results
        if self._due:
            self.timer.mark(self._iteration)
            self._log(run_values.results)
        self._iteration += 1

    def end(self, session) -> None:
        if self.at_end and self.last_values is not None:
            self._log(self.last_values)


class StepCounterHook(SessionRunHook):
    """Measure ``global_step/sec`` every ``every_n_steps`` steps (or ``every_n_secs``):
    logged, and written as a TensorBoard scalar to ``output_dir`` (or through
    ``summary_writer``, a ``tensorboardX.SummaryWriter``) when one is given."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None, summary_writer=None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError(
                "StepCounterHook: exactly one of every_n_steps and every_n_secs should be "
                f"provided, got every_n_steps={every_n_steps}, every_n_secs={every_n_secs}"
            )
        self.timer = timers.Every(every_n_steps, every_n_secs, "StepCounterHook")
        self.output_dir, self.summary_writer = output_dir, summary_writer
        self._own_writer = False

    def begin(self) -> None:
        if self.summary_writer is None and self.output_dir:
            self.summary_writer, self._own_writer = event_writer(self.output_dir), True
        self._step = global_step_variable("StepCounterHook")

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values) -> None:
        step = int(run_values.results) + 1
        if self.timer.last_step is None:  # the first step starts the clock
            self.timer.mark(step)
            return
        if self.timer.due(step):
            elapsed_steps = step - self.timer.last_step
            elapsed_secs = timers.now() - self.timer.last_time
            self.timer.mark(step)
            if elapsed_secs > 0:
                rate = elapsed_steps / elapsed_secs
                logger.info("global_step/sec: %g", rate)
                if self.summary_writer is not None:
                    self.summary_writer.add_scalar("global_step/sec", rate, step)

    def end(self, session) -> None:
        if self._own_writer:
            self.summary_writer.close()
            self.summary_writer, self._own_writer = None, False


class FinalOpsHook(SessionRunHook):
    """Read ``final_ops`` when training (or evaluation) ends: ``final_ops_values`` then
    holds their values in the same structure. An op is a variable's name
    (``"dense/kernel"``, ``"global_step"``) or a :class:`~colonnade.core.Variable`;
    ``final_ops_feed_dict`` must be ``None`` (nothing is fed here)."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        if final_ops_feed_dict is not None:
            raise ValueError("FinalOpsHook: there are no placeholders to feed; pass None")
        self._final_ops = final_ops
        self._final_ops_values = None

    @property
    def final_ops_values(self):
        """The values read at ``end``; ``None`` before."""
        return self._final_ops_values

    def begin(self) -> None:
        self.estimator = running_estimator("FinalOpsHook")

    def end(self, session) -> None:
        weights = self.estimator.get_weights()
        weights["global_step"] = np.int64(self.estimator.global_step)
        self._final_ops_values = _read_ops(self._final_ops, weights)


def _read_ops(ops, weights):
    if isinstance(ops, dict):
        return {k: _read_ops(v, weights) for k, v in ops.items()}
    if isinstance(ops, (list, tuple)):
        return type(ops)(_read_ops(v, weights) for v in ops)
    if isinstance(ops, core.Variable):
        return ops.numpy().copy()
    name = str(ops).removesuffix(":0")
    if name not in weights:
        raise KeyError(f"FinalOpsHook: no variable {name!r}; the model has {sorted(weights)[:20]}")
    return np.asarray(weights[name]).copy()


class GlobalStepWaiterHook(SessionRunHook):
    """TF's hook that holds a worker back until the global step reaches
    ``wait_until_step`` (other workers advancing it). In one process nothing else
    advances the step, so a run that would wait forever is refused at its first step,
    naming both steps; one already there runs as usual."""

    def __init__(self, wait_until_step):
        self._wait_until_step = int(wait_until_step)

    def begin(self) -> None:
        self.estimator = running_estimator("GlobalStepWaiterHook")

    def before_run(self, run_context):
        step = self.estimator.global_step
        if self._wait_until_step > 0 and step < self._wait_until_step:
            raise ValueError(
                f"GlobalStepWaiterHook waits for global step {self._wait_until_step}, which "
                f"other workers reach; this process is alone at step {step} and would wait "
                "forever (in one process, drop the hook)"
            )
        return None


class FeedFnHook(SessionRunHook):
    """TF's hook that fed placeholders from ``feed_fn()`` each step. There are no
    placeholders here: values reach the model through the ``input_fn``'s batches, so the
    hook is refused when made, with that advice, rather than ignoring ``feed_fn``."""

    def __init__(self, feed_fn):
        raise ValueError(
            "FeedFnHook: colonnade has no placeholders to feed; put the values feed_fn "
            "returns into the input_fn's features (e.g. a column of the Dataset, or params)"
        )


__all__ = [
    "NonFiniteStateError",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "SecondOrStepTimer",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "ProfilerHook",
    "RunMetadata",
    "RunOptions",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
]
