"""Dataset.cache (data/dataset_cache.py): in memory or an Arrow IPC file; only complete passes
are kept."""

import pyarrow as pa
import pytest
from datahelpers import ids_of, make_table

import colonnade as cn

Dataset = cn.data.Dataset


def test_memory_cache_replays_the_first_complete_pass(table):
    calls = []

    def spy(batch):
        calls.append(batch.num_rows)
        return batch

    ds = Dataset.from_arrow(table).map(spy).cache().shuffle(1000, seed=0)
    first, second = ids_of(ds), ids_of(ds)
    assert sorted(first) == sorted(second) == list(range(1000)) and first != second
    assert len(calls) == 1  # the second pass read the cache


def test_interrupted_pass_leaves_no_cache(table):
    calls = []
    ds = Dataset.from_arrow(table.to_batches(max_chunksize=100)).map(lambda b: calls.append(1) or b)
    cached = ds.cache()
    iterator = iter(cached)
    next(iterator)
    iterator.close()
    assert ids_of(cached) == list(range(1000))
    assert ids_of(cached) == list(range(1000))
    assert len(calls) == 1 + 10  # one batch, then one full pass, then the cache


def test_file_cache_reproduces_data_and_is_reused(tmp_path, table):
    path = tmp_path / "cache.arrow"
    source = Dataset.from_arrow(table)
    ds = source.cache(path)
    assert not path.exists()
    first = ds.to_table()
    assert path.exists()
    assert pa.ipc.open_file(path).read_all().equals(table)
    assert ds.to_table().equals(first)
    # A new pipeline with the same file reads it, not its (different) input.
    other = Dataset.from_arrow(make_table(5)).cache(path)
    assert other.to_table().equals(table)
    assert [p.name for p in tmp_path.iterdir()] == ["cache.arrow"]  # no temporary left


def test_interrupted_file_cache_writes_nothing(tmp_path, table):
    path = tmp_path / "cache.arrow"
    iterator = iter(Dataset.from_arrow(table.to_batches(max_chunksize=100)).cache(path))
    next(iterator)
    iterator.close()
    assert list(tmp_path.iterdir()) == []


def test_cache_file_errors(tmp_path, table):
    with pytest.raises(FileNotFoundError, match="no-such-dir"):
        list(Dataset.from_arrow(table).cache(tmp_path / "no-such-dir" / "c.arrow"))
    bad = tmp_path / "bad.arrow"
    bad.write_bytes(b"not arrow")
    with pytest.raises(ValueError, match="bad.arrow.*delete it"):
        list(Dataset.from_arrow(table).cache(bad))
