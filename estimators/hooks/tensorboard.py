"""TensorBoard event files, where ``tf.estimator`` writes them (``tensorboardX``'s writer).

Training writes ``loss``, ``global_step/sec``, each optimizer's learning rate and what a
``model_fn`` recorded with ``cn.summary.scalar``/``histogram`` to
``model_dir/events.out.tfevents.<time>.<host>.<pid>.<n>`` at every global step that is a multiple
of ``RunConfig.save_summary_steps`` (0 turns it off); ``evaluate`` writes its metrics to
``model_dir/eval`` (``eval_<name>`` for ``evaluate(..., name=...)``) at the evaluated
global step. ``tensorboard --logdir model_dir`` shows both runs.

The learning rate's tag is ``learning_rate`` for a model with one optimizer, else
``<part>/learning_rate`` (``linear_optimizer``, ``dnn_optimizer``); a schedule is
written at the step it was used for.
"""

from __future__ import annotations

import itertools
import os
import time

import numpy as np

from ...core import to_host
from ...core.summaries import image_uint8, summary_value
from .runner import SessionRunArgs, SessionRunHook, running_estimator

__all__ = ["TensorBoardHook", "eval_dir", "write_eval_summary", "write_scalars"]


_files_opened = itertools.count()


def event_writer(directory):
    """A writer of a new event file ``events.out.tfevents.<time>.<host>.<pid>.<n>`` (TF 2's
    name: the suffix keeps two files opened in the same second apart)."""
    from tensorboardX import SummaryWriter

    suffix = f".{os.getpid()}.{next(_files_opened)}"
    return SummaryWriter(logdir=os.fspath(directory), filename_suffix=suffix)


def write_scalars(directory, step: int, values: dict) -> None:
    """Append one event per number in ``values`` at ``step`` to a new event file in
    ``directory`` (as TF's evaluation does, a file per call)."""
    writer = event_writer(directory)
    try:
        for tag, value in values.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                writer.add_scalar(tag, float(value), step)
    finally:
        writer.close()


def eval_dir(model_dir, name=None) -> str:
    """Where ``evaluate`` writes: ``model_dir/eval`` or ``model_dir/eval_<name>``."""
    return os.path.join(model_dir, "eval" if not name else f"eval_{name}")


def write_eval_summary(model_dir, name, results: dict) -> str:
    """Write ``evaluate``'s ``results`` (but ``global_step``, their step) to
    :func:`eval_dir`; return that directory."""
    directory = eval_dir(model_dir, name)
    metrics = {k: v for k, v in results.items() if k != "global_step"}
    write_scalars(directory, int(results["global_step"]), metrics)
    return directory


class TensorBoardHook(SessionRunHook):
    """Write the training scalars every ``every_steps`` global steps (on the multiples of
    it, so a run split into several ``train`` calls writes on the same grid).

    ``global_step/sec`` is measured since the previous write, or since the run began."""

    def __init__(self, every_steps: int, output_dir=None):
        if every_steps < 1:
            raise ValueError(f"every_steps must be >= 1, got {every_steps}")
        self.every_steps = every_steps
        self.output_dir = output_dir
        self.writer = None

    def begin(self) -> None:
        self.estimator = running_estimator("TensorBoardHook")
        self.output_dir = self.output_dir or self.estimator.model_dir
        self._since = (time.monotonic(), self.estimator.global_step)

    _fetches = SessionRunArgs({"loss": "loss", "step": "global_step"})

    def before_run(self, run_context):
        return self._fetches

    def after_run(self, run_context, run_values) -> None:
        step = int(run_values.results["step"]) + 1
        if step % self.every_steps:
            return
        if self.writer is None:  # created at the first write: no empty files
            self.writer = event_writer(self.output_dir)
        now = time.monotonic()
        since_time, since_step = self._since
        self.writer.add_scalar("loss", float(run_values.results["loss"]), step)
        if step > since_step:
            rate = (step - since_step) / max(now - since_time, 1e-9)
            self.writer.add_scalar("global_step/sec", rate, step)
        for tag, rate in _learning_rates(self.estimator).items():
            self.writer.add_scalar(tag, rate, step)
        write_model_summaries(
            self.writer, getattr(self.estimator.model, "train_summaries", {}), step
        )
        self.writer.flush()
        self._since = (now, step)

    def end(self, session) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


def write_model_summaries(writer, summaries: dict, step: int) -> None:
    """Write what a ``model_fn`` recorded with ``cn.summary`` (``{tag: (kind, value)}``)
    at ``step``: scalars as scalars, images as PNG images, the rest as histograms."""
    for tag, (kind, value) in summaries.items():
        value = to_host(summary_value(value))
        if kind == "scalar":
            writer.add_scalar(tag, float(np.asarray(value).reshape(-1)[0]), step)
        elif kind == "image":
            writer.add_image(tag, image_uint8(value)[0], step, dataformats="HWC")
        else:
            writer.add_histogram(tag, np.asarray(value, dtype=np.float64).reshape(-1), step)


def _learning_rates(estimator) -> dict:
    """Each optimizer's learning rate at the step it last applied (a number, or a
    schedule ``step -> rate`` called at that step)."""
    out = {}
    for name, optimizer, _ in estimator.train_state.parts:
        raw = getattr(optimizer, "learning_rate", None)
        if raw is None:
            continue
        if callable(raw):
            used_at = max(int(optimizer.iterations.numpy()) - 1, 0)
            raw = raw(used_at)
        try:
            rate = float(raw)
        except (TypeError, ValueError):
            continue
        out["learning_rate" if name == "optimizer" else f"{name}/learning_rate"] = rate
    return out
