"""Stream helpers over iterators of :class:`pyarrow.RecordBatch`: regroup, shard, convert.

Nothing here loops over rows: batches are sliced (zero-copy), concatenated, or gathered
with ``take`` on index arrays built by numpy.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from .tensor_slices import table_from_columns

__all__ = [
    "concat",
    "rebatch",
    "schema_change",
    "shard_elements",
    "shard_rows",
    "table_to_batch",
    "to_record_batch",
]


def concat(batches, op="Dataset.batch"):
    """One RecordBatch from a non-empty list (no copy when the list has one batch); batches
    of different columns or types are a ``ValueError`` naming ``op`` and the first column
    that differs, with what was expected and what was got."""
    if len(batches) == 1:
        return batches[0]
    first = batches[0].schema
    for other in batches[1:]:
        if not other.schema.equals(first):
            raise ValueError(
                f"{op}: rows to join into one batch differ: {schema_change(first, other.schema)}"
            )
    if hasattr(pa, "concat_batches"):
        return pa.concat_batches(batches)
    return pa.Table.from_batches(batches).combine_chunks().to_batches()[0]


def schema_change(expected: pa.Schema, got: pa.Schema) -> str:
    """What differs between two schemas, for an error: a column's type, or the names."""
    if expected.names != got.names:
        return f"expected columns {expected.names}, got {got.names}"
    for field, other in zip(expected, got):
        if field.type != other.type:
            return f"column {field.name!r} was {field.type} and then {other.type}"
    return f"expected {expected}, got {got}"


def table_to_batch(table):
    """A Table as one RecordBatch (no copy when it has a single chunk)."""
    table = table.combine_chunks()
    batches = table.to_batches()
    return batches[0] if batches else pa.RecordBatch.from_pylist([], schema=table.schema)


def to_record_batch(obj, what="map function", op="Dataset.map"):
    """Coerce a map function's result to a RecordBatch: a RecordBatch, Table, pandas
    DataFrame, or a dict of columns, each an Arrow array or anything numpy takes (a list,
    an array of any rank, a colonnade ``Tensor``; see :mod:`.tensor_slices`). A column
    that cannot be one is a ``ValueError`` naming ``op`` and the column."""
    if isinstance(obj, pa.RecordBatch):
        return obj
    if isinstance(obj, pa.Table):
        return table_to_batch(obj)
    if isinstance(obj, Mapping):
        try:
            return table_to_batch(table_from_columns(obj, op))
        except ValueError as e:
            raise ValueError(f"{op}: {e}" if not str(e).startswith(op) else str(e)) from None
    if type(obj).__name__ == "DataFrame" and hasattr(obj, "to_dict"):
        return pa.RecordBatch.from_pandas(obj, preserve_index=False)
    raise TypeError(
        f"{op}: the {what} must return a pyarrow RecordBatch, Table, pandas DataFrame or "
        f"dict of columns; got {type(obj).__name__}"
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
