"""Zero-configuration models: :class:`TabularClassifier` and :class:`TabularRegressor`.

``fit(data)`` infers the feature columns (:func:`colonnade.feature_columns.infer`), holds
out a seeded, stratified validation split (:mod:`.split`), solves a penalized
linear model of the wide columns to convergence (:mod:`.linear`), then trains the
deep part of a wide&deep model on top of its fixed logits with colonnade's recommended
settings (a regression label standardized, learning rates halved on a plateau), stops
when the validation loss stops improving, keeps the best epoch's weights and the blend of
wide and deep with the lowest validation loss, the linear model alone unless the deep part
wins by more than the validation noise (:mod:`.blend`). Each setting is a
named constant below and a note in ``columns_.describe()``; the experiments behind them
are in ``benchmarks/RESULTS.md`` ("Zero configuration").

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
import os
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...feature_columns.infer import ColumnPlan, infer
from ..canned.estimators import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
)
from ..hooks.tensorboard import write_scalars
from ..runtime.callbacks import EarlyStopping
from ..runtime.run_config import RunConfig
from . import blend as tabular_blend
from .blend import blend_losses, choose_blend
from .ensemble import (
    checked_members,
    cross_fit_splits,
    fold_conditions,
    folds_note,
    members_note,
    members_to_train,
    out_of_fold_losses,
    stack_members,
)
from .linear import label_targets, linear_first
from .split import in_memory, part

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
# A validation split below this many rows gives a loss that moves by chance between
# epochs by as much as training moves it (20% of a 1,000-row table holds 38-88 positives:
# seeds stopped at epochs 2-4 with AUCs 0.013 apart): there training never stops before
# MIN_EPOCHS_NOISY epochs and waits PATIENCE_NOISY epochs without improvement.
STEADY_VALIDATION_ROWS = 2_000
NOISY_EXTRA_PATIENCE, MIN_EPOCHS_NOISY = 2, 6
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
# Before wide&deep, a linear model of the wide columns is solved to convergence in numpy,
# its L2 penalty chosen on validation (:mod:`.linear`), so the blend's weight 0 is
# a converged linear model, not the wide part of a joint training stopped before the
# linear optimum; wide&deep then trains the deep part only, on top of the linear model's
# logits held fixed (Ftrl, whose accumulators start empty, would shrink warm-started
# weights at its first step): the deep part learns what the linear model leaves.
FROZEN_LINEAR_OPTIMIZER = {"name": "SGD", "learning_rate": 0.0}


def _numbers(column) -> np.ndarray:
    """A label column as float64 numbers."""
    return np.asarray(column.to_numpy(zero_copy_only=False), np.float64)


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
    """EarlyStopping on a validation loss it measures itself after each epoch, in the
    label's units (a regressor trained on standardized labels is scaled back for the
    measurement: the ``val_`` history and TensorBoard's ``eval/loss`` are in the units of
    a later ``evaluate``, and so is the per-epoch training ``loss`` it writes, where the
    per-step one would be standardized).

    It halves the learning rates after an epoch without improvement (:data:`LR_DECAY`),
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
                    optimizer.learning_rate = rate * LR_DECAY
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


def _noted(plan: ColumnPlan, notes) -> ColumnPlan:
    for note in notes:
        plan = plan.with_note(note)
    return plan


def early_stopping_for(validation_rows: int) -> tuple:
    """``(patience, min_epochs)`` for a validation split of ``validation_rows``: on a
    split smaller than :data:`STEADY_VALIDATION_ROWS` the loss moves by chance between
    epochs (a few dozen positives), so training waits longer and never stops before
    :data:`MIN_EPOCHS_NOISY` epochs, and waits :data:`NOISY_EXTRA_PATIENCE` epochs more.

    >>> early_stopping_for(300), early_stopping_for(20_000)
    ((5, 6), (3, 1))
    """
    if validation_rows < STEADY_VALIDATION_ROWS:
        return PATIENCE + NOISY_EXTRA_PATIENCE, MIN_EPOCHS_NOISY
    return PATIENCE, 1


class _Tabular:
    _regression = False

    def __init__(self, label, model_dir=None, seed=None, columns=None, verbose=0, members=None):
        self.label = label
        self.model_dir = model_dir
        self.seed = seed
        self.columns = columns
        self.verbose = verbose
        self.members = members

    # ---------------------------------------------------------------- fit

    def fit(self, data, validation_data=None):
        """Infer the columns (unless ``columns`` was given), train, stop early; returns
        ``self``. ``validation_data``: data with the label column, or None for a seeded
        split of ``data``.

        Files and Datasets are streamed, never read whole. The split holds out a
        seeded random :func:`validation_fraction` of each class (of all rows for a
        regression; 10%, more on small tables, at most :data:`VALIDATION_MAX_ROWS` rows):
        :func:`~.split.validation_mask`, batch by batch for a stream. A regression
        label is standardized for training and the model is scaled back after it, so
        predictions, evaluations, exports and the ``history_`` losses are in the label's
        units. An in-memory table without ``validation_data`` small enough in rows x deep
        inputs (:func:`~.ensemble.members_for`; 5 folds up to ``ENSEMBLE_MAX_ROWS``
        rows, 10 above) trains a cross-fitted ensemble (:mod:`.ensemble`;
        ``members=`` sets the number, 1 for one model and a fit a few times faster):
        ``members_`` lists the members; ``history_``,
        ``best_epoch_`` and ``deep_weight_`` are the first member's; ``estimator_`` is the
        one wide&deep model predicting the members' mean logit."""
        seed = 0 if self.seed is None else int(self.seed)
        checked_members(self.members)
        table = in_memory(data)
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
        width = sum(column.dimension for column in plan.dnn)
        foldable = fold_conditions(
            table is not None, validation_data is None, labelled, MIN_ROWS_FOR_VALIDATION
        )
        members = members_to_train(self.members, labelled, width, foldable)
        if members > 1:
            stratify = not self._regression
            splits = cross_fit_splits(table, self.label, members, seed, stratify, scale)
            asked = self.members is not None
            notes = [folds_note(members, seed, (labelled, width), stratify, asked)]
        else:
            train, valid, notes, n_valid = self._split(
                data if table is None else table, validation_data, labelled, seed, scale
            )
            splits = [(train, valid, n_valid)]
        n_valid = splits[0][2]
        train_rows = labelled - n_valid if validation_data is None else labelled
        settings = recommended_settings(plan, train_rows)
        batch_size = settings.pop("batch_size")
        notes.append(
            f"batch size {batch_size}: the power of two nearest {train_rows} training rows / "
            f"{STEPS_PER_EPOCH} steps per epoch, within [{MIN_BATCH_SIZE}, {MAX_BATCH_SIZE}]"
        )
        patience, min_epochs = early_stopping_for(n_valid)
        if splits[0][1] is not None:
            noisy = ""
            if min_epochs > 1:
                noisy = (
                    f"; {n_valid} validation rows (< {STEADY_VALIDATION_ROWS}) give a loss "
                    f"that moves by chance: never stop before epoch {min_epochs}"
                )
            notes.append(
                f"learning rates x{LR_DECAY} after each epoch without a lower validation "
                f"loss; stop after {patience + 1} such epochs in a row (at most {MAX_EPOCHS})"
                f"{noisy}; keep the best epoch's weights"
            )
        if scale is not None:
            notes.append(
                f"trained on the label standardized (mean {scale[0]:.4g}, std "
                f"{scale[1]:.4g}) so the default learning rates suit any unit; the output "
                "layer is scaled back for each validation and after training: predictions, "
                "losses (history_, TensorBoard's per-epoch loss and eval/loss) are in the "
                "label's units"
            )
        for note in notes:
            plan = plan.with_note(note)
        self.columns_ = plan
        self.model_dir_ = self.model_dir or tempfile.mkdtemp(prefix="colonnade_tabular_")
        self.settings_ = dict(settings, batch_size=batch_size)
        if members == 1:
            fitted = self._train(train, valid, settings, scale, seed, self.model_dir_)
            self.columns_ = _noted(self.columns_, fitted["notes"])
            self.estimator_ = fitted["estimator"]
            self.settings_ = dict(fitted["settings"], batch_size=batch_size)
            self.members_ = [fitted]
        else:
            self.estimator_ = self._fit_members(splits, settings, scale, seed)
        first = self.members_[0]
        self.history_, self.best_epoch_ = first["history"], first["best_epoch"]
        if "deep_weight" in first:
            self.deep_weight_ = first["deep_weight"]
        return self

    def _train(self, train, valid, settings, scale, seed, model_dir, blend_now=True) -> dict:
        """One model trained on ``train``, stopped early on ``valid`` (or
        :data:`SMALL_DATA_EPOCHS` epochs without it): ``{"estimator", "history",
        "best_epoch", "blend_losses" (with validation), "refit", "notes", ...}``. With
        ``blend_now`` also blended on ``valid`` (``"deep_weight"``), scaled to the label's
        units and checkpointed in ``model_dir`` (:meth:`_finish`); else the ensemble
        chooses one blend for all members and finishes them."""
        plan, notes = self.columns_, []
        linear_weights = None
        if valid is not None and plan.linear:
            linear_weights, note, refit = self._fit_linear_first(train, valid, scale, seed)
            if linear_weights is not None:
                settings = dict(settings, linear_optimizer=dict(FROZEN_LINEAR_OPTIMIZER))
                note += "; the deep part trains on top of its logits, held fixed"
            notes.append(note)
        estimator = self._build(plan.linear, plan.dnn, settings, seed, model_dir)
        if linear_weights is not None:
            estimator.set_weights(linear_weights)
        callbacks, epochs = [], SMALL_DATA_EPOCHS
        if valid is not None:
            patience, min_epochs = early_stopping_for(
                valid.num_rows if isinstance(valid, pa.Table) else STEADY_VALIDATION_ROWS
            )
            stopper = _BestEpoch(valid, self.label, scale, patience, min_epochs)
            callbacks, epochs = [stopper], MAX_EPOCHS
        history = estimator.fit(
            train,
            label=self.label,
            epochs=epochs,
            batch_size=self.settings_["batch_size"],
            callbacks=callbacks,
            seed=seed,
            verbose=self.verbose,
        )
        out = {"estimator": estimator, "history": history, "notes": notes, "settings": settings}
        out["refit"] = refit if linear_weights is not None else None
        out["validated"] = valid is not None
        if valid is not None:
            history.history = stopper.history()
            if tabular_blend.BLEND_WEIGHTS:
                out["blend_losses"] = blend_losses(
                    estimator, stopper.validate, self._rows(valid, scale)
                )
        elif scale is not None:
            history.history["loss"] = [v * scale[1] ** 2 for v in history.history["loss"]]
        losses = history.history.get("val_loss")
        out["best_epoch"] = (int(np.argmin(losses)) + 1) if losses else len(history.epoch)
        if blend_now:
            weight, note = None, None
            if "blend_losses" in out:
                weight, note = choose_blend(out["blend_losses"])
            self._finish(out, scale, weight, note)
        return out

    def _finish(self, member: dict, scale, weight, note) -> None:
        """Scale a trained model's deep logits by the blend ``weight`` (None: as trained),
        refit its linear model alone on every row when the weight is 0, and fold the
        label's scale in and checkpoint it. The refit solves the linear model again on the
        validation rows too (the penalty and columns stay as chosen): on a small table the
        split's rows are a fifth of the data."""
        estimator = member["estimator"]
        if weight is not None:
            member["deep_weight"] = weight
            deep = estimator.get_weights()
            estimator.set_weights(
                {k: v * weight for k, v in deep.items() if k.startswith("dnn/logits/")}
            )
            if note is not None:
                member["notes"].append(note)
            refitted = None
            if member["refit"] is not None and weight == 0:
                refitted = member["refit"]()
            if refitted is not None:
                estimator.set_weights(refitted)
                member["notes"].append(
                    "the linear model alone kept: solved again on the training and "
                    "validation rows together, with the penalty chosen"
                )
        if scale is not None:
            fold_label_scale(estimator, *scale)
        losses = member["history"].history.get("val_loss")
        if (
            scale is not None
            or (losses and member["best_epoch"] != len(losses))
            or member["validated"]
        ):
            # The best (or rescaled) weights replace the last epoch's as the newest
            # checkpoint, so a later evaluate, export or `colonnade evaluate` reads them.
            estimator.train_state.save_replacing_this_step()

    def _fit_members(self, splits, settings, scale, seed):
        """Train a member per fold, blend them (one weight for all on the out-of-fold
        losses, :mod:`.ensemble`; none without :data:`~.blend.BLEND_WEIGHTS`), and
        return the one wide&deep model predicting their mean logit
        (:func:`~.ensemble.stack_members`), checkpointed in ``model_dir_``."""
        shared = bool(tabular_blend.BLEND_WEIGHTS)
        self.members_ = []
        for k, (train, valid, _) in enumerate(splits):
            where = os.path.join(self.model_dir_, f"member_{k + 1}")
            self.members_.append(
                self._train(train, valid, settings, scale, seed + k, where, not shared)
            )
        notes = []
        if shared:
            losses = out_of_fold_losses([m["blend_losses"] for m in self.members_])
            weight, how = choose_blend(losses, "out-of-fold loss of the validated rows")
            for member in self.members_:
                self._finish(member, scale, weight, None)
            notes.append(f"{how}, in every member")
        notes[:0] = [f"member 1 of {len(splits)}: {n}" for n in self.members_[0]["notes"]]
        weights = [m["estimator"].get_weights() for m in self.members_]
        dnn, hidden_units, stacked = stack_members(weights, self.columns_.dnn)
        self.settings_ = dict(self.members_[0]["settings"], batch_size=self.settings_["batch_size"])
        settings = dict(self.members_[0]["settings"], dnn_hidden_units=hidden_units)
        estimator = self._build(self.columns_.linear, dnn, settings, seed, self.model_dir_)
        estimator.set_weights(stacked)
        estimator.save_checkpoint()
        self.columns_ = _noted(self.columns_, notes + [members_note(self.members_)])
        return estimator

    def _fit_linear_first(self, train, valid, scale, seed) -> tuple:
        """``(weights or None, note, refit)``: :func:`~.linear.linear_first` on the
        training and validation rows (in memory), the labels as the model trains on them."""
        plan = self.columns_
        if not (isinstance(train, pa.Table) and isinstance(valid, pa.Table)):
            return None, "no linear model trained first: the data is streamed", None
        labels = [self._trained_labels(train, None), self._trained_labels(valid, scale)]
        if any(ids is None for ids in labels):
            # training then refuses the label with the head's error, naming it
            return None, "no linear model trained first: a label is not a class", None
        task = "regression" if self._regression else plan.n_classes
        return linear_first(train, valid, list(plan.linear), (*labels, task), seed)

    def _trained_labels(self, table, scale):
        """``table``'s labels as the model trains on them: numbers standardized by
        ``scale`` (if given), or class ids (None when one is not a class)."""
        if self._regression:
            values = _numbers(table.column(self.label))
            return values if scale is None else (values - scale[0]) / scale[1]
        ids = self._class_ids(table.column(self.label))
        return None if ((ids < 0) | (ids >= self.columns_.n_classes)).any() else ids

    def _rows(self, valid, scale):
        """``(features, targets, task, scale)`` of in-memory validation rows for
        :func:`~.blend.blend_losses`, or None (streamed, or a label that is not a class)."""
        if not isinstance(valid, pa.Table):
            return None
        labels = self._trained_labels(valid, scale)
        if labels is None:
            return None
        task = "regression" if self._regression else self.columns_.n_classes
        return valid.drop_columns([self.label]), label_targets(labels, task), task, scale

    def _class_ids(self, column) -> np.ndarray:
        """Class ids ``0..n-1`` of a label column (through the label vocabulary if any;
        -1 for a value outside it)."""
        vocabulary = self.columns_.label_vocabulary
        if vocabulary is None:
            return _numbers(column).astype(np.int64)
        index = pc.index_in(column.cast(pa.string()), pa.array([str(v) for v in vocabulary]))
        return np.asarray(pc.fill_null(index, -1).to_numpy(zero_copy_only=False), np.int64)

    def _split(self, data, validation_data, rows, seed, scale):
        """``(train, validation or None, notes, validation rows)``; the validation rows
        keep the label's units (:class:`_BestEpoch` measures in them)."""
        label = self.label
        stratify = not self._regression
        everything = (seed, 0.0, stratify)
        if validation_data is not None:
            valid = part(validation_data, label, everything, "all", None)
            n_valid = valid.num_rows if isinstance(valid, pa.Table) else STEADY_VALIDATION_ROWS
            return part(data, label, everything, "all", scale), valid, [], n_valid
        if rows < MIN_ROWS_FOR_VALIDATION:
            note = (
                f"{rows} rows are too few for a validation split "
                f"(< {MIN_ROWS_FOR_VALIDATION}): "
                f"trained on all rows for {SMALL_DATA_EPOCHS} epochs, no early stopping"
            )
            return part(data, label, everything, "all", scale), None, [note], 0
        fraction = validation_fraction(rows)
        split = (seed, fraction, stratify)
        train = part(data, label, split, "train", scale)
        valid = part(data, label, split, "validation", None)
        n_valid = valid.num_rows if isinstance(valid, pa.Table) else round(rows * fraction)
        how = "" if isinstance(valid, pa.Table) else "about "
        why = ""
        if fraction > VALIDATION_FRACTION:
            why = (
                f"; more than {VALIDATION_FRACTION:.0%} on a small table, toward "
                f"{VALIDATION_MIN_ROWS} rows (at most {VALIDATION_MAX_FRACTION:.0%}), so "
                "the loss that picks the epoch is steady"
            )
        drawn = "of each class (stratified)" if stratify else "of the rows"
        note = (
            f"held out {how}{n_valid} rows ({fraction:.1%} {drawn}, drawn by a seeded "
            f"random permutation: copies of a row fall on both sides) for early stopping on "
            f"the validation loss{why}"
        )
        return train, valid, [note], n_valid

    def _build(self, linear, dnn, settings, seed, model_dir):
        cls = DNNLinearCombinedRegressor if self._regression else DNNLinearCombinedClassifier
        return cls(
            linear_feature_columns=list(linear),
            dnn_feature_columns=list(dnn),
            config=RunConfig(
                model_dir=model_dir,
                tf_random_seed=seed,
                log_step_count_steps=0,
                # the per-step loss of standardized labels would read as a loss in other
                # units than eval/loss: _BestEpoch writes one per epoch in the label's
                **({"save_summary_steps": 0} if self._regression else {}),
            ),
            **settings,
        )

    # ---------------------------------------------------------------- as canned

    def _fitted(self):
        if not hasattr(self, "estimator_"):
            raise RuntimeError(f"this {type(self).__name__} is not fitted yet; call fit(data)")
        return self.estimator_

    def _typed(self, data):
        """In-memory ``data`` with each feature column of nulls only (Arrow's untyped
        null, e.g. a pandas column of None) given the type its columns read: missing
        values, as a null in a typed column is. Files and Datasets as they are."""
        table = in_memory(data)
        if table is None:
            return data
        untyped = {f.name for f in table.schema if pa.types.is_null(f.type)}
        for column in self.columns_.linear + self.columns_.dnn:
            for key, wanted in column.parse_spec().items():
                if key in untyped:
                    i = table.column_names.index(key)
                    table = table.set_column(i, key, table.column(i).cast(wanted))
                    untyped.discard(key)
        return table

    def evaluate(self, data, **kwargs) -> dict:
        """Metrics on labelled ``data``, as the canned estimators' ``evaluate``; a null in
        any feature is read as the plan says (``columns_.describe()``)."""
        kwargs.setdefault("verbose", self.verbose)
        return self._fitted().evaluate(self._typed(data), label=self.label, **kwargs)

    def predict(self, data, **kwargs):
        """Predictions, as the canned estimators' ``predict``; nulls as in :meth:`evaluate`."""
        kwargs.setdefault("verbose", self.verbose)
        return self._fitted().predict(self._typed(data), **kwargs)

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn=None) -> str:
        """An export for ``cn.load``; returns its path (``serving_input_receiver_fn`` as
        the canned estimators' ``export_saved_model``)."""
        return self._fitted().export_saved_model(export_dir_base, serving_input_receiver_fn)

    def job_config(self, data_path=None) -> dict:
        """A ``colonnade train`` job config (a dict for TOML) that trains this model's
        columns and settings on ``data_path`` for the best epoch count found. A job has no
        step that solves the linear model first (:mod:`.linear`): its wide part
        trains jointly with the deep one, with the recommended linear optimizer; of a
        cross-fitted ensemble it trains one model as its first member was (one tower, its
        best epoch count), not the ensemble."""
        est, plan = self._fitted(), self.columns_
        settings = {k: v for k, v in self.settings_.items() if k != "batch_size"}
        if settings.get("linear_optimizer") == FROZEN_LINEAR_OPTIMIZER:
            settings["linear_optimizer"] = recommended_settings(plan, 1)["linear_optimizer"]
        model = {
            "type": type(est).__name__,
            "model_dir": self.model_dir_,
            "tf_random_seed": 0 if self.seed is None else int(self.seed),
            **settings,
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
    inferring one; ``members``: how many members a cross-fitted ensemble trains (1 to 5;
    None: chosen by the table's size, see ``fit``; 1: one model, the fastest fit). After
    ``fit``: ``columns_`` (the plan), ``estimator_`` (the
    ``DNNLinearCombinedClassifier``), ``history_``, ``best_epoch_``, ``settings_``,
    ``members_`` (one dict per member of a cross-fitted ensemble, see ``fit``).
    """


class TabularRegressor(_Tabular):
    """A zero-configuration wide&deep regressor (see :class:`TabularClassifier`)."""

    _regression = True
