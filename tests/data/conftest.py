"""Fixtures for the cn.data tests."""

import pyarrow.parquet as pq
import pytest
from datahelpers import make_table


@pytest.fixture
def table():
    return make_table(1000)


@pytest.fixture
def parquet_files(tmp_path):
    """Four Parquet files of 250 rows each (ids 0..999), row groups of 50 rows."""
    table = make_table(1000)
    paths = []
    for i in range(4):
        path = tmp_path / f"part-{i}.parquet"
        pq.write_table(table.slice(250 * i, 250), path, row_group_size=50)
        paths.append(path)
    return paths
