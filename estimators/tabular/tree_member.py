"""The gradient-boosted tree member of the zero-configuration models, trained by LightGBM.

Trees split where a wide&deep model's buckets and hashed crosses are coarse (geographic
coordinates, thresholds on sums of columns, many categories on few rows). Each member
of a fit (each fold of a cross-fitted ensemble, or the one split) gets a LightGBM model
trained on the same rows as its wide&deep member, on the plan's raw inputs as LightGBM
takes them (:func:`tree_inputs_of`: numbers as numbers, strings as LightGBM's native
categoricals, times as seconds, nulls as its missing values), with the fixed settings
:data:`PARAMS`. It stops early on a seeded :data:`STOP_FRACTION` of its own training
rows, so the member's validation rows (on which the blend is chosen, :mod:`.tree_blend`)
never chose anything of the trees; on a small table it is then trained again on all its
rows for the rounds found (:data:`REFIT_MAX_ROWS`).

Training is deterministic with the seed: LightGBM's ``deterministic`` mode, row-wise
histograms, and a thread count fixed by the table's shape (:func:`threads_for`), never by
how busy the machine is. The model is saved in LightGBM's text format and read back by
colonnade's own numpy evaluator (:mod:`colonnade.feature_columns.tree_model`), so
serving needs no LightGBM.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...feature_columns.trees import tree_ensemble_column, tree_inputs
from .split import validation_mask

__all__ = [
    "ENABLED",
    "MAX_CATEGORIES",
    "MAX_ROUNDS",
    "PARAMS",
    "REFIT_MAX_ROWS",
    "STOP_FRACTION",
    "STOP_PATIENCE",
    "fit_tree_member",
    "skipped",
    "threads_for",
    "tree_inputs_of",
]

# Whether a fit trains the tree member (tests of the wide&deep parts alone turn it off).
ENABLED = True
# LightGBM's defaults but a smaller learning rate (more, smaller steps; early stopping
# picks how many) and bagging of rows. Every input in every tree: with feature_fraction
# 0.8, a table of 3 inputs lost most of the trees' fit on some seeds (each tree drew 2).
PARAMS = {
    "learning_rate": 0.05,
    "num_leaves": 31,
    "min_data_in_leaf": 20,
    "bagging_fraction": 0.8,
    "bagging_freq": 1,
    "lambda_l2": 1.0,
    "cat_smooth": 10.0,
    "min_data_per_group": 20,
    "max_cat_to_onehot": 8,
}
MAX_ROUNDS = 2000
STOP_PATIENCE = 100  # rounds without a lower loss on the stopping rows
STOP_FRACTION = 0.15  # of a member's training rows, for its early stopping
REFIT_MAX_ROWS = 20_000  # up to here the trees are refit on all the member's rows
MAX_CATEGORIES = 10_000  # the most frequent values of a string input; the others missing
_THREADS_CELLS = 2_000_000  # two threads above this many rows x inputs, else one


def threads_for(rows: int, inputs: int) -> int:
    """LightGBM's thread count: by the table's shape only (the same data and seed give
    the same trees on a busy or an idle machine).

    >>> threads_for(1_000, 10), threads_for(100_000, 50)
    (1, 2)
    """
    return 1 if rows * inputs <= _THREADS_CELLS else 2


def skipped(splits) -> str | None:
    """Why the ``[(train, validation, rows)]`` splits of a fit get no tree member, or
    None: trees train on in-memory rows and are blended on validation rows."""
    if not ENABLED:
        return "turned off (tree_member.ENABLED)"
    for train, valid, _ in splits:
        if valid is None:
            return "no validation rows to choose its blend weight on"
        if not (isinstance(train, pa.Table) and isinstance(valid, pa.Table)):
            return "the data is streamed (the trees train on rows in memory)"
        if valid.num_rows == 0:
            return "no validation rows to choose its blend weight on"
    return None


def _kind(arrow_type, specs) -> str | None:
    """How trees read an input of ``arrow_type`` that the plan's columns parse as
    ``specs`` (Arrow types): as one of them, so that the tree column's parse spec is the
    plan's."""
    number = (
        pa.types.is_integer(arrow_type)
        or pa.types.is_floating(arrow_type)
        or pa.types.is_boolean(arrow_type)
    )
    if number and pa.float32() in specs:
        return "number"
    if number and pa.float64() in specs:
        return "number64"
    if pa.list_(pa.string()) not in specs:
        return None
    if pa.types.is_timestamp(arrow_type) or pa.types.is_date(arrow_type):
        return "time"
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "category"
    if pa.types.is_dictionary(arrow_type) and pa.types.is_string(arrow_type.value_type):
        return "category"
    return None


def tree_inputs_of(table: pa.Table, specs: dict) -> tuple:
    """``(key, kind, vocabulary)`` of each input of ``specs`` (the plan's columns' parse
    specs, ``{key: [Arrow types]}``) that trees can read, by its type in ``table``: numbers and
    booleans as ``"number"`` (``"number64"`` where the plan reads float64), timestamps
    and dates as ``"time"``, strings as ``"category"`` with their :data:`MAX_CATEGORIES`
    most frequent values (ties by value) as the vocabulary; lists and others left out."""
    out = []
    for key in sorted(specs):
        if key not in table.column_names:
            continue
        kind = _kind(table.schema.field(key).type, specs[key])
        if kind is None:
            continue
        vocabulary = None
        if kind == "category":
            column = pc.cast(table.column(key), pa.string())
            counts = pc.value_counts(column.drop_null()).to_pylist()
            ranked = sorted(counts, key=lambda c: (-c["counts"], c["values"]))
            vocabulary = tuple(c["values"] for c in ranked[:MAX_CATEGORIES])
            if not vocabulary:
                continue
        out.append((key, kind, vocabulary))
    return tuple(out)


def _params(task, classes: int, seed: int, rows: int, inputs: tuple) -> dict:
    objective = {"regression": "regression", "binary": "binary"}.get(task, "multiclass")
    params = dict(PARAMS, objective=objective, seed=seed, deterministic=True)
    params.update(
        force_row_wise=True, verbosity=-1, max_bin=255, num_threads=threads_for(rows, len(inputs))
    )
    params["min_data_in_leaf"] = max(2, min(PARAMS["min_data_in_leaf"], rows // 20))
    if objective == "multiclass":
        params["num_class"] = classes
    return params


def _dataset(lgb, values, targets, categorical):
    return lgb.Dataset(values, targets, categorical_feature=categorical, free_raw_data=False)


def fit_tree_member(
    train: pa.Table, targets: np.ndarray, inputs: tuple, how: tuple, path: str
) -> dict:
    """Train one tree model on ``train``'s rows (``targets``: the labels as trained on,
    class ids or numbers) and save it in LightGBM's text format at ``path``; ``how`` is
    ``(task, classes, seed, name)``. Returns ``{"column": the tree column, "rounds",
    "stopped_on": rows}``."""
    import lightgbm as lgb

    task, classes, seed, name = how
    values = tree_inputs(train, inputs)
    categorical = [i for i, (_, kind, _) in enumerate(inputs) if kind == "category"]
    stop = validation_mask(
        pa.table({"y": pa.array(targets)}), "y", seed, STOP_FRACTION, task != "regression"
    )
    params = _params(task, classes, seed, int((~stop).sum()), inputs)
    fit = _dataset(lgb, values[~stop], targets[~stop], categorical)
    check = fit.create_valid(values[stop], targets[stop])
    booster = lgb.train(
        params,
        fit,
        MAX_ROUNDS,
        valid_sets=[check],
        callbacks=[lgb.early_stopping(STOP_PATIENCE, verbose=False)],
    )
    rounds = max(1, int(booster.best_iteration or booster.current_iteration()))
    if len(targets) <= REFIT_MAX_ROWS:
        every = _dataset(lgb, values, targets, categorical)
        params = _params(task, classes, seed, len(targets), inputs)
        booster = lgb.train(params, every, rounds)
        text = booster.model_to_string()
    else:
        text = booster.model_to_string(num_iteration=rounds)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    column = tree_ensemble_column(name, path, inputs)
    return {"column": column, "rounds": rounds, "stopped_on": int(stop.sum())}
