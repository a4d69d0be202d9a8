"""The validation split of :class:`~.models.TabularClassifier` and ``TabularRegressor``.

A seeded random share of each class (of all rows for a regression) is held out for early
stopping: :func:`validation_mask`. Rows are drawn by a seeded permutation, not by a hash
of their values, so the copies of a duplicated row fall on both sides like any other rows
(a value hash put every copy, label included, on one side: on a table of many exact
duplicates the validation loss then measured memorized rows, and early stopping stopped
at the first epoch). In memory the whole table is split at once; a file or Dataset is
split batch by batch as it streams, each batch by the same rule (memory bounded by a
batch), so two passes over the same data split it the same.

>>> import pyarrow as pa
>>> t = pa.table({"x": list(range(10)), "y": [0] * 5 + [1] * 5})
>>> mask = validation_mask(t, "y", seed=0, fraction=0.4, stratify=True)
>>> int(mask.sum()), int(mask[:5].sum())
(4, 2)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ...data.polars_frames import as_arrow

__all__ = ["fold_ids", "part", "validation_mask", "in_memory"]


def validation_mask(table, label: str, seed: int, fraction: float, stratify: bool) -> np.ndarray:
    """Which rows of ``table`` are validation rows: per class (one group of all rows when
    ``stratify`` is false), a seeded random ``fraction`` of its labelled rows, rounded at
    random to a whole count (so the expected share is exact on any batch size), and at
    least one row kept on each side of a class of two rows or more. Rows without a label
    are on neither side (False here; training skips them).

    The random generator is seeded by ``seed`` and a digest of the label column, so the
    same rows give the same split in every pass, and batches of a stream get different
    draws.

    >>> import pyarrow as pa
    >>> t = pa.table({"y": ["a"] * 3 + ["b"] * 97})
    >>> bool(validation_mask(t, "y", 0, 0.1, True)[:3].sum() == 1)
    True
    """
    codes, groups, counts, rng = _classes(table, label, seed, stratify)
    quota = np.floor(counts * fraction + rng.random(len(groups))).astype(np.int64)
    several = counts >= 2
    quota[several] = np.clip(quota[several], 1, counts[several] - 1)
    quota[groups == -1] = 0
    return _ranks(codes, counts, rng) < quota[codes]


def fold_ids(table, label: str, seed: int, folds: int, stratify: bool) -> np.ndarray:
    """Each row's fold ``0..folds-1`` for cross-fitting (:mod:`.ensemble`): per
    class (one group of all rows when ``stratify`` is false) the labelled rows in a seeded
    random order are dealt to the folds in turn from a random fold, so every fold holds
    each class's rows to within one and every labelled row is in exactly one fold; -1 for
    a row without a label. Drawn by a seeded permutation as :func:`validation_mask`: the
    copies of a duplicated row fall in different folds like any other rows.

    >>> import pyarrow as pa
    >>> t = pa.table({"y": [0] * 6 + [1] * 4})
    >>> ids = fold_ids(t, "y", seed=0, folds=2, stratify=True)
    >>> sorted(np.bincount(ids[:6]).tolist()), sorted(np.bincount(ids[6:]).tolist())
    ([3, 3], [2, 2])
    """
    codes, groups, counts, rng = _classes(table, label, seed, stratify)
    start = rng.integers(0, folds, len(groups))
    ids = (_ranks(codes, counts, rng) + start[codes]) % folds
    return np.where(groups[codes] == -1, -1, ids)


def _classes(table, label: str, seed: int, stratify: bool) -> tuple:
    """``(codes, groups, counts, rng)``: each row's group (its class, or one group; -1
    for no label, as ``groups[codes]``), the groups' sizes, and the generator seeded by
    ``seed`` and a digest of the label column."""
    column = table.column(label)
    n = len(column)
    labelled = column.is_valid().to_numpy(zero_copy_only=False)
    if stratify:
        as_text = pc.fill_null(column.cast(pa.string()), "")
        codes = pc.dictionary_encode(as_text).combine_chunks().indices.to_numpy()
        digest = pd.util.hash_array(as_text.to_numpy(zero_copy_only=False), categorize=False)
    else:
        codes = np.zeros(n, dtype=np.int64)
        values = pc.fill_null(column.cast(pa.float64()), 0.0).to_numpy(zero_copy_only=False)
        digest = pd.util.hash_array(values, categorize=False)
    rng = np.random.default_rng([int(seed) % 2**63, int(digest.sum(dtype=np.uint64)), n])
    codes = np.where(labelled, codes, -1)
    groups, codes = np.unique(codes, return_inverse=True)
    counts = np.bincount(codes, minlength=len(groups))
    return codes, groups, counts, rng


def _ranks(codes: np.ndarray, counts: np.ndarray, rng) -> np.ndarray:
    """Each row's place ``0..count-1`` in a seeded random order of its group's rows."""
    n = len(codes)
    order = np.lexsort((rng.random(n), codes))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[codes[order]]
    return rank


def in_memory(data):
    """``data`` as an Arrow table when it is in memory already (a pandas or polars
    DataFrame, Arrow data), else None (files and Datasets are streamed)."""
    data = as_arrow(data)
    if isinstance(data, pd.DataFrame):
        return _from_pandas(data)
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    return None


def _stream(data):
    """A label-less ``cn.data.Dataset`` over a file/glob/list of paths or a Dataset."""
    from ...data import Dataset

    if isinstance(data, Dataset):
        return data.with_label(None)
    return Dataset.from_files(data)


def _from_pandas(df):
    try:
        return pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        from ...feature_columns.infer_stats import table_from_pandas as checked

        return checked(df)  # raises the error naming the mixed-type column


def _rows_for(table, label, split, side, scale):
    """The rows of ``table`` with a label, on ``side`` (``"train"``, ``"validation"`` or
    ``"all"``) of the split ``(seed, fraction, stratify)``, the label standardized by
    ``scale = (mean, std)`` if given."""
    keep = pc.is_valid(table.column(label))
    if side != "all":
        valid = pa.array(validation_mask(table, label, *split))
        keep = pc.and_(keep, valid if side == "validation" else pc.invert(valid))
    table = table.filter(keep)
    if scale is not None:
        mean, std = scale
        y = table.column(label).cast(pa.float64()).to_numpy()
        i = table.column_names.index(label)
        table = table.set_column(i, label, pa.array((y - mean) / std, pa.float32()))
    return table


def part(data, label, split, side, scale):
    """One side of the split ``(seed, fraction, stratify)`` of ``data``: a table for
    in-memory data; for files and Datasets a Dataset that selects its rows batch by batch
    while streaming (memory bounded by the batches, not the data)."""
    table = in_memory(data)
    if table is not None:
        return _rows_for(table, label, split, side, scale)
    stream = _stream(data)

    def rows(batch):
        return _rows_for(pa.Table.from_batches([batch]), label, split, side, scale)

    rows.__name__ = f"{side}_rows"
    return stream.map_batches(rows)
