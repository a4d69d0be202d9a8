"""The hooks that write what training produced: :class:`CheckpointSaverHook` (checkpoints,
with TF's listeners) and :class:`SummarySaverHook` (summaries as JSON lines)."""

from __future__ import annotations

import json
import logging
import os
import time
import weakref

import numpy as np

from ...core.summaries import summary_value
from . import timers
from .runner import CheckpointSaverListener, SessionRunArgs, SessionRunHook, running_estimator

logger = logging.getLogger("colonnade")

# When each estimator last saved a checkpoint, by checkpoint directory: the time-based
# saver of a train() call goes on from the previous call's save (fit trains an epoch a call).
_last_saves: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class CheckpointSaverHook(SessionRunHook):
    """Save a checkpoint before the first step (TF's ``model.ckpt-0`` of a fresh
    model_dir), every ``save_steps`` steps or ``save_secs`` seconds, and at the end.

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
        refuse_graph_objects("CheckpointSaverHook", saver=saver, scaffold=scaffold)
        if checkpoint_basename != "model.ckpt":
            raise ValueError(
                "CheckpointSaverHook: checkpoints are named model.ckpt-<step>, as restoring "
                f"(and TF) looks for them; got checkpoint_basename={checkpoint_basename!r}"
            )
        self.checkpoint_dir = checkpoint_dir
        self.timer = timers.Every(save_steps, save_secs, "CheckpointSaverHook")
        self.listeners = list(listeners or [])
        for listener in self.listeners:
            if not (isinstance(listener, CheckpointSaverListener) or callable(listener)):
                raise TypeError(
                    "saving_listeners must be a list of CheckpointSaverListener (or of "
                    f"callables), got a {type(listener).__name__}"
                )

    def begin(self) -> None:
        self.estimator = running_estimator("CheckpointSaverHook")
        self.timer.mark(self.estimator.global_step)
        saved_at = _last_saves.get(self.estimator, {}).get(self.checkpoint_dir)
        if saved_at is not None:
            self.timer.last_time = saved_at
        for listener in self._tf_listeners():
            listener.begin()

    def after_create_session(self, session, coord) -> None:
        """Save the state training starts from, as TF does before the first step
        (``model.ckpt-0`` in a fresh model_dir). A state model_dir holds already at this
        step (a resumed run) is not written again; the listeners see the save either
        way, as TF's (which ignores their stop request here). ``fit``'s epochs, which go
        on in memory, save no starting state."""
        if self.estimator.train_state.in_memory:
            return
        step = self.estimator.global_step
        state = self.estimator.train_state
        saved = self.checkpoint_dir is None and state.saved_at(step)
        if not saved:
            state.create_slots()  # restoring this checkpoint later finds them
        self._save(write=not saved)
        self.timer.mark(step)

    def _tf_listeners(self):
        return [x for x in self.listeners if isinstance(x, CheckpointSaverListener)]

    def _save(self, write: bool = True) -> bool:
        """Save (unless diverged; ``write=False``: the state is saved already, only the
        listeners are called); True when a listener asks to stop, or when the state
        diverged: training stops there (``NanTensorHook.end`` then raises
        ``NonFiniteStateError``) instead of refusing every later save."""
        if self._diverged():
            return True
        step = self.estimator.global_step
        for listener in self._tf_listeners():
            listener.before_save(None, step)
        if write:
            path = self.estimator.save_checkpoint(self.checkpoint_dir)
            _last_saves.setdefault(self.estimator, {})[self.checkpoint_dir] = timers.now()
        else:
            path = self.estimator.latest_checkpoint()
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
        refuse_graph_objects("SummarySaverHook", scaffold=scaffold)
        self.timer = timers.Every(save_steps, save_secs, "SummarySaverHook")
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


def refuse_graph_objects(hook: str, **objects) -> None:
    """TF's graph objects (``saver``, ``scaffold``) have no meaning here: ``None`` only."""
    given = sorted(name for name, value in objects.items() if value is not None)
    if given:
        raise ValueError(
            f"{hook}: {', '.join(given)} configure TF's graph and session, which colonnade "
            "has none of; the estimator saves and restores its whole state itself (pass None)"
        )


def _jsonable(value):
    array = np.asarray(value)
    return array.item() if array.ndim == 0 else array.tolist()


__all__ = ["CheckpointSaverHook", "SummarySaverHook", "refuse_graph_objects"]
