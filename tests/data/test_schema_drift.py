"""Files of one dataset that lack a column fail naming the file and the column, instead of
reading that column as null."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from colonnade.data import Dataset


@pytest.fixture
def drifting(tmp_path):
    pq.write_table(pa.table({"x": [1.0, 2.0], "z": [5, 6], "y": [0, 1]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"x": [3.0, 4.0], "y": [1, 0]}), tmp_path / "b.parquet")
    return tmp_path


@pytest.mark.parametrize("path", ["dir", "glob"])
def test_a_file_lacking_a_column_is_named_with_the_column(drifting, path):
    source = drifting if path == "dir" else str(drifting / "*.parquet")
    with pytest.raises(ValueError, match=r"b\.parquet' lacks column 'z'"):
        Dataset.from_files(source).to_table()


def test_a_file_lacking_the_label_column_is_named(tmp_path):
    pq.write_table(pa.table({"x": [1.0], "y": [0]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"x": [2.0]}), tmp_path / "b.parquet")
    with pytest.raises(ValueError, match=r"b\.parquet' lacks column 'y'"):
        list(Dataset.from_files(tmp_path, label="y"))


def test_columns_not_read_may_be_missing(drifting):
    table = Dataset.from_files(drifting, columns=["x", "y"]).to_table()
    assert table.column("x").to_pylist() == [1.0, 2.0, 3.0, 4.0]


def test_partition_columns_and_an_explicit_schema_are_allowed(drifting, tmp_path):
    schema = pa.schema([("x", pa.float64()), ("z", pa.int64()), ("y", pa.int64())])
    table = Dataset.from_files(drifting, schema=schema).to_table()
    assert table.column("z").null_count == 2
    part = tmp_path / "parts" / "day=1"
    part.mkdir(parents=True)
    pq.write_table(pa.table({"x": [1.0]}), part / "p.parquet")
    assert Dataset.from_files(tmp_path / "parts").to_table().column("day").to_pylist() == [1]
