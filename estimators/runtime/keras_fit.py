"""Keras-style ``fit``: epochs of ``train`` over tabular data, validation after each,
callbacks, and the :class:`History` of the losses and metrics."""

from __future__ import annotations

import contextlib

from ..hooks.basic import SessionRunArgs, SessionRunHook
from ..hooks.progress import ProgressHook, known_rows, resolve_verbose
from ..inputs import input_fn as inputs
from ..inputs.advice import missing_label_error
from .callbacks import Callback


class History:
    """What ``fit`` returns: ``history[key]`` is the list of per-epoch values."""

    def __init__(self):
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def append(self, epoch: int, logs: dict) -> None:
        self.epoch.append(epoch)
        for k, v in logs.items():
            self.history.setdefault(k, []).append(v)

    def plot(self):
        """The loss and metrics per epoch (validation beside training) as a matplotlib
        Figure; needs ``pip install "colonnade[plot]"``."""
        from .plots import plot_history

        return plot_history(self)


def fit(estimator, data, label, epochs, batch_size, validation_data, callbacks, shuffle, seed,
        verbose) -> History:  # fmt: skip
    """The body of ``Estimator.fit`` (see there): the epochs, run under model_dir's lock."""
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if label is None and inputs.is_tabular(data) and estimator.head is not None:
        raise missing_label_error(data, "fit", estimator.input_columns())
    verbose = resolve_verbose(verbose)
    if seed is None:
        seed = estimator.config.tf_random_seed
    callbacks = list(callbacks or [])
    for cb in callbacks:
        if not isinstance(cb, Callback):
            raise TypeError(f"callbacks must be Callback instances, got {type(cb)}")
    estimator.stop_training = False
    history = History()
    in_memory = contextlib.nullcontext()
    if estimator.config.train_distribute is None:  # else the parameter servers hold it
        in_memory = estimator.train_state.epochs_in_memory()
    with estimator.training_lock(), in_memory:
        for cb in callbacks:
            cb.on_train_begin(estimator)
        for epoch in range(epochs):
            for cb in callbacks:
                cb.on_epoch_begin(epoch)
            dataset = inputs.as_dataset(
                data,
                label=label,
                batch_size=batch_size,
                shuffle=shuffle,
                seed=None if seed is None else seed + epoch,
                columns=estimator.input_columns(),
            )
            logs = _epoch(
                estimator, dataset, f"epoch {epoch + 1}/{epochs}", verbose, validation_data, label
            )
            history.append(epoch, logs)
            if verbose == 2:
                values = ", ".join(f"{k}={v:.4f}" for k, v in logs.items())
                print(f"epoch {epoch + 1}/{epochs}: {values}")
            for cb in callbacks:
                cb.on_epoch_end(epoch, logs)
            if estimator.stop_training:
                break
        for cb in callbacks:
            cb.on_train_end(history.history)
    return history


def _epoch(estimator, dataset, desc, verbose, validation_data, label) -> dict:
    """Train one pass over ``dataset``, then evaluate ``validation_data``; the logs."""
    losses = _LossTracker()
    bar = ProgressHook(
        total_rows=known_rows(dataset), desc=desc, verbose=verbose, close_at_end=False
    )
    estimator.train(dataset, hooks=[losses, bar], verbose=0)
    logs = {"loss": losses.mean()}
    if validation_data is not None:
        vdata, vlabel = (
            validation_data if isinstance(validation_data, tuple) else (validation_data, label)
        )
        results = estimator.evaluate(vdata, label=vlabel, verbose=0)
        logs.update({f"val_{k}": v for k, v in results.items() if k != "global_step"})
    bar.close(logs)
    return logs


class _LossTracker(SessionRunHook):
    """The mean training loss of a ``train`` call (``fit``'s epoch loss)."""

    _fetches = SessionRunArgs("loss")

    def __init__(self):
        self.total, self.count = 0.0, 0

    def before_run(self, run_context):
        return self._fetches

    def after_run(self, run_context, run_values):
        self.total += float(run_values.results)
        self.count += 1

    def mean(self) -> float:
        return self.total / self.count if self.count else float("nan")
