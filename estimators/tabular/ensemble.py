"""Cross-fitted ensembles of the zero-configuration models, folded into one wide&deep model.

:class:`~.models.TabularClassifier` and ``TabularRegressor`` split a small table's rows
into :func:`members_for` folds (:func:`~.split.fold_ids`) and train one member
per fold, member ``k`` stopping early and choosing its linear penalty on fold ``k`` and
training on the others; the column plan is shared, so the members differ only in their
weights. The wide/deep blend weight is one for all members, the one with the lowest loss
over the out-of-fold predictions of the members' validation folds
(:func:`out_of_fold_losses`: each row scored by the member that did not train on it): a
choice on every row of a small table, not on a fifth of them; on 3 of 10 folds of a
larger one, not on a tenth. The prediction is the members' mean logit, which is one
wide&deep model exactly (:func:`stack_members`): the wide part's weights averaged (the
logits are linear in them), the deep towers side by side in one tower ``K`` times as
wide, with block-diagonal hidden layers, each embedding table the members' tables side by
side, and the output layer the members' output layers stacked and divided by ``K``. The
model, its checkpoint and its exports are a plain ``DNNLinearCombinedClassifier`` /
``Regressor``: ``cn.load``, ``colonnade serve`` and Ray scoring read it as any other, and
the export's own checks bound what a hostile one can allocate.

A table of more than :data:`ENSEMBLE_MAX_ROWS` rows falls in :data:`LARGE_FOLDS` folds
instead, and up to :data:`LARGE_MAX_MEMBERS` members train, each on 90% of the rows as one
model would.

>>> members_for(600, 100), members_for(1_347, 1_545), members_for(15_142, 139)
(5, 2, 3)
>>> members_for(16_704, 192), members_for(32_561, 308), members_for(100_000, 150)
(3, 2, 1)
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa

from ...feature_columns.dense import EmbeddingColumn
from .split import fold_ids, part

__all__ = [
    "ENSEMBLE_CELLS",
    "ENSEMBLE_MAX_ROWS",
    "FOLDS",
    "LARGE_ENSEMBLE_CELLS",
    "LARGE_FOLDS",
    "LARGE_MAX_MEMBERS",
    "MAX_MEMBERS",
    "checked_members",
    "cross_fit_splits",
    "fold_conditions",
    "folds_for",
    "folds_note",
    "members_for",
    "members_note",
    "members_to_train",
    "out_of_fold_losses",
    "stack_members",
]

# The folds of a cross-fitted ensemble: each holds out a fifth of the rows, the
# validation share a small table had with one model (with 2 folds each member trained on
# half the rows: randhie's RMSE rose 0.9%) ...
FOLDS = 5
# ... and its members, one per fold (the first ones when fewer): they average away the
# chance in the early-stopping epoch, the penalty and the blend that one split of a few
# hundred rows decides ...
MAX_MEMBERS = FOLDS
# ... fewer where rows x the deep part's input width (what a step's first layer reads, per
# epoch) exceeds this many cells per member: a fit costs about one model's times the
# members, and one model of 2M cells took 15-19 s on 2 quiet cores (digits, randhie), so
# an ensemble stays well within two minutes; a large table (adult, 8.6M cells) trains
# one model, where one split's choices are steady anyway.
ENSEMBLE_CELLS = 6_000_000
# Five folds only up to this many labelled rows, where one model holds out a fifth as well
# (defaults.VALIDATION_MIN_ROWS / VALIDATION_MAX_FRACTION), so a member trains on as many
# rows as one model (randhie, 15k rows: one model on 90%, RMSE 3.754; 2 members of 5
# folds, each on 80%, 3.768) ...
ENSEMBLE_MAX_ROWS = 5_000
# ... above, where one model holds out a tenth, the rows fall in this many folds, so a
# member trains on 90% as one model does and validates on its own tenth ...
LARGE_FOLDS = 10
# ... and at most this many members (the first folds; the others validate none) ...
LARGE_MAX_MEMBERS = 3
# ... fewer where rows x deep inputs x members would exceed this many cells. Measured
# (3 seeds, 10 folds, against one model on 90%): health_insurance (16.7k rows x 192 inputs)
# AUC 0.8793 +- 0.0011 -> 0.8805 +- 0.0003 with 3 members (0.8802 with 2), randhie
# (15.1k x 139) RMSE 3.741 -> 3.724 (3.727 with 2), diamonds (40.5k x 226) 0.0885 -> 0.0867
# with 2, adult (32.6k x 305-308) 0.9280 -> 0.9283 with 2. The slowest, diamonds' 2 members
# (18.3M cells), took 64-72 s on 2 busy cores: this budget keeps a table within 2 minutes.
LARGE_ENSEMBLE_CELLS = 21_000_000

_INPUT = "dnn/input_from_feature_columns/input_layer/"


def members_for(rows: int, width: int) -> int:
    """How many cross-fitted members a table of ``rows`` labelled rows whose deep part
    reads ``width`` inputs trains: :data:`ENSEMBLE_CELLS` / (rows x width), at least 1
    (one model and one validation split), at most :data:`MAX_MEMBERS`; above
    :data:`ENSEMBLE_MAX_ROWS` rows :data:`LARGE_ENSEMBLE_CELLS` / (rows x width), at most
    :data:`LARGE_MAX_MEMBERS`. Fixed by the table's shape, not by timing: the same data
    and seed give the same model."""
    budget, most = ENSEMBLE_CELLS, MAX_MEMBERS
    if rows > ENSEMBLE_MAX_ROWS:
        budget, most = LARGE_ENSEMBLE_CELLS, LARGE_MAX_MEMBERS
    return int(min(most, max(1, budget // max(1, rows * width))))


def folds_for(rows: int) -> int:
    """The folds of an ensemble on ``rows`` labelled rows: :data:`FOLDS` (each member
    trains on 80%, as one model of a small table), :data:`LARGE_FOLDS` above
    :data:`ENSEMBLE_MAX_ROWS` rows (90%, as one model there).

    >>> folds_for(5_000), folds_for(5_001)
    (5, 10)
    """
    return FOLDS if rows <= ENSEMBLE_MAX_ROWS else LARGE_FOLDS


def cross_fit_splits(table: pa.Table, label: str, members: int, seed, stratify, scale) -> list:
    """``[(train, validation, validation rows)]`` per member: the labelled rows of
    ``table`` in :func:`folds_for` seeded folds (:func:`~.split.fold_ids`), member
    ``k`` validating on fold ``k`` and training on the others (their label standardized
    by ``scale = (mean, std)`` if given, as :func:`~.split.part`); with fewer
    members than folds, the last folds validate no member."""
    labelled = table.num_rows - table.column(label).null_count
    folds = fold_ids(table, label, seed, max(folds_for(labelled), members), stratify)
    splits = []
    for k in range(members):
        rest = table.filter(pa.array((folds >= 0) & (folds != k)))
        valid = table.filter(pa.array(folds == k))
        splits.append((part(rest, label, (seed, 0.0, False), "all", scale), valid, valid.num_rows))
    return splits


def out_of_fold_losses(losses: list) -> dict:
    """Per blend weight, the losses of every validated row, each scored by the member
    that did not train on it: the members' per-row validation ``losses`` (``{weight:
    array}`` per member, on their folds) joined.

    >>> joined = out_of_fold_losses([{0.0: np.array([1.0]), 1.0: np.array([0.5])},
    ...                              {0.0: np.array([0.5, 0.5]), 1.0: np.array([1.0, 1.0])}])
    >>> {w: v.tolist() for w, v in joined.items()}
    {0.0: [1.0, 0.5, 0.5], 1.0: [0.5, 1.0, 1.0]}
    """
    return {w: np.concatenate([m[w] for m in losses]) for w in losses[0]}


def checked_members(members):
    """A zero-config model's ``members`` argument checked: None, or an int from 1 to
    :data:`FOLDS` (one member per fold)."""
    if members is None:
        return None
    if isinstance(members, bool) or not isinstance(members, (int, np.integer)):
        raise TypeError(f"members must be None or an int, got {members!r}")
    if not 1 <= members <= FOLDS:
        raise ValueError(
            f"members must be between 1 and {FOLDS} (one member per fold of {FOLDS}), got {members}"
        )
    return int(members)


def fold_conditions(in_memory: bool, no_validation_data: bool, labelled: int, least: int) -> dict:
    """The conditions for drawing folds, worded for :func:`members_to_train`'s error, each
    mapped to whether it holds: an in-memory table, no ``validation_data``, at least
    ``least`` labelled rows (``labelled``)."""
    return {
        "an in-memory table (a DataFrame, dict or Arrow table), not a file or Dataset": in_memory,
        "no validation_data": no_validation_data,
        f"at least {least} labelled rows (got {labelled})": labelled >= least,
    }


def members_to_train(members, rows: int, width: int, foldable: dict) -> int:
    """How many members a fit trains: ``members`` when given (checked), else
    :func:`members_for` the table's shape where folds can be drawn, else 1. ``foldable``
    maps each condition for folds (an in-memory table, no ``validation_data``, enough
    rows), worded for the error, to whether it holds; ``members > 1`` where one fails is
    refused, naming it."""
    unfoldable = [why for why, holds in foldable.items() if not holds]
    asked = checked_members(members)
    if asked is None:
        return 1 if unfoldable else members_for(rows, width)
    if asked > 1 and unfoldable:
        raise ValueError(
            f"members={asked}: the members validate on folds of the training data, which "
            f"needs {' and '.join(unfoldable)}"
        )
    return asked


def folds_note(members: int, seed: int, cells: tuple, stratified: bool, asked=False) -> str:
    """The plan's note on how an ensemble's folds were drawn and what it averages;
    ``cells`` is ``(rows, deep input width)``; ``asked``: ``members`` was given."""
    drawn = "each class's rows dealt evenly (stratified)" if stratified else "the rows"
    rows, width = cells
    folds = max(folds_for(rows), members)
    validated = "every row validates once"
    if members < folds:
        validated = f"the rows of {members} folds validate once, the others never"
    budget, most, where = ENSEMBLE_CELLS, MAX_MEMBERS, f"<= {ENSEMBLE_MAX_ROWS} rows"
    if rows > ENSEMBLE_MAX_ROWS:
        budget, most, where = LARGE_ENSEMBLE_CELLS, LARGE_MAX_MEMBERS, f"> {ENSEMBLE_MAX_ROWS}"
        where += " rows, where one model holds out a tenth too"
    else:
        where += ", where one model too holds out a fifth"
    why = (
        f"{budget} cells / ({rows} rows x {width} deep inputs), at most {most}: a fit costs one "
        f"model's times the members; {folds} folds on {where}"
    )
    if asked:
        why = f"members={members} given"
    return (
        f"a cross-fitted ensemble of {members} members ({why}): "
        f"{drawn} in {folds} folds by a seeded random permutation (copies of "
        f"a row fall in different folds); member k trains on the other folds, stops early "
        f"and chooses its linear penalty on fold k, so {validated}; the members share "
        f"the column plan and differ in their weights (seeds {seed}..{seed + members - 1}); "
        f"the model predicts their mean logit, one wide&deep model whose deep tower holds "
        f"the {members} towers side by side (model_dir's member_k folders hold each "
        f"member's training)"
    )


def members_note(members: list) -> str:
    """The plan's note listing each member's early-stopping epoch and blend weight."""
    return "the members' choices: " + "; ".join(
        f"member {k + 1}: best epoch {m['best_epoch']}, deep weight {m.get('deep_weight', 1):g}"
        for k, m in enumerate(members)
    )


def _hidden_layers(weights: dict) -> int:
    return sum(
        1 for name in weights if name.startswith("dnn/hiddenlayer_") and name.endswith("/kernel")
    )


def _block_diagonal(blocks: list) -> np.ndarray:
    rows = sum(b.shape[0] for b in blocks)
    out = np.zeros((rows, sum(b.shape[1] for b in blocks)), blocks[0].dtype)
    r = c = 0
    for block in blocks:
        out[r : r + block.shape[0], c : c + block.shape[1]] = block
        r, c = r + block.shape[0], c + block.shape[1]
    return out


def _first_kernel(kernels: list, columns: list) -> np.ndarray:
    """The first hidden layer's kernel over the stacked input: a column without variables
    (a number, an indicator, an encoding) feeds every member's block with its rows; an
    embedding's stacked dimensions feed each member's block with that member's rows."""
    pieces, start = [], 0
    for column in sorted(columns, key=lambda c: c.name):
        rows = [kernel[start : start + column.dimension] for kernel in kernels]
        start += column.dimension
        if isinstance(column, EmbeddingColumn):
            pieces.append(_block_diagonal(rows))
        else:
            pieces.append(np.concatenate(rows, axis=1))
    if start != kernels[0].shape[0]:
        raise ValueError(
            f"the deep columns' dimensions add up to {start}, the first hidden layer "
            f"takes {kernels[0].shape[0]} inputs"
        )
    return np.concatenate(pieces, axis=0)


def stack_members(members: list, dnn_columns) -> tuple:
    """``(dnn columns, hidden units, weights)`` of the one wide&deep model whose logits
    are the mean of the ``members``' (each the ``get_weights()`` of a wide&deep model
    over ``dnn_columns``, trained from one plan): exact, because the linear part's logits
    are linear in its weights, a block-diagonal layer computes each member's layer on its
    own slice of the input, and ReLU works per unit. The embedding columns get ``K``
    times their dimension; an embedding with ``max_norm`` (whose clipping is not per
    member) or any other column with variables is refused.

    >>> w = lambda s: {"dnn/hiddenlayer_0/kernel": np.full((1, 2), s), "dnn/hiddenlayer_0/bias":
    ...     np.zeros(2), "dnn/logits/kernel": np.ones((2, 1)), "dnn/logits/bias": np.full(1, s)}
    >>> import colonnade as cn
    >>> _, units, out = stack_members([w(1.0), w(3.0)], [cn.feature_columns.numeric_column("x")])
    >>> units, out["dnn/hiddenlayer_0/kernel"].tolist(), out["dnn/logits/bias"].tolist()
    ([4], [[1.0, 1.0, 3.0, 3.0]], [2.0])
    """
    count = len(members)
    columns = []
    for column in dnn_columns:
        if isinstance(column, EmbeddingColumn) and column.max_norm is None:
            columns.append(dataclasses.replace(column, dimension=column.dimension * count))
        elif any(name.startswith(f"{_INPUT}{column.name}/") for name in members[0]):
            raise ValueError(
                f"deep column {column.name!r} ({type(column).__name__}) has variables that "
                "cannot be stacked member by member: only embeddings without max_norm can"
            )
        else:
            columns.append(column)
    out = {}
    for name in members[0]:
        if name.startswith("linear/"):
            out[name] = np.mean([m[name] for m in members], axis=0).astype(members[0][name].dtype)
        elif name.startswith(_INPUT):
            out[name] = np.concatenate([m[name] for m in members], axis=1)
    layers = _hidden_layers(members[0])
    hidden_units = []
    for i in range(layers):
        kernels = [m[f"dnn/hiddenlayer_{i}/kernel"] for m in members]
        kernel = _first_kernel(kernels, dnn_columns) if i == 0 else _block_diagonal(kernels)
        out[f"dnn/hiddenlayer_{i}/kernel"] = kernel
        out[f"dnn/hiddenlayer_{i}/bias"] = np.concatenate(
            [m[f"dnn/hiddenlayer_{i}/bias"] for m in members]
        )
        hidden_units.append(kernel.shape[1])
    if "dnn/logits/kernel" not in members[0]:
        return columns, hidden_units, out
    kernels = [m["dnn/logits/kernel"] for m in members]
    out["dnn/logits/kernel"] = np.concatenate(kernels, axis=0) / np.float32(count)
    out["dnn/logits/bias"] = np.mean([m["dnn/logits/bias"] for m in members], axis=0)
    for name, value in out.items():
        out[name] = value.astype(members[0][name].dtype)
    return columns, hidden_units, out
