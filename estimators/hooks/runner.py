"""How an estimator's loop calls its hooks, with ``tf.train``'s types: the
SessionRunHook protocol without sessions, eagerly, and the estimator whose run the hooks
observe. The hooks themselves are in :mod:`.basic`.

The training loop calls, as TF's ``MonitoredSession`` does: ``begin()`` once,
``after_create_session(session, coord)`` once (both ``None``: there are no sessions),
then around every step ``before_run(run_context)``, which may return
:class:`SessionRunArgs` naming what to fetch, and ``after_run(run_context,
run_values)``, whose ``run_values.results`` holds the fetched values (numpy, in the
structure of the fetches: one name, a list, a tuple or a dict); ``end(session)`` when
training ends cleanly. ``run_context.request_stop()`` ends training after the step.

What a hook may fetch (a name, ``name:0`` as TF writes it, or the variable itself):

* ``"loss"``: the step's loss (float32);
* ``"global_step"``, or ``cn.train.get_global_step()`` called in ``begin()``: the global
  step *as read at the start of the step*, which TF's own hooks assume (they add 1; TF
  reads it in the same run as the update, in no fixed order);
* ``"rows"``: the batch's number of rows;
* the prediction keys of the step (a canned estimator's head's: ``logits``,
  ``probabilities``...; a custom ``model_fn``'s ``predictions`` of its TRAIN spec),
  computed only when fetched;
* any model variable by its full name (``dense/kernel``, ``dnn/hiddenlayer_0/kernel``),
  after the step's update. To log another tensor of a custom ``model_fn`` (TF's
  ``tf.identity(x, name="cross_entropy")``), put it in the TRAIN spec's
  ``predictions``.

A name that does not exist is an error listing the names that do.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import time

import numpy as np

from ... import core

logger = logging.getLogger("colonnade")


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What ``before_run`` asks for: ``fetches`` (a name, a variable, or a list, tuple or
    dict of them). ``feed_dict`` and ``options`` are kept for TF's signature; a
    ``feed_dict`` cannot be honoured (a step's inputs come from ``input_fn``) and is
    refused.

    >>> SessionRunArgs(["loss", "global_step"]).fetches
    ['loss', 'global_step']
    """

    def __new__(cls, fetches, feed_dict=None, options=None):
        if feed_dict:
            raise ValueError(
                "SessionRunArgs(feed_dict=...) cannot be honoured: colonnade feeds each step "
                "from the input_fn; fetch values instead"
            )
        return super().__new__(cls, fetches, feed_dict, options)


class RunOptions:
    """TF's ``tf.compat.v1.RunOptions``, as a hook passes it in ``SessionRunArgs(options=)``:
    a ``trace_level`` above ``NO_TRACE`` asks for the step's trace, given back in
    ``run_values.run_metadata.step_stats`` (a
    :class:`~colonnade.core.step_trace.StepTrace` of the step's phases). The other fields
    are TF's, accepted and not needed (there are no sessions or devices to configure).

    >>> RunOptions(trace_level=RunOptions.FULL_TRACE).trace_level
    3
    """

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3

    def __init__(
        self,
        trace_level=0,
        timeout_in_ms=0,
        inter_op_thread_pool=0,
        output_partition_graphs=False,
        debug_options=None,
        report_tensor_allocations_upon_oom=False,
        experimental=None,
    ):
        if not isinstance(trace_level, (int, np.integer)) or int(trace_level) not in (0, 1, 2, 3):
            raise ValueError(f"RunOptions: trace_level must be 0 to 3, got {trace_level!r:.80}")
        self.trace_level = int(trace_level)
        self.timeout_in_ms = timeout_in_ms
        self.report_tensor_allocations_upon_oom = report_tensor_allocations_upon_oom


class RunMetadata:
    """TF's ``tf.compat.v1.RunMetadata``: ``step_stats``, the traced step's
    :class:`~colonnade.core.step_trace.StepTrace` (``None`` when none was asked for)."""

    def __init__(self, step_stats=None):
        self.step_stats = step_stats


def _traces(request) -> bool:
    return request is not None and getattr(request.options, "trace_level", 0) > 0


class SessionRunValues:
    """What ``after_run`` gets (TF's fields): ``results``, the fetched values in the
    fetches' structure, ``options`` and ``run_metadata`` (a :class:`RunMetadata` when
    ``options`` asked for a trace, else ``None``). It unpacks as TF's named tuple.

    >>> results, options, run_metadata = SessionRunValues({"loss": 0.5})
    >>> results
    {'loss': 0.5}
    """

    __slots__ = ("results", "options", "run_metadata")

    def __init__(self, results, options=None, run_metadata=None):
        self.results, self.options, self.run_metadata = results, options, run_metadata

    def __iter__(self):
        return iter((self.results, self.options, self.run_metadata))

    def __repr__(self) -> str:
        return f"SessionRunValues(results={self.results!r})"

    def __getitem__(self, index):
        return (self.results, self.options, self.run_metadata)[index]


class SessionRunContext:
    """A step's context: ``original_args`` (what the loop runs: the loss), ``session``
    (``None``), ``request_stop()`` and ``stop_requested``."""

    def __init__(self, original_args, session=None):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        """End training after this step (its ``after_run`` calls all happen)."""
        self._stop_requested = True


class SessionRunHook:
    """Base class: every method is a no-op; override the ones you need (TF's names and
    arguments, see the module)."""

    def begin(self) -> None:
        pass

    def after_create_session(self, session, coord) -> None:
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values) -> None:
        pass

    def end(self, session) -> None:
        pass


class CheckpointSaverListener:
    """Called around each checkpoint a :class:`CheckpointSaverHook` writes (TF's class):
    ``begin()``, ``before_save(session, global_step_value)``,
    ``after_save(session, global_step_value)`` (return ``True`` to stop training) and
    ``end(session, global_step_value)``; ``session`` is ``None``."""

    def begin(self) -> None:
        pass

    def before_save(self, session, global_step_value) -> None:
        pass

    def after_save(self, session, global_step_value):
        return None

    def end(self, session, global_step_value) -> None:
        pass


# ---------------------------------------------------------------- the running estimator

_running = threading.local()


@contextlib.contextmanager
def running(estimator):
    """Make ``estimator`` the one whose training the hooks in this thread observe (TF's
    default graph: what ``CheckpointSaverHook`` saves, what the global step is)."""
    stack = _running.__dict__.setdefault("stack", [])
    stack.append(estimator)
    try:
        yield
    finally:  # its own entry: a predict iterator may be closed after others began
        del stack[len(stack) - 1 - stack[::-1].index(estimator)]


def running_estimator(what: str):
    """The estimator being trained; an error naming ``what`` outside training."""
    stack = getattr(_running, "stack", None)
    if not stack:
        raise RuntimeError(
            f"{what} is used outside an estimator's train(): hooks are called by "
            "Estimator.train / evaluate / predict"
        )
    return stack[-1]


def global_step_variable(what: str):
    """The global step variable a hook reads: the default one, else the running
    estimator's."""
    step = core.get_global_step()
    if step is None:
        step = running_estimator(what).train_state.global_step_variable
    return step


# ---------------------------------------------------------------- the loop's side


class StepLog:
    """Logs the loss and global steps per second at INFO every ``every`` global steps
    (0: never): what a training loop says as it goes, in one process or as the
    distributed chief.

    >>> log = StepLog(every=100, step=0)
    >>> log(50, 0.7), log(100, 0.6)  # logs at step 100 only
    (None, None)
    """

    def __init__(self, every: int, step: int):
        self.every = every
        self.restart(step)

    def restart(self, step: int) -> None:
        """Count the rate from ``step``, now."""
        self._at, self._step = time.monotonic(), step

    def __call__(self, step: int, loss: float) -> None:
        if not self.every or step % self.every:
            return
        now = time.monotonic()
        rate = (step - self._step) / max(now - self._at, 1e-9)
        logger.info("loss = %.6g, step = %d (%.1f steps/s)", loss, step, rate)
        self._at, self._step = now, step


class StepValues:
    """What one step produced, for the hooks to fetch from: ``loss`` (float; ``None`` in
    predict), the global step before and after the step, the batch's ``rows``, and
    ``tensors()``, the
    estimator's further fetchable names (``name -> zero-argument function``)."""

    __slots__ = ("loss", "before", "after", "rows", "_tensors", "_table", "_step_variable")

    def __init__(self, loss, before, after, rows, tensors, step_variable):
        self.loss, self.before, self.after, self.rows = loss, before, after, rows
        self._tensors, self._table, self._step_variable = tensors, None, step_variable

    def _lookup(self, name: str, hook):
        if name == "loss" and self.loss is not None:  # the common fetch, without the checks
            return np.float32(self.loss)
        key = name[:-2] if name.endswith(":0") else name
        if key == "loss" and self.loss is not None:  # predict has none
            return np.float32(self.loss)
        if key == "global_step":
            return np.int64(self.before)
        if key == "rows":
            return np.int64(self.rows)
        if self._table is None:
            self._table = self._tensors()
        if key not in self._table:
            known = ["global_step", "rows"] + (["loss"] if self.loss is not None else [])
            names = sorted({*known, *self._table})
            raise ValueError(
                f"{type(hook).__name__}.before_run fetches {name!r}, which this step does not "
                f"have; the names it can fetch are {names}"
            )
        return self._table[key]()

    def resolve(self, fetches, hook):
        """``fetches`` with every name or variable replaced by its value."""
        if fetches is None:
            return None
        if isinstance(fetches, str):
            return self._lookup(fetches, hook)
        if isinstance(fetches, core.Variable):
            if fetches is self._step_variable:
                return np.int64(self.before)
            return fetches.numpy().copy()
        if isinstance(fetches, dict):
            return {k: self.resolve(v, hook) for k, v in fetches.items()}
        if isinstance(fetches, (list, tuple)):
            return type(fetches)(self.resolve(v, hook) for v in fetches)
        raise TypeError(
            f"{type(hook).__name__}.before_run fetches a {type(fetches).__name__}; fetches "
            "are names (str), variables, or lists, tuples and dicts of them"
        )


class HookRunner:
    """Calls ``hooks`` in TF's order for one ``train``/``evaluate``/``predict`` of
    ``estimator``."""

    _ORIGINAL_ARGS = SessionRunArgs("loss")

    def __init__(self, hooks, estimator):
        self.hooks = list(hooks)
        self.estimator = estimator
        self._check(self.hooks)

    @staticmethod
    def _check(hooks) -> None:
        for hook in hooks:
            if not isinstance(hook, SessionRunHook):
                raise TypeError(
                    f"All hooks must be a SessionRunHook, given: {hook!r} (a {type(hook).__name__})"
                )

    def begin(self) -> None:
        """``begin()`` then ``after_create_session(None, None)`` of every hook."""
        self._check(self.hooks)
        self._requests = [None] * len(self.hooks)
        with self.estimator.hook_scope():
            for hook in self.hooks:
                hook.begin()
            for hook in self.hooks:
                hook.after_create_session(None, None)

    def before_run(self) -> SessionRunContext:
        context = SessionRunContext(self._ORIGINAL_ARGS)
        for i, hook in enumerate(self.hooks):
            request = hook.before_run(context)
            if request is not None and not isinstance(request, SessionRunArgs):
                raise TypeError(
                    f"{type(hook).__name__}.before_run must return a SessionRunArgs or None, "
                    f"got {type(request).__name__}"
                )
            self._requests[i] = request
        return context

    def wants_trace(self) -> bool:
        """Whether a hook's ``SessionRunArgs`` asked for this step's trace
        (:class:`RunOptions` with a ``trace_level``)."""
        return any(_traces(request) for request in self._requests)

    def after_run(self, context, step: StepValues, trace=None) -> None:
        """Each hook's ``after_run`` with what it fetched; ``trace``: the step's
        :class:`~colonnade.core.step_trace.StepTrace`, for the hooks that asked."""
        for hook, request in zip(self.hooks, self._requests):
            if request is None:
                values = SessionRunValues(None)
            else:
                metadata = RunMetadata(trace) if _traces(request) else None
                results = step.resolve(request.fetches, hook)
                values = SessionRunValues(results, request.options, metadata)
            hook.after_run(context, values)

    def end(self) -> None:
        with self.estimator.hook_scope():
            for hook in self.hooks:
                hook.end(None)


__all__ = [
    "CheckpointSaverListener",
    "HookRunner",
    "RunMetadata",
    "RunOptions",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepLog",
    "StepValues",
    "global_step_variable",
    "running",
    "running_estimator",
]
