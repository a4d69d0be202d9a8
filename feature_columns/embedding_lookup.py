"""The embedding lookup of categorical ids and its combiners.

An embedding lookup is ``gather`` of the ids' rows (whose gradient is ``IndexedRows``,
sparse) followed by the combiner as a segment op, exactly TensorFlow's
``safe_embedding_lookup_sparse``: invalid ids (< 0) are dropped, and for the ``mean`` and
``sqrtn`` combiners so are weights <= 0; an example without ids gets zeros.

>>> import colonnade as cn, numpy as np
>>> from colonnade.feature_columns import CategoricalIds
>>> table = cn.core.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
>>> ids = CategoricalIds(np.array([0, 2, 1]), np.array([0, 2, 3, 3]), num_buckets=3)
>>> embedding_lookup(table, ids, "mean").numpy().tolist()
[[2.0, 3.0], [2.0, 3.0], [0.0, 0.0]]
"""

from __future__ import annotations

from ..core import ops
from ..core.autodiff import Tensor, as_tensor
from ..core.backend import get_xp, to_device
from .ids import CategoricalIds

__all__ = ["COMBINERS", "check_column_combiner", "check_combiner", "embedding_lookup"]

COMBINERS = ("mean", "sqrtn", "sum")
"""How the ids of one example combine: TensorFlow's ``combiner`` / ``sparse_combiner``."""

_SEGMENT_OPS = {"sum": ops.segment_sum, "mean": ops.segment_mean, "sqrtn": ops.segment_sqrtn}


def check_combiner(combiner, what: str = "combiner") -> str:
    if combiner not in COMBINERS:
        raise ValueError(f"unknown {what} {combiner!r}; choose one of {list(COMBINERS)}")
    return combiner


def _clip_rows(rows: Tensor, max_norm: float) -> Tensor:
    """Scale rows whose l2 norm exceeds ``max_norm`` down to it (``tf.clip_by_norm`` per
    row, with its guard against the zero vector's undefined gradient)."""
    xp = get_xp(rows.value)
    l2sum = ops.sum(ops.square(rows), axis=1, keepdims=True)
    positive = l2sum.value > 0
    safe = ops.where(positive, l2sum, xp.ones((), dtype=rows.value.dtype))
    norm = ops.where(positive, ops.sqrt(safe), l2sum)
    return ops.divide(ops.multiply(rows, max_norm), ops.maximum(norm, max_norm))


def embedding_lookup(table, ids: CategoricalIds, combiner: str = "mean", max_norm=None) -> Tensor:
    """Combine the rows of ``table`` that each example's ids pick: ``(num_rows, dim)``.

    ``combiner``: ``sum`` (weighted sum), ``mean`` (divided by the sum of weights) or
    ``sqrtn`` (divided by the root of the sum of squared weights). ``max_norm`` clips each
    looked-up row's l2 norm before combining. The gradient with respect to ``table`` is
    ``IndexedRows``.

    >>> import numpy as np
    >>> t = np.eye(3, dtype=np.float32)
    >>> embedding_lookup(t, CategoricalIds(np.array([1, 2]), num_buckets=3), "sum").numpy()
    array([[0., 1., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    check_combiner(combiner)
    table = as_tensor(table)
    ids = ids.pruned(prune_weights=combiner != "sum")
    xp = get_xp(table.value)
    rows = ops.gather(table, to_device(ids.ids, xp))
    if max_norm is not None:
        rows = _clip_rows(rows, float(max_norm))
    if ids.univalent and ids.weights is None:
        return rows
    weights = None
    if ids.weights is not None:
        weights = to_device(ids.weights.astype(table.value.dtype, copy=False), xp)
    segment = to_device(ids.segment_ids, xp)
    return _SEGMENT_OPS[combiner](rows, segment, ids.num_rows, weights=weights)


def check_column_combiner(column) -> None:
    """The combiner of an embedding ``column``, checked when a layer first uses it: as TF,
    the column itself accepts any name, and the lookup refuses an unknown one."""
    if column.combiner not in COMBINERS:
        raise ValueError(
            f"unknown combiner {column.combiner!r} of column {column.name!r}: combiner must be "
            f"one of 'mean', 'sqrtn' or 'sum'"
        )
