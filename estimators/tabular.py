"""Zero-configuration models: :class:`TabularClassifier` and :class:`TabularRegressor`.

``fit(data)`` infers the feature columns (:func:`colonnade.feature_columns.infer`), holds
out a seeded validation split, trains a wide&deep model with colonnade's recommended
settings, stops when the validation loss stops improving and keeps the best epoch's
weights. Each setting is a named constant below; the experiments behind them are in
``benchmarks/RESULTS.md`` ("Zero configuration").

>>> import numpy as np, pandas as pd, tempfile
>>> import colonnade as cn
>>> rng = np.random.default_rng(0)
>>> df = pd.DataFrame({"x": rng.normal(size=300), "k": rng.choice(["a", "b"], 300)})
>>> df["y"] = ((df["x"] > 0) ^ (df["k"] == "a")).astype(int)
>>> model = cn.estimators.TabularClassifier("y", model_dir=tempfile.mkdtemp(), seed=1)
>>> _ = model.fit(df)
>>> model.columns_.task
'binary'
>>> model.evaluate(df)["accuracy"] > 0.9
True
"""

from __future__ import annotations

import math
import tempfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .. import core
from ..feature_columns.infer import ColumnPlan, infer
from .callbacks import EarlyStopping
from .canned import DNNLinearCombinedClassifier, DNNLinearCombinedRegressor
from .run_config import RunConfig

__all__ = ["TabularClassifier", "TabularRegressor", "recommended_settings"]

# Share of the rows held out for early stopping when no validation_data is given; a
# tenth keeps the loss estimate steady on small tables and costs little on large ones.
VALIDATION_FRACTION = 0.1
# ... at most this many rows: enough for a loss to 3 digits, and evaluation stays cheap.
VALIDATION_MAX_ROWS = 50_000
# Below this many rows a split leaves too few to measure a loss on: train all rows for
# SMALL_DATA_EPOCHS epochs instead (said in the plan's notes).
MIN_ROWS_FOR_VALIDATION = 200
SMALL_DATA_EPOCHS = 10
# Epochs at most; early stopping usually ends training well before.
MAX_EPOCHS = 30
# Epochs without a lower validation loss before stopping: one bad epoch is often noise.
PATIENCE = 2
# Batch size: about this many steps per epoch, a power of two within the bounds below.
STEPS_PER_EPOCH = 128
MIN_BATCH_SIZE, MAX_BATCH_SIZE = 32, 1024
# The deep tower: two layers, narrowing.
HIDDEN_UNITS = (256, 128)
DNN_DROPOUT = 0.1
# Adam for the deep part (TF's Adagrad at 0.001 barely moves in a few epochs); LazyAdam
# touches only the embedding rows a batch uses.
DNN_OPTIMIZER = "LazyAdam"
DNN_LEARNING_RATE = 0.001
# Ftrl for the wide part, its learning rate higher than TF's combined default (0.005,
# too slow for a few epochs), a light L1 to zero the weights of rare ids.
LINEAR_OPTIMIZER = "Ftrl"
LINEAR_LEARNING_RATE = 0.05
LINEAR_L1 = 0.001


def batch_size_for(rows: int) -> int:
    """The power of two giving about :data:`STEPS_PER_EPOCH` steps per epoch.

    >>> batch_size_for(30_000), batch_size_for(500), batch_size_for(10**7)
    (256, 32, 1024)
    """
    size = 2 ** round(math.log2(max(rows, 1) / STEPS_PER_EPOCH))
    return int(min(max(size, MIN_BATCH_SIZE), MAX_BATCH_SIZE))


def recommended_settings(plan: ColumnPlan, rows: int) -> dict:
    """The wide&deep constructor arguments (JSON-able) and batch size for ``plan``.

    >>> import colonnade as cn, pandas as pd
    >>> plan = cn.feature_columns.infer(pd.DataFrame({"x": [1.0, 2.0] * 50, "y": [0, 1] * 50}), "y")
    >>> recommended_settings(plan, 100)["dnn_optimizer"]
    {'name': 'LazyAdam', 'learning_rate': 0.001}
    """
    settings = {
        "dnn_hidden_units": list(HIDDEN_UNITS),
        "dnn_dropout": DNN_DROPOUT,
        "dnn_optimizer": {"name": DNN_OPTIMIZER, "learning_rate": DNN_LEARNING_RATE},
        "linear_optimizer": {
            "name": LINEAR_OPTIMIZER,
            "learning_rate": LINEAR_LEARNING_RATE,
            "l1_regularization_strength": LINEAR_L1,
        },
        "batch_size": batch_size_for(rows),
    }
    if plan.task != "regression":
        settings["n_classes"] = plan.n_classes
        if plan.label_vocabulary is not None:
            settings["label_vocabulary"] = list(plan.label_vocabulary)
    return settings


def _as_table(data, label) -> pa.Table:
    """``data`` in memory as an Arrow table (the validation split needs rows)."""
    from ..data import Dataset

    if isinstance(data, pd.DataFrame):
        return pa.Table.from_pandas(data, preserve_index=False)
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if isinstance(data, Dataset):
        return data.to_table()
    return Dataset.from_files(data).to_table()


class _BestEpoch(EarlyStopping):
    """EarlyStopping that also restores the best weights when training ran out of epochs
    after the best one (Keras restores them only when it stops early)."""

    def on_epoch_end(self, epoch, logs) -> None:
        if self._improved(float(logs[self.monitor])):
            self.best_epoch = epoch
        super().on_epoch_end(epoch, logs)

    def on_train_end(self, logs) -> None:
        last = len(logs.get(self.monitor, [])) - 1
        if self.stopped_epoch is None and self.best_weights is not None:
            if getattr(self, "best_epoch", last) != last:
                self.estimator.set_weights(self.best_weights)


class _Tabular:
    _regression = False

    def __init__(self, label, model_dir=None, seed=None, columns=None, verbose=0):
        self.label = label
        self.model_dir = model_dir
        self.seed = seed
        self.columns = columns
        self.verbose = verbose

    # ---------------------------------------------------------------- fit

    def fit(self, data, validation_data=None):
        """Infer the columns (unless ``columns`` was given), train, stop early; returns
        ``self``. ``validation_data``: data with the label column, or None for a seeded
        split of ``data``."""
        seed = 0 if self.seed is None else int(self.seed)
        table = _as_table(data, self.label)
        plan = self.columns
        if plan is None:
            plan = infer(
                table, self.label, seed=seed, task="regression" if self._regression else None
            )
        elif not isinstance(plan, ColumnPlan):
            raise TypeError(
                f"columns must be a ColumnPlan (cn.feature_columns.infer), got {plan!r}"
            )
        if self._regression and plan.task != "regression":
            raise ValueError(f"TabularRegressor needs a numeric label; {plan.task} inferred")
        if not self._regression and plan.task == "regression":
            raise ValueError(
                f"label {self.label!r} looks like a quantity (regression); use TabularRegressor"
            )
        if self.label not in table.column_names:
            raise KeyError(
                f"label column {self.label!r} not found; the data has {table.column_names}"
            )
        table = table.filter(pc.is_valid(table.column(self.label)))
        train, valid, note = self._split(table, validation_data, seed)
        if note:
            plan = plan.with_note(note)
        self.columns_ = plan
        settings = recommended_settings(plan, train.num_rows)
        batch_size = settings.pop("batch_size")
        self.model_dir_ = self.model_dir or tempfile.mkdtemp(prefix="colonnade_tabular_")
        self.estimator_ = self._build(plan, settings, seed)
        self.settings_ = dict(settings, batch_size=batch_size)
        callbacks, epochs, vdata = [], SMALL_DATA_EPOCHS, None
        if valid is not None:
            self._stopper = _BestEpoch(patience=PATIENCE, restore_best_weights=True)
            callbacks, epochs, vdata = [self._stopper], MAX_EPOCHS, (valid, self.label)
        self.history_ = self.estimator_.fit(
            train,
            label=self.label,
            epochs=epochs,
            batch_size=batch_size,
            validation_data=vdata,
            callbacks=callbacks,
            seed=seed,
            verbose=self.verbose,
        )
        losses = self.history_.history.get("val_loss")
        self.best_epoch_ = (int(np.argmin(losses)) + 1) if losses else len(self.history_.epoch)
        if losses and self.best_epoch_ != len(losses):
            # The best weights replace the last epoch's as the newest checkpoint, so a
            # later evaluate, export or `colonnade evaluate` reads them.
            core.remove_checkpoint(self.estimator_.latest_checkpoint())
            self.estimator_.save_checkpoint()
        return self

    def _split(self, table, validation_data, seed):
        if validation_data is not None:
            valid = _as_table(validation_data, self.label)
            valid = valid.filter(pc.is_valid(valid.column(self.label)))
            return table, valid, None
        rows = table.num_rows
        if rows < MIN_ROWS_FOR_VALIDATION:
            return (
                table,
                None,
                (
                    f"{rows} rows are too few for a validation split "
                    f"(< {MIN_ROWS_FOR_VALIDATION}): "
                    f"trained on all rows for {SMALL_DATA_EPOCHS} epochs, no early stopping"
                ),
            )
        n_valid = min(int(rows * VALIDATION_FRACTION), VALIDATION_MAX_ROWS)
        order = np.random.default_rng(seed).permutation(rows)
        valid = table.take(pa.array(np.sort(order[:n_valid])))
        train = table.take(pa.array(np.sort(order[n_valid:])))
        return (
            train,
            valid,
            (f"held out {n_valid} rows (seeded) for early stopping on the validation loss"),
        )

    def _build(self, plan, settings, seed):
        cls = DNNLinearCombinedRegressor if self._regression else DNNLinearCombinedClassifier
        return cls(
            linear_feature_columns=list(plan.linear),
            dnn_feature_columns=list(plan.dnn),
            config=RunConfig(
                model_dir=self.model_dir_, tf_random_seed=seed, log_step_count_steps=0
            ),
            **settings,
        )

    # ---------------------------------------------------------------- as canned

    def _fitted(self):
        if not hasattr(self, "estimator_"):
            raise RuntimeError(f"this {type(self).__name__} is not fitted yet; call fit(data)")
        return self.estimator_

    def evaluate(self, data, **kwargs) -> dict:
        """Metrics on labelled ``data``, as the canned estimators' ``evaluate``."""
        kwargs.setdefault("verbose", self.verbose)
        return self._fitted().evaluate(data, label=self.label, **kwargs)

    def predict(self, data, **kwargs):
        """Predictions, as the canned estimators' ``predict``."""
        kwargs.setdefault("verbose", self.verbose)
        return self._fitted().predict(data, **kwargs)

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn=None) -> str:
        """An export for ``cn.load``; returns its path (``serving_input_receiver_fn`` as
        the canned estimators' ``export_saved_model``)."""
        return self._fitted().export_saved_model(export_dir_base, serving_input_receiver_fn)

    def job_config(self, data_path=None) -> dict:
        """A ``colonnade train`` job config (a dict for TOML) that trains this model's
        columns and settings on ``data_path`` for the best epoch count found."""
        est, plan = self._fitted(), self.columns_
        model = {
            "type": type(est).__name__,
            "model_dir": self.model_dir_,
            "tf_random_seed": 0 if self.seed is None else int(self.seed),
            **{k: v for k, v in self.settings_.items() if k != "batch_size"},
            "linear_feature_columns": plan.to_config()["linear_feature_columns"],
            "dnn_feature_columns": plan.to_config()["dnn_feature_columns"],
        }
        data = {
            "label": self.label,
            "batch_size": self.settings_["batch_size"],
            "epochs": self.best_epoch_,
        }
        if data_path is not None:
            data["train"] = data_path
        return {"data": data, "model": model}


class TabularClassifier(_Tabular):
    """A zero-configuration wide&deep classifier (binary or multi-class).

    ``label``: the label column; ``model_dir``: checkpoints (a new temporary directory
    when None); ``seed``: the split, the sample, the initial weights and the shuffles;
    ``columns``: a :class:`~colonnade.feature_columns.infer.ColumnPlan` to use instead of
    inferring one. After ``fit``: ``columns_`` (the plan), ``estimator_`` (the
    ``DNNLinearCombinedClassifier``), ``history_``, ``best_epoch_``, ``settings_``.
    """


class TabularRegressor(_Tabular):
    """A zero-configuration wide&deep regressor (see :class:`TabularClassifier`)."""

    _regression = True
