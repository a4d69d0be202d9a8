"""Training hooks with ``tf.train``'s signatures, eagerly: the SessionRunHook family
without sessions.

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

**The adapter for colonnade's first hooks.** Hooks written for colonnade before 0.2
(``begin(estimator)``, ``end(estimator)``, ``after_run(run_context, values)`` with
``values["loss"]``) keep working, with a ``DeprecationWarning``: a hook whose ``begin``
takes an argument, or whose ``end``'s argument is named ``estimator``, is detected once
when training starts and called the old way (``values`` a dict of ``loss``,
``global_step`` after the step, and ``rows``). ``run_values["loss"]`` on a
:class:`SessionRunValues` also still reads those values.
"""

from __future__ import annotations

import collections
import contextlib
import inspect
import json
import logging
import math
import os
import threading
import time
import warnings
import weakref

import numpy as np

from .. import core

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


# ---------------------------------------------------------------- run arguments and values


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


class SessionRunValues:
    """What ``after_run`` gets (TF's fields): ``results``, the fetched values in the
    fetches' structure, ``options`` and ``run_metadata`` (``None``). It unpacks as TF's
    named tuple. ``values["loss"]`` (a string key) is the old colonnade form, kept
    through the adapter with a ``DeprecationWarning``.

    >>> results, options, run_metadata = SessionRunValues({"loss": 0.5})
    >>> results
    {'loss': 0.5}
    """

    __slots__ = ("results", "options", "run_metadata", "_legacy")

    def __init__(self, results, options=None, run_metadata=None, legacy=None):
        self.results, self.options, self.run_metadata = results, options, run_metadata
        self._legacy = legacy

    def __iter__(self):
        return iter((self.results, self.options, self.run_metadata))

    def __repr__(self) -> str:
        return f"SessionRunValues(results={self.results!r})"

    def __getitem__(self, key):
        if isinstance(key, str):
            warnings.warn(
                "run_values[name] is colonnade's old hook form; fetch the name with "
                "before_run returning SessionRunArgs([...]) and read run_values.results",
                DeprecationWarning,
                stacklevel=2,
            )
            return (self._legacy or {})[key]
        return (self.results, self.options, self.run_metadata)[key]

    def get(self, key, default=None):
        """The old form's ``values.get(name, default)`` (see ``__getitem__``)."""
        return (self._legacy or {}).get(key, default)


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


RunContext = SessionRunContext  # colonnade's first name for it


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


def _global_step_variable(what: str):
    step = core.get_global_step()
    if step is None:
        step = running_estimator(what)._global_step
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

    def legacy(self) -> dict:
        return {"loss": self.loss, "global_step": self.after, "rows": self.rows}

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


def _takes_estimator(hook) -> bool:
    """Whether ``hook`` is written for colonnade's first hook signatures."""
    begin = inspect.signature(hook.begin).parameters.values()
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in begin if p.default is p.empty and p.kind in positional]
    end = list(inspect.signature(hook.end).parameters)
    return bool(required) or end[:1] == ["estimator"]


class HookRunner:
    """Calls ``hooks`` in TF's order for one ``train``/``evaluate``/``predict`` of
    ``estimator``: a hook written for the old signatures is detected once here (see the
    module) and called the old way."""

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
                    f"hooks must be SessionRunHook instances, got {type(hook).__name__}"
                )

    def begin(self) -> None:
        """Detect the old-style hooks, then ``begin()`` and ``after_create_session``."""
        self._check(self.hooks)
        self.legacy = [_takes_estimator(h) for h in self.hooks]
        for hook, old in zip(self.hooks, self.legacy):
            if old:
                warnings.warn(
                    f"{type(hook).__name__} uses colonnade's old hook signatures "
                    "(begin(estimator), end(estimator)); TF's are begin(), "
                    "after_create_session(session, coord) and end(session)",
                    DeprecationWarning,
                    stacklevel=4,
                )
        self._requests = [None] * len(self.hooks)
        with self.estimator._hook_scope():
            for hook, old in zip(self.hooks, self.legacy):
                hook.begin(self.estimator) if old else hook.begin()
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

    def after_run(self, context, step: StepValues) -> None:
        legacy = step.legacy()
        for hook, old, request in zip(self.hooks, self.legacy, self._requests):
            if old:
                hook.after_run(context, legacy)
                continue
            if request is None:
                values = SessionRunValues(None, legacy=legacy)
            else:
                values = SessionRunValues(
                    step.resolve(request.fetches, hook), request.options, legacy=legacy
                )
            hook.after_run(context, values)

    def end(self) -> None:
        with self.estimator._hook_scope():
            for hook, old in zip(self.hooks, self.legacy):
                hook.end(self.estimator) if old else hook.end(None)


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
        self._step = _global_step_variable("StopAtStepHook")

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
            from .tensorboard import _writer

            self.summary_writer, self._own_writer = _writer(self.output_dir), True
        self._step = _global_step_variable("StepCounterHook")

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
    (the loss can still be finite at the step the weights overflow; the
    :class:`NanTensorHook` then fails the next step). ``end()`` is called by the training
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
        """Save (unless diverged); True when a listener asks to stop."""
        if self._diverged():
            return False
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
        step = self.estimator.global_step
        if self.timer.due_on_grid(step):
            self.timer.mark(step)
            if self._save():
                run_context.request_stop()

    def end(self, session) -> None:
        step = self.estimator.global_step
        if self.timer.last_step != step:
            self.timer.mark(step)
            self._save()
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
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "HookRunner",
    "LoggingTensorHook",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "RunContext",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StepValues",
    "StopAtStepHook",
    "SummarySaverHook",
    "running",
    "running_estimator",
]
