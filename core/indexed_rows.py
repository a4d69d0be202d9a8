"""Sparse gradients of row gathers: which rows of a table, and what to add to each."""

from __future__ import annotations

import numpy as np

from .backend import get_xp, scatter_add, segment_sum_array


class IndexedRows:
    """A sparse stand-in for a dense ``dense_shape`` array: ``values[i]`` belongs at row
    ``indices[i]``; rows that repeat add up; rows not listed are zero.

    It is what the gradient of ``gather(table, ids)`` is, so that an update of a
    10M-row embedding table costs what the batch touched, not the table size (the
    ``tf.IndexedSlices`` of TensorFlow). Nothing densifies it unless asked.

    >>> import numpy as np
    >>> g = IndexedRows(np.array([2, 0, 2]), np.ones((3, 2)), (4, 2))
    >>> g.to_dense()[:, 0].tolist()
    [1.0, 0.0, 2.0, 0.0]
    """

    __slots__ = ("indices", "values", "dense_shape")

    def __init__(self, indices, values, dense_shape):
        dense_shape = tuple(int(d) for d in dense_shape)
        if values.ndim < 1 or indices.ndim != 1 or indices.shape[0] != values.shape[0]:
            raise ValueError(
                f"IndexedRows needs 1-D indices and values with one row per index; got "
                f"indices of shape {tuple(indices.shape)} and values of shape "
                f"{tuple(values.shape)}"
            )
        if tuple(values.shape[1:]) != dense_shape[1:]:
            raise ValueError(
                f"IndexedRows values rows have shape {tuple(values.shape[1:])} but "
                f"dense_shape {dense_shape} needs rows of shape {dense_shape[1:]}"
            )
        self.indices = indices
        self.values = values
        self.dense_shape = dense_shape

    @property
    def shape(self) -> tuple:
        return self.dense_shape

    @property
    def dtype(self):
        return self.values.dtype

    def to_dense(self):
        """The dense array this stands for (duplicates summed)."""
        xp = get_xp(self.values)
        out = xp.zeros(self.dense_shape, dtype=self.values.dtype)
        scatter_add(out, self.indices, self.values)
        return out

    def deduplicate(self) -> IndexedRows:
        """The same gradient with sorted, unique indices (duplicate rows summed).

        Sorts once and sums runs of equal indices, so the cost is that of a sort of the
        batch's rows, never of the table.
        """
        xp = get_xp(self.values, self.indices)
        order = xp.argsort(self.indices)
        indices = self.indices[order]
        values = self.values[order]
        if indices.shape[0] < 2:
            return IndexedRows(indices, values, self.dense_shape)
        new_run = xp.concatenate([xp.ones(1, bool), indices[1:] != indices[:-1]])
        starts = xp.flatnonzero(new_run)
        if starts.shape[0] == indices.shape[0]:
            return IndexedRows(indices, values, self.dense_shape)
        repeats = xp.flatnonzero(~new_run)
        if repeats.shape[0] * 8 < indices.shape[0]:
            # Few duplicates: keep each run's first row and add the repeats onto it.
            summed = values[starts]
            scatter_add(summed, (xp.cumsum(new_run) - 1)[repeats], values[repeats])
        elif xp is np:
            summed = np.add.reduceat(values, starts, axis=0)  # sums each run of sorted rows
        else:
            summed = segment_sum_array(values, xp.cumsum(new_run) - 1, starts.shape[0])
        return IndexedRows(indices[starts], summed, self.dense_shape)

    def concat(self, other: IndexedRows) -> IndexedRows:
        """The sum of two sparse gradients of the same table, still sparse."""
        if other.dense_shape != self.dense_shape:
            raise ValueError(
                f"cannot add IndexedRows of dense shapes {self.dense_shape} and {other.dense_shape}"
            )
        xp = get_xp(self.values, other.values)
        return IndexedRows(
            xp.concatenate([self.indices, other.indices]),
            xp.concatenate([self.values, other.values]),
            self.dense_shape,
        )

    def with_values(self, values) -> IndexedRows:
        """The same rows holding new values (e.g. clipped or scaled)."""
        return IndexedRows(self.indices, values, self.dense_shape)

    def __repr__(self) -> str:
        return (
            f"IndexedRows(rows={self.indices.shape[0]}, dense_shape={self.dense_shape}, "
            f"dtype={self.values.dtype})"
        )
