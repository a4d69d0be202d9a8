"""Which trained variables of a canned network are tables, and which rows a batch reads.

A table is a variable that the network reads by row (``gather``): a fused table
(:mod:`colonnade.feature_columns.fused_tables`), a categorical column's linear weights,
an embedding table. A worker pulls only the rows of each table that the batch's ids
pick, so it must know them before the step; they come from the same transforms the step
uses (the batch's ``TransformCache``), computed once on the input thread.

>>> import colonnade as cn
>>> fc = cn.feature_columns
>>> est = cn.estimators.LinearClassifier(
...     [fc.categorical_column_with_identity("a", 4), fc.numeric_column("x")],
...     model_dir=__import__("tempfile").mkdtemp())
>>> readers = table_readers(est._network)
>>> [v.name for v, _ in readers.values()]
['linear_model/a/weights']
>>> cache = est._network.transform({"a": [3, 1, 3], "x": [0.0, 1.0, 2.0]})
>>> touched_rows(readers[id(est._network.linear.linear.column_weights(
...     est._network.linear.linear.feature_columns[0]))][1], cache).tolist()
[1, 3]
"""

from __future__ import annotations

import numpy as np

from ..core.fused import trained_variable
from ..feature_columns import DenseFeatures, LinearModel
from ..feature_columns.base import CategoricalColumn
from ..feature_columns.fused_tables import FusedColumns


def table_readers(network) -> dict:
    """``{id(table): (table, [reader, ...])}`` over the network's trainable tables; a
    reader maps a batch's ``TransformCache`` to the table rows it reads (a shared
    embedding table has one reader per column that reads it)."""
    out: dict = {}

    def add(var, reader):
        var = trained_variable(var)
        if var.trainable:
            out.setdefault(id(var), (var, []))[1].append(reader)

    for layer in network.layers:
        for fused in layer._fused:
            add(fused.table, lambda cache, f=fused: f.ids(cache).rows)
        if isinstance(layer, LinearModel):
            for c in layer._unfused:
                if isinstance(c, CategoricalColumn):
                    add(layer.column_weights(c), lambda cache, c=c: cache.get(c).ids)
        elif isinstance(layer, DenseFeatures):
            for piece in layer._plan:
                name = getattr(piece, "table_name", None)
                if not isinstance(piece, FusedColumns) and name in layer._variables:
                    add(
                        layer._variables[name],
                        lambda cache, c=piece: cache.get(c.categorical_column).ids,
                    )
    return out


def touched_rows(readers, cache) -> np.ndarray:
    """The sorted distinct rows that ``readers`` read of their table in this batch
    (ids below zero, vocabulary misses, are dropped as lookups drop them)."""
    rows = np.concatenate([np.asarray(read(cache), dtype=np.int64) for read in readers])
    return np.unique(rows[rows >= 0])
