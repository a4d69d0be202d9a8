"""Training hooks with ``tf.train``'s signatures, eagerly: the SessionRunHook family
without sessions (the protocol and its types are in :mod:`.runner`).

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

from ... import core
from ...core.summaries import summary_value
from .runner import (
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
    stops training), or plain callables called with the saved path. TF's ``saver`` and
    ``scaffold`` are graph objects: only ``None`` is taken (the estimator saves its whole
    state); ``checkpoint_basename`` is ``"model.ckpt"``; ``save_graph_def`` is accepted.

    A diverged model is never saved: when a variable holds NaN or inf, the save is skipped
    with a warning naming the variables, so the latest checkpoint stays the last good one
    (the loss can still be finite at the step the weights overflow), and training stops
    there: the :class:`NanTensorHook` fails it with ``NonFiniteStateError`` (or, with
    ``fail_on_nan_loss=False``, it ends with that warning). ``end()`` is called by the training
    loop only when training ends cleanly (or is interrupted with ``KeyboardInterrupt``):
    a run that fails does not write its state as the latest checkpoint.
    """

    def __init__(
        self,
        checkpoint_dir=None,
        save_secs=None,
        save_steps=None,
        saver=None,
        checkpoint_basename="model.ckpt",
        scaffold=None,
        listeners=None,
        save_graph_def=True,
    ):
        _refuse_graph_objects("CheckpointSaverHook", saver=saver, scaffold=scaffold)
        if checkpoint_basename != "model.ckpt":
            raise ValueError(
                "CheckpointSaverHook: checkpoints are named model.ckpt-<step>, as restoring "
                f"(and TF) looks for them; got checkpoint_basename={checkpoint_basename!r}"
            )
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
        if self.timer.last_step != step and not self.estimator.train_state.in_memory:
            self._save()
            self.timer.mark(step)
        for listener in self._tf_listeners():
            listener.end(None, step)


class SummarySaverHook(SessionRunHook):
    """Append the loss to ``output_dir/summaries.jsonl`` every N steps/seconds.

    TensorFlow wrote event files for TensorBoard (colonnade's training does too, see
    :mod:`.tensorboard`); a JSON line per summary (``{"global_step": ..., "loss": ...,
    "wall_time": ...}``, at the global step after the summarized step, as TF) is
    readable by anything. It holds what the ``model_fn`` recorded with ``cn.summary``,
    and ``keys`` (or TF's ``summary_op``: a name or names) are further fetchable names to
    record. A ``summary_writer`` (anything with ``add_scalar(tag, value, step)``, such as
    ``tensorboardX.SummaryWriter``) gets the scalars too; TF's ``scaffold`` only as
    ``None``.
    """

    def __init__(
        self,
        save_steps=None,
        save_secs=None,
        output_dir=None,
        summary_writer=None,
        scaffold=None,
        summary_op=None,
        keys=None,
    ):
        _refuse_graph_objects("SummarySaverHook", scaffold=scaffold)
        self.timer = _Every(save_steps, save_secs, "SummarySaverHook")
        self.output_dir = output_dir
        self.summary_writer = summary_writer
        ops = [summary_op] if isinstance(summary_op, str) else list(summary_op or [])
        self.keys = list(keys or ["loss"]) + [op for op in ops if op not in (keys or ["loss"])]

    def begin(self) -> None:
        self.estimator = running_estimator("SummarySaverHook")
        self.output_dir = self.output_dir or self.estimator.model_dir
        os.makedirs(self.output_dir, exist_ok=True)
        self.path = os.path.join(self.output_dir, "summaries.jsonl")

    def before_run(self, run_context):
        return SessionRunArgs({"values": {k: k for k in self.keys}, "step": "global_step"})

    def after_run(self, run_context, run_values) -> None:
        step = int(run_values.results["step"]) + 1
        if self.timer.due(step):
            self.timer.mark(step)
            record = {k: _jsonable(v) for k, v in run_values.results["values"].items()}
            summaries = getattr(self.estimator.model, "train_summaries", {})
            record.update({tag: _jsonable(summary_value(v)) for tag, (_, v) in summaries.items()})
            record.update(global_step=step, wall_time=time.time())
            with open(self.path, "a") as f:
                f.write(json.dumps(record) + "\n")
            if self.summary_writer is not None:
                for tag, value in record.items():
                    if tag not in ("global_step", "wall_time") and np.ndim(value) == 0:
                        self.summary_writer.add_scalar(tag, float(value), step)


def _refuse_graph_objects(hook: str, **objects) -> None:
    """TF's graph objects (``saver``, ``scaffold``) have no meaning here: ``None`` only."""
    given = sorted(name for name, value in objects.items() if value is not None)
    if given:
        raise ValueError(
            f"{hook}: {', '.join(given)} configure TF's graph and session, which colonnade "
            "has none of; the estimator saves and restores its whole state itself (pass None)"
        )


class SecondOrStepTimer:
    """TF's timer for hooks that act every N seconds or every N steps: exactly one of
    ``every_secs`` and ``every_steps``.

    >>> timer = SecondOrStepTimer(every_steps=10)
    >>> timer.should_trigger_for_step(0), timer.update_last_triggered_step(0)
    (True, (None, None))
    >>> timer.should_trigger_for_step(9), timer.should_trigger_for_step(10)
    (False, True)
    """

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("Either every_secs or every_steps should be provided.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self) -> None:
        """Forget the last trigger: the next step triggers."""
        self._last_step, self._last_time = None, None

    def should_trigger_for_step(self, step: int) -> bool:
        """Whether ``step`` is due: the first step, then ``every_steps`` steps or
        ``every_secs`` seconds after the last trigger (never the same step twice)."""
        if self._last_step is None:
            return True
        if step == self._last_step:
            return False
        if self._every_secs is not None and _now() >= self._last_time + self._every_secs:
            return True
        return self._every_steps is not None and step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step: int) -> tuple:
        """Mark ``step`` triggered; ``(seconds, steps)`` since the last trigger, or
        ``(None, None)`` the first time."""
        now = _now()
        elapsed = (None, None)
        if self._last_step is not None:
            elapsed = (now - self._last_time, step - self._last_step)
        self._last_step, self._last_time = step, now
        return elapsed

    def last_triggered_step(self):
        """The last step marked, or ``None``."""
        return self._last_step


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


def _jsonable(value):
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else array.tolist()


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
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
]
