"""Zero-configuration models: :class:`TabularClassifier` and :class:`TabularRegressor`.

``fit(data)`` infers the feature columns (:func:`colonnade.feature_columns.infer`), holds
out a seeded validation split (streamed for files: :func:`row_keys`), trains a wide&deep
model with colonnade's recommended settings (a regression label standardized, learning
rates halved on a plateau), stops when the validation loss stops improving and keeps the
best epoch's weights. Each setting is a named constant below and a note in
``columns_.describe()``; the experiments behind them are in ``benchmarks/RESULTS.md``
("Zero configuration").

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

__all__ = ["TabularClassifier", "TabularRegressor", "fold_label_scale", "recommended_settings"]

# Share of the rows held out for early stopping when no validation_data is given: a
# tenth costs little training data ...
VALIDATION_FRACTION = 0.1
# ... but at least this many rows where the table allows: on fewer, the validation loss
# moves between epochs by more than training changes it, and early stopping picks its
# epoch by chance (a tenth of a 1,100-row table is 110 rows) ...
VALIDATION_MIN_ROWS = 1_000
# ... taking at most this share of a small table, so most rows still train ...
VALIDATION_MAX_FRACTION = 0.2
# ... and at most this many rows: enough for a loss to 3 digits, and evaluation stays cheap.
VALIDATION_MAX_ROWS = 50_000
# Below this many rows a split leaves too few to measure a loss on: train all rows for
# SMALL_DATA_EPOCHS epochs instead (said in the plan's notes).
MIN_ROWS_FOR_VALIDATION = 200
SMALL_DATA_EPOCHS = 10
# Epochs at most; early stopping usually ends training well before.
MAX_EPOCHS = 30
# Epochs without a lower validation loss before stopping: one or two bad epochs are often
# noise, or a step size too large for the last stretch (which the halving below fixes).
PATIENCE = 3
# After each epoch without a lower validation loss, every learning rate is multiplied by
# this (reduce on plateau): large steps early, small ones once the loss stops falling,
# with no schedule length to guess in advance.
LR_DECAY = 0.5
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


def validation_fraction(rows: int) -> float:
    """The share of ``rows`` held out: :data:`VALIDATION_FRACTION`, raised toward
    :data:`VALIDATION_MIN_ROWS` rows up to :data:`VALIDATION_MAX_FRACTION` on small
    tables, lowered to :data:`VALIDATION_MAX_ROWS` rows on large ones.

    >>> [round(validation_fraction(n), 4) for n in (1_000, 5_000, 8_000, 30_000, 10**7)]
    [0.2, 0.2, 0.125, 0.1, 0.005]
    """
    small = min(VALIDATION_MIN_ROWS / rows, VALIDATION_MAX_FRACTION)
    return min(max(VALIDATION_FRACTION, small), VALIDATION_MAX_ROWS / rows)


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


def _in_memory(data):
    """``data`` as an Arrow table when it is in memory already, else None (files and
    Datasets are streamed)."""
    if isinstance(data, pd.DataFrame):
        return _from_pandas(data)
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    return None


def _stream(data):
    """A label-less ``cn.data.Dataset`` over a file/glob/list of paths or a Dataset."""
    from ..data import Dataset

    if isinstance(data, Dataset):
        return data.with_label(None)
    return Dataset.from_files(data)


def row_keys(table, seed: int) -> np.ndarray:
    """A seeded 64-bit hash of each row's values (all columns, in name order): the key
    that puts a row in the validation split when it falls below a threshold.

    It depends on the row alone, not on its position, the batch it is read in or the
    order of the files, so a file streamed in any order splits as the same data in
    memory does, with no state kept between batches; identical rows fall on the same
    side (no duplicate leaks from training into validation). Each column's value hash
    (pandas' ``hash_array``) is mixed into the key with SplitMix64's finalizer; the key
    starts from the seed's.

    >>> t = pa.table({"x": [1.0, 2.0, 1.0], "k": ["a", "b", "a"]})
    >>> keys = row_keys(t, seed=0)
    >>> bool(keys[0] == keys[2]), bool(keys[0] == keys[1]), bool((keys == row_keys(t, 1)).any())
    (True, False, False)
    """
    start = _mix(np.array([int(seed) % 2**64], dtype=np.uint64) + np.uint64(GOLDEN_GAMMA))
    keys = np.full(table.num_rows, start[0])
    for name in sorted(table.column_names):
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        t = column.type
        if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t):
            values = column.cast(pa.float64()).to_numpy(zero_copy_only=False)
        else:
            values = column.cast(pa.string()).to_numpy(zero_copy_only=False)
        keys = _mix(keys ^ pd.util.hash_array(values, categorize=False))
    return keys


# SplitMix64's increment: the seed is offset by it so that no seed starts the key at 0.
GOLDEN_GAMMA = 0x9E3779B97F4A7C15


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer: every input bit flips about half the output bits."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _validation_mask(table, seed: int, fraction: float) -> np.ndarray:
    return row_keys(table, seed) < np.uint64(min(int(fraction * 2.0**64), 2**64 - 1))


def _rows_for(table, label, seed, fraction, side, scale):
    """The rows of ``table`` with a label, on ``side`` (``"train"``, ``"validation"`` or
    ``"all"``) of the split, the label standardized by ``scale = (mean, std)`` if given."""
    keep = pc.is_valid(table.column(label))
    if side != "all":
        valid = pa.array(_validation_mask(table, seed, fraction))
        keep = pc.and_(keep, valid if side == "validation" else pc.invert(valid))
    table = table.filter(keep)
    if scale is not None:
        mean, std = scale
        y = table.column(label).cast(pa.float64()).to_numpy()
        i = table.column_names.index(label)
        table = table.set_column(i, label, pa.array((y - mean) / std, pa.float32()))
    return table


def _part(data, label, seed, fraction, side, scale):
    """One side of the split of ``data``: a table for in-memory data; for files and
    Datasets a Dataset that selects its rows batch by batch while streaming (memory
    bounded by the batches, not the data)."""
    table = _in_memory(data)
    if table is not None:
        return _rows_for(table, label, seed, fraction, side, scale)
    stream = _stream(data)

    def rows(batch):
        return _rows_for(pa.Table.from_batches([batch]), label, seed, fraction, side, scale)

    rows.__name__ = f"{side}_rows"
    return stream.map(rows)


def _from_pandas(df):
    try:
        return pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        from ..feature_columns.infer_stats import table_from_pandas as checked

        return checked(df)  # raises the error naming the mixed-type column


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


class _BestEpoch(EarlyStopping):
    """EarlyStopping that halves the learning rates after an epoch without improvement
    (:data:`LR_DECAY`) and restores the best weights also when training ran out of
    epochs after the best one (Keras restores them only when it stops early)."""

    def on_epoch_end(self, epoch, logs) -> None:
        if self._improved(float(logs[self.monitor])):
            self.best_epoch = epoch
        else:
            for _, optimizer, _ in self.estimator.train_state.parts:
                rate = optimizer.learning_rate
                if isinstance(rate, (int, float)):
                    optimizer.learning_rate = rate * LR_DECAY
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
        split of ``data``.

        Files and Datasets are streamed, never read whole: the split keeps a row for
        validation when the seeded hash of its values (:func:`row_keys`) falls in the
        lowest :func:`validation_fraction` of the keys (10%, more on small tables, at most
        :data:`VALIDATION_MAX_ROWS` rows), batch by batch. A regression label is
        standardized for training (the ``history_`` losses are in those units) and the
        model is scaled back after it, so predictions, evaluations and exports are in the
        label's units."""
        seed = 0 if self.seed is None else int(self.seed)
        table = _in_memory(data)
        plan = self.columns
        if plan is None:
            plan = infer(
                data if table is None else table,
                self.label,
                seed=seed,
                task="regression" if self._regression else None,
            )
        elif not isinstance(plan, ColumnPlan):
            raise TypeError(
                f"columns must be a ColumnPlan (cn.feature_columns.infer), got {plan!r}"
            )
        if plan.label != self.label:
            raise ValueError(f"the plan was inferred for label {plan.label!r}, not {self.label!r}")
        if self._regression and plan.task != "regression":
            raise ValueError(f"TabularRegressor needs a numeric label; {plan.task} inferred")
        if not self._regression and plan.task == "regression":
            raise ValueError(
                f"label {self.label!r} looks like a quantity (regression); use TabularRegressor"
            )
        scale = None
        if self._regression and plan.label_mean is not None:
            scale = (float(plan.label_mean), float(plan.label_std))
        labelled = plan.rows - plan.label_nulls
        train, valid, notes = self._split(
            data if table is None else table, validation_data, labelled, seed, scale
        )
        train_rows = notes.pop()
        settings = recommended_settings(plan, train_rows)
        batch_size = settings.pop("batch_size")
        notes.append(
            f"batch size {batch_size}: the power of two nearest {train_rows} training rows / "
            f"{STEPS_PER_EPOCH} steps per epoch, within [{MIN_BATCH_SIZE}, {MAX_BATCH_SIZE}]"
        )
        if valid is not None:
            notes.append(
                f"learning rates x{LR_DECAY} after each epoch without a lower validation "
                f"loss; stop after {PATIENCE} such epochs in a row (at most {MAX_EPOCHS}) "
                "and keep the best epoch's weights"
            )
        if scale is not None:
            notes.append(
                f"trained on the label standardized (mean {scale[0]:.4g}, std "
                f"{scale[1]:.4g}) so the default learning rates suit any unit; the output "
                "layer is scaled back after training: predictions are in the label's units"
            )
        for note in notes:
            plan = plan.with_note(note)
        self.columns_ = plan
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
        if scale is not None:
            fold_label_scale(self.estimator_, *scale)
        if scale is not None or (losses and self.best_epoch_ != len(losses)):
            # The best (or rescaled) weights replace the last epoch's as the newest
            # checkpoint, so a later evaluate, export or `colonnade evaluate` reads them.
            core.remove_checkpoint(self.estimator_.latest_checkpoint())
            self.estimator_.save_checkpoint()
        return self

    def _split(self, data, validation_data, rows, seed, scale):
        """``(train, validation or None, notes + [training rows])``."""
        label = self.label
        if validation_data is not None:
            train = _part(data, label, seed, 0.0, "all", scale)
            valid = _part(validation_data, label, seed, 0.0, "all", scale)
            return train, valid, [rows]
        if rows < MIN_ROWS_FOR_VALIDATION:
            note = (
                f"{rows} rows are too few for a validation split "
                f"(< {MIN_ROWS_FOR_VALIDATION}): "
                f"trained on all rows for {SMALL_DATA_EPOCHS} epochs, no early stopping"
            )
            return _part(data, label, seed, 0.0, "all", scale), None, [note, rows]
        fraction = validation_fraction(rows)
        train = _part(data, label, seed, fraction, "train", scale)
        valid = _part(data, label, seed, fraction, "validation", scale)
        if isinstance(valid, pa.Table) and valid.num_rows == 0:
            note = (
                f"the seeded split left no rows for validation ({rows} rows, mostly "
                f"duplicates): trained on all rows for {SMALL_DATA_EPOCHS} epochs, "
                "no early stopping"
            )
            return _part(data, label, seed, 0.0, "all", scale), None, [note, rows]
        n_valid = valid.num_rows if isinstance(valid, pa.Table) else round(rows * fraction)
        how = "" if isinstance(valid, pa.Table) else "about "
        why = ""
        if fraction > VALIDATION_FRACTION:
            why = (
                f"; more than {VALIDATION_FRACTION:.0%} on a small table, toward "
                f"{VALIDATION_MIN_ROWS} rows (at most {VALIDATION_MAX_FRACTION:.0%}), so "
                "the loss that picks the epoch is steady"
            )
        note = (
            f"held out {how}{n_valid} rows ({fraction:.1%}, a seeded hash of each row's "
            f"values) for early stopping on the validation loss{why}"
        )
        return train, valid, [note, rows - n_valid]

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
