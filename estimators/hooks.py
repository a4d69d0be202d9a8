"""Training hooks, eagerly: the ``tf.estimator`` SessionRunHook family without sessions.

The training loop calls ``begin(estimator)`` once, ``before_run(run_context)`` and
``after_run(run_context, run_values)`` around every step, and ``end(estimator)`` at the
end. ``run_values`` is a dict with at least ``loss`` (a float) and ``global_step`` (an
int); ``run_context.request_stop()`` ends training after the current step.
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
import weakref

logger = logging.getLogger("colonnade")


class NanLossDuringTrainingError(RuntimeError):
    """Raised by :class:`NanTensorHook` when the training loss is NaN or infinite.

    ``train()`` and ``fit()`` add a ``NanTensorHook`` unless one is passed, as
    ``tf.estimator`` does, so a diverging model stops with this error; no checkpoint is
    written at the end of a run that fails.
    """


class RunContext:
    """What a hook may ask of the loop: to stop after this step."""

    def __init__(self, global_step: int):
        self.global_step = global_step
        self.stop_requested = False

    def request_stop(self) -> None:
        self.stop_requested = True


class SessionRunHook:
    """Base class: every method is a no-op; override the ones you need."""

    def begin(self, estimator) -> None:
        pass

    def before_run(self, run_context: RunContext) -> None:
        pass

    def after_run(self, run_context: RunContext, run_values: dict) -> None:
        pass

    def end(self, estimator) -> None:
        pass


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
        return time.monotonic() >= self.last_time + self.secs

    def due_on_grid(self, step: int) -> bool:
        """Due when ``step`` crossed a multiple of ``steps`` since the last mark (the
        global step's grid, whatever step a run started from), or ``secs`` passed."""
        if self.steps is not None and self.last_step is not None:
            return step // self.steps > self.last_step // self.steps
        return self.due(step)

    def mark(self, step: int) -> None:
        self.last_step, self.last_time = step, time.monotonic()


class StopAtStepHook(SessionRunHook):
    """Stop after ``num_steps`` more steps, or once the global step reaches ``last_step``."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("StopAtStepHook needs exactly one of num_steps and last_step")
        if num_steps is not None and num_steps < 0:
            raise ValueError(f"num_steps must be >= 0, got {num_steps}")
        self.num_steps, self.last_step = num_steps, last_step

    def begin(self, estimator) -> None:
        if self.num_steps is not None:
            self._stop_at = estimator.global_step + self.num_steps
        else:
            self._stop_at = self.last_step

    def after_run(self, run_context, run_values) -> None:
        if run_values["global_step"] >= self._stop_at:
            run_context.request_stop()


class NanTensorHook(SessionRunHook):
    """Fail (or, with ``fail_on_nan_loss=False``, stop) when the loss is NaN or infinite."""

    def __init__(self, loss_tensor="loss", fail_on_nan_loss: bool = True):
        self.key = loss_tensor if isinstance(loss_tensor, str) else "loss"
        self.fail_on_nan_loss = fail_on_nan_loss

    def after_run(self, run_context, run_values) -> None:
        value = run_values[self.key]
        if not math.isfinite(value):
            message = f"model diverged with loss = {value} at step {run_values['global_step']}"
            if self.fail_on_nan_loss:
                raise NanLossDuringTrainingError(message)
            logger.warning("%s; stopping training", message)
            run_context.request_stop()


class LoggingTensorHook(SessionRunHook):
    """Log the named values of ``run_values`` every N steps or seconds (and at the end)."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False, formatter=None):
        self.keys = list(tensors.values() if isinstance(tensors, dict) else tensors)
        self.labels = list(tensors.keys() if isinstance(tensors, dict) else tensors)
        if every_n_iter is None and every_n_secs is None and not at_end:
            raise ValueError("LoggingTensorHook needs every_n_iter, every_n_secs or at_end")
        self.timer = (
            _Every(every_n_iter, every_n_secs, "LoggingTensorHook")
            if every_n_iter is not None or every_n_secs is not None
            else None
        )
        self.at_end = at_end
        self.formatter = formatter
        self.last_values = None

    def _log(self, values: dict) -> None:
        missing = [k for k in self.keys if k not in values]
        if missing:
            raise KeyError(
                f"LoggingTensorHook: no values named {missing}; available: {sorted(values)}"
            )
        named = {label: values[k] for label, k in zip(self.labels, self.keys)}
        text = (
            self.formatter(named)
            if self.formatter
            else ", ".join(f"{k} = {v}" for k, v in named.items())
        )
        logger.info(text)

    def after_run(self, run_context, run_values) -> None:
        self.last_values = run_values
        if self.timer and self.timer.due(run_values["global_step"]):
            self.timer.mark(run_values["global_step"])
            self._log(run_values)

    def end(self, estimator) -> None:
        if self.at_end and self.last_values is not None:
            self._log(self.last_values)


# When each estimator last saved a checkpoint, by checkpoint directory: the time-based
# saver of a train() call goes on from the previous call's save (fit trains an epoch a call).
_last_saves: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class CheckpointSaverHook(SessionRunHook):
    """Save a checkpoint every ``save_steps`` steps or ``save_secs`` seconds, and at the end.

    Step-based saves land on the multiples of ``save_steps`` of the global step, and the
    time-based clock runs from the estimator's previous save, so a run split into several
    ``train`` calls (``fit``'s epochs) saves as one uninterrupted run would, plus at the
    end of each call.

    ``checkpoint_dir`` defaults to the estimator's model_dir; ``listeners`` are callables
    called with the saved path.

    A diverged model is never saved: when a variable holds NaN or inf, the save is skipped
    with a warning naming the variables, so the latest checkpoint stays the last good one
    (the loss can still be finite at the step the weights overflow; the
    :class:`NanTensorHook` then fails the next step). ``end()`` is called by the training
    loop only when training ends cleanly (or is interrupted with ``KeyboardInterrupt``):
    a run that fails does not write its state as the latest checkpoint.
    """

    def __init__(self, checkpoint_dir=None, save_secs=None, save_steps=None, listeners=None):
        self.checkpoint_dir = checkpoint_dir
        self.timer = _Every(save_steps, save_secs, "CheckpointSaverHook")
        self.listeners = list(listeners or [])

    def begin(self, estimator) -> None:
        self.estimator = estimator
        self.timer.mark(estimator.global_step)
        saved_at = _last_saves.get(estimator, {}).get(self.checkpoint_dir)
        if saved_at is not None:
            self.timer.last_time = saved_at

    def _save(self):
        if self._diverged():
            return
        path = self.estimator.save_checkpoint(self.checkpoint_dir)
        _last_saves.setdefault(self.estimator, {})[self.checkpoint_dir] = time.monotonic()
        for listener in self.listeners:
            listener(path)

    def _diverged(self) -> bool:
        """True (with a warning) when the estimator's state is not finite, so not saved."""
        check = getattr(self.estimator, "_nonfinite_variables", None)
        bad = check() if check is not None else []
        if bad:
            logger.warning(
                "not saving a checkpoint at step %d: variables %s hold NaN or inf; the "
                "latest checkpoint stays the last finite one",
                self.estimator.global_step,
                bad[:10],
            )
        return bool(bad)

    def after_run(self, run_context, run_values) -> None:
        if self.timer.due_on_grid(run_values["global_step"]):
            self.timer.mark(run_values["global_step"])
            self._save()

    def end(self, estimator) -> None:
        if self.timer.last_step != estimator.global_step:
            self._save()


class SummarySaverHook(SessionRunHook):
    """Append the scalar run values to ``output_dir/summaries.jsonl`` every N steps/seconds.

    TensorFlow wrote event files for TensorBoard; a JSON line per summary
    (``{"global_step": ..., "loss": ..., "wall_time": ...}``) is readable by anything.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, keys=None):
        self.timer = _Every(save_steps, save_secs, "SummarySaverHook")
        self.output_dir = output_dir
        self.keys = keys

    def begin(self, estimator) -> None:
        self.output_dir = self.output_dir or estimator.model_dir
        os.makedirs(self.output_dir, exist_ok=True)
        self.path = os.path.join(self.output_dir, "summaries.jsonl")

    def after_run(self, run_context, run_values) -> None:
        step = run_values["global_step"]
        if self.timer.due(step):
            self.timer.mark(step)
            keys = self.keys or [k for k, v in run_values.items() if isinstance(v, (int, float))]
            record = {k: run_values[k] for k in keys}
            record.update(global_step=step, wall_time=time.time())
            with open(self.path, "a") as f:
                f.write(json.dumps(record) + "\n")
