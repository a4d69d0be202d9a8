"""prefetch (a bounded thread: same rows, errors reach the consumer, stops on early exit)."""

import gc
import threading
import time
import traceback

import pytest
from datahelpers import ids_of

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
