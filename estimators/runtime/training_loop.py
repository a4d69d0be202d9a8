"""The one training loop: an estimator's TRAIN spec over the batches of an input,
between its hooks, resumed from and saved to model_dir."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Mapping

from ...core import step_trace
from ..hooks.basic import CheckpointSaverHook, NanTensorHook
from ..hooks.progress import ProgressHook, known_rows
from ..hooks.runner import HookRunner, StepLog, StepValues, running
from ..hooks.tensorboard import TensorBoardHook
from ..inputs import input_fn as inputs
from ..inputs.pipeline import transformed_batches
from ..spec.model_fn import ModeKeys
from .inference import host

logger = logging.getLogger("colonnade")


def train(estimator, input_fn, steps, max_steps, hooks, saving_listeners, verbose="auto"):
    """The body of ``Estimator.train``, run under model_dir's lock."""
    if steps is not None and max_steps is not None:
        raise ValueError("set at most one of steps and max_steps")
    for name, value in (("steps", steps), ("max_steps", max_steps)):
        if value is not None and value <= 0:
            raise ValueError(f"{name} must be > 0, got {value}")
    if not resume(estimator, max_steps):
        return
    first_step = estimator.global_step
    if max_steps is not None:
        last_step = max_steps
    else:
        last_step = first_step + steps if steps is not None else None
    all_hooks, saver = training_hooks(
        estimator, input_fn, last_step, hooks, saving_listeners, verbose
    )
    started = time.monotonic()
    with running(estimator), estimator.train_state.training_run(), sigterm_as_interrupt():
        runner = HookRunner(all_hooks, estimator)
        if _train_steps(estimator, input_fn, last_step, runner, saver):
            # only a clean exit ends the hooks (as TF): a failed run saves no final checkpoint
            runner.end()
    if estimator.global_step == first_step:
        raise ValueError("training got no batches from its input: the dataset is empty")
    logger.info("trained to step %d in %.1fs", estimator.global_step, time.monotonic() - started)


def resume(estimator, max_steps) -> bool:
    """Bring the estimator to where training starts (model_dir's newest intact
    checkpoint, else its warm start, and the model's local variables at their initial
    values); whether steps are left before ``max_steps``."""
    estimator.train_state.resume()
    estimator.model.reset_local_variables()
    if max_steps is not None and estimator.global_step >= max_steps:
        logger.info(
            "skipping training: global step %d already reached max_steps=%d",
            estimator.global_step,
            max_steps,
        )
        return False
    return True


class Terminated(KeyboardInterrupt):
    """SIGTERM during training (a preempted or stopped job): handled as Ctrl-C is, so the
    run's finite state is saved before it stops, as TF saves on preemption."""


@contextlib.contextmanager
def sigterm_as_interrupt():
    """Meanwhile SIGTERM raises :class:`Terminated` in the training thread, when it is the
    main thread and SIGTERM has Python's default handling (a handler of the program's own
    is left alone); the previous handling is restored afterwards."""
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return

    def terminate(signum, frame):
        raise Terminated("SIGTERM")

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def training_hooks(estimator, input_fn, last_step, hooks, saving_listeners, verbose):
    """The hooks of one training run, in the order they are called, and the checkpoint
    saver among them: the user's (with a ``NanTensorHook`` unless they bring one), then
    the saver (``None`` when the config saves no checkpoints, as TF's with both
    ``save_checkpoints_steps`` and ``save_checkpoints_secs`` ``None``), the progress bar
    and TensorBoard's summaries."""
    cfg = estimator.config
    saver = None
    if cfg.save_checkpoints_steps or cfg.save_checkpoints_secs:
        saver = CheckpointSaverHook(
            save_steps=cfg.save_checkpoints_steps,
            save_secs=cfg.save_checkpoints_secs,
            listeners=saving_listeners,
        )
    elif saving_listeners:
        raise ValueError(
            "There should be a CheckpointSaverHook to use saving_listeners: the RunConfig "
            "has save_checkpoints_steps=None and save_checkpoints_secs=None, which saves no "
            "checkpoints (set one of them)"
        )
    progress = ProgressHook(
        total_rows=known_rows(input_fn),
        total_steps=None if last_step is None else last_step - estimator.global_step,
        verbose=verbose,
    )
    all_hooks = _with_nan_check(list(hooks or [])) + [h for h in (saver, progress) if h is not None]
    if cfg.save_summary_steps:
        all_hooks.append(TensorBoardHook(cfg.save_summary_steps))
    return all_hooks, saver


def _with_nan_check(hooks: list) -> list:
    """``hooks`` with a failing :class:`NanTensorHook` first, unless one was passed (as
    tf.estimator, which always adds one): a NaN or inf loss stops training with
    ``NanLossDuringTrainingError`` before any other hook, the saver included, sees the
    step. It checks the float loss the step already returns: no extra device sync."""
    if any(isinstance(hook, NanTensorHook) for hook in hooks):
        return list(hooks)
    return [NanTensorHook()] + list(hooks)


def _train_steps(estimator, input_fn, last_step, runner, saver) -> bool:
    """The steps of one ``train`` call, each between its hooks' ``before_run`` and
    ``after_run``, until the input ends, ``last_step`` or a hook stops it. The hooks
    begin at the first batch (with those the model_fn's spec brings); whether they did."""
    state = estimator.train_state
    step_log = StepLog(estimator.config.log_step_count_steps, estimator.global_step)
    batches = transformed_batches(
        estimator.model.network,
        input_fn,
        repeat_single=last_step is not None,
        limit=None if last_step is None else last_step - estimator.global_step,
        training=True,
    )
    begun = False
    tensors = lambda: step_tensors(estimator)  # noqa: E731 - fetched only when asked
    try:
        asked = time.perf_counter()
        for features, labels, cache in batches:
            arrived = time.perf_counter()
            if not begun:
                runner.hooks += estimator.spec_hooks(features, labels, ModeKeys.TRAIN)
                runner.begin()
                begun = True
            context = runner.before_run()
            before = estimator.global_step
            with _traced_step(runner.wants_trace(), asked, arrived) as trace:
                loss = estimator.train_step(features, labels, cache)
            after = estimator.global_step
            rows = inputs.num_rows(features)
            values = StepValues(loss, before, after, rows, tensors, state.global_step_variable)
            runner.after_run(context, values, trace)
            step_log(after, loss)
            asked = time.perf_counter()
            if context.stop_requested or (last_step is not None and after >= last_step):
                break
        else:
            if begun:  # else train raises: the input was empty
                _warn_input_ran_out(estimator, last_step)
    except KeyboardInterrupt:
        batches.close()
        _save_on_interrupt(estimator, saver)
        raise
    finally:
        batches.close()  # stops the input thread when training ends early
    return begun


@contextlib.contextmanager
def _traced_step(wanted: bool, asked: float, arrived: float):
    """A hook asked for this step's trace (``ProfilerHook``): record its phases, the
    wait for the batch (``asked`` to ``arrived``) and the step, with the gradients and
    optimizer updates inside it; the :class:`~colonnade.core.step_trace.StepTrace`, or
    ``None`` when no hook asked."""
    if not wanted:
        yield None
        return
    with step_trace.recording() as trace:
        trace.add("input", asked, arrived)
        start = time.perf_counter()
        try:
            yield trace
        finally:
            trace.add("train_step", start, time.perf_counter())


def _warn_input_ran_out(estimator, last_step) -> None:
    """Say at WARNING that the input ended before the step ``train`` was asked to reach
    (TF stops there without a word): a dataset that does not repeat trains one pass."""
    if last_step is not None and estimator.global_step < last_step:
        logger.warning(
            "the input ran out at step %d, before step %d that max_steps (or steps) asked "
            "for: training stopped there. To train that far, repeat the data "
            "(Dataset.repeat() before .batch(n); numpy_input_fn(num_epochs=None))",
            estimator.global_step,
            last_step,
        )


def step_tensors(estimator) -> dict:
    """The fetchable names of the last training step beyond ``loss``, ``global_step`` and
    ``rows``: the TRAIN spec's predictions by key (``"predictions"`` when it is one
    tensor; a head's are computed only when fetched) and the model's variables,
    ``name -> zero-argument function``."""
    variables = estimator.train_state.model_variables()
    out = {name: var.numpy for name, var in variables.items()}
    predictions = estimator.last_predictions
    if predictions is not None and not isinstance(predictions, Mapping):
        predictions = {"predictions": predictions}
    for key in predictions or {}:
        out[key] = lambda key=key: host(predictions[key])
    return out


def _save_on_interrupt(estimator, saver) -> None:
    """Keep the work of an interrupted run (Ctrl-C): save its state, unless it has
    diverged (the saver skips non-finite state). An interrupt that lands inside a step
    may save that step half applied, which is finite and harmless to resume from."""
    if saver is None:  # the config saves no checkpoints
        return
    logger.warning(
        "training interrupted at step %d; saving a checkpoint of its state",
        estimator.global_step,
    )  # Ctrl-C, or SIGTERM (Terminated)
    saver.end(None)  # the saver skips a non-finite state, with a warning
