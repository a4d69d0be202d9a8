"""The bounded state of :func:`~.infer.infer`'s one pass over the data.

Per column, :class:`ColumnStats` keeps counts, nulls, min/max, the first three moments
and the distinct values (exactly up to :data:`DISTINCT_CAP`, then estimated by a
k-minimum-values sketch of :data:`SKETCH_SIZE` hashes); one :class:`Reservoir` keeps a
seeded uniform sample of rows shared by all columns. Memory does not grow with the
number of rows.

>>> import pyarrow as pa
>>> stats = ColumnStats("x", pa.int64())
>>> stats.add(pa.array([1, 2, 2, None]))
>>> stats.count, stats.nulls, stats.distinct.distinct()
(4, 1, 2)
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..data.polars_frames import as_arrow

__all__ = [
    "ColumnStats",
    "DistinctCounter",
    "Reservoir",
    "inference_kind",
    "label_targets",
    "record_batches",
    "sample_labels",
    "table_from_pandas",
]

# Distinct values counted exactly up to here; beyond, a hash sketch estimates them. Large
# enough for any vocabulary list this module writes (VOCABULARY_MAX), small in memory.
DISTINCT_CAP = 10_000
# k of the k-minimum-values distinct-count sketch: relative error about 1/sqrt(k), ~3%.
SKETCH_SIZE = 1024
# Rows in the shared uniform sample: quantiles to ~1% and pair statistics of a few
# hundred cells, in a few MB for ordinary tables.
SAMPLE_ROWS = 20_000
# Record batch size for in-memory inputs.
BATCH_ROWS = 65_536


class DistinctCounter:
    """Exact value counts up to :data:`DISTINCT_CAP` values; then the counts of those
    values only, and a k-minimum-values sketch over 64-bit hashes of all values."""

    def __init__(self):
        self.counts: dict = {}
        self.exact = True
        self.sketch = np.empty(0, dtype=np.uint64)

    def add(self, arr: pa.Array) -> None:
        vc = pc.value_counts(arr.drop_null())
        values = vc.field("values").to_pylist()
        counts = vc.field("counts").to_numpy()
        if self.exact:
            for v, c in zip(values, counts):
                self.counts[v] = self.counts.get(v, 0) + int(c)
            if len(self.counts) > DISTINCT_CAP:
                self.exact = False
                self._sketch(list(self.counts))
                # keep the most frequent values' counts, bounded
                top = sorted(self.counts.items(), key=lambda kv: -kv[1])[:DISTINCT_CAP]
                self.counts = dict(top)
        else:
            for v, c in zip(values, counts):
                if v in self.counts:
                    self.counts[v] += int(c)
            self._sketch(values)

    def _sketch(self, values) -> None:
        hashes = pd.util.hash_array(np.asarray(values, dtype=object)).astype(np.uint64)
        merged = np.union1d(self.sketch, hashes)  # sorted, unique
        self.sketch = merged[:SKETCH_SIZE]

    def distinct(self) -> int:
        if self.exact:
            return len(self.counts)
        if len(self.sketch) < SKETCH_SIZE:
            return len(self.sketch)
        kth = float(self.sketch[-1]) / 2.0**64
        return int((SKETCH_SIZE - 1) / kth)


class ColumnStats:
    """One column's running statistics: count, nulls, min/max and moments of numbers,
    total string length, and a :class:`DistinctCounter`."""

    def __init__(self, name: str, arrow_type: pa.DataType):
        self.name, self.type = name, arrow_type
        self.count = self.nulls = 0
        self.min = self.max = None
        self.n = 0  # non-null numeric values seen in the moments
        self.shift = None
        self.s1 = self.s2 = self.s3 = 0.0
        self.length_sum = 0
        self.distinct = DistinctCounter()

    def add(self, arr: pa.Array) -> None:
        if pa.types.is_dictionary(arr.type):
            arr = arr.cast(arr.type.value_type)
        self.count += len(arr)
        self.nulls += arr.null_count
        if len(arr) == arr.null_count:
            return
        self.distinct.add(arr)
        kind = inference_kind(arr.type)
        if kind == "numeric":
            values = arr.drop_null().to_numpy(zero_copy_only=False).astype(np.float64)
            values = values[np.isfinite(values)]
            if values.size:
                if self.shift is None:  # moments about a first value: no cancellation
                    self.shift = float(values[0])
                d = values - self.shift
                self.n += values.size
                self.s1 += float(d.sum())
                self.s2 += float((d * d).sum())
                self.s3 += float((d * d * d).sum())
                lo, hi = float(values.min()), float(values.max())
                self.min = lo if self.min is None else min(self.min, lo)
                self.max = hi if self.max is None else max(self.max, hi)
        elif kind == "string":
            self.length_sum += int(pc.sum(pc.utf8_length(arr.drop_null())).as_py() or 0)

    def moments(self):
        """``(mean, std, skewness)`` of the non-null finite values."""
        n = self.n
        m1 = self.s1 / n
        var = max(self.s2 / n - m1 * m1, 0.0)
        m3 = self.s3 / n - 3 * m1 * self.s2 / n + 2 * m1**3
        std = math.sqrt(var)
        skew = m3 / std**3 if std > 0 else 0.0
        return m1 + self.shift, std, skew


class Reservoir:
    """A uniform sample of ``size`` rows without replacement over a stream of batches:
    each row gets a seeded random key and the ``size`` smallest keys are kept."""

    def __init__(self, size: int, seed: int):
        self.size, self.rng = size, np.random.default_rng(seed)
        self.table, self.keys = None, np.empty(0)

    def add(self, batch: pa.RecordBatch) -> None:
        keys = self.rng.random(batch.num_rows)
        table = pa.Table.from_batches([batch])
        if self.table is not None:
            table = pa.concat_tables([self.table, table], promote_options="permissive")
            keys = np.concatenate([self.keys, keys])
        if len(keys) > self.size:
            keep = np.sort(np.argpartition(keys, self.size - 1)[: self.size])
            table, keys = table.take(pa.array(keep)), keys[keep]
        self.table, self.keys = table.combine_chunks(), keys


def sample_labels(column, task: str) -> np.ndarray:
    """The sample's labels as the rules that score columns against them read them
    (integer codes, target-aware bins): float64 numbers for ``"regression"``, class ids
    0..n-1 (in order of appearance) otherwise."""
    values = column.to_numpy(zero_copy_only=False)
    if task == "regression":
        return np.asarray(values, np.float64)
    return pd.factorize(np.asarray(values))[0]


def label_targets(labels: np.ndarray, task) -> np.ndarray:
    """Labels as the columns a least-squares or logistic fit reads: the label as a column
    (``task`` ``"regression"``), a 0/1 column (2 classes) or one-hot rows of ``task``
    classes (class ids ``0..task-1``).

    >>> label_targets(np.array([1, 0]), 2).tolist(), label_targets(np.array([2, 0]), 3).tolist()
    ([[1.0], [0.0]], [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    """
    if task == "regression":
        return labels.astype(np.float64)[:, None]
    if task == 2:
        return (labels == 1).astype(np.float64)[:, None]
    return np.eye(task)[labels]


def inference_kind(t: pa.DataType) -> str:
    """Which of the rules applies to a column of Arrow type ``t``: ``"boolean"``,
    ``"numeric"``, ``"string"``, ``"timestamp"``, ``"null"`` or ``"other"``."""
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_boolean(t):
        return "boolean"
    if pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t):
        return "numeric"
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "string"
    if pa.types.is_timestamp(t) or pa.types.is_date(t) or pa.types.is_time(t):
        return "timestamp"
    if pa.types.is_null(t):
        return "null"
    return "other"


def record_batches(data):
    """Record batches of ``data``, lazily for files and Datasets."""
    from ..data import Dataset  # data/ does not import feature_columns/

    data = as_arrow(data)
    if isinstance(data, pd.DataFrame):
        return table_from_pandas(data).to_batches(BATCH_ROWS)
    if isinstance(data, pa.RecordBatch):
        return [data]
    if isinstance(data, pa.Table):
        return data.to_batches(BATCH_ROWS)
    if isinstance(data, dict):
        return table_from_pandas(pd.DataFrame(data)).to_batches(BATCH_ROWS)
    if isinstance(data, Dataset):
        # One raw pass, label columns included (they are columns like the others here).
        return data.record_batches()
    if isinstance(data, (str, list, tuple)) or hasattr(data, "__fspath__"):
        return Dataset.from_files(data).record_batches()
    raise TypeError(
        f"infer reads a pandas or polars DataFrame, a pyarrow Table, Parquet/CSV paths or a "
        f"cn.data.Dataset; got {type(data).__name__}"
    )


def table_from_pandas(df: pd.DataFrame) -> pa.Table:
    """``df`` as an Arrow table (index dropped); a column mixing types is a ``TypeError``
    naming it and its types, with the fix."""
    try:
        return pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowTypeError, pa.ArrowInvalid) as e:
        for name in df.columns:
            try:
                pa.array(df[name], from_pandas=True)
            except (pa.ArrowTypeError, pa.ArrowInvalid):
                kinds = sorted({type(v).__name__ for v in df[name].dropna()})
                raise TypeError(
                    f"column {name!r} mixes types {kinds}; give it one type, e.g. "
                    f"df[{name!r}] = df[{name!r}].astype(str) for a categorical column"
                ) from e
        raise
