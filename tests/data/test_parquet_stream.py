"""Parquet row groups stream a batch at a time (data/parquet_stream.py): Arrow's memory
stays near a batch's size however large the row group, and the rows read are the file's,
in the columns and order asked, whichever reader (streaming or scanner) a case takes."""

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import colonnade as cn
from colonnade.data.parquet_stream import STREAM_ROWS, parquet_batches
from colonnade.data.sources import open_files

ROWS, COLUMNS = 1_000_000, 2

PEAK = """
import json, sys
import pyarrow as pa
import colonnade as cn
rows = sum(b.num_rows for b in cn.data.Dataset.from_parquet(sys.argv[1]).batch(1024))
print(json.dumps({"rows": rows, "arrow_peak": pa.default_memory_pool().max_memory()}))
"""


def test_one_large_row_group_is_not_decoded_at_once(tmp_path):
    rng = np.random.default_rng(0)
    path = tmp_path / "one_group.parquet"
    table = pa.table({f"f{i}": rng.random(ROWS) for i in range(COLUMNS)})
    pq.write_table(table, path, row_group_size=ROWS, compression="none")
    decoded = ROWS * COLUMNS * 8  # the row group's float64 values, 16 MB
    out = subprocess.run(
        [sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["rows"] == ROWS
    # The scanner held the whole decoded group and more (2.4x decoded); streaming holds
    # a few batches of STREAM_ROWS rows, a page per column and the read buffers.
    assert result["arrow_peak"] < decoded / 2, result


@pytest.fixture
def ctr_like(tmp_path):
    """Two row groups: floats, dictionary strings and a label."""
    rng = np.random.default_rng(1)
    rows = 3 * STREAM_ROWS + 17
    words = np.array([f"w{k}" for k in range(300)])
    table = pa.table(
        {
            "x": rng.normal(size=rows).astype(np.float32),
            "s": pa.array(words[rng.integers(0, 300, rows)]),
            "clicked": rng.integers(0, 2, rows),
        }
    )
    path = tmp_path / "ctr.parquet"
    pq.write_table(table, path, row_group_size=2 * STREAM_ROWS, write_page_checksum=True)
    return path, table


def _fragment_and_source(path):
    source = open_files(path)
    return next(iter(source.dataset.get_fragments())), source


def test_streamed_batches_hold_the_files_rows_in_the_asked_order(ctr_like):
    path, table = ctr_like
    fragment, source = _fragment_and_source(path)
    batches = list(parquet_batches(fragment, source.schema, ["clicked", "s"], None, 5000))
    assert max(b.num_rows for b in batches) == 5000
    got = pa.Table.from_batches(batches)
    assert got.schema.names == ["clicked", "s"]
    assert pa.types.is_dictionary(got.schema.field("s").type)
    assert got.column("clicked").to_pylist() == table.column("clicked").to_pylist()
    assert got.column("s").cast(pa.string()).to_pylist() == table.column("s").to_pylist()


def test_reads_at_most_stream_rows_a_batch(ctr_like):
    path, _ = ctr_like
    fragment, source = _fragment_and_source(path)
    sizes = [b.num_rows for b in parquet_batches(fragment, source.schema, None, None, 10**6)]
    assert max(sizes) == STREAM_ROWS and sum(sizes) == 3 * STREAM_ROWS + 17


def test_filters_and_other_types_go_to_the_scanner(ctr_like, tmp_path):
    path, table = ctr_like
    fragment, source = _fragment_and_source(path)
    assert parquet_batches(fragment, source.schema, None, pc.field("x") > 0, 1024) is None
    other = pa.schema([("x", pa.float64()), ("s", pa.string()), ("clicked", pa.int64())])
    assert parquet_batches(fragment, other, ["x"], None, 1024) is None
    assert parquet_batches(fragment, source.schema, ["nowhere"], None, 1024) is None
    assert parquet_batches(fragment, source.schema, [], None, 1024) is None
    # Through the Dataset, both readers give the file's values.
    kept = cn.data.Dataset.from_parquet(path, filter=pc.field("x") > 0).to_table()
    expected = table.filter(pc.field("x") > 0)
    assert kept.column("x").to_pylist() == expected.column("x").to_pylist()
    cast = cn.data.Dataset.from_parquet(path, schema=other).to_table()
    assert cast.column("x").to_pylist() == table.column("x").cast(pa.float64()).to_pylist()


def test_no_columns_still_counts_the_rows(ctr_like):
    path, table = ctr_like
    ds = cn.data.Dataset.from_parquet(path, columns=[])
    assert ds.to_table().num_rows == table.num_rows
    assert sum(b.num_rows for b in ds.batch(1000)) == table.num_rows


def test_split_row_groups_stream_only_their_own_rows(ctr_like):
    path, table = ctr_like
    source = open_files(path)
    units = source.units(split=True)
    assert len(units) == 2
    ids = [
        pa.Table.from_batches(list(source.read(unit, ["x"]))).column("x").to_pylist()
        for unit in units
    ]
    assert ids[0] + ids[1] == table.column("x").to_pylist()
    assert len(ids[0]) == 2 * STREAM_ROWS


def test_a_corrupt_page_still_names_the_file(tmp_path):
    path = tmp_path / "bad.parquet"
    values = np.arange(50_000, dtype=np.int64)
    pq.write_table(pa.table({"v": values}), path, compression="none", write_page_checksum=True)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # inside the data page of the only column
    path.write_bytes(bytes(raw))
    with pytest.raises((ValueError, OSError), match="bad.parquet"):
        cn.data.Dataset.from_parquet(path).to_table()
