"""Throughput of cn.data pipelines over a generated Parquet file; one JSON line per case.

    python benchmarks/data.py [--rows 2000000] [--batch-size 1024] [--buffer 100000]

Each case reads one full pass and reports rows/s (best of ``--repeats``); the ``+train``
cases also do a training-step-like amount of numpy work per batch in the consumer (the
float columns as a matrix times a 10x512 weight), where ``prefetch`` overlaps reading
and shuffling with that work. The file has
``--rows`` rows and 20 columns (10 float32, 5 int64, 5 low-cardinality strings) in row
groups of 131072 rows, written to a temporary directory that is removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

import colonnade as cn


def make_table(rows, seed=0):
    rng = np.random.default_rng(seed)
    columns = {"id": np.arange(rows, dtype=np.int64)}
    for i in range(10):
        columns[f"f{i}"] = rng.normal(size=rows).astype(np.float32)
    for i in range(4):
        columns[f"i{i}"] = rng.integers(0, 1000, size=rows)
    words = np.array([f"w{k}" for k in range(50)])
    for i in range(5):
        columns[f"s{i}"] = pa.array(words[rng.integers(0, 50, size=rows)]).dictionary_encode()
    return pa.table(columns)


def cases(path, batch_size, buffer):
    base = cn.data.Dataset.from_parquet
    return {
        "read": lambda: base(path),
        "read+batch": lambda: base(path).batch(batch_size),
        "read+filter+select+batch": lambda: base(
            path, columns=["f0", "f1", "i0", "s0"], filter=pc.field("i0") < 500
        ).batch(batch_size),
        "read+shuffle+batch": lambda: base(path).shuffle(buffer, seed=0).batch(batch_size),
        "read+shuffle+batch+prefetch": lambda: (
            base(path).shuffle(buffer, seed=0).batch(batch_size).prefetch(4)
        ),
        "read+batch+prefetch": lambda: base(path).batch(batch_size).prefetch(4),
        "read+shuffle+batch+train": lambda: base(path).shuffle(buffer, seed=0).batch(batch_size),
        "read+shuffle+batch+prefetch+train": lambda: (
            base(path).shuffle(buffer, seed=0).batch(batch_size).prefetch(4)
        ),
    }


def train_step(batch, weight):
    """Consumer work resembling a small model's step on the batch's float columns."""
    x = np.stack([batch.column(f"f{i}").to_numpy() for i in range(10)], axis=1)
    hidden = np.maximum(x @ weight, 0)
    return float(hidden.sum())


def measure(make, repeats, train):
    weight = np.random.default_rng(0).normal(size=(10, 512)).astype(np.float32)
    best, rows, batches = float("inf"), 0, 0
    for _ in range(repeats):
        start = time.perf_counter()
        rows = batches = 0
        for batch in make():
            if train:
                train_step(batch, weight)
            rows += batch.num_rows
            batches += 1
        best = min(best, time.perf_counter() - start)
    return best, rows, batches


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--buffer", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.parquet")
        table = make_table(args.rows)
        pq.write_table(table, path, row_group_size=131_072, write_page_checksum=True)
        file_mb = os.path.getsize(path) / 2**20
        del table
        for name, make in cases(path, args.batch_size, args.buffer).items():
            seconds, rows, batches = measure(make, args.repeats, name.endswith("+train"))
            record = {
                "benchmark": f"data/{name}",
                "rows": rows,
                "columns": 20,
                "batches": batches,
                "batch_size": args.batch_size,
                "buffer_size": args.buffer if "shuffle" in name else None,
                "file_mb": round(file_mb, 1),
                "seconds": round(seconds, 3),
                "rows_per_s": round(rows / seconds),
                "cpus": os.cpu_count(),
            }
            print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
