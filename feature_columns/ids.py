"""Categorical ids of one batch: a ragged bag of integer ids (and weights) per example.

This is what every categorical column's ``transform`` returns and what embedding,
indicator and linear layers consume: TensorFlow's ``(id_tensor, weight_tensor)`` sparse
pair, in the flat ``values + row_splits`` form that numpy and segment ops like. A
single-feature column first computes :class:`FlatIds`, one id per value of its feature,
and :func:`compact` drops the values without an id (nulls, misses).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .features import Ragged

__all__ = ["CategoricalIds", "FlatIds", "OneIdPerValue", "compact", "drop_invalid"]


class CategoricalIds:
    """Ids per example: example ``r`` holds ``ids[row_splits[r]:row_splits[r + 1]]``.

    - ``ids``: int64 numpy array of every id of the batch, example by example. An id of
      -1 is a vocabulary miss with ``default_value=-1``: kept, as TensorFlow keeps it (a
      cross hashes it), and dropped by :meth:`pruned` before lookups.
    - ``row_splits``: int64 array of ``num_rows + 1`` offsets, or ``None`` when every
      example has exactly one id (the common scalar case, which is faster).
    - ``num_buckets``: ids lie in ``[0, num_buckets)`` (besides -1).
    - ``weights``: float32 array parallel to ``ids``, or ``None`` (all ones).

    >>> c = CategoricalIds(np.array([3, 1, 4]), np.array([0, 2, 2, 3]), num_buckets=5)
    >>> c.num_rows, c.segment_ids.tolist(), c.to_lists()
    (3, [0, 0, 2], [[3, 1], [], [4]])
    """

    __slots__ = ("ids", "row_splits", "num_buckets", "weights", "num_rows", "_segment_ids")

    def __init__(self, ids, row_splits=None, num_buckets: int = 0, weights=None, num_rows=None):
        self.ids = np.asarray(ids, dtype=np.int64)
        if self.ids.ndim != 1:
            raise ValueError(f"ids must be 1-D, got shape {self.ids.shape}")
        if row_splits is None:
            self.row_splits = None
            self.num_rows = self.ids.shape[0]
        else:
            self.row_splits = np.asarray(row_splits, dtype=np.int64)
            if self.row_splits.ndim != 1 or self.row_splits.shape[0] < 1:
                raise ValueError("row_splits must be 1-D with num_rows + 1 entries")
            if int(self.row_splits[-1]) != self.ids.shape[0] or int(self.row_splits[0]) != 0:
                raise ValueError(
                    f"row_splits must start at 0 and end at len(ids)={self.ids.shape[0]}, "
                    f"got {int(self.row_splits[0])}..{int(self.row_splits[-1])}"
                )
            self.num_rows = self.row_splits.shape[0] - 1
        if num_rows is not None and int(num_rows) != self.num_rows:
            raise ValueError(f"num_rows={num_rows} does not match the {self.num_rows} rows given")
        self.num_buckets = int(num_buckets)
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float32)
            if weights.shape != self.ids.shape:
                raise ValueError(
                    f"weights of shape {weights.shape} do not match ids of shape {self.ids.shape}"
                )
        self.weights = weights
        self._segment_ids = None

    @property
    def univalent(self) -> bool:
        """True when every example has exactly one id."""
        return self.row_splits is None

    @property
    def segment_ids(self) -> np.ndarray:
        """The example each id belongs to (sorted), as segment ops want it."""
        if self._segment_ids is None:
            rows = np.arange(self.num_rows, dtype=np.int64)
            if self.row_splits is None:
                self._segment_ids = rows
            else:
                self._segment_ids = np.repeat(rows, np.diff(self.row_splits))
        return self._segment_ids

    def splits(self) -> np.ndarray:
        """Row splits, materialized also when every example has one id."""
        if self.row_splits is None:
            return np.arange(self.num_rows + 1, dtype=np.int64)
        return self.row_splits

    def counts(self) -> np.ndarray:
        """Number of ids of each example."""
        return np.diff(self.splits())

    def with_weights(self, weights) -> CategoricalIds:
        """The same ids carrying ``weights``."""
        return CategoricalIds(self.ids, self.row_splits, self.num_buckets, weights, self.num_rows)

    def select(self, keep: np.ndarray) -> CategoricalIds:
        """Only the ids where the boolean mask ``keep`` holds (examples keep their place)."""
        if bool(keep.all()):
            return self
        counts = np.bincount(self.segment_ids[keep], minlength=self.num_rows)
        splits = np.zeros(self.num_rows + 1, dtype=np.int64)
        np.cumsum(counts, out=splits[1:])
        weights = self.weights[keep] if self.weights is not None else None
        return CategoricalIds(self.ids[keep], splits, self.num_buckets, weights, self.num_rows)

    def pruned(self, prune_weights: bool = True) -> CategoricalIds:
        """Without invalid ids (< 0) and, if ``prune_weights``, without weights <= 0: what
        TensorFlow's ``safe_embedding_lookup_sparse`` looks up."""
        keep = self.ids >= 0
        if prune_weights and self.weights is not None:
            keep &= self.weights > 0
        return self.select(keep)

    def rows(self, start: int, stop: int) -> CategoricalIds:
        """The ids of examples ``start`` to ``stop`` (a batch cut from a larger one).

        >>> c = CategoricalIds(np.array([3, 1, 4]), np.array([0, 2, 2, 3]), num_buckets=5)
        >>> c.rows(1, 3).to_lists()
        [[], [4]]
        """
        if self.row_splits is None:
            lo, hi, splits = start, stop, None
        else:
            lo, hi = int(self.row_splits[start]), int(self.row_splits[stop])
            splits = self.row_splits[start : stop + 1] - lo
        weights = self.weights[lo:hi] if self.weights is not None else None
        return CategoricalIds(self.ids[lo:hi], splits, self.num_buckets, weights, stop - start)

    def to_lists(self) -> list:
        """The ids as one Python list per example (for tests and debugging)."""
        splits = self.splits()
        ids = self.ids.tolist()
        return [ids[splits[r] : splits[r + 1]] for r in range(self.num_rows)]

    def __repr__(self) -> str:
        return (
            f"CategoricalIds(num_rows={self.num_rows}, ids={self.ids.shape[0]}, "
            f"num_buckets={self.num_buckets}, weighted={self.weights is not None})"
        )


@dataclass(frozen=True)
class FlatIds:
    """Ids of a single-feature column aligned with the feature's flat values: ``ids[i]``
    is the id of value ``i``, meaningful where ``valid`` (``None``: everywhere) holds."""

    ids: np.ndarray
    valid: np.ndarray | None
    ragged: Ragged


def drop_invalid(values: np.ndarray, valid, row_splits, num_rows: int):
    """``values`` without the entries ``valid`` rejects, and the row splits that follow."""
    if valid is None:
        return values, row_splits
    if row_splits is None:
        counts = valid.astype(np.int64)
    else:
        rows = np.repeat(np.arange(num_rows, dtype=np.int64), np.diff(row_splits))
        counts = np.bincount(rows[valid], minlength=num_rows)
    splits = np.zeros(num_rows + 1, dtype=np.int64)
    np.cumsum(counts, out=splits[1:])
    return values[valid], splits


def compact(flat: FlatIds, num_buckets: int) -> CategoricalIds:
    """The ids of ``flat`` without the values that have none, as ``CategoricalIds``."""
    ids, splits = drop_invalid(flat.ids, flat.valid, flat.ragged.row_splits, flat.ragged.num_rows)
    return CategoricalIds(ids, splits, num_buckets, num_rows=flat.ragged.num_rows)


class OneIdPerValue:
    """Mixin for a single-feature categorical column that gives each value an id on its
    own: the column defines ``flat_ids(cache)`` (those ids as :class:`FlatIds`, memoized
    per batch; crossed and weighted columns read them too) and its ``transform`` is
    their :func:`compact` form.

    >>> from colonnade.feature_columns import categorical_column_with_identity
    >>> isinstance(categorical_column_with_identity("k", 4), OneIdPerValue)
    True
    """

    def transform(self, cache) -> CategoricalIds:
        """Each value's id from ``flat_ids``, without the values that have none."""
        return compact(self.flat_ids(cache), self.num_buckets)
