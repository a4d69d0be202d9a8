"""Full permutations of in-memory data, and the order of files and row groups per pass."""

import logging

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from datahelpers import ids_of, make_table

from colonnade.data import Dataset


def sorted_labels(rows=20_000, positive=0.25):
    """Rows sorted by label: the first 75% are 0, the rest 1."""
    label = (np.arange(rows) >= rows * (1 - positive)).astype(np.int64)
    return pa.table({"id": np.arange(rows), "y": label})


def test_full_permutation_mixes_a_label_sorted_table_in_every_batch():
    ds = Dataset.from_arrow(sorted_labels(), label="y").shuffle(None, seed=0).batch(256)
    batches = list(ds)
    rates = np.array([labels.mean() for _, labels in batches[:-1]])
    # A uniform permutation: every 256-row batch is near the 25% overall rate (a buffer
    # shuffle of sorted data starts with all-0 batches).
    assert np.all((rates > 0.1) & (rates < 0.45)), rates
    assert sorted(ids_of(batches)) == list(range(20_000))


def test_full_permutation_is_seeded_and_differs_per_pass():
    ds = Dataset.from_arrow(make_table(5000)).shuffle(None, seed=3)
    first, second = ids_of(ds), ids_of(ds)
    assert sorted(first) == sorted(second) == list(range(5000))
    assert first != second
    again = Dataset.from_arrow(make_table(5000)).shuffle(None, seed=3)
    assert ids_of(again) == first
    assert ids_of(ds.iterate(0)) == first


def test_full_permutation_of_a_cached_file_dataset(parquet_files):
    ds = Dataset.from_files(parquet_files).cache().shuffle(None, seed=1)
    first, second = ids_of(ds), ids_of(ds)
    assert sorted(first) == sorted(second) == list(range(1000))
    assert first != second and first != sorted(first)


def test_full_permutation_of_batches_after_batch():
    ds = Dataset.from_arrow(make_table(100)).batch(10).shuffle(None, seed=0)
    starts = [b.column("id")[0].as_py() for b in ds]
    assert sorted(starts) == list(range(0, 100, 10)) and starts != sorted(starts)


def _row_group_order(ds):
    """The row groups (ids // 50) in the order they first appear."""
    groups = np.asarray(ids_of(ds)) // 50
    return list(dict.fromkeys(groups.tolist()))


def test_files_and_row_groups_are_visited_in_a_new_order_each_pass(parquet_files):
    # 4 files x 5 row groups of 50 rows; a 10-row buffer barely moves rows, so the
    # output order shows the order the row groups were read in.
    ds = Dataset.from_files(parquet_files).shuffle(10, seed=0)
    orders = [_row_group_order(ds) for _ in range(3)]
    assert all(sorted(order) == list(range(20)) for order in orders)
    assert orders[0] != orders[1] != orders[2] != orders[0]
    assert orders[0] != list(range(20))
    assert [_row_group_order(ds.iterate(k)) for k in range(3)] == orders


def test_a_streamed_shuffle_interleaves_several_row_groups(tmp_path):
    # Row groups (2,000 rows) larger than the buffer fill: read one after another, the
    # first rows out would all come from one of them.
    path = tmp_path / "t.parquet"
    pq.write_table(make_table(8000), path, row_group_size=2000)
    ds = Dataset.from_files(path).shuffle(100, seed=0)
    ids = ids_of(ds)
    assert len(set((np.asarray(ids[:200]) // 2000).tolist())) >= 3
    assert sorted(ids) == list(range(8000))


def test_warns_when_the_buffer_is_smaller_than_a_known_source(tmp_path, caplog):
    path = tmp_path / "t.parquet"
    pq.write_table(make_table(3000), path)
    with caplog.at_level(logging.WARNING, logger="colonnade.data"):
        Dataset.from_parquet(path).shuffle(100)
        Dataset.from_arrow(make_table(3001)).shuffle(200)
    messages = [r.getMessage() for r in caplog.records]
    assert any("buffer of 100 rows" in m and "3000 rows" in m for m in messages), messages
    assert any("buffer of 200 rows" in m and "3001 rows" in m for m in messages), messages
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="colonnade.data"):
        Dataset.from_parquet(path).shuffle(3000)
        Dataset.from_arrow(make_table(50)).shuffle(None)
    assert not caplog.records


@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_buffer_size_none_or_positive(bad):
    with pytest.raises(ValueError, match="buffer_size must be a positive integer"):
        Dataset.from_arrow(make_table(10)).shuffle(bad)
