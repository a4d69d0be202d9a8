"""Map functions that turn a stream of text lines into ``(features, labels)``, as TF's
input functions do: ``TextLineDataset(path).map(parse_csv)`` where ``parse_csv`` returns
``(features, labels)``.

TF traces a map function once to learn what it returns; here it is called once on an
empty batch of the stream's schema. A pair makes the dataset labelled: each batch's
labels are stored as columns (``label``, or the keys of a labels dict) and split off
again when iterated. A function that cannot take an empty batch is mapped as before.

>>> import numpy as np, pyarrow as pa
>>> fn, label = pair_map(lambda b: ({"x": b.column("x")}, np.asarray(b.column("y")) > 0),
...                      pa.schema([("x", pa.int64()), ("y", pa.int64())]))
>>> label, fn(pa.record_batch({"x": [1, 2], "y": [0, 3]})).to_pydict()
('label', {'x': [1, 2], 'label': [False, True]})
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import pyarrow as pa

from .batches import to_record_batch
from .columns import join_label
from .tensor_slices import LABEL_NAME, table_from_columns

__all__ = ["pair_map", "pair_of"]


def pair_map(fn, schema: pa.Schema) -> tuple:
    """``(fn, None)`` for a map function that returns one batch; for one that returns
    ``(features, labels)`` on an empty batch of ``schema``, ``(wrapped, label)``:
    ``wrapped`` returns the features with the labels as columns, ``label`` names them."""
    try:
        probe = fn(pa.RecordBatch.from_pylist([], schema=schema))
    except Exception:  # a function written for non-empty batches: not a pair we can see
        return fn, None
    return pair_of(fn, probe)


def pair_of(fn, probe) -> tuple:
    """:func:`pair_map` given ``probe``, what ``fn`` returned on an empty batch."""
    if not (isinstance(probe, tuple) and len(probe) == 2):
        return fn, None
    labels = probe[1]
    if isinstance(labels, Mapping):
        names, single = [str(k) for k in labels], False
    else:
        names, single = [LABEL_NAME], True

    @functools.wraps(fn)
    def features_and_labels(batch):
        features, labels = fn(batch)
        features = (
            _as_batch(features) if isinstance(features, Mapping) else to_record_batch(features)
        )
        return join_label(features, _as_batch(labels) if not single else labels, names, single)

    return features_and_labels, names[0] if single else names


def _as_batch(columns: Mapping) -> pa.RecordBatch:
    """A dict of arrays (of any rank: see :mod:`.tensor_slices`) as one RecordBatch."""
    table = table_from_columns(columns, "the map function")
    return pa.RecordBatch.from_arrays(
        [column.combine_chunks() for column in table.columns], names=table.column_names
    )
