"""Parquet page checksums are verified: a corrupt data page fails naming the file."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from colonnade.data import Dataset


def corrupt_copy(tmp_path, checksums):
    """An uncompressed file (so flipped bytes still decode) with 400 bytes flipped inside
    the first data page, and the flipped file's path."""
    path = tmp_path / ("with.parquet" if checksums else "without.parquet")
    table = pa.table({"x": np.arange(50_000, dtype=np.float64), "y": np.zeros(50_000, np.int64)})
    pq.write_table(
        table, path, compression="none", use_dictionary=False, write_page_checksum=checksums
    )
    data = bytearray(path.read_bytes())
    start = pq.ParquetFile(path).metadata.row_group(0).column(0).data_page_offset + 1000
    data[start : start + 400] = bytes(b ^ 0xFF for b in data[start : start + 400])
    path.write_bytes(bytes(data))
    return path


def test_a_corrupt_page_with_a_checksum_fails_naming_the_file(tmp_path):
    path = corrupt_copy(tmp_path, checksums=True)
    with pytest.raises(ValueError, match=r"with\.parquet.*(checksum|CRC)"):
        Dataset.from_parquet(path).to_table()
    with pytest.raises(ValueError, match=r"with\.parquet"):
        list(Dataset.from_files(path, label="y").shuffle(100, seed=0).batch(64))


def test_files_without_checksums_still_read(tmp_path):
    path = corrupt_copy(tmp_path, checksums=False)
    assert Dataset.from_parquet(path).to_table().num_rows == 50_000


def test_strings_still_read_as_dictionary(tmp_path):
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"s": ["a", "b"]}), path, write_page_checksum=True)
    assert pa.types.is_dictionary(Dataset.from_parquet(path).schema.field("s").type)
