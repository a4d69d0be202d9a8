"""Streaming one large Parquet row group holds about what pyarrow's own streaming reader
does (benchmarks/data.py --memory measures the 1M-row CTR case)."""

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

STREAM = """
import resource, sys
import pyarrow.parquet as pq
import colonnade as cn
path, how = sys.argv[1], sys.argv[2]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if how == "pyarrow":
    stream = pq.ParquetFile(path).iter_batches(4096)
else:
    stream = cn.data.Dataset.from_parquet(path).batch(4096)
rows = sum(b.num_rows for b in stream)
print(rows, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
"""


def _peak_kb(path, how):
    # Through sh, which forks it: a child exec'd straight from this process would start
    # with this process's peak RSS as its own ru_maxrss.
    command = ["sh", "-c", '"$0" "$@"; true', sys.executable, "-c", STREAM, str(path), how]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout.split()
    return int(out[0]), int(out[1])


def test_streaming_one_row_group_stays_within_1_5x_of_pyarrow(tmp_path):
    rows = 400_000
    rng = np.random.default_rng(0)
    columns = {f"f{i}": rng.lognormal(size=rows).astype(np.float32) for i in range(12)}
    words = pa.array([f"w{k}" for k in range(5000)])
    for i in range(12):
        columns[f"s{i}"] = words.take(pa.array(rng.integers(0, 5000, rows)))
    path = tmp_path / "one_group.parquet"
    pq.write_table(pa.table(columns), path, row_group_size=rows)
    del columns
    read, theirs = _peak_kb(path, "pyarrow")
    ours_rows, ours = _peak_kb(path, "colonnade")
    assert read == ours_rows == rows
    assert ours <= 1.5 * theirs, (ours, theirs)  # 1.69x before pre_buffer=False
