"""A canned estimator as a trainer outside it sees it: the internal interface through
which ``colonnade.distribute`` trains one.

A distributed trainer needs what the single-process loop reaches inside the estimator:
the network and the variables each optimizer updates, the global step and a step's
randomness, resuming from ``model_dir`` (and reading it again after a parameter server
died), a copy for a worker process, and the hooks of a run whose steps run elsewhere.
This module is the one place that reads the estimator's private state for it, so that
``distribute/`` reads none and what it relies on is listed here. It is internal (not in
``cn.estimators``): it changes with the estimator.

>>> import colonnade as cn, tempfile
>>> fc = cn.feature_columns
>>> est = cn.estimators.LinearClassifier(
...     [fc.categorical_column_with_identity("a", 4)], model_dir=tempfile.mkdtemp())
>>> [(type(o).__name__, [v.name for v in vs]) for o, vs in trained_parts(est)]
[('FtrlOptimizer', ['linear_model/a/weights', 'linear_model/bias_weights'])]
>>> set_global_step(est, 7)
>>> est.global_step, step_rng(est, 7).random() == est._step_rng().random()
(7, True)
"""

from __future__ import annotations

import contextlib
import copy

import numpy as np

from .hooks import HookRunner, StepLog, StepValues, running
from .networks import Network


def network(estimator) -> Network:
    """The estimator's network of feature columns; ``TypeError`` for an estimator that
    has none (a custom ``model_fn``)."""
    net = getattr(estimator, "_network", None)
    if not isinstance(net, Network):
        raise TypeError(
            "train_distribute trains the canned estimators (linear, DNN, wide&deep: a "
            "network of feature columns and its optimizers), not a model_fn; got "
            f"{type(estimator).__name__}"
        )
    return net


def trained_parts(estimator) -> list:
    """``[(optimizer, [variable, ...]), ...]``: each part of the network (linear, DNN)
    with the optimizer that updates its variables, in the estimator's (and its
    checkpoints') order."""
    network(estimator)
    return [(optimizer, list(variables)) for _, optimizer, variables in estimator._parts]


def model_variables(estimator) -> dict:
    """The network's variables by their checkpoint names (``dnn/hiddenlayer_0/kernel``)."""
    return estimator._model_variables()


def resume(estimator) -> None:
    """Bring the estimator to where ``train`` starts: model_dir's newest intact
    checkpoint, else its warm start, else its initial values."""
    estimator._restore_or_warm_start()


def restore_newest(estimator) -> str | None:
    """Read model_dir's newest intact checkpoint into the estimator again, whatever its
    variables hold now (they were changed elsewhere, e.g. on parameter servers that
    died); returns its path (None when model_dir has none)."""
    estimator._holds, estimator._restored = None, False
    path = estimator._restore_newest_intact()
    estimator._restored = True
    return path


def set_global_step(estimator, step: int) -> None:
    """Set the estimator's global step (steps counted elsewhere)."""
    estimator._global_step.assign(np.int64(step))


def step_rng(estimator, step: int) -> np.random.Generator:
    """The randomness (dropout) of the training step at global step ``step``: what
    single-process training draws at that step."""
    return estimator._step_rng(step)


def worker_copy(estimator):
    """A copy of the estimator for a worker process, which trains steps and saves
    nothing: without its model_dir lock, checkpoint manager, record of the checkpoint it
    holds, and distribution strategy, and with state-free copies of its optimizers (the
    parameter servers hold their state). The variables are the estimator's own until
    the copy is pickled."""
    out = copy.copy(estimator)
    out._train_lock = out._manager = out._checkpoint = out._holds = None
    out.config = estimator.config.replace(train_distribute=None)
    out._parts = [(name, opt.fresh_copy(), variables) for name, opt, variables in estimator._parts]
    return out


class ChiefHooks:
    """The hooks of a training run whose steps run elsewhere (the distributed chief's):
    those of single-process training (the user's, a NaN check, the checkpoint saver and
    its listeners, progress, TensorBoard), called on each finished step's loss, global
    step and rows as they are reported, with the step logged every
    ``config.log_step_count_steps`` steps as the single-process loop logs it.

    The hooks see a view of the estimator as the running one (what the saver saves):
    the estimator itself, except that before its state is checked for NaN or saved,
    ``fetch_state()`` brings it back from where it lives (a consistent snapshot of the
    parameter servers), and after a save ``saved(step)`` is told of it.
    """

    def __init__(
        self, estimator, input_fn, last_step, hooks, saving_listeners, verbose, fetch_state, saved
    ):
        self.estimator = estimator
        self.view = _ChiefView(estimator, fetch_state, saved)
        all_hooks, _ = estimator._training_hooks(
            input_fn, last_step, hooks, saving_listeners, verbose
        )
        self.runner = HookRunner(all_hooks, self.view)
        self.step_log = StepLog(estimator.config.log_step_count_steps, estimator.global_step)

    @contextlib.contextmanager
    def running(self):
        """Begin the hooks, with the view as the running estimator until the block
        ends. They end only when :meth:`end` is called (a run that fails saves no final
        checkpoint, as in one process)."""
        with running(self.view):
            self.runner.begin()
            self.step_log.restart(self.estimator.global_step)
            yield self

    def after_step(self, step: int, loss: float, rows: int) -> bool:
        """Run the hooks on the finished step that made the global step ``step``;
        whether a hook asked to stop."""
        set_global_step(self.estimator, step)
        context = self.runner.before_run()
        # the variables live elsewhere: hooks may fetch loss, global_step and rows
        values = StepValues(loss, step - 1, step, rows, dict, self.estimator._global_step)
        self.runner.after_run(context, values)
        self.step_log(step, loss)
        return context.stop_requested

    def end(self) -> None:
        """End the hooks (the saver writes the final checkpoint)."""
        self.runner.end()


class _ChiefView:
    """The estimator as the chief's hooks see it (TF's chief session): see
    :class:`ChiefHooks`. A state fetched for the NaN check is the one then saved."""

    def __init__(self, estimator, fetch_state, saved):
        self.estimator, self._fetch, self._saved = estimator, fetch_state, saved
        self._fetched = False

    def __getattr__(self, name):
        return getattr(self.estimator, name)

    def _nonfinite_variables(self) -> list:
        self._fetch()
        self._fetched = True
        return self.estimator._nonfinite_variables()

    def save_checkpoint(self, directory=None):
        if not self._fetched:
            self._fetch()
        self._fetched = False
        path = self.estimator.save_checkpoint(directory)
        self._saved(self.estimator.global_step)
        return path
