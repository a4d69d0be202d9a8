"""The non-matmul kernels of a CTR training step at batch 1,024, numpy against numba.

At ``ctr.py``'s shapes (26 fused 16-wide tables, 3.3M rows; 26 ids per example, Zipf
distributed), times per call, the two implementations alternating ``--repeats`` times:

- ``gather``: the embedding rows of a batch (``np.take`` against a numba loop);
- ``row_sum``: the sparse gradient's duplicate rows summed (colonnade's precomputed
  ``RowGroups.sum`` against a numba loop over the same groups);
- ``adagrad_sparse``: the Adagrad update of the touched rows (colonnade's take, update,
  put-back against one numba loop updating the rows in place).

Prints one JSON line per kernel with the median microseconds of each. Without numba the
numba side is skipped with a note.

    python benchmarks/sparse_kernels.py [--repeats 30]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

from colonnade.core.indexed_rows import group_rows
from colonnade.core.optimizer_updates import adagrad_update

ROWS, WIDTH, BATCH, FIELDS = 3_300_000, 16, 1024, 26


def numpy_adagrad(table, accum, rows, grad, lr):
    """What colonnade's sparse Adagrad does: gather the rows, update, write them back."""
    new, slots = adagrad_update(
        np.take(table, rows, axis=0),
        grad,
        {"accumulator": np.take(accum, rows, axis=0)},
        1,
        {"learning_rate": lr},
    )
    table[rows] = new
    accum[rows] = slots["accumulator"]


def numba_kernels():
    """The numba versions, compiled once; None without numba."""
    try:
        import numba
    except ImportError:
        return None

    @numba.njit(nogil=True, cache=False)
    def gather(table, ids):
        out = np.empty((ids.shape[0], table.shape[1]), table.dtype)
        for i in range(ids.shape[0]):
            out[i] = table[ids[i]]
        return out

    @numba.njit(nogil=True, cache=False)
    def row_sum(values, inverse, n_rows):
        out = np.zeros((n_rows, values.shape[1]), values.dtype)
        for i in range(values.shape[0]):
            out[inverse[i]] += values[i]
        return out

    @numba.njit(nogil=True, cache=False)
    def adagrad(table, accum, rows, grad, lr):
        for i in range(rows.shape[0]):
            r = rows[i]
            for j in range(table.shape[1]):
                g = grad[i, j]
                a = accum[r, j] + g * g
                accum[r, j] = a
                table[r, j] -= g * lr / np.sqrt(a)

    return {"gather": gather, "row_sum": row_sum, "adagrad": adagrad}


def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return (time.perf_counter() - start) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    table = rng.normal(size=(ROWS, WIDTH)).astype(np.float32)
    accum = np.full((ROWS, WIDTH), 0.1, np.float32)
    ranks = np.minimum(rng.random(BATCH * FIELDS) ** (-1 / 0.2), 1e12).astype(np.int64)
    ids = (ranks * 7919) % ROWS
    values = rng.normal(size=(ids.shape[0], WIDTH)).astype(np.float32)
    groups = group_rows(ids)
    summed = groups.sum(values)
    kernels = numba_kernels()
    cases = {
        "gather": (lambda: np.take(table, ids, axis=0), "gather", (table, ids)),
        "row_sum": (
            lambda: groups.sum(values),
            "row_sum",
            (values, groups.inverse, groups.rows.shape[0]),
        ),
        "adagrad_sparse": (
            lambda: numpy_adagrad(table, accum, groups.rows, summed, 0.05),
            "adagrad",
            (table, accum, groups.rows, summed, np.float32(0.05)),
        ),
    }
    for name, (numpy_fn, kernel, kernel_args) in cases.items():
        times = {"numpy": [], "numba": []}
        if kernels is not None:
            kernels[kernel](*kernel_args)  # compile
        for _ in range(args.repeats):
            times["numpy"].append(timed(numpy_fn))
            if kernels is not None:
                times["numba"].append(timed(kernels[kernel], *kernel_args))
        line = {
            "bench": "sparse_kernels",
            "kernel": name,
            "ids": int(ids.shape[0]),
            "unique_rows": int(groups.rows.shape[0]),
            "numpy_us": round(statistics.median(times["numpy"]), 1),
            "load": round(os.getloadavg()[0], 2),
        }
        if kernels is None:
            line["note"] = "numba is not installed: numba side skipped"
        else:
            line["numba_us"] = round(statistics.median(times["numba"]), 1)
            line["numba_over_numpy"] = round(line["numba_us"] / line["numpy_us"], 2)
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
