"""The tables of a canned network, and a batch read through compact copies of the rows
it touches instead of whole tables.

A table is a trained variable that the network reads by row (``gather``): a fused table
(:mod:`colonnade.feature_columns.fused_tables`), a categorical column's linear weights,
an embedding table. The parameter servers hold the tables; a worker holds of each one
only the rows its step reads, as a *compact buffer*: row ``i`` of the buffer is the
``i``-th of the batch's distinct rows, in ascending order. :class:`Compactor` finds
those rows in a batch's ``TransformCache`` (computed ahead on the input thread) and
gives a copy of the cache whose ids are positions in the buffers, so the network's
lookups read the buffers as they would read the whole tables, and the gradient's rows
are buffer positions, mapped back to table rows by indexing the distinct rows.

Renumbering is monotone (``searchsorted`` into the sorted distinct rows), so the rows of
a gradient come out grouped and summed in the same order as on the whole table: the
arithmetic is the same, to the bit. The estimator sent to a worker carries its tables
shape-only (:class:`ShapeOnly`), so its size does not grow with theirs either.

>>> import colonnade as cn
>>> fc = cn.feature_columns
>>> est = cn.estimators.LinearClassifier(
...     [fc.categorical_column_with_identity("a", 1000), fc.numeric_column("x")],
...     model_dir=__import__("tempfile").mkdtemp())
>>> from colonnade.estimators.runtime import distributed as trainer
>>> network = trainer.network(est)
>>> tables = list(network_tables(network).values())
>>> [t.variable.name for t in tables]
['linear/linear_model/a/weights']
>>> cache = network.transform({"a": [700, 5, 700], "x": [0.0, 1.0, 2.0]})
>>> rows, compact = Compactor(tables)(cache)
>>> rows[0].tolist(), compact.get(fc.categorical_column_with_identity("a", 1000)).ids.tolist()
([5, 700], [1, 0, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.fused import trained_variable
from ..core.indexed_rows import group_rows
from ..core.variables import Variable
from ..feature_columns.fused_tables import FusedColumns, FusedIds
from ..feature_columns.ids import CategoricalIds


@dataclass(frozen=True)
class Table:
    """A trainable table of a network: its ``variable``, its ``rows`` (read when the
    table was found: a worker's buffer changes the variable's shape each step), and
    what reads it: the ``fused`` columns whose tables are its row blocks, or the
    categorical ``columns`` whose ids are its rows (one, or several for a shared
    embedding)."""

    variable: Variable
    rows: int
    fused: FusedColumns | None = None
    columns: tuple = ()

    def arrays(self) -> list:
        """The arrays holding the table: its value, and a fused table's parts' views."""
        return [self.variable.value, *(part.value for part, _ in self.variable.fused_parts)]


def network_tables(network) -> dict:
    """``{id(variable): Table}`` over the network's trainable tables, in the order the
    layers read them."""
    fused, columns, variables = {}, {}, {}

    def add(var, column=None, group=None):
        if not var.trainable:
            return
        if column is not None and var.fused_into is not None:
            raise ValueError(
                f"table '{var.name}' is read by column '{column.name}' as a table of its "
                f"own, but it is rows of the fused table '{var.fused_into[0].name}'"
            )
        var = trained_variable(var)
        variables.setdefault(id(var), var)
        if group is not None:
            fused[id(var)] = group
        else:
            found = columns.setdefault(id(var), [])
            if column not in found:
                found.append(column)

    for layer in network.layers:
        for var, reader in layer.row_lookups():
            if isinstance(reader, FusedColumns):
                add(var, group=reader)
            else:
                add(var, reader)
    return {
        k: Table(var, var.shape[0], fused.get(k), tuple(columns.get(k, ())))
        for k, var in variables.items()
    }


class Compactor:
    """Points a batch's ids at compact buffers of the rows it reads of ``tables`` (a
    list of :class:`Table`, ``None`` where a variable is no table).

    Unfused tables that some column reads together (an embedding and the linear
    weights of one column; a shared embedding) number their rows as one: the distinct
    ids of all the columns that read any of them, so that each column's ids are
    renumbered once (the cache holds one transform per column).
    """

    def __init__(self, tables: list):
        self.tables = list(tables)
        self.groups = _joined(self.tables)

    def __call__(self, cache) -> tuple:
        """``(rows, compact cache)``: for each table the sorted distinct rows the batch
        reads (``None`` for a non-table), and a copy of ``cache`` reading row ``i`` of a
        table's buffer wherever it read row ``rows[t][i]`` of the table."""
        rows, results = [None] * len(self.tables), {}
        for t, table in enumerate(self.tables):
            if table is not None and table.fused is not None:
                rows[t], results[("fused", id(table.variable))] = _compact_fused(
                    table.fused.ids(cache)
                )
        for members, columns in self.groups:
            ids = [cache.get(c) for c in columns]
            distinct = np.unique(np.concatenate([x.ids[x.ids >= 0] for x in ids]))
            _check_bounds(distinct, [self.tables[t] for t in members], columns)
            for c, x in zip(columns, ids):
                results[("column", c)] = _renumbered(x, distinct)
            for t in members:
                rows[t] = distinct
        return rows, cache.with_results(results)


def _joined(tables: list) -> list:
    """``[(table indices, columns), ...]``: the unfused tables in groups joined by the
    columns that read them."""
    groups = []
    for t, table in enumerate(tables):
        if table is None or table.fused is not None:
            continue
        members, columns = [t], list(table.columns)
        for group in [g for g in groups if set(g[1]) & set(columns)]:
            groups.remove(group)
            members += group[0]
            columns += [c for c in group[1] if c not in columns]
        sizes = {tables[m].rows for m in members}
        if len(sizes) > 1:
            names = [tables[m].variable.name for m in sorted(members)]
            raise ValueError(
                f"tables {names} are read by the same columns but have different row "
                f"counts {sorted(sizes)}"
            )
        groups.append((sorted(members), tuple(columns)))
    return groups


def _compact_fused(ids: FusedIds) -> tuple:
    """A fused table's distinct rows, and its ``FusedIds`` reading them from a buffer.
    The rows' grouping (made ahead, for the gradient) already holds both: its distinct
    rows, and for each gathered row its position among them."""
    groups = ids.groups if ids.groups is not None else group_rows(ids.rows)
    distinct = groups.rows
    k = distinct.shape[0]
    compact = ids._replace(
        rows=groups.inverse, table_rows=k, groups=groups._replace(rows=np.arange(k))
    )
    return distinct, compact


def _renumbered(ids: CategoricalIds, distinct: np.ndarray) -> CategoricalIds:
    """``ids`` as positions in ``distinct`` (the sorted ids they are among); ids below
    zero, which lookups drop, stay as they are."""
    at = np.searchsorted(distinct, ids.ids)
    if ids.ids.size and ids.ids.min() < 0:
        at = np.where(ids.ids >= 0, at, ids.ids)
    return CategoricalIds(at, ids.row_splits, distinct.shape[0], ids.weights, ids.num_rows)


def _check_bounds(distinct: np.ndarray, tables: list, columns: tuple) -> None:
    """A buffer cannot tell an id beyond its table, as a gather on the table would."""
    if distinct.size and distinct[-1] >= tables[0].rows:
        names = [c.name for c in columns]
        raise IndexError(
            f"columns {names} have id {int(distinct[-1])}, beyond the {tables[0].rows} rows "
            f"of table '{tables[0].variable.name}'"
        )


class ShapeOnly:
    """A table's array as the driver sends it to a worker: pickled as its shape and
    dtype alone, and unpickled as :func:`shape_only`'s array, which holds no rows.

    >>> import pickle
    >>> big = np.zeros((10**6, 8), np.float32)
    >>> len(pickle.dumps(ShapeOnly(big))) < 200
    True
    >>> back = pickle.loads(pickle.dumps(ShapeOnly(big)))
    >>> back.shape, back.dtype.name, held_bytes(back)
    ((1000000, 8), 'float32', 4)
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, array):
        self.shape, self.dtype = tuple(array.shape), np.dtype(array.dtype)

    def __reduce__(self):
        return shape_only, (self.shape, self.dtype.str)


def shape_only(shape, dtype) -> np.ndarray:
    """A read-only array of zeros of ``shape``, made of one broadcast scalar: a table
    of a worker between steps (it reads only the compact buffers)."""
    return np.broadcast_to(np.zeros((), dtype), tuple(shape))


def held_bytes(array) -> int:
    """The bytes of memory behind ``array`` (of the array whose view it is, if any)."""
    while isinstance(getattr(array, "base", None), np.ndarray):
        array = array.base
    return int(array.nbytes)
