"""What estimators accept as input, turned into ``(features, labels)`` batches.

TF style: ``input_fn`` is a zero-argument callable returning a ``cn.data.Dataset`` (built
with ``label=``) or an iterable of ``(features, labels)`` batches, or it is one of those
directly. Keras style: a DataFrame, Arrow table, file path or glob, or a Dataset, with
``label`` naming the label column(s).
"""

from __future__ import annotations

import itertools
import os

import numpy as np
import pandas as pd
import pyarrow as pa

from .. import data as cn_data
from ..data.prefetch import prefetch

# Keras' default batch size for fit.
DEFAULT_BATCH_SIZE = 32
# Rows per batch when evaluating or predicting from a DataFrame, table or file: nothing
# learns from these batches, so they are large (25x faster than 32-row batches on the
# census model) while bounded in memory.
INFERENCE_BATCH_SIZE = 8192
# Rows of consecutive small batches transformed together (see transformed_batches):
# 16 training batches of 1,024 rows; the 41-column CTR transforms cost 0.6 ms per 1k rows
# this way against 2.7 ms batch by batch.
CHUNK_ROWS = 16_384
# Batches the input thread may hold ready: two chunks of 1k-row batches.
READY_BATCHES = 32
# Threads transforming a chunk: the input thread alone, as it already is the second core's
# work; a pool of two more only contends with training (wide&deep predict: 240k rows/s
# with one, 222k with two).
INPUT_THREADS = 1


def is_tabular(data) -> bool:
    """True for the Keras-style inputs: a DataFrame, Arrow data or a file path/glob."""
    return isinstance(data, (pd.DataFrame, pa.Table, pa.RecordBatch, str, os.PathLike)) or (
        isinstance(data, (list, tuple)) and data and all(isinstance(p, str) for p in data)
    )


def as_dataset(
    data, label=None, batch_size=DEFAULT_BATCH_SIZE, shuffle=False, seed=None, columns=None
):
    """A batched ``cn.data.Dataset`` over Keras-style ``data``.

    ``columns`` (optional) are the raw columns to read from files (projection pushdown).
    """
    Dataset = cn_data.Dataset
    if isinstance(data, Dataset):
        ds = data.with_label(label) if label is not None and data.label is None else data
    elif isinstance(data, pd.DataFrame):
        ds = Dataset.from_pandas(data, label=label)
    elif isinstance(data, (pa.Table, pa.RecordBatch)):
        table = data if isinstance(data, pa.Table) else pa.Table.from_batches([data])
        ds = Dataset.from_arrow(table, label=label)
    elif isinstance(data, (str, os.PathLike, list, tuple)):
        wanted = None
        if columns is not None:
            labels = [] if label is None else ([label] if isinstance(label, str) else list(label))
            wanted = sorted(set(columns) | set(labels))
        ds = Dataset.from_files(data, columns=wanted, label=label)
    else:
        raise TypeError(
            f"expected a pandas DataFrame, a pyarrow Table, a file path or glob, or a "
            f"cn.data.Dataset; got {type(data).__name__}"
        )
    if shuffle:
        ds = ds.shuffle(buffer_size=max(10_000, batch_size * 64), seed=seed)
    return ds.batch(batch_size)


def batches(input_fn, repeat_single=False):
    """Iterate ``(features, labels)`` pairs from an input_fn or what it returns.

    A single ``(features, labels)`` tuple counts as one batch; with ``repeat_single`` it
    is yielded forever (a train loop bounded by ``steps``).
    """
    source = input_fn() if callable(input_fn) and not hasattr(input_fn, "__iter__") else input_fn
    if isinstance(source, tuple) and len(source) == 2 and not _is_pair_iterable(source):
        while True:
            yield source
            if not repeat_single:
                return
    for item in source:
        if isinstance(item, tuple) and len(item) == 2:
            yield item
        else:
            yield item, None


def transformed_batches(network, input_fn, repeat_single=False, limit=None, training=False):
    """``(features, labels, transforms)`` per batch: each feature column computed once per
    batch for the whole network, and what the layers can prepare from it (for
    ``training``: the rows of fused tables grouped for the gradient); at most ``limit``
    batches are read.

    Consecutive Arrow batches are transformed together, :data:`CHUNK_ROWS` rows at a
    time, and each batch gets its cut of the result: the transforms' per-call costs
    (about 40 columns, several array calls each) are then paid once per chunk instead of
    once per 1k-row batch, and a chunk is large enough for the transform thread pool.
    Batches are the same, and come in the same order, as without chunking.

    Reading and transforming run on a background thread, up to two chunks ahead of the
    consumer, so they overlap training on the second core: at 16k rows the transforms
    spend their time in Arrow and numpy with the GIL released (the 41-column linear CTR
    model trains at 290k examples/s this way, 240k on one thread). An error in the input
    reaches the consumer at the batch that caused it.
    """

    def produce():
        for features, labels, cache in _chunked(network, input_fn, repeat_single, limit):
            yield features, labels, network.prepare(cache, training)

    return prefetch(produce, READY_BATCHES)


def _chunked(network, input_fn, repeat_single, limit):
    """Transformed batches; small Arrow batches are transformed a chunk at a time."""
    source = itertools.islice(batches(input_fn, repeat_single), limit)
    previous, pending, rows = None, [], 0  # previous: the last chunk's transforms

    def flush():
        nonlocal previous, pending, rows
        items, chunk = _transform_chunk(network, pending, previous)
        previous = chunk or previous
        pending, rows = [], 0
        return items

    for features, labels in source:
        if isinstance(features, pa.RecordBatch) and features.num_rows < CHUNK_ROWS:
            if pending and features.schema != pending[0][0].schema:
                yield from flush()
            pending.append((features, labels))
            rows += features.num_rows
            if rows >= CHUNK_ROWS:
                yield from flush()
            continue
        yield from flush()
        yield features, labels, network.transform(features, num_threads=INPUT_THREADS)
    yield from flush()


def _transform_chunk(network, pending, previous):
    """``(items, chunk)``: each ``(features, labels, transforms)`` of ``pending``, and the
    transforms of the whole chunk (None when it had to go batch by batch, lazily)."""
    if len(pending) > 1:
        chunk, cuts = _chunk_cuts(network, pending, previous)
        if cuts is not None:
            return [(f, y, cache) for (f, y), cache in zip(pending, cuts)], chunk
    return ((f, y, network.transform(f, num_threads=INPUT_THREADS)) for f, y in pending), None


def _chunk_cuts(network, pending, previous):
    """The transforms of all ``pending`` batches done at once, and each batch's cut of
    them; ``(None, None)`` if they cannot be cut or the input is bad somewhere (then batch
    by batch, so the batches before a bad one still train and its error comes at its own
    step)."""
    try:
        table = pa.Table.from_batches([f for f, _ in pending]).combine_chunks()
        chunk = network.transform(table, previous, INPUT_THREADS)
    except Exception:
        return None, None
    cuts, start = [], 0
    for features, _ in pending:
        cut = chunk.rows(start, start + features.num_rows, features)
        if cut is None:
            return None, None
        cuts.append(cut)
        start += features.num_rows
    return chunk, cuts


def _is_pair_iterable(source) -> bool:
    """A tuple of two batches, as opposed to one (features, labels) batch."""
    first = source[0]
    return isinstance(first, tuple) and len(first) == 2


def feature_column_of(features, name: str):
    """One raw column of a features batch as a numpy array."""
    if isinstance(features, (pa.RecordBatch, pa.Table)):
        if name not in features.schema.names:
            raise KeyError(f"column {name!r} not found; the features have {features.schema.names}")
        return features.column(name).to_numpy(zero_copy_only=False)
    if isinstance(features, pd.DataFrame):
        if name not in features.columns:
            raise KeyError(f"column {name!r} not found; the features have {list(features.columns)}")
        return features[name].to_numpy()
    if name not in features:
        raise KeyError(f"column {name!r} not found; the features have {sorted(features)}")
    return np.asarray(features[name])


def num_rows(features) -> int:
    if isinstance(features, (pa.RecordBatch, pa.Table, pd.DataFrame)):
        return len(features)
    return len(next(iter(features.values())))
