"""Early stopping in the label's units: :class:`BestEpoch`, the callback the
zero-configuration models train with, and :func:`fold_label_scale`, which makes a model
trained on standardized labels predict in the label's units (for each validation, and
after training).

>>> import numpy as np
>>> class Model:  # a canned model's weights: a linear part and a bias
...     weights = {"linear/linear_model/x/weights": np.array([[2.0]]),
...                "linear/linear_model/bias_weights": np.array([1.0])}
...     def get_weights(self): return dict(self.weights)
...     def set_weights(self, new): self.weights.update(new)
>>> model = Model(); fold_label_scale(model, 10.0, 3.0)
>>> {k.split("/")[-1]: v.tolist() for k, v in model.weights.items()}
{'weights': [[6.0]], 'bias_weights': [13.0]}
"""

from __future__ import annotations

import numpy as np

from ..hooks.tensorboard import write_scalars
from ..runtime.callbacks import EarlyStopping
from . import defaults

__all__ = ["BestEpoch", "fold_label_scale"]


def fold_label_scale(estimator, mean, std) -> None:
    """Make a canned model trained on standardized labels predict in the label's units:
    its output is ``linear + dnn`` logits, each affine in its last layer's weights, so
    scaling those by ``std`` and adding ``mean`` to the bias gives ``std * output + mean``
    exactly, in the checkpoint and in every export. ``mean`` and ``std`` are numbers, or
    one per label column (``label_dimension > 1``). Used by the zero-configuration
    regressor and colonnade.sklearn's regressors."""
    weights = estimator.get_weights()
    out = {}
    for name, value in weights.items():
        if name.startswith("linear/") or name.startswith("dnn/logits/"):
            out[name] = value * np.asarray(std, value.dtype)
    bias = "linear/linear_model/bias_weights"
    if bias not in out:  # a DNN-only model
        bias = "dnn/logits/bias"
    out[bias] = out[bias] + np.asarray(mean, out[bias].dtype)
    estimator.set_weights(out)


class BestEpoch(EarlyStopping):
    """EarlyStopping on a validation loss it measures itself after each epoch, in the
    label's units (a regressor trained on standardized labels is scaled back for the
    measurement: the ``val_`` history and TensorBoard's ``eval/loss`` are in the units of
    a later ``evaluate``, and so is the per-epoch training ``loss`` it writes, where the
    per-step one would be standardized).

    It halves the learning rates after an epoch without improvement (:data:`~.defaults.LR_DECAY`),
    stops no earlier than after ``min_epochs`` epochs, and restores the best weights also
    when training ran out of epochs after the best one (Keras restores them only when it
    stops early)."""

    def __init__(self, validation, label, scale, patience, min_epochs):
        super().__init__(patience=patience, restore_best_weights=True)
        self.validation, self.label, self.scale = validation, label, scale
        self.min_epochs = min_epochs
        self.logs: list = []

    def validate(self, name=None) -> dict:
        """The metrics on the validation rows, in the label's units; TensorBoard's under
        ``eval`` (``eval_<name>`` with a ``name``)."""
        estimator = self.estimator

        def evaluate():
            return estimator.evaluate(self.validation, label=self.label, name=name, verbose=0)

        if self.scale is None:
            return evaluate()
        trained = estimator.get_weights()
        fold_label_scale(estimator, *self.scale)
        try:
            return evaluate()
        finally:
            estimator.set_weights(trained)

    def on_epoch_end(self, epoch, logs) -> None:
        results = self.validate()
        if self.scale is not None:
            logs["loss"] = float(logs["loss"]) * self.scale[1] ** 2
            write_scalars(self.estimator.model_dir, results["global_step"], {"loss": logs["loss"]})
        logs.update({f"val_{k}": v for k, v in results.items() if k != "global_step"})
        self.logs.append(dict(logs))
        if self._improved(float(logs[self.monitor])):
            self.best_epoch = epoch
        else:
            for _, optimizer, _ in self.estimator.train_state.parts:
                rate = optimizer.learning_rate
                if isinstance(rate, (int, float)):
                    optimizer.learning_rate = rate * defaults.LR_DECAY
            if epoch + 1 < self.min_epochs:  # too early to stop: the count starts later
                self.wait = min(self.wait, self.patience - 1)
        super().on_epoch_end(epoch, logs)

    def on_train_end(self, logs) -> None:
        last = len(self.logs) - 1
        if self.stopped_epoch is None and self.best_weights is not None:
            if getattr(self, "best_epoch", last) != last:
                self.estimator.set_weights(self.best_weights)

    def history(self) -> dict:
        """The per-epoch logs as ``History.history``: one list per key."""
        return {k: [epoch[k] for epoch in self.logs] for k in self.logs[0]} if self.logs else {}
