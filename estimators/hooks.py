"""Training hooks with ``tf.train``'s signatures, eagerly: the SessionRunHook family
without sessions (the protocol and its types are in :mod:`.hook_runner`).

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

import json
import logging
import math
import os
import time
import weakref

import numpy as np

from .hook_runner import (
    CheckpointSaverListener,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
    global_step_variable,
    running_estimator,
)
from .tensorboard import event_writer

logger = logging.getLogger("colonnade")


def _now() -> float:
    """The hooks' clock (seconds, monotonic); tests replace it."""
    return time.monotonic()


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


# ---------------------------------------------------------------- timers


class _Every:
    """Fires every ``steps`` steps or every ``secs`` seconds (exactly one must be set)."""

    def __init__(self, steps=None, secs=None, what="hook"):
        if (steps is None) == (secs is None):
            raise ValueError(
                f"{what}: set exactly one of every-steps or every-secs, got "
                f"steps={steps}, secs={secs}"
            )
        if (steps is not None and steps < 1) or (secs is not None and secs <= 0):
            raise ValueError(
                f"{what}: the interval must be positive, got steps={steps}, secs={secs}"
            )
        self.steps, self.secs = steps, secs
        self.last_step, self.last_time = None, None

    def due(self, step: int) -> bool:
        if self.last_step is None:
            return True
        if self.steps is not None:
            return step >= self.last_step + self.steps
        return _now() >= self.last_time + self.secs

    def due_on_grid(self, step: int) -> bool:
        """Due when ``step`` crossed a multiple of ``steps`` since the last mark (the
        global step's grid, whatever step a run started from), or ``secs`` passed."""
        if self.steps is not None and self.last_step is not None:
            return step // self.steps > self.last_step // self.steps
        return self.due(step)

    def mark(self, step: int) -> None:
        self.last_step, self.last_time = step, _now()


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
        self.timer = (
            _Every(every_n_iter, every_n_secs, "LoggingTensorHook")
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
        self.timer = _Every(every_n_steps, every_n_secs, "StepCounterHook")
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
            elapsed_secs = _now() - self.timer.last_time
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


# When each estimator last saved a checkpoint, by checkpoint directory: the time-based
# saver of a train() call goes on from the previous call's save (fit trains an epoch a call).
_last_saves: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class CheckpointSaverHook(SessionRunHook):
    """Save a checkpoint every ``save_steps`` steps or ``save_secs`` seconds, and at the end.

    Step-based saves land on the multiples of ``save_steps`` of the global step, and the
    time-based clock runs from the estimator's previous save, so a run split into several
    ``train`` calls (``fit``'s epochs) saves as one uninterrupted run would, plus at the
    end of each call.

    ``checkpoint_dir`` defaults to the estimator's model_dir. ``listeners`` are
    :class:`CheckpointSaverListener` objects (TF's: ``after_save`` returning ``True``
    stops training), or plain callables called with the saved path.

    A diverged model is never saved: when a variable holds NaN or inf, the save is skipped
    with a warning naming the variables, so the latest checkpoint stays the last good one
    (the loss can still be finite at the step the weights overflow), and training stops
    there: the :class:`NanTensorHook` fails it with ``NonFiniteStateError`` (or, with
    ``fail_on_nan_loss=False``, it ends with that warning). ``end()`` is called by the training
    loop only when training ends cleanly (or is interrupted with ``KeyboardInterrupt``):
    a run that fails does not write its state as the latest checkpoint.
    """

    def __init__(self, checkpoint_dir=None, save_secs=None, save_steps=None, listeners=None):
        self.checkpoint_dir = checkpoint_dir
        self.timer = _Every(save_steps, save_secs, "CheckpointSaverHook")
        self.listeners = list(listeners or [])
        for listener in self.listeners:
            if not (isinstance(listener, CheckpointSaverListener) or callable(listener)):
                raise TypeError(
                    "listeners must be CheckpointSaverListener instances or callables, got "
                    f"{type(listener).__name__}"
                )

    def begin(self) -> None:
        self.estimator = running_estimator("CheckpointSaverHook")
        self.timer.mark(self.estimator.global_step)
        saved_at = _last_saves.get(self.estimator, {}).get(self.checkpoint_dir)
        if saved_at is not None:
            self.timer.last_time = saved_at
        for listener in self._tf_listeners():
            listener.begin()

    def _tf_listeners(self):
        return [x for x in self.listeners if isinstance(x, CheckpointSaverListener)]

    def _save(self) -> bool:
        """Save (unless diverged); True when a listener asks to stop, or when the state
        diverged: training stops there (``NanTensorHook.end`` then raises
        ``NonFiniteStateError``) instead of refusing every later save."""
        if self._diverged():
            return True
        step = self.estimator.global_step
        for listener in self._tf_listeners():
            listener.before_save(None, step)
        path = self.estimator.save_checkpoint(self.checkpoint_dir)
        _last_saves.setdefault(self.estimator, {})[self.checkpoint_dir] = _now()
        stop = False
        for listener in self.listeners:
            if isinstance(listener, CheckpointSaverListener):
                stop = bool(listener.after_save(None, step)) or stop
            else:
                listener(path)
        return stop

    def _diverged(self) -> bool:
        """True (with a warning) when the estimator's state is not finite, so not saved."""
        bad = self.estimator.nonfinite_variables()
        if bad:
            logger.warning(
                "not saving a checkpoint at step %d: variables %s hold NaN or inf; the "
                "latest checkpoint stays the last finite one; stopping training",
                self.estimator.global_step,
                bad[:10],
            )
        return bool(bad)

    def after_run(self, run_context, run_values) -> None:
        step = self.estimator.global_step
        if self.timer.due_on_grid(step):
            stop = self._save()
            self.timer.mark(step)  # only once saved: an interrupted save is done by end()
            if stop:
                run_context.request_stop()

    def end(self, session) -> None:
        step = self.estimator.global_step
        if self.timer.last_step != step:
            self._save()
            self.timer.mark(step)
        for listener in self._tf_listeners():
            listener.end(None, step)


class SummarySaverHook(SessionRunHook):
    """Append the loss to ``output_dir/summaries.jsonl`` every N steps/seconds.

    TensorFlow wrote event files for TensorBoard (colonnade's training does too, see
    :mod:`.tensorboard`); a JSON line per summary (``{"global_step": ..., "loss": ...,
    "wall_time": ...}``, at the global step after the summarized step, as TF) is
    readable by anything. ``keys`` are further fetchable names to record.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, keys=None):
        self.timer = _Every(save_steps, save_secs, "SummarySaverHook")
        self.output_dir = output_dir
        self.keys = list(keys or ["loss"])

    def begin(self) -> None:
        self.output_dir = self.output_dir or running_estimator("SummarySaverHook").model_dir
        os.makedirs(self.output_dir, exist_ok=True)
        self.path = os.path.join(self.output_dir, "summaries.jsonl")

    def before_run(self, run_context):
        return SessionRunArgs({"values": {k: k for k in self.keys}, "step": "global_step"})

    def after_run(self, run_context, run_values) -> None:
        step = int(run_values.results["step"]) + 1
        if self.timer.due(step):
            self.timer.mark(step)
            record = {k: _jsonable(v) for k, v in run_values.results["values"].items()}
            record.update(global_step=step, wall_time=time.time())
            with open(self.path, "a") as f:
                f.write(json.dumps(record) + "\n")


def _jsonable(value):
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else array.tolist()


__all__ = [
    "NonFiniteStateError",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
]
