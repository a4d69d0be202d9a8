"""Fused tables: the embedding tables or linear weights of several columns of a layer
kept as the rows of one Variable (:func:`colonnade.core.fuse`), so that a step does one
gather and one sparse update for all of them instead of one per column -- the per-call
costs, not the rows, dominate a step over many small tables.

Which columns fuse (:func:`plan_dense_output` and :func:`fuse_linear_weights`):

- in ``DenseFeatures``, each run of two or more neighbouring (in name order) trainable
  embedding columns of one dimension without ``max_norm``, in a trainable layer
  (shared embeddings keep their table: other columns read it; ``max_norm`` clips rows per
  lookup, which the fused lookup does not);
- in ``LinearModel``, the weights of all categorical columns, when there are two or more.

The layers still name, checkpoint and warm-start one variable per column: those are views
of their rows of the fused table. What a batch reads of a fused table
(:class:`FusedIds`) depends on the ids alone, so an input thread computes it ahead of the
step (:meth:`FusedColumns.ids`), grouped for the gradient.

>>> import colonnade as cn
>>> fc = cn.feature_columns
>>> a = fc.categorical_column_with_identity("a", 3)
>>> b = fc.categorical_column_with_identity("b", 2)
>>> model = fc.LinearModel([a, b])
>>> (fused,) = model.fused_groups
>>> fused.table.name, fused.table.shape, fused.offsets
('linear_model/fused_weights', (5, 1), (0, 3))
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core import ops
from ..core.autodiff import Tensor, as_tensor
from ..core.backend import get_xp, to_device
from ..core.fused import fuse
from ..core.indexed_rows import RowGroups, group_rows, group_rows_by_column
from ..core.variables import Variable
from .dense import EmbeddingColumn
from .ids import CategoricalIds

__all__ = [
    "FusedColumns",
    "FusedIds",
    "fuse_linear_weights",
    "fused_ids",
    "fused_lookup",
    "output_pieces",
    "plan_dense_output",
]


class FusedIds(NamedTuple):
    """The rows of a fused table that a batch's columns read, and how they combine; made
    by :func:`fused_ids` from the ids alone, so it can be computed ahead of the step."""

    rows: np.ndarray  # rows of the fused table to gather, in gather order
    table_rows: int  # rows of the fused table, which every entry of ``rows`` is below
    num_rows: int  # examples in the batch
    columns: int
    segments: np.ndarray | None  # output slot of each gathered row; None: one row per slot
    factors: np.ndarray | None  # weight of each gathered row, None: all ones
    groups: RowGroups | None  # group_rows(rows), for the gradient, when training


def fused_ids(
    ids_list, offsets, table_rows: int, combiners, side_by_side: bool, training=True
) -> FusedIds:
    """What :func:`fused_lookup` needs of the columns' ids (``CategoricalIds``, column
    ``j``'s table at row ``offsets[j]`` of a fused table of ``table_rows`` rows; ids out of
    their column's buckets raise ``IndexError`` here). The combiners become per-row
    factors (``w``, ``w / sum w`` or ``w / sqrt(sum w^2)`` over the example's ids), so every
    column reduces to one weighted segment sum; invalid ids and, for ``mean``/``sqrtn``,
    weights <= 0 are dropped as in :func:`embedding_lookup`. With ``training`` the rows
    are also grouped for the gradient (:func:`colonnade.core.indexed_rows.group_rows`)."""
    k, n = len(ids_list), ids_list[0].num_rows
    segments = factors = rows = table = None
    if all(ids.univalent and ids.weights is None for ids in ids_list) and n:
        table = np.empty((n, k), np.int64)  # filled column by column: no stacked copy
        for j, (ids, offset) in enumerate(zip(ids_list, offsets)):
            np.add(ids.ids, offset, out=table[:, j])
        # One reduction over the rows for all columns, not a min and a max per column.
        # An id below 0 (or one so large that adding its offset wraps) lands below its
        # offset, and the general path below takes the columns.
        if (table.min(axis=0) >= offsets).all():  # one valid id per example and column
            largest = table.max(axis=0) - np.asarray(offsets)
            rows = table.reshape(-1)
    if rows is None:
        largest = np.array([ids.ids.max() if ids.ids.size else -1 for ids in ids_list])
        pruned = [ids.pruned(prune_weights=c != "sum") for ids, c in zip(ids_list, combiners)]
        segments = np.concatenate(
            [
                ids.segment_ids * k + j if side_by_side else ids.segment_ids
                for j, ids in enumerate(pruned)
            ]
        )
        order = np.argsort(segments, kind="stable")  # sorted segments: the fast segment sum
        segments = segments[order]
        rows = np.concatenate([ids.ids + off for ids, off in zip(pruned, offsets)])[order]
        factors = np.concatenate([_combiner_factors(i, c) for i, c in zip(pruned, combiners)])
        factors = factors[order]
    buckets = np.diff(np.append(offsets, table_rows))
    beyond = np.flatnonzero(largest >= buckets)
    if beyond.size:
        j = int(beyond[0])
        raise IndexError(
            f"fused lookup: column {j} has id {int(largest[j])} but its table has only "
            f"{int(buckets[j])} rows"
        )
    groups = None
    if training:
        groups = group_rows(rows) if segments is not None else group_rows_by_column(table, offsets)
    return FusedIds(rows, table_rows, n, k, segments, factors, groups)


def fused_lookup(table, ids: FusedIds, side_by_side: bool) -> Tensor:
    """:func:`embedding_lookup` of several columns whose tables are rows of one fused
    ``table``, with one gather for all of them (``ids`` from :func:`fused_ids`).

    Returns the lookups side by side, ``(num_rows, k * dim)`` (an input layer's
    concatenation), or summed, ``(num_rows, dim)`` (a linear model's sum of columns).
    """
    table = as_tensor(table)
    xp = get_xp(table.value)
    n, k, dim = ids.num_rows, ids.columns, table.shape[1]
    if ids.table_rows != table.shape[0]:
        raise ValueError(
            f"fused lookup: ids made for a table of {ids.table_rows} rows, the table has "
            f"{table.shape[0]}"
        )
    rows = to_device(ids.rows, xp)
    gathered = ops.gather(table, rows, ids.groups, in_bounds=True)  # checked by fused_ids
    if ids.segments is None:  # the gathered rows are the lookups, as they are
        if side_by_side:
            return ops.reshape(gathered, (n, k * dim))
        return ops.sum(ops.reshape(gathered, (n, k, dim)), axis=1)
    weights = to_device(ids.factors.astype(table.value.dtype, copy=False), xp)
    out = ops.segment_sum(
        gathered, to_device(ids.segments, xp), n * k if side_by_side else n, weights
    )
    return ops.reshape(out, (n, k * dim)) if side_by_side else out


def _combiner_factors(ids: CategoricalIds, combiner: str) -> np.ndarray:
    """What each id's row is multiplied by so that a plain sum over an example's ids gives
    the ``combiner``'s result."""
    w = ids.weights if ids.weights is not None else np.ones(ids.ids.shape[0], np.float32)
    if combiner == "sum":
        return w
    sums = np.bincount(
        ids.segment_ids, weights=w if combiner == "mean" else w * w, minlength=ids.num_rows
    )
    if combiner == "sqrtn":
        sums = np.sqrt(sums)
    return (w / sums[ids.segment_ids]).astype(np.float32)  # sums > 0: weights <= 0 were pruned


class FusedColumns(NamedTuple):
    """Columns of a layer whose tables are rows of one fused ``table``: column ``j``'s
    table starts at row ``offsets[j]`` and its ids combine by ``combiners[j]``. The lookup
    gives the columns side by side (``DenseFeatures``) or summed (``LinearModel``)."""

    table: Variable
    columns: tuple
    offsets: tuple
    combiners: tuple
    side_by_side: bool

    def ids(self, cache, training: bool = True) -> FusedIds:
        """This batch's :func:`fused_ids`, computed once per batch: ahead, on the input
        thread, when the estimators' pipeline asks (``training`` groups the rows for the
        gradient), else by the first lookup."""

        def compute():
            ids = [cache.get(_categorical(c)) for c in self.columns]
            rows = self.rows
            return fused_ids(ids, self.offsets, rows, self.combiners, self.side_by_side, training)

        return cache.memo(("fused", id(self.table)), compute)

    @property
    def rows(self) -> int:
        """Rows of the fused table, from its columns' buckets: not read off the table's
        value, which a distributed worker replaces by the rows a step pulled while its
        input thread computes the next batches' ids."""
        return self.offsets[-1] + _categorical(self.columns[-1]).num_buckets

    def lookup(self, cache) -> Tensor:
        """The columns' lookups of this batch (see :func:`fused_lookup`)."""
        return fused_lookup(self.table, self.ids(cache), self.side_by_side)


def _categorical(column):
    """The categorical column whose ids ``column`` looks up."""
    return column.categorical_column if isinstance(column, EmbeddingColumn) else column


def _fuse_columns(columns, tables, name, combiners, side_by_side) -> FusedColumns | None:
    """Fuse ``tables`` (one per column of ``columns``) into one named ``name``; None for
    fewer than two columns, where there is nothing to save."""
    if len(columns) < 2:
        return None
    table = fuse(tables, name)
    offsets = tuple(start for _, start in table.fused_parts)
    return FusedColumns(table, tuple(columns), offsets, tuple(combiners), side_by_side)


def _fusable_embedding(column, layer_trainable: bool) -> bool:
    return (
        type(column) is EmbeddingColumn
        and column.trainable
        and column.max_norm is None
        and layer_trainable
    )


def plan_dense_output(columns, variables: dict, layer_name: str, layer_trainable: bool) -> list:
    """The pieces of a ``DenseFeatures`` output in order: columns (in name order), with
    each run of fusable embedding columns (see the module docstring) fused and standing
    as one :class:`FusedColumns`, its table named ``<layer_name>/fused_<i>``. ``variables``
    maps the layer's variable names to its Variables."""
    plan, run = [], []

    def close():
        name = f"{layer_name}/fused_{sum(isinstance(p, FusedColumns) for p in plan)}"
        tables = [variables[c.table_name] for c in run]
        fused = _fuse_columns(run, tables, name, [c.combiner for c in run], side_by_side=True)
        plan.extend([fused] if fused is not None else run)

    for c in columns:
        fusable = _fusable_embedding(c, layer_trainable)
        if run and not (fusable and c.dimension == run[0].dimension):
            close()
            run = []
        if fusable:
            run.append(c)
        else:
            plan.append(c)
    close()
    return plan


def fuse_linear_weights(columns, weights, layer_name: str, combiner: str) -> FusedColumns | None:
    """The weights (one Variable per column) of a ``LinearModel``'s categorical
    ``columns`` fused into ``<layer_name>/fused_weights``, their lookups summed; None for
    fewer than two columns."""
    name = f"{layer_name}/fused_weights"
    return _fuse_columns(columns, weights, name, [combiner] * len(columns), side_by_side=False)


def output_pieces(plan, cache, variables: dict) -> list:
    """A ``DenseFeatures`` output (``plan`` from :func:`plan_dense_output`) as
    ``(batch, width)`` tensors that side by side make it: a fused run comes as one piece
    and neighbouring unfused columns are joined into one. What
    :func:`colonnade.core.dense` takes without building the concatenation."""
    pieces, run = [], []  # run: neighbouring unfused columns' outputs

    def close():
        if run:
            pieces.append(run[0] if len(run) == 1 else ops.concat(run, axis=1))
            run.clear()

    for piece in plan:
        if isinstance(piece, FusedColumns):
            close()
            pieces.append(piece.lookup(cache))
        else:
            run.append(piece.dense_output(cache, variables))
    close()
    return pieces
