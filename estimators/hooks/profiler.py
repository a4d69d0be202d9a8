"""``ProfilerHook``: TF's periodic step traces, in Chrome's trace format.

Every ``save_steps`` steps (or ``save_secs`` seconds) the hook asks for the next step's
trace (``SessionRunArgs(options=RunOptions(trace_level=FULL_TRACE))``, as TF's does)
and writes it to ``output_dir/timeline-<global step>.json``, which ``chrome://tracing``
and Perfetto open. A step's trace holds its phases: the wait for the input batch, the
whole step, and inside it the gradients and each optimizer's update (TF's holds the
graph's ops; an eager step has phases, not ops). TF 2.15's schedule is kept: the
first step is not traced, the timer starts from it, and the first trace is the step
``save_steps`` after it.
"""

from __future__ import annotations

import json
import logging
import os

from .runner import RunOptions, SessionRunArgs, SessionRunHook, global_step_variable
from .timers import SecondOrStepTimer

logger = logging.getLogger("colonnade")


class ProfilerHook(SessionRunHook):
    """Write a Chrome trace of one step every ``save_steps`` steps or ``save_secs``
    seconds (exactly one) to ``output_dir/timeline-{step}.json`` (``output_dir``: default
    the current directory). ``show_dataflow`` and ``show_memory`` are TF's switches
    for graph flow arrows and tensor memory, which an eager step does not have:
    accepted and recorded in the trace's metadata."""

    def __init__(
        self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True, show_memory=False
    ):
        for name, value in (("save_steps", save_steps), ("save_secs", save_secs)):
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if value is not None and not (number and value > 0):
                raise ValueError(f"ProfilerHook: {name} must be a positive number, got {value!r}")
        if not isinstance(output_dir, (str, os.PathLike)):
            raise TypeError(f"ProfilerHook: output_dir must be a path, got {output_dir!r:.80}")
        self.output_dir = os.fspath(output_dir)
        self.output_file = os.path.join(self.output_dir, "timeline-{}.json")
        self.show_dataflow, self.show_memory = bool(show_dataflow), bool(show_memory)
        self.timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)

    def begin(self) -> None:
        self._next_step = None
        self._step = global_step_variable("ProfilerHook")
        if os.path.exists(self.output_dir) and not os.path.isdir(self.output_dir):
            raise ValueError(f"ProfilerHook: output_dir {self.output_dir!r} is not a folder")
        os.makedirs(self.output_dir or ".", exist_ok=True)

    def before_run(self, run_context):
        self._request = self._next_step is not None and self.timer.should_trigger_for_step(
            self._next_step
        )
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request else None
        return SessionRunArgs({"global_step": self._step}, options=options)

    def after_run(self, run_context, run_values) -> None:
        stale = int(run_values.results["global_step"])
        if self._next_step is None:  # the timer starts at the first step, untraced
            self.timer.update_last_triggered_step(stale)
        step = stale + 1
        if self._request:
            step = int(self._step.numpy())
            self.timer.update_last_triggered_step(step)
            self.save(step, run_values.run_metadata.step_stats)
        self._next_step = step + 1

    def save(self, step: int, trace) -> None:
        """Write ``trace`` (the step's :class:`~colonnade.core.step_trace.StepTrace`)."""
        path = self.output_file.format(step)
        logger.info("Saving timeline for %d into '%s'.", step, path)
        document = trace.chrome_trace()
        document["metadata"] = {
            "global_step": step,
            "show_dataflow": self.show_dataflow,
            "show_memory": self.show_memory,
        }
        with open(path, "w") as f:
            json.dump(document, f)
