"""Sparse gradients of row gathers: which rows of a table, and what to add to each."""

from __future__ import annotations

from typing import NamedTuple

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

    __slots__ = ("indices", "values", "dense_shape", "groups")

    def __init__(self, indices, values, dense_shape, groups=None):
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
        self.groups = groups  # RowGroups of indices, when known in advance (see group_rows)

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
        if xp is np:
            groups = self.groups if self.groups is not None else group_rows(self.indices)
            return IndexedRows(groups.rows, groups.sum(self.values), self.dense_shape)
        order = xp.argsort(self.indices)
        indices = self.indices[order]
        if indices.shape[0] < 2:
            return IndexedRows(indices, self.values[order], self.dense_shape)
        new_run = xp.concatenate([xp.ones(1, bool), indices[1:] != indices[:-1]])
        starts = xp.flatnonzero(new_run)
        values = self.values[order]
        if starts.shape[0] == indices.shape[0]:
            return IndexedRows(indices, values, self.dense_shape)
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
        return IndexedRows(self.indices, values, self.dense_shape, self.groups)

    def __repr__(self) -> str:
        return (
            f"IndexedRows(rows={self.indices.shape[0]}, dense_shape={self.dense_shape}, "
            f"dtype={self.values.dtype})"
        )


class RowGroups(NamedTuple):
    """How the entries of an index array group by row: everything about summing
    duplicates that depends on the indices alone, so it can be computed ahead (on the
    input thread) and leave the sum itself to one array call.

    ``summing`` is a sparse ``(len(rows), len(indices))`` matrix of ones, entry
    ``(r, i)`` set where index ``i`` is row ``rows[r]``: the sum of the duplicate rows is
    one sparse-dense product (scipy's CSR kernel), each row's entries added in their
    original order. At a CTR batch's shapes (26,624 16-wide rows, 6,873 distinct) it
    takes a fifth of the time of ``np.add.reduceat`` over the repeated rows plus a copy
    of the single ones. One-number rows (a linear model's weights) take one ``bincount``
    by ``inverse``, the unique row of each entry.
    """

    rows: np.ndarray
    inverse: np.ndarray
    summing: object  # scipy.sparse.csr_matrix of ones, len(rows) x len(indices)

    def sum(self, values):
        """``values`` (one row per index) summed per unique row, in the order of ``rows``."""
        shape = (self.rows.shape[0],) + values.shape[1:]
        if values.size == values.shape[0]:  # one number per row: a single bincount
            summed = np.bincount(self.inverse, weights=values.reshape(-1), minlength=shape[0])
            return summed.astype(values.dtype).reshape(shape)
        summed = self.summing @ values.reshape(values.shape[0], -1)
        return summed.astype(values.dtype, copy=False).reshape(shape)


def group_rows(indices) -> RowGroups:
    """The :class:`RowGroups` of a 1-D integer numpy array of row indices.

    >>> g = group_rows(np.array([5, 2, 5, 7]))
    >>> g.rows.tolist(), g.sum(np.array([[1.0], [2.0], [3.0], [4.0]])).ravel().tolist()
    ([2, 5, 7], [2.0, 4.0, 4.0])
    """
    indices = np.asarray(indices).reshape(-1)
    return _groups(*_sort(indices))


def group_rows_by_column(table, offsets) -> RowGroups:
    """``group_rows(table.reshape(-1))`` for an ``(n, k)`` integer ``table`` whose column
    ``j`` holds rows of its own range, from ``offsets[j]`` up to ``offsets[j + 1]`` (the
    rows a fused table's columns read, one per example and column).

    Sorting each column on its own gives the sorted whole, and a column's keys (its
    rows less its offset, packed with the example's position) then fit in 32 bits: at
    a CTR batch's shapes (1,024 x 26) the sort takes ~40% of the time of one 64-bit sort
    of all entries. Tables that do not fit take :func:`group_rows`.

    >>> g = group_rows_by_column(np.array([[1, 5], [0, 5], [1, 4]]), [0, 4])
    >>> g.rows.tolist(), g.inverse.tolist()
    ([0, 1, 4, 5], [1, 3, 0, 3, 1, 2])
    """
    table = np.asarray(table)
    n, k = table.shape
    offsets = np.asarray(offsets, np.int64)
    position_bits = max(1, int(n - 1).bit_length())
    local = np.empty((k, n), np.int64)  # column by column
    np.subtract(table.T, offsets[:, None], out=local)
    if not (n and k) or not _own_ranges(local, offsets, position_bits):
        return group_rows(table)
    keys = local.astype(np.int32)
    keys <<= position_bits
    keys |= np.arange(n, dtype=np.int32)
    keys.sort(axis=1)
    order = (keys & ((1 << position_bits) - 1)).astype(np.int64)
    order *= k
    order += np.arange(k)[:, None]
    ordered = (keys >> position_bits).astype(np.int64)
    ordered += offsets[:, None]
    return _groups(order.reshape(-1), ordered.reshape(-1))


def _own_ranges(local, offsets, position_bits: int) -> bool:
    """Whether each column's rows less its offset (``local``, one column per row) lie
    below the next column's offset, and fit in 31 bits beside ``position_bits``."""
    smallest, largest = local.min(axis=1), local.max(axis=1)
    spans = np.diff(offsets)
    return bool(
        smallest.min() >= 0
        and (largest[:-1] < spans).all()
        and int(largest.max()).bit_length() + position_bits <= 31
    )


def _groups(order, ordered) -> RowGroups:
    """The :class:`RowGroups` of indices whose stable sort is ``indices[order] ==
    ordered``."""
    from scipy.sparse import csr_matrix

    n = order.shape[0]
    new_run = np.empty(n, bool)
    new_run[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new_run[1:])
    starts = np.flatnonzero(new_run)
    inverse = np.empty(n, np.int64)
    inverse[order] = np.cumsum(new_run) - 1
    # scipy keeps 32-bit indices where they fit; given so, it need not check and convert
    # them (~70 us of ~100 at a CTR batch's 26,624 entries).
    index = np.int32 if n < 2**31 else np.int64
    summing = csr_matrix(
        (np.ones(n, np.float32), order.astype(index), np.append(starts, n).astype(index)),
        shape=(starts.shape[0], n),
    )
    return RowGroups(rows=ordered[starts], inverse=inverse, summing=summing)


def _sort(indices):
    """``(order, indices[order])`` with ties in their original order. Non-negative indices
    and positions that fit in 63 bits together are packed into one int64 and sorted by
    value: a plain sort of one array, cheaper than ``argsort``'s indirect one."""
    n = indices.shape[0]
    position_bits = max(1, int(n - 1).bit_length())
    top = int(indices.max()) if n else 0
    if n and int(indices.min()) >= 0 and top.bit_length() + position_bits <= 63:
        packed = np.sort((indices.astype(np.int64) << position_bits) | np.arange(n))
        return packed & ((1 << position_bits) - 1), packed >> position_bits
    order = np.argsort(indices, kind="stable")
    return order, indices[order]
