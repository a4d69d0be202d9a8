"""Zero-configuration models: :class:`TabularClassifier` and :class:`TabularRegressor`.

``fit(data)`` infers the feature columns (:func:`colonnade.feature_columns.infer`), holds
out a seeded, stratified validation split (:mod:`.split`), solves a penalized
linear model of the wide columns to convergence (:mod:`.linear`), then trains the
deep part of a wide&deep model on top of its fixed logits with colonnade's recommended
settings (a regression label standardized, learning rates halved on a plateau), stops
when the validation loss stops improving, keeps the best epoch's weights and the blend of
wide and deep with the lowest validation loss, the linear model alone unless the deep part
wins by more than the validation noise (:mod:`.blend`). Each setting is a
named constant of :mod:`.defaults` and a note in ``columns_.describe()``; early stopping
in the label's units is :mod:`.best_epoch`.

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

import os
import tempfile

import numpy as np
import pyarrow as pa

from ...feature_columns.infer import ColumnPlan, infer
from ...feature_columns.trees import tree_inputs
from ..canned.estimators import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor,
)
from ..runtime.run_config import RunConfig
from . import blend as tabular_blend
from . import defaults, tree_member
from .best_epoch import BestEpoch, fold_label_scale
from .blend import blend_losses, choose_blend, logits_of
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
from .scoring import class_ids, label_type
from .sklearn_style import ClassifierMethods, RegressorMethods
from .split import in_memory, part
from .tree_blend import blended_weights, choose_tree_weight, tree_note
from .tree_member import fit_tree_member, tree_inputs_of

__all__ = ["TabularClassifier", "TabularRegressor"]


def _numbers(column) -> np.ndarray:
    """A label column as float64 numbers."""
    return np.asarray(column.to_numpy(zero_copy_only=False), np.float64)


def _noted(plan: ColumnPlan, notes) -> ColumnPlan:
    for note in notes:
        plan = plan.with_note(note)
    return plan


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
        seeded random :func:`~.defaults.validation_fraction` of each class (of all rows for a
        regression; 10%, more on small tables, at most :data:`~.defaults.VALIDATION_MAX_ROWS` rows):
        :func:`~.split.validation_mask`, batch by batch for a stream. A regression
        label is standardized for training and the model is scaled back after it, so
        predictions, evaluations, exports and the ``history_`` losses are in the label's
        units. An in-memory table without ``validation_data`` small enough in rows x deep
        inputs (:func:`~.ensemble.members_for`; 5 folds up to ``ENSEMBLE_MAX_ROWS``
        rows, 10 above) trains a cross-fitted ensemble (:mod:`.ensemble`;
        ``members=`` sets the number, 1 for one model and a fit a few times faster):
        ``members_`` lists the members; ``history_``,
        ``best_epoch_`` and ``deep_weight_`` are the first member's; ``estimator_`` is the
        one wide&deep model predicting the members' mean logit. Each member also gets a
        LightGBM tree model, blended in by the weight of the lowest loss on the members'
        validation rows (:mod:`.tree_member`, :mod:`.tree_blend`): ``tree_weight_`` (0:
        the model has no trees) and ``tree_members_``."""
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
            table is not None, validation_data is None, labelled, defaults.MIN_ROWS_FOR_VALIDATION
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
        settings = defaults.recommended_settings(plan, train_rows)
        batch_size = settings.pop("batch_size")
        notes.append(
            f"batch size {batch_size}: the power of two nearest {train_rows} training rows / "
            f"{defaults.STEPS_PER_EPOCH} steps per epoch, within "
            f"[{defaults.MIN_BATCH_SIZE}, {defaults.MAX_BATCH_SIZE}]"
        )
        patience, min_epochs = defaults.early_stopping_for(n_valid)
        if splits[0][1] is not None:
            noisy = ""
            if min_epochs > 1:
                noisy = (
                    f"; {n_valid} validation rows (< {defaults.STEADY_VALIDATION_ROWS}) give a "
                    f"loss that moves by chance: never stop before epoch {min_epochs}"
                )
            notes.append(
                f"learning rates x{defaults.LR_DECAY} after each epoch without a lower "
                f"validation loss; stop after {patience + 1} such epochs in a row (at most "
                f"{defaults.MAX_EPOCHS}){noisy}; keep the best epoch's weights"
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
        self.label_type_ = label_type(data if table is None else table, self.label)
        self.model_dir_ = self.model_dir or tempfile.mkdtemp(prefix="colonnade_tabular_")
        self.settings_ = dict(settings, batch_size=batch_size)
        self.tree_weight_, self.tree_members_ = 0.0, []
        if members == 1:
            fitted = self._train(train, valid, settings, scale, seed, self.model_dir_)
            self.columns_ = _noted(self.columns_, fitted["notes"])
            self.estimator_ = fitted["estimator"]
            self.settings_ = dict(fitted["settings"], batch_size=batch_size)
            self.members_ = [fitted]
            trees = self._tree_members(splits, scale, seed)
            if trees is not None and trees[1] > 0:
                where = os.path.join(self.model_dir_, "with_trees")
                weights, dnn = self.estimator_.get_weights(), self.columns_.dnn
                units = list(settings["dnn_hidden_units"])
                self.estimator_ = self._blend_trees(weights, (dnn, units), trees, scale, where)
        else:
            self.estimator_ = self._fit_members(splits, settings, scale, seed)
        first = self.members_[0]
        self.history_, self.best_epoch_ = first["history"], first["best_epoch"]
        if "deep_weight" in first:
            self.deep_weight_ = first["deep_weight"]
        return self

    def _train(self, train, valid, settings, scale, seed, model_dir, blend_now=True) -> dict:
        """One model trained on ``train``, stopped early on ``valid`` (or
        :data:`~.defaults.SMALL_DATA_EPOCHS` epochs without it): ``{"estimator", "history",
        "best_epoch", "blend_losses" (with validation), "refit", "notes", ...}``. With
        ``blend_now`` also blended on ``valid`` (``"deep_weight"``), scaled to the label's
        units and checkpointed in ``model_dir`` (:meth:`_finish`); else the ensemble
        chooses one blend for all members and finishes them."""
        plan, notes = self.columns_, []
        linear_weights = None
        if valid is not None and plan.linear:
            linear_weights, note, refit = self._fit_linear_first(train, valid, scale, seed)
            if linear_weights is not None:
                settings = dict(settings, linear_optimizer=dict(defaults.FROZEN_LINEAR_OPTIMIZER))
                note += "; the deep part trains on top of its logits, held fixed"
            notes.append(note)
        estimator = self._build(plan.linear, plan.dnn, settings, seed, model_dir)
        if linear_weights is not None:
            estimator.set_weights(linear_weights)
        callbacks, epochs = [], defaults.SMALL_DATA_EPOCHS
        if valid is not None:
            patience, min_epochs = defaults.early_stopping_for(
                valid.num_rows if isinstance(valid, pa.Table) else defaults.STEADY_VALIDATION_ROWS
            )
            stopper = BestEpoch(valid, self.label, scale, patience, min_epochs)
            callbacks, epochs = [stopper], defaults.MAX_EPOCHS
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
        self.columns_ = _noted(self.columns_, notes + [members_note(self.members_)])
        trees = self._tree_members(splits, scale, seed)
        if trees is None or trees[1] == 0:
            trees = ([], 0.0)
        return self._blend_trees(stacked, (dnn, hidden_units), trees, scale, self.model_dir_)

    def _tree_members(self, splits, scale, seed):
        """``(tree columns, tree weight)``: a LightGBM member per split
        (:mod:`.tree_member`), trained on the split's training rows, and its blend
        weight chosen on the splits' validation rows (:mod:`.tree_blend`), noted in
        the plan; None (and a note) where trees cannot train (streamed data, no
        validation rows, :data:`~.tree_member.ENABLED` off)."""
        why = tree_member.skipped(splits)
        if why is not None:
            self.columns_ = self.columns_.with_note(f"no tree member: {why}")
            return None
        task = "regression" if self._regression else self.columns_.task
        classes = 1 if self._regression else self.columns_.n_classes
        plan = self.columns_
        specs = {}
        for column in list(plan.linear) + list(plan.dnn):
            for key, arrow_type in column.parse_spec().items():
                specs.setdefault(key, []).append(arrow_type)
        inputs = tree_inputs_of(splits[0][0], specs)
        if not inputs:
            self.columns_ = plan.with_note("no tree member: no input trees can read")
            return None
        fitted, nn, trees, targets = [], [], [], []
        for k, (train, valid, _) in enumerate(splits):
            path = os.path.join(self.model_dir_, "trees", f"member_{k + 1}.txt")
            labels = self._trained_labels(train, None)
            how = (task, classes, seed + k, f"gbdt_member_{k + 1}")
            fitted.append(fit_tree_member(train, labels, inputs, how, path))
            features = valid.drop_columns([self.label])
            nn.append(logits_of(self.members_[k]["estimator"], features))
            ensemble = fitted[-1]["column"].model  # the member's trees, not an estimator's
            raw = ensemble.raw_scores(tree_inputs(features, inputs))
            trees.append(raw if scale is None else scale[0] + scale[1] * raw)
            ids = self._trained_labels(valid, None)
            targets.append(label_targets(ids, "regression" if self._regression else classes))
        weight, losses = choose_tree_weight(nn, trees, targets, self._regression)
        where = "out-of-fold loss of the validated rows" if len(splits) > 1 else "validation loss"
        self.columns_ = plan.with_note(tree_note(weight, losses, fitted, where))
        self.tree_members_ = fitted
        self.tree_weight_ = weight
        return [m["column"] for m in fitted], weight

    def _blend_trees(self, weights, deep, trees, scale, model_dir):
        """The one wide&deep model of ``weights`` (deep part ``(columns, hidden units)``)
        with the tree ``columns`` blended in by ``weight`` (``trees``), checkpointed in
        ``model_dir``."""
        columns, weight = trees
        dnn, hidden_units = deep
        settings = dict(self.members_[0]["settings"], dnn_hidden_units=hidden_units)
        linear = list(self.columns_.linear) + list(columns)
        seed = 0 if self.seed is None else int(self.seed)
        estimator = self._build(linear, dnn, settings, seed, model_dir)
        if columns:
            weights = blended_weights(weights, columns, weight, scale)
        estimator.set_weights(weights)
        estimator.save_checkpoint()
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
        ids = class_ids(self.columns_, table.column(self.label))
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

    def _split(self, data, validation_data, rows, seed, scale):
        """``(train, validation or None, notes, validation rows)``; the validation rows
        keep the label's units (:class:`BestEpoch` measures in them)."""
        label = self.label
        stratify = not self._regression
        everything = (seed, 0.0, stratify)
        if validation_data is not None:
            valid = part(validation_data, label, everything, "all", None)
            n_valid = (
                valid.num_rows if isinstance(valid, pa.Table) else defaults.STEADY_VALIDATION_ROWS
            )
            return part(data, label, everything, "all", scale), valid, [], n_valid
        if rows < defaults.MIN_ROWS_FOR_VALIDATION:
            note = (
                f"{rows} rows are too few for a validation split "
                f"(< {defaults.MIN_ROWS_FOR_VALIDATION}): "
                f"trained on all rows for {defaults.SMALL_DATA_EPOCHS} epochs, no early stopping"
            )
            return part(data, label, everything, "all", scale), None, [note], 0
        fraction = defaults.validation_fraction(rows)
        split = (seed, fraction, stratify)
        train = part(data, label, split, "train", scale)
        valid = part(data, label, split, "validation", None)
        n_valid = valid.num_rows if isinstance(valid, pa.Table) else round(rows * fraction)
        how = "" if isinstance(valid, pa.Table) else "about "
        why = ""
        if fraction > defaults.VALIDATION_FRACTION:
            why = (
                f"; more than {defaults.VALIDATION_FRACTION:.0%} on a small table, toward "
                f"{defaults.VALIDATION_MIN_ROWS} rows (at most "
                f"{defaults.VALIDATION_MAX_FRACTION:.0%}), so the loss that picks the epoch is "
                "steady"
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
                # units than eval/loss: BestEpoch writes one per epoch in the label's
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
        best epoch count), not the ensemble, and no tree member."""
        est, plan = self._fitted(), self.columns_
        settings = {k: v for k, v in self.settings_.items() if k != "batch_size"}
        if settings.get("linear_optimizer") == defaults.FROZEN_LINEAR_OPTIMIZER:
            settings["linear_optimizer"] = defaults.recommended_settings(plan, 1)[
                "linear_optimizer"
            ]
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


class TabularClassifier(ClassifierMethods, _Tabular):
    """A zero-configuration wide&deep classifier (binary or multi-class).

    ``label``: the label column; ``model_dir``: checkpoints (a new temporary directory
    when None); ``seed``: the split, the sample, the initial weights and the shuffles;
    ``columns``: a :class:`~colonnade.feature_columns.infer.ColumnPlan` to use instead of
    inferring one; ``members``: how many members a cross-fitted ensemble trains (1 to 5;
    None: chosen by the table's size, see ``fit``; 1: one model, the fastest fit). After
    ``fit``: ``columns_`` (the plan), ``estimator_`` (the
    ``DNNLinearCombinedClassifier``), ``history_``, ``best_epoch_``, ``settings_``,
    ``members_`` (one dict per member of a cross-fitted ensemble, see ``fit``),
    ``tree_weight_`` and ``tree_members_`` (the LightGBM member's blend weight and models),
    ``classes_`` (the label values in the order of ``predict_proba``'s columns). As a
    scikit-learn classifier: ``predict_proba``, ``score`` (accuracy),
    ``feature_importances`` (permutation importance) and a short ``describe()``
    (:mod:`.sklearn_style`).
    """


class TabularRegressor(RegressorMethods, _Tabular):
    """A zero-configuration wide&deep regressor (see :class:`TabularClassifier`).

    Its ``evaluate`` adds ``mae`` and ``r2``; its ``score`` is R² (:mod:`.sklearn_style`).
    """

    _regression = True
