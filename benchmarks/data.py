"""Throughput of cn.data pipelines over a generated Parquet file; one JSON line per case.

    python benchmarks/data.py [--rows 2000000] [--batch-size 1024] [--buffer 100000]
    python benchmarks/data.py --memory [--memory-rows 1000000]

Each case reads one full pass and reports rows/s (best of ``--repeats``); the ``+train``
cases also do a training-step-like amount of numpy work per batch in the consumer (the
float columns as a matrix times a 10x512 weight), where ``prefetch`` overlaps reading
and shuffling with that work. The file has
``--rows`` rows and 20 columns (10 float32, 5 int64, 5 low-cardinality strings) in row
groups of 131072 rows, written to a temporary directory that is removed afterwards.

``--memory`` instead measures the peak-RSS increase of streaming a CTR-like Parquet file
(``benchmarks/ctr.py``'s generator: 13 numeric, 26 string columns and a label, rewritten
as one row group) in 4096-row batches, through ``Dataset.from_parquet(f).batch(4096)``
and through pyarrow's own ``ParquetFile.iter_batches(4096)``, each in a fresh subprocess
(``ru_maxrss`` after the pass minus before it): one JSON line with both, for the file
written with page checksums and for the same rows without.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
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


_STREAM = """
import resource, sys
import pyarrow.parquet as pq
import colonnade as cn
path, how = sys.argv[1], sys.argv[2]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
stream = (
    pq.ParquetFile(path).iter_batches(4096)
    if how == "pyarrow"
    else cn.data.Dataset.from_parquet(path).batch(4096)
)
rows = sum(batch.num_rows for batch in stream)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(rows, (after - before) / 1024)
"""


def peak_rss_delta_mb(path, how):
    """``(rows, MB)``: the peak-RSS increase of one pass over ``path`` in a new process."""
    # Through sh, which forks it: a child exec'd straight from this process would start
    # with this process's peak RSS as its own ru_maxrss.
    command = ["sh", "-c", '"$0" "$@"; true', sys.executable, "-c", _STREAM, path, how]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
    return int(out[0]), float(out[1])


_GENERATE = """
import sys
import pyarrow.parquet as pq
sys.path.insert(0, sys.argv[1])
import ctr  # the CTR benchmark's data generator
generated, path, rows = sys.argv[2], sys.argv[3], int(sys.argv[4])
ctr.generate(generated, rows, seed=0)
table = pq.read_table(generated)
pq.write_table(table, path, row_group_size=rows, write_page_checksum=True)
pq.write_table(table, path + ".plain", row_group_size=rows, write_page_checksum=False)
"""


def memory(rows):
    """The bounded-memory case: colonnade's streaming read against pyarrow's (the file is
    generated in a subprocess, keeping this one small)."""
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        generated, path = os.path.join(tmp, "gen.parquet"), os.path.join(tmp, "ctr.parquet")
        command = [sys.executable, "-c", _GENERATE, here, generated, path, str(rows)]
        subprocess.run(command, check=True)
        for checksums, file in ((True, path), (False, path + ".plain")):
            _, pyarrow_mb = peak_rss_delta_mb(file, "pyarrow")
            read, colonnade_mb = peak_rss_delta_mb(file, "colonnade")
            record = {
                "benchmark": "data/peak_rss_stream_one_row_group",
                "rows": read,
                "columns": len(pq.read_schema(file)),
                "file_mb": round(os.path.getsize(file) / 2**20, 1),
                "page_checksums": checksums,
                "batch_size": 4096,
                "pyarrow_iter_batches_mb": round(pyarrow_mb),
                "colonnade_from_parquet_batch_mb": round(colonnade_mb),
                "ratio": round(colonnade_mb / pyarrow_mb, 2),
                "load": round(os.getloadavg()[0], 2),
            }
            print(json.dumps(record), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--buffer", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--memory", action="store_true", help="peak-RSS case only")
    parser.add_argument("--memory-rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    if args.memory:
        memory(args.memory_rows)
        return
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
