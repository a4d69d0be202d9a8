"""Feature column transform throughput, as JSON lines.

A Criteo-shaped batch: 1M rows, 13 numeric columns bucketized, 26 string columns hashed
(Zipf-distributed, cardinalities from 10 to 500k) and two crosses, transformed into model
inputs (``CategoricalIds`` per column) with ``transform_features``. The string columns
come dictionary-typed, as a Parquet reader or ``cn.data`` hands them over; the plain
string case is measured too. The target is 600k rows/s on a 2-core machine.

    python benchmarks/feature_columns.py [--rows 1000000] [--repeats 3]

Each line: ``{"bench": ..., "rows": ..., "seconds": ..., "rows_per_s": ..., ...}``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pyarrow as pa

import colonnade.feature_columns as fc

TARGET_ROWS_PER_S = 600_000
NUM_NUMERIC = 13
NUM_CATEGORICAL = 26
MAX_CARDINALITY = 500_000


def zipf_codes(rng, cardinality: int, rows: int, exponent: float = 1.1) -> np.ndarray:
    """Ranks in ``[0, cardinality)`` drawn with probability proportional to
    ``1 / (rank + 1) ** exponent``."""
    weights = 1.0 / np.arange(1, cardinality + 1, dtype=np.float64) ** exponent
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    return np.minimum(np.searchsorted(cdf, rng.random(rows)), cardinality - 1)


def make_table(rows: int, seed: int = 0, dictionary: bool = True) -> pa.Table:
    rng = np.random.default_rng(seed)
    columns = {}
    for i in range(NUM_NUMERIC):
        columns[f"I{i + 1}"] = pa.array(rng.lognormal(2.0, 1.5, rows))
    cards = np.geomspace(10, MAX_CARDINALITY, NUM_CATEGORICAL).astype(int)
    for i, card in enumerate(cards):
        codes = zipf_codes(rng, int(card), rows)
        used, local = np.unique(codes, return_inverse=True)  # a row group's dictionary
        # random-looking 8-hex-digit tokens, like Criteo's hashed categories
        tokens = rng.integers(0, 2**32, int(card), dtype=np.uint64)[used]
        words = pa.array([f"{t:08x}" for t in tokens.tolist()])
        arr = pa.DictionaryArray.from_arrays(pa.array(local.astype(np.int32)), words)
        columns[f"C{i + 1}"] = arr if dictionary else arr.cast(pa.string())
    return pa.table(columns)


def make_columns(table: pa.Table) -> list:
    cols = []
    buckets = {}
    for i in range(NUM_NUMERIC):
        key = f"I{i + 1}"
        values = table.column(key).to_numpy()[:100_000]
        boundaries = sorted(set(np.quantile(values, np.linspace(0.1, 0.9, 9)).round(3).tolist()))
        buckets[key] = fc.bucketized_column(fc.numeric_column(key), boundaries)
        cols.append(buckets[key])
    for i in range(NUM_CATEGORICAL):
        cols.append(fc.categorical_column_with_hash_bucket(f"C{i + 1}", 1_000_000))
    cols.append(fc.crossed_column(["C1", "C2"], 1_000_000))
    cols.append(fc.crossed_column([buckets["I1"], "C26"], 1_000_000))
    return cols


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def report(bench: str, rows: int, seconds: float, **extra) -> None:
    line = {
        "bench": bench,
        "rows": rows,
        "seconds": round(seconds, 4),
        "rows_per_s": int(rows / seconds),
        **extra,
    }
    print(json.dumps(line), flush=True)


def report_transform(
    bench: str, rows: int, seconds: float, shape: dict, threads=fc.DEFAULT_NUM_THREADS, **extra
) -> None:
    """:func:`report` for a transform run: its thread count, whether it meets
    ``TARGET_ROWS_PER_S``, and the table's ``shape``."""
    report(
        bench,
        rows,
        seconds,
        **extra,
        threads=threads,
        target_rows_per_s=TARGET_ROWS_PER_S,
        meets_target=rows / seconds >= TARGET_ROWS_PER_S,
        **shape,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=65_536)
    args = parser.parse_args(argv)

    table = make_table(args.rows)
    columns = make_columns(table)
    distinct = sum(
        len(table.column(f"C{i + 1}").chunk(0).dictionary) for i in range(NUM_CATEGORICAL)
    )
    shape = {
        "columns": len(columns),
        "bucketized": NUM_NUMERIC,
        "hashed": NUM_CATEGORICAL,
        "crossed": 2,
        "distinct_strings": distinct,
    }
    for threads in (fc.DEFAULT_NUM_THREADS, 1):
        seconds = best_of(
            lambda t=threads: fc.transform_features(table, columns, num_threads=t), args.repeats
        )
        report_transform("transform_dictionary_strings", args.rows, seconds, shape, threads=threads)

    plain = make_table(args.rows, dictionary=False)
    seconds = best_of(lambda: fc.transform_features(plain, columns), args.repeats)
    report_transform("transform_plain_strings", args.rows, seconds, shape)

    # Training-sized batches sliced from the table (dictionaries shared with the table).
    batches = table.to_batches(max_chunksize=args.batch_size)

    def transform_batches():
        for batch in batches:
            fc.transform_features(batch, columns)

    seconds = best_of(transform_batches, args.repeats)
    report_transform(
        "transform_dictionary_strings_batched",
        args.rows,
        seconds,
        shape,
        batch_size=args.batch_size,
    )

    # The same batches through a DenseFeatures layer (8-dim embeddings, one-hot buckets).
    dense = [
        c if isinstance(c, fc.BucketizedColumn) else fc.embedding_column(c, 8) for c in columns
    ]
    layer = fc.DenseFeatures(dense, seed=0)

    def forward_batches():
        for batch in batches:
            layer(batch)

    seconds = best_of(forward_batches, args.repeats)
    report(
        "dense_features_forward_batched",
        args.rows,
        seconds,
        batch_size=args.batch_size,
        threads=fc.DEFAULT_NUM_THREADS,
        dimension=layer.dimension,
    )


if __name__ == "__main__":
    main()
