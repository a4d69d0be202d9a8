"""Streaming a file several times larger than the memory it may use.

The pass runs in a fresh interpreter so that Arrow's peak-allocation counter and the peak
resident size measure that pass alone.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROWS = 1_000_000
FLOAT_COLUMNS = 7  # with the int64 id: 64 MB of incompressible values

STREAM = """
import json, resource, sys
import numpy as np
import pyarrow as pa
import colonnade as cn

path, rows = sys.argv[1], int(sys.argv[2])
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
seen = np.zeros(rows, dtype=np.int64)
ds = cn.data.Dataset.from_parquet(path, read_batch_size=8192).shuffle(20_000, seed=1).batch(512)
for batch in ds.prefetch(2):
    np.add.at(seen, batch.column("id").to_numpy(), 1)
print(json.dumps({
    "arrow_peak": pa.default_memory_pool().max_memory(),
    "rss_growth": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - rss_before,
    "each_once": bool((seen == 1).all()),
}))
"""


def write_big_file(path):
    rng = np.random.default_rng(0)
    schema = pa.schema([("id", pa.int64())] + [(f"c{i}", pa.float64()) for i in range(7)])
    with pq.ParquetWriter(path, schema, compression="none") as writer:
        for start in range(0, ROWS, 100_000):
            columns = {"id": np.arange(start, start + 100_000)}
            columns.update({f"c{i}": rng.random(100_000) for i in range(FLOAT_COLUMNS)})
            writer.write_table(pa.table(columns, schema=schema), row_group_size=16_384)


def test_streaming_a_file_much_larger_than_the_cap(tmp_path):
    path = tmp_path / "big.parquet"
    write_big_file(path)
    size = os.path.getsize(path)
    assert size > 60 * 2**20
    result = subprocess.run(
        [sys.executable, "-c", STREAM, str(path), str(ROWS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout.strip().splitlines()[-1])
    assert stats["each_once"]
    # Reading the whole file would allocate about 2x its size; the stream holds a few
    # read batches and a 20000-row shuffle buffer (~2 MB each).
    assert stats["arrow_peak"] < size / 5, stats
    assert stats["rss_growth"] < size, stats
