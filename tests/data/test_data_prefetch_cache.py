"""prefetch (a bounded thread: same rows, errors reach the consumer, stops on early exit)
and cache (in memory or an Arrow IPC file; only complete passes are kept)."""

import gc
import threading
import time
import traceback

import pyarrow as pa
import pytest
from datahelpers import ids_of, make_table

import colonnade as cn

Dataset = cn.data.Dataset


def prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "colonnade-prefetch"]


def wait_for_no_prefetch_threads(timeout=2.0):
    deadline = time.monotonic() + timeout
    while prefetch_threads() and time.monotonic() < deadline:
        time.sleep(0.01)
    return prefetch_threads()


def test_prefetch_yields_the_same_batches(parquet_files):
    plain = Dataset.from_parquet(parquet_files).shuffle(100, seed=1).batch(30)
    assert ids_of(plain.prefetch(3)) == ids_of(
        Dataset.from_parquet(parquet_files).shuffle(100, seed=1).batch(30)
    )
    assert not wait_for_no_prefetch_threads()


def test_producer_exception_reaches_consumer_with_traceback(table):
    def explode_at_300(batch):
        if batch.column("id")[0].as_py() >= 300:
            raise RuntimeError("bad row in producer")
        return batch

    ds = Dataset.from_arrow(table).batch(100).map(explode_at_300).prefetch(2)
    seen = []
    with pytest.raises(RuntimeError, match="bad row in producer") as info:
        for batch in ds:
            seen.extend(batch.column("id").to_pylist())
    assert seen == list(range(300))
    text = "".join(traceback.format_exception(info.value))
    assert "explode_at_300" in text  # the producer's frames are in the traceback
    assert not wait_for_no_prefetch_threads()


def test_early_exit_leaves_no_thread_behind(table):
    ds = Dataset.from_arrow(table).repeat().batch(10).prefetch(2)  # infinite producer
    for i, _ in enumerate(ds):
        assert prefetch_threads()
        if i == 5:
            break
    gc.collect()
    assert not wait_for_no_prefetch_threads()
    iterator = iter(ds)
    next(iterator)
    iterator.close()
    assert not prefetch_threads()  # close() joins the thread before returning


def test_prefetch_is_bounded(table):
    produced = []

    def count(batch):
        produced.append(batch.num_rows)
        return batch

    iterator = iter(Dataset.from_arrow(table).batch(10).map(count).prefetch(3))
    next(iterator)
    time.sleep(0.3)
    # one consumed, three queued, one held by the blocked producer
    assert len(produced) <= 1 + 3 + 1
    iterator.close()


def test_nested_prefetch_and_labels(table):
    ds = Dataset.from_arrow(table, label="k").prefetch(1).batch(64).prefetch(2)
    pairs = list(ds)
    assert sum(len(labels) for _, labels in pairs) == 1000
    assert ids_of(pairs) == list(range(1000))
    assert not wait_for_no_prefetch_threads()


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
