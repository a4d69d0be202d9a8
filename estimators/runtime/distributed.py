"""A canned estimator as a trainer outside it sees it: the internal interface through
which ``colonnade.distribute`` trains one.

A distributed trainer needs what the single-process loop uses: the network, the
training state (:class:`~.train_state.TrainState`: the variables each optimizer updates,
the global step, a step's randomness, resuming from ``model_dir``), a copy for a worker
process, and the hooks of a run whose steps run elsewhere. It is internal (not in
``cn.estimators``): it changes with the estimator.

>>> import colonnade as cn, tempfile
>>> fc = cn.feature_columns
>>> est = cn.estimators.LinearClassifier(
...     [fc.categorical_column_with_identity("a", 4)], model_dir=tempfile.mkdtemp())
>>> sorted(network(est).checkpoint_children())
['linear']
>>> copy_ = estimator_for_worker(est)
>>> copy_.train_state.trained_parts()[0][0] is est.train_state.trained_parts()[0][0]
False
"""

from __future__ import annotations

import contextlib
import copy

from ..hooks.runner import HookRunner, StepLog, StepValues, running
from ..networks.network import Network
from .training_loop import training_hooks


def network(estimator) -> Network:
    """The estimator's network of feature columns; ``TypeError`` for an estimator that
    has none (a custom ``model_fn``)."""
    net = estimator.model.network
    if not isinstance(net, Network):
        raise TypeError(
            "train_distribute trains the canned estimators (linear, DNN, wide&deep: a "
            "network of feature columns and its optimizers), not a model_fn; got "
            f"{type(estimator).__name__}"
        )
    return net


def estimator_for_worker(estimator):
    """A copy of the estimator for a worker process, which trains steps and saves
    nothing: without its model_dir lock, checkpoint manager, record of the checkpoint it
    holds, and distribution strategy, and with state-free copies of its optimizers (the
    parameter servers hold their state). The variables are the estimator's own until
    the copy is pickled."""
    network(estimator)
    out = copy.copy(estimator)
    out.train_lock = None
    out.config = estimator.config.replace(train_distribute=None)
    out.train_state = estimator.train_state.for_worker()
    out.model = out.train_state.model
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
        all_hooks, _ = training_hooks(
            estimator, input_fn, last_step, hooks, saving_listeners, verbose
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
        self.estimator.train_state.set_global_step(step)
        context = self.runner.before_run()
        # the variables live elsewhere: hooks may fetch loss, global_step and rows
        step_variable = self.estimator.train_state.global_step_variable
        values = StepValues(loss, step - 1, step, rows, dict, step_variable)
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

    def nonfinite_variables(self) -> list:
        self._fetch()
        self._fetched = True
        return self.estimator.nonfinite_variables()

    def save_checkpoint(self, directory=None):
        if not self._fetched:
            self._fetch()
        self._fetched = False
        path = self.estimator.save_checkpoint(directory)
        self._saved(self.estimator.global_step)
        return path
