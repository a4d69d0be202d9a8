"""Stream helpers over iterators of :class:`pyarrow.RecordBatch`: regroup, shard, convert.

Nothing here loops over rows: batches are sliced (zero-copy), concatenated, or gathered
with ``take`` on index arrays built by numpy.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pyarrow as pa

__all__ = ["concat", "rebatch", "shard_elements", "shard_rows", "table_to_batch", "to_record_batch"]


def concat(batches):
    """One RecordBatch from a non-empty list (no copy when the list has one batch)."""
    if len(batches) == 1:
        return batches[0]
    if hasattr(pa, "concat_batches"):
        return pa.concat_batches(batches)
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def table_to_batch(table):
    """A Table as one RecordBatch (no copy when it has a single chunk)."""
    table = table.combine_chunks()
    batches = table.to_batches()
    return batches[0] if batches else pa.RecordBatch.from_pylist([], schema=table.schema)


def to_record_batch(obj, what="map function"):
    """Coerce a map function's result (RecordBatch, Table, DataFrame, dict) to a RecordBatch."""
    if isinstance(obj, pa.RecordBatch):
        return obj
    if isinstance(obj, pa.Table):
        return table_to_batch(obj)
    if isinstance(obj, dict):
        return pa.RecordBatch.from_pydict(obj)
    if type(obj).__name__ == "DataFrame" and hasattr(obj, "to_dict"):
        return pa.RecordBatch.from_pandas(obj, preserve_index=False)
    raise TypeError(
        f"the {what} must return a pyarrow RecordBatch, Table, pandas DataFrame or dict of "
        f"columns; got {type(obj).__name__}"
    )


def rebatch(batches, batch_size, drop_remainder=False):
    """Regroup a stream into batches of exactly ``batch_size`` rows; the last one is
    smaller unless ``drop_remainder`` (TF's ``allow_smaller_final_batch=False``)."""
    pending, have = deque(), 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        pending.append(batch)
        have += batch.num_rows
        while have >= batch_size:
            pieces, need = [], batch_size
            while need:
                head = pending[0]
                if head.num_rows <= need:
                    pieces.append(pending.popleft())
                    need -= head.num_rows
                else:
                    pieces.append(head.slice(0, need))
                    pending[0] = head.slice(need)
                    need = 0
            have -= batch_size
            yield concat(pieces)
    if have and not drop_remainder:
        yield concat(list(pending))


def shard_rows(batches, num_shards, index, start=0):
    """Keep the rows whose position ``p`` in the stream satisfies
    ``(start + p) % num_shards == index``."""
    position = start
    for batch in batches:
        n = batch.num_rows
        first = (index - position) % num_shards
        position += n
        keep = np.arange(first, n, num_shards)
        if keep.size == n:
            yield batch
        elif keep.size:
            yield batch.take(pa.array(keep))


def shard_elements(items, num_shards, index):
    """Keep every ``num_shards``-th element, starting at ``index``."""
    for position, item in enumerate(items):
        if position % num_shards == index:
            yield item
