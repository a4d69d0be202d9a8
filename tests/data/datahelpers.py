"""Helpers for the cn.data tests: small tables with an ``id`` column, and reading ids back."""

import numpy as np
import pyarrow as pa


def make_table(rows, seed=0):
    """``id`` 0..rows-1, a float ``x``, an int ``k`` in [0, 10) and a string ``s``."""
    rng = np.random.default_rng(seed)
    return pa.table(
        {
            "id": np.arange(rows, dtype=np.int64),
            "x": rng.normal(size=rows),
            "k": rng.integers(0, 10, size=rows),
            "s": pa.array([f"s{i % 7}" for i in range(rows)]),
        }
    )


def ids_of(batches):
    """The ``id`` values of an iterable of batches or (features, labels) pairs, in order."""
    out = []
    for item in batches:
        batch = item[0] if isinstance(item, tuple) else item
        out.extend(batch.column("id").to_pylist())
    return out
