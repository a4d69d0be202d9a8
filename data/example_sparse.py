"""``SparseFeature`` in :func:`~.example.parse_example`: its index and value features are
parsed as ``VarLenFeature`` s, then joined into one struct column per sparse feature.

>>> import pyarrow as pa
>>> from colonnade.data.example import parse_example
>>> from colonnade.data.example_writer import encode_examples
>>> records = encode_examples(pa.table({"ix": [[3, 0]], "val": [[0.5, 1.5]]}))
>>> parse_example(records, {"sp": SparseFeature("ix", "val", "float32", 4)}).to_pylist()
[{'sp': {'ix': [0, 3], 'val': [1.5, 0.5]}}]
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .parse_spec import SparseFeature, VarLenFeature

__all__ = ["sparse_columns", "with_sparse_parts"]


def with_sparse_parts(specs: dict) -> dict:
    """``specs`` with each ``SparseFeature`` replaced by the ``VarLenFeature`` s of its
    index and value keys (kept as given where ``specs`` names them too)."""
    out = {k: v for k, v in specs.items() if not isinstance(v, SparseFeature)}
    for spec in specs.values():
        if isinstance(spec, SparseFeature):
            for key in spec.index_keys:
                out.setdefault(key, VarLenFeature("int64"))
            out.setdefault(spec.value_key, VarLenFeature(spec.dtype))
    return out


def sparse_columns(table: pa.Table, specs: dict, where) -> pa.Table:
    """The parsed ``table`` with a struct column per ``SparseFeature`` of ``specs`` and
    only the columns ``specs`` names; ``where(record)`` names a record in errors."""
    columns = {}
    for name, spec in specs.items():
        if isinstance(spec, SparseFeature):
            columns[name] = _sparse_column(table, name, spec, where)
        else:
            columns[name] = table.column(name)
    return pa.table(columns) if columns else table.select([])


def _sparse_column(table, name, spec, where):
    parts = [table.column(k).combine_chunks() for k in (*spec.index_keys, spec.value_key)]
    lengths = [pc.list_value_length(p).to_numpy(zero_copy_only=False) for p in parts]
    for key, length in zip(spec.index_keys, lengths):
        bad = np.flatnonzero(length != lengths[-1])
        if bad.size:
            raise ValueError(
                f"SparseFeature {name!r}: index feature {key!r} has {int(length[bad[0]])} values "
                f"but value feature {spec.value_key!r} {int(lengths[-1][bad[0]])} in "
                f"{where(bad[0])}; they must have one index per value"
            )
    rows = np.repeat(np.arange(len(table), dtype=np.int64), lengths[-1])
    indices = [p.flatten().to_numpy(zero_copy_only=False) for p in parts[:-1]]
    order = np.arange(rows.size)
    if not spec.already_sorted and rows.size:
        order = np.lexsort((*reversed(indices), rows))
    offsets = parts[-1].offsets
    fields = [pa.ListArray.from_arrays(offsets, pa.array(i[order])) for i in indices]
    values = parts[-1].flatten().take(pa.array(order))
    fields.append(pa.ListArray.from_arrays(offsets, values))
    return pa.StructArray.from_arrays(fields, names=[*spec.index_keys, spec.value_key])
