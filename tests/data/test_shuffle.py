"""Shuffling: each row exactly once per pass, reproducible per seed, different per pass and
per seed, mixing bounded by the buffer, files visited in a seeded order."""

import numpy as np
import pyarrow.parquet as pq
import pytest
from datahelpers import ids_of, make_table

import colonnade as cn

Dataset = cn.data.Dataset


def shuffled(files, seed, buffer=100, **kw):
    return Dataset.from_parquet(files).shuffle(buffer, seed=seed, **kw).batch(32)


def test_each_row_once_per_epoch_and_repeat_epochs_differ(parquet_files):
    out = ids_of(Dataset.from_parquet(parquet_files).shuffle(100, seed=7).repeat(3).batch(64))
    epochs = [out[i * 1000 : (i + 1) * 1000] for i in range(3)]
    for epoch in epochs:
        assert sorted(epoch) == list(range(1000))
    assert epochs[0] != epochs[1] != epochs[2] != epochs[0]


def test_same_seed_same_batches_on_a_fresh_pipeline(parquet_files):
    a = [b.to_pydict() for b in shuffled(parquet_files, seed=3)]
    b = [b.to_pydict() for b in shuffled(parquet_files, seed=3)]
    assert a == b
    assert [x["id"] for x in a] != [list(range(i, min(i + 32, 1000))) for i in range(0, 1000, 32)]


def test_other_seeds_give_other_orders(parquet_files):
    orders = {tuple(ids_of(shuffled(parquet_files, seed=s))) for s in range(5)}
    assert len(orders) == 5
    assert all(sorted(order) == list(range(1000)) for order in orders)


def test_each_pass_reshuffles_deterministically(parquet_files):
    ds = shuffled(parquet_files, seed=11)
    first, second = ids_of(ds), ids_of(ds)
    assert first != second and sorted(first) == sorted(second)
    again = shuffled(parquet_files, seed=11)
    assert ids_of(again) == first and ids_of(again) == second
    assert ids_of(ds.iterate(epoch=1)) == second


def test_reshuffle_each_iteration_false_repeats_the_order(parquet_files):
    ds = shuffled(parquet_files, seed=2, reshuffle_each_iteration=False)
    assert ids_of(ds) == ids_of(ds)
    repeated = ids_of(
        Dataset.from_parquet(parquet_files)
        .shuffle(100, seed=2, reshuffle_each_iteration=False)
        .repeat(2)
    )
    assert repeated[:1000] == repeated[1000:]


def test_unseeded_shuffles_differ():
    ds = Dataset.from_arrow(make_table(1000)).shuffle(1000)
    assert ids_of(ds) != ids_of(ds)


def test_buffer_covering_the_data_is_a_uniform_permutation():
    # Position of row 0 after shuffling 20 rows many times: roughly uniform.
    ds = Dataset.from_arrow(make_table(20)).shuffle(20, seed=0)
    positions = [ids_of(ds.iterate(e)).index(0) for e in range(2000)]
    counts = np.bincount(positions, minlength=20)
    assert counts.min() > 60 and counts.max() < 140  # expected 100 each


def test_small_buffer_mixes_within_its_window(tmp_path):
    # One ordered file read as one 20000-row batch; a 100-row buffer still draws each
    # output from a sliding window of buffer + block (1024) rows, not from the batch.
    path = tmp_path / "ordered.parquet"
    pq.write_table(make_table(20_000), path, row_group_size=20_000)
    out = np.array(ids_of(Dataset.from_parquet(path).shuffle(100, seed=0)))
    assert sorted(out) == list(range(20_000))
    window = 100 + 1024
    for k in range(0, 20_000 - window, 1024):  # the k-th block comes from rows < k + window
        assert out[k : k + 1024].max() < k + window
    assert not (out == np.arange(20_000)).all()


def test_order_does_not_depend_on_input_chunking(table):
    a = ids_of(Dataset.from_arrow(table.to_batches(max_chunksize=7)).shuffle(300, seed=5))
    b = ids_of(Dataset.from_arrow(table).map(lambda x: x).shuffle(300, seed=5))
    assert a == b and a != list(range(1000))


def test_files_and_row_groups_are_visited_in_a_seeded_order(parquet_files):
    # A buffer of 1 row barely mixes rows, so the order of row groups shows through.
    def group_order(seed):
        ids = ids_of(Dataset.from_parquet(parquet_files).shuffle(1, seed=seed))
        return list(dict.fromkeys(i // 50 for i in ids[::50]))

    assert group_order(1) == group_order(1)
    assert group_order(1) != group_order(2)
    assert group_order(1) != list(range(20))


def test_shuffle_after_batch_moves_whole_batches(table):
    ds = Dataset.from_arrow(table).batch(100).shuffle(4, seed=0)
    batches = [ids_of([b]) for b in ds]
    assert sorted(b[0] for b in batches) == list(range(0, 1000, 100))
    assert all(b == list(range(b[0], b[0] + 100)) for b in batches)
    assert [b[0] for b in batches] != list(range(0, 1000, 100))


@pytest.mark.parametrize("bad", [-1, 1.5, "1"])
def test_bad_seed_and_buffer(table, bad):
    with pytest.raises(TypeError, match="seed must be None or a non-negative integer"):
        Dataset.from_arrow(table).shuffle(10, seed=bad)
    with pytest.raises(ValueError, match="buffer_size must be a positive integer"):
        Dataset.from_arrow(table).shuffle(bad)
