"""Keras-style callbacks for ``fit``: EarlyStopping, ModelCheckpoint, CSVLogger.

``fit`` calls ``on_train_begin(estimator)``, then per epoch ``on_epoch_begin(epoch)`` and
``on_epoch_end(epoch, logs)`` — ``logs`` holds the epoch's training ``loss`` and, with
validation data, every evaluation metric prefixed ``val_`` — and finally
``on_train_end(logs)``. Setting ``estimator.stop_training = True`` ends ``fit`` after the
current epoch.
"""

from __future__ import annotations

import csv
import logging
import math
import os

import numpy as np

logger = logging.getLogger("colonnade")


class Callback:
    """Base class: every method is a no-op; override the ones you need."""

    def on_train_begin(self, estimator) -> None:
        self.estimator = estimator

    def on_epoch_begin(self, epoch: int) -> None:
        pass

    def on_epoch_end(self, epoch: int, logs: dict) -> None:
        pass

    def on_train_end(self, logs: dict) -> None:
        pass


def _monitor_mode(monitor: str, mode: str) -> str:
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max', got {mode!r}")
    if mode != "auto":
        return mode
    better_high = ("acc", "auc", "precision", "recall")
    return "max" if any(k in monitor for k in better_high) else "min"


def _monitored(logs: dict, monitor: str, who: str) -> float:
    if monitor not in logs:
        raise KeyError(
            f"{who}: monitored metric {monitor!r} is not in the epoch logs "
            f"{sorted(logs)}; pass validation_data for 'val_' metrics"
        )
    return float(logs[monitor])


class EarlyStopping(Callback):
    """Stop when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs.

    With ``restore_best_weights=True`` the model gets back the weights of its best epoch.
    """

    def __init__(
        self,
        monitor="val_loss",
        min_delta=0.0,
        patience=0,
        mode="auto",
        restore_best_weights=False,
        baseline=None,
    ):
        self.monitor, self.min_delta, self.patience = monitor, abs(min_delta), patience
        self.mode = _monitor_mode(monitor, mode)
        self.restore_best_weights = restore_best_weights
        self.baseline = baseline

    def on_train_begin(self, estimator) -> None:
        super().on_train_begin(estimator)
        self.wait, self.stopped_epoch, self.best_weights = 0, None, None
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = math.inf if self.mode == "min" else -math.inf

    def _improved(self, value: float) -> bool:
        if self.mode == "min":
            return value < self.best - self.min_delta
        return value > self.best + self.min_delta

    def on_epoch_end(self, epoch, logs) -> None:
        value = _monitored(logs, self.monitor, "EarlyStopping")
        if self._improved(value):
            self.best, self.wait = value, 0
            if self.restore_best_weights:
                self.best_weights = self.estimator.get_weights()
            return
        self.wait += 1
        if self.wait > self.patience:
            self.stopped_epoch = epoch
            self.estimator.stop_training = True
            logger.info(
                "early stopping after epoch %d: %s did not improve on %.6g",
                epoch + 1,
                self.monitor,
                self.best,
            )
            if self.restore_best_weights and self.best_weights is not None:
                self.estimator.set_weights(self.best_weights)


class ModelCheckpoint(Callback):
    """Save a checkpoint after each epoch (or only when ``monitor`` improves).

    ``filepath`` may hold ``{epoch}`` and log keys, e.g. ``"ckpt/epoch{epoch:02d}"``;
    by default checkpoints go to the estimator's model_dir.
    """

    def __init__(self, filepath=None, monitor="val_loss", save_best_only=False, mode="auto"):
        self.filepath, self.monitor, self.save_best_only = filepath, monitor, save_best_only
        self.mode = _monitor_mode(monitor, mode)
        self.saved = []

    def on_train_begin(self, estimator) -> None:
        super().on_train_begin(estimator)
        self.best = math.inf if self.mode == "min" else -math.inf

    def on_epoch_end(self, epoch, logs) -> None:
        if self.save_best_only:
            value = _monitored(logs, self.monitor, "ModelCheckpoint")
            better = value < self.best if self.mode == "min" else value > self.best
            if not better:
                return
            self.best = value
        if self.filepath is None:
            path = self.estimator.save_checkpoint()
        else:
            path = self.estimator.save_checkpoint(
                file_prefix=self.filepath.format(epoch=epoch + 1, **logs)
            )
        self.saved.append(path)


class CSVLogger(Callback):
    """Write one CSV row of epoch logs per epoch to ``filename``."""

    def __init__(self, filename, separator=",", append=False):
        self.filename, self.separator, self.append = os.fspath(filename), separator, append

    def on_train_begin(self, estimator) -> None:
        super().on_train_begin(estimator)
        self.keys = None
        if not self.append and os.path.exists(self.filename):
            os.remove(self.filename)

    def on_epoch_end(self, epoch, logs) -> None:
        new_file = not os.path.exists(self.filename)
        if self.keys is None:
            self.keys = sorted(logs)
        with open(self.filename, "a", newline="") as f:
            writer = csv.writer(f, delimiter=self.separator)
            if new_file:
                writer.writerow(["epoch", *self.keys])
            writer.writerow([epoch, *(_fmt(logs.get(k, "")) for k in self.keys)])


def _fmt(value):
    return float(value) if isinstance(value, (float, np.floating)) else value
